"""An integration test's engine: tests/engines/start, or the test ends there.

A test whose engine cannot start is skipped with a line saying so, and fails
instead when CORRAL_REQUIRE_ENGINES=1 (as in CI)."""
import os
import pathlib
import subprocess
import sys

START = pathlib.Path(__file__).resolve().parent / "start"


def start_engine(engine):
    r = subprocess.run([str(START), engine], capture_output=True, text=True)
    if r.returncode == 0:
        return
    print(r.stdout + r.stderr)
    if os.environ.get("CORRAL_REQUIRE_ENGINES") == "1":
        print(f"FAIL {engine} could not start (CORRAL_REQUIRE_ENGINES=1)")
        sys.exit(1)
    print(f"SKIP {engine} could not start")
    sys.exit(0)
