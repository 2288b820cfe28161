#!/usr/bin/env python3
"""corral doctor against a real engine: exit 0 and the engine's line.

Starts the engine with tests/engines/start, or uses $CORRAL_TEST_ENGINE_SOCKET
(tests/engines/as_user: an ordinary user's engine). When it cannot start: a
failure under CORRAL_REQUIRE_ENGINES=1, else a skip that says so.

Usage: doctor_engine_test.py docker|podman CORRAL SHIM
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engines"))
import started  # noqa: E402  (tests/engines/started.py)

ENGINE, CORRAL, SHIM = sys.argv[1:4]
failed = 0


def check(ok, what, output=""):
    global failed
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        failed += 1
        print(output)


def socket_path():
    if os.environ.get("CORRAL_TEST_ENGINE_SOCKET"):
        return os.environ["CORRAL_TEST_ENGINE_SOCKET"]
    started.start_engine(ENGINE)
    return f"/run/corral-test/{ENGINE}.sock"


def main():
    sock = socket_path()
    env = dict(os.environ, CORRAL_ENGINE="unix://" + sock, CORRAL_SHIM=SHIM)
    start = time.monotonic()
    out = subprocess.run([CORRAL, "doctor"], capture_output=True, text=True, env=env,
                         stdin=subprocess.DEVNULL, timeout=120)
    elapsed = time.monotonic() - start
    print(out.stdout, end="")
    check(out.returncode == 0, f"corral doctor on {ENGINE} exits 0 ({elapsed:.1f} s)",
          out.stdout + out.stderr)
    engine = next((l for l in out.stdout.splitlines() if l[6:].startswith("engine: ")), "")
    check(engine.startswith(f"ok    engine: {ENGINE} ") and f" at unix://{sock}, " in engine,
          "the engine line names the engine, its version and its socket", engine)
    rootless = os.getuid() != 0 and ENGINE == "podman"
    check(engine.endswith(", rootless" if rootless else ", rootful"),
          "the engine line says " + ("rootless" if rootless else "rootful"), engine)
    check(out.stdout.endswith("A boxed session can start here.\n"), "the verdict line", out.stdout)

    report = subprocess.run([CORRAL, "doctor", "--json"], capture_output=True, text=True, env=env,
                            stdin=subprocess.DEVNULL, timeout=120)
    checks = {c["name"]: c for c in json.loads(report.stdout)["checks"]}
    check(report.returncode == 0 and json.loads(report.stdout)["ok"], "--json says ok", report.stdout)
    runtime = checks["runtime"]
    check(runtime["status"] in ("ok", "warn") and runtime["detail"].startswith("runtime "),
          "the runtime line names the engine's runtime", json.dumps(runtime))
    check(checks["user namespace"]["status"] == "ok", "the user-namespace mapping is in place",
          json.dumps(checks["user namespace"]))
    check(checks["image"]["status"] in ("ok", "warn"), "the image line", json.dumps(checks["image"]))
    print(f"{ENGINE} doctor: {failed} failed")
    sys.exit(1 if failed else 0)


main()
