#!/usr/bin/python3
"""The OCI object `corral seccomp` prints validates against the OCI runtime-spec
schema (../shared/oci-schema, v1.0.2), inside a minimal config.json.

Usage: oci_schema_test.py CORRAL_BINARY SCHEMA_DIR
Run with Debian's /usr/bin/python3 and python3-jsonschema (scripts/packages/seccomp.txt):
no C++ JSON-schema validator is among corral's dependencies.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import jsonschema


def main():
    corral, schema_dir = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    if not (schema_dir / "config-schema.json").exists():
        print(f"no OCI schema at {schema_dir}: expected tests/oci-schema in the checkout")
        return 1
    schema = json.load(open(schema_dir / "config-schema.json"))
    resolver = jsonschema.RefResolver(base_uri=schema_dir.as_uri() + "/", referrer=schema)
    failures = 0
    with tempfile.TemporaryDirectory() as home:
        # No user config: the defaults, whatever the machine's own config says.
        env = {k: v for k, v in os.environ.items() if not k.startswith("CORRAL_")}
        env["XDG_CONFIG_HOME"] = home
        env["HOME"] = home
        for extra in ([], ["--set", "seccomp.allow_ptrace=true"]):
            out = subprocess.run([corral, *extra, "seccomp", "--format", "oci"], env=env,
                                 check=True, capture_output=True, text=True).stdout
            seccomp = json.loads(out)
            config = {"ociVersion": "1.0.2", "root": {"path": "rootfs"},
                      "linux": {"seccomp": seccomp}}
            try:
                jsonschema.validate(config, schema, resolver=resolver)
                print(f"valid: corral {' '.join(extra)} seccomp --format oci "
                      f"({len(seccomp['syscalls'])} rules)")
            except jsonschema.ValidationError as error:
                print(f"INVALID ({' '.join(extra)}): {error.message} at {list(error.path)}")
                failures += 1
    # The control: a broken action must fail, or the $refs were not followed.
    seccomp["syscalls"][0]["action"] = "SCMP_ACT_BOGUS"
    try:
        jsonschema.validate({"ociVersion": "1.0.2", "linux": {"seccomp": seccomp}}, schema,
                            resolver=resolver)
        print("the schema accepted SCMP_ACT_BOGUS: it is not being applied")
        failures += 1
    except jsonschema.ValidationError:
        print("control: an unknown action is rejected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
