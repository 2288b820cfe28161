#!/usr/bin/env python3
"""corral's own image (the top-level Dockerfile) on a real engine: `corral
image build corral` builds it through the engine's API, and a container of
it, started with nothing but its default entry point, is a proxy listening
on 0.0.0.0:3128, run by nobody (65534).

Usage: corral_image.py docker|podman CORRAL
"""
import json
import os
import pathlib
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
from engine_api import Api  # noqa: E402  (tests/engines/engine_api.py)

ENGINE, CORRAL = sys.argv[1], sys.argv[2]
TOP = pathlib.Path(__file__).resolve().parent.parent.parent
SOCK = f"/run/corral-test/{ENGINE}.sock"
RESULTS = {"pass": 0, "fail": 0}


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{ENGINE}: {what}" + ("" if ok else f"  [{detail}]"),
          flush=True)


API = Api(f"unix://{SOCK}")


def api(method, path, body=None):
    return API.call(method, path, body)


def run_image(tag, cmd=None, seconds=20, until=None):
    """Starts a container of `tag` (its own entry point; `cmd` when given), without a
    network; returns its logs once `until` shows up or it exits."""
    body = {"Image": tag, "HostConfig": {"NetworkMode": "none"}}
    if cmd is not None:
        body["Cmd"] = cmd
    status, data = api("POST", "/containers/create", body)
    if status != 201:
        return f"create failed: {status} {data[:300]!r}", None
    container = json.loads(data)["Id"]
    api("POST", f"/containers/{container}/start")
    deadline, text = time.monotonic() + seconds, ""
    while time.monotonic() < deadline:
        text = API.logs(container)
        if until and until in text:
            break
        _, state = api("GET", f"/containers/{container}/json")
        if not json.loads(state)["State"]["Running"]:
            text = API.logs(container)
            break
        time.sleep(0.3)
    _, inspect = api("GET", f"/containers/{container}/json")
    api("DELETE", f"/containers/{container}?force=1")
    return text, json.loads(inspect)


def main():
    r = subprocess.run([str(TOP / "tests/engines/start"), ENGINE], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        if os.environ.get("CORRAL_REQUIRE_ENGINES") == "1":
            print(f"FAIL {ENGINE} could not start (CORRAL_REQUIRE_ENGINES=1)")
            return 1
        print(f"SKIP {ENGINE} could not start")
        return 0
    env = dict(os.environ, CORRAL_ENGINE=f"unix://{SOCK}")
    start = time.monotonic()
    r = subprocess.run([CORRAL, "image", "build", "corral"], capture_output=True, text=True,
                       env=env, timeout=1200)
    print(f"TIME {ENGINE} build corral {time.monotonic() - start:.1f}s", flush=True)
    tag = r.stdout.strip()
    check(r.returncode == 0 and tag.startswith("corral:"),
          "corral image build corral builds corral's image", r.stderr[-1500:])
    if r.returncode != 0:
        return 1
    version = subprocess.run([CORRAL, "--version"], capture_output=True, text=True).stdout.split()
    text, _ = run_image(tag, ["--version"])
    check(version and version[-1] in text, f"{tag}: corral --version runs in it", text[-300:])

    text, inspect = run_image(tag, until="listening on 0.0.0.0:3128")
    check("corral proxy: listening on 0.0.0.0:3128" in text,
          f"{tag}: its entry point is a ready proxy on 0.0.0.0:3128", text[-500:])
    user = (inspect or {}).get("Config", {}).get("User", "")
    check(user.startswith("65534"), f"{tag}: the proxy runs as nobody (65534)", user)
    # The shim and the shell beside corral, where corral finds them.
    status, data = api("POST", "/containers/create", {"Image": tag})
    container = json.loads(data).get("Id", "") if status == 201 else ""
    for path in ("/usr/lib/corral/corral-shim", "/usr/lib/corral/corral-shell"):
        status, _ = api("GET", f"/containers/{container}/archive?path={urllib.parse.quote(path)}")
        check(status == 200, f"{tag}: has {path}", f"HTTP {status}")
    api("DELETE", f"/containers/{container}?force=1")
    print(f"{RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
