#!/usr/bin/env python3
"""The refused command, not the agent's wrapper (issue 33): a box's shell is
given Claude Code's text for a command (its shell snapshot sourced, the
command in `eval '...'`) while nobody watches. The session's end line and
`corral inbox` name `aws s3 ls --recursive`; `corral inbox --full` adds the
whole text; `--json` has both.

Usage: refused_lines_e2e.py docker|podman CORRAL SHIM
"""
import json
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import session_e2e as e2e  # noqa: E402  (same arguments: ENGINE CORRAL SHIM)

ENGINE, CORRAL, check, run = e2e.ENGINE, e2e.CORRAL, e2e.check, e2e.run

WRAPPED = ("source /root/.claude/shell-snapshots/snapshot-bash-1750000000000-ab12cd.sh && "
           "eval 'aws s3 ls --recursive' \\< /dev/null && pwd -P >| /tmp/claude-5d2e-cwd")


def main():
    e2e.start_engine()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-refused-lines-{ENGINE}-"))
    os.chmod(work, 0o755)
    try:
        proj = work / "proj"
        proj.mkdir()
        (work / "home").mkdir()
        (work / "run").mkdir(mode=0o700)
        env = dict(os.environ)
        env.update({
            "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
            "CORRAL_SHIM": e2e.SHIM, "CORRAL_ENGINE": f"unix://{e2e.SOCKET}",
            "CORRAL_HOLD_UNKNOWN_FOLDERS": "off", "CORRAL_LEVEL": "always",
            "CORRAL_PRESENCE_SOURCES": "",
        })
        for name in ("CORRAL_CONFIG", "CORRAL_IMAGE", "CORRAL_ENGINE_MODE", "DOCKER_HOST"):
            env.pop(name, None)
        r = run([CORRAL, "run", "--headless", "--image", "corral-test:latest", "--", "/bin/sh",
                 "-c", f"/run/corral/bin/sh -c {shlex.quote(WRAPPED)}; echo agent-said-$?"],
                cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=300)
        end = [line for line in r.stderr.splitlines() if "blocked while you were away" in line]
        check("agent-said-1" in r.stdout + r.stderr and len(end) == 1 and
              "(`aws s3 ls --recursive`)" in end[0] and "shell-snapshots" not in end[0],
              "the end line names the refused command, not the agent's wrapper",
              f"exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-800:]}")

        r = run([CORRAL, "inbox", "--keep"], env=env)
        check(r.returncode == 0 and "  aws s3 ls --recursive\n" in r.stdout and
              "on the deny list as `aws`" in r.stdout and "shell-snapshots" not in r.stdout,
              "corral inbox shows the refused command", r.stdout)
        r = run([CORRAL, "inbox", "--keep", "--full"], env=env)
        check(r.returncode == 0 and "aws s3 ls --recursive" in r.stdout and
              f"the agent's whole text: {WRAPPED}" in r.stdout,
              "corral inbox --full adds the agent's whole text", r.stdout)
        r = run([CORRAL, "inbox", "--json"], env=env)
        items = json.loads(r.stdout or "[]")
        check(len(items) == 1 and items[0]["refused"] == "aws s3 ls --recursive" and
              items[0]["command"] == WRAPPED, "corral inbox --json has both", r.stdout)
    finally:
        subprocess.run(["rm", "-rf", str(work)])
    print(f"{ENGINE}: {e2e.RESULTS['pass']} passed, {e2e.RESULTS['fail']} failed")
    sys.exit(1 if e2e.RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
