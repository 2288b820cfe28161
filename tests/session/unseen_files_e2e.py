#!/usr/bin/env python3
"""An engine that cannot see this machine's files (issue 33): corral runs in a
mount namespace of its own, where the project is on a tmpfs the engine does
not have (as with an engine in a VM or on another machine, whose paths differ
from this machine's). The box's bind of the project fails on the engine;
corral says so in one line naming CORRAL_ENGINE_MODE=network and
CORRAL_PROJECT_SHARED=0, not with the engine's raw error, and with those the
same session runs: the project
is copied to the engine through a volume and what the box wrote comes back.

Usage: unseen_files_e2e.py docker|podman CORRAL SHIM
"""
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import session_e2e as e2e  # noqa: E402  (same arguments: ENGINE CORRAL SHIM)

ENGINE, CORRAL, check, run = e2e.ENGINE, e2e.CORRAL, e2e.check, e2e.run


def in_own_mounts(work, script, env):
    """`script` run by sh in a new mount namespace where work/hidden is a
    tmpfs holding proj/ (the engine sees the empty folder beneath)."""
    hidden = work / "hidden"
    setup = (f"mount -t tmpfs corral-unseen {shlex.quote(str(hidden))} && "
             f"mkdir -m 755 {shlex.quote(str(hidden / 'proj'))} && "
             f"cd {shlex.quote(str(hidden / 'proj'))} && ")
    return run(["unshare", "--mount", "--propagation", "private", "sh", "-c", setup + script],
               env=env, stdin=subprocess.DEVNULL, timeout=600)


def main():
    e2e.start_engine()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-unseen-{ENGINE}-"))
    os.chmod(work, 0o755)
    try:
        (work / "hidden").mkdir()
        (work / "home").mkdir()
        (work / "run").mkdir(mode=0o700)
        env = dict(os.environ)
        env.update({
            "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
            "CORRAL_SHIM": e2e.SHIM, "CORRAL_HOLD_UNKNOWN_FOLDERS": "off",
            "CORRAL_LEVEL": "always", "CORRAL_PRESENCE_SOURCES": "",
        })
        for name in ("CORRAL_CONFIG", "CORRAL_IMAGE", "CORRAL_ENGINE", "CORRAL_ENGINE_MODE", "CORRAL_PROJECT_SHARED",
                     "DOCKER_HOST"):
            env.pop(name, None)
        proj = work / "hidden/proj"
        corral = (f"{shlex.quote(CORRAL)} run --headless --engine unix://{e2e.SOCKET} "
                  f"--image corral-test:latest -- /bin/busybox touch {shlex.quote(str(proj))}/box-ran")

        r = in_own_mounts(work, corral, env)
        lines = [line for line in r.stderr.splitlines() if "cannot see this machine's files" in line]
        check(r.returncode == 125 and len(lines) == 1 and str(proj) in lines[0] and
              "CORRAL_ENGINE_MODE=network CORRAL_PROJECT_SHARED=0" in lines[0],
              "a bind the engine cannot see: one line naming CORRAL_ENGINE_MODE=network",
              f"exit {r.returncode}: {r.stderr[-1200:]}")
        check("HTTP 400" not in r.stderr and "HTTP 500" not in r.stderr and
              "bind source path does not exist" not in r.stderr and "statfs" not in r.stderr,
              "the engine's raw error is not printed", r.stderr[-1200:])

        r = in_own_mounts(work, f"CORRAL_ENGINE_MODE=network CORRAL_PROJECT_SHARED=0 {corral} && ls box-ran", env)
        check(r.returncode == 0 and "box-ran" in r.stdout,
              "with CORRAL_ENGINE_MODE=network the session runs and its write comes back",
              f"exit {r.returncode}: {r.stdout[-400:]} {r.stderr[-1200:]}")
    finally:
        subprocess.run(["rm", "-rf", str(work)])
    print(f"{ENGINE}: {e2e.RESULTS['pass']} passed, {e2e.RESULTS['fail']} failed")
    sys.exit(1 if e2e.RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
