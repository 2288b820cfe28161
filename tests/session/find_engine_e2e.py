#!/usr/bin/env python3
"""Sessions find their engine (issue 33): a session started with --engine on
the test engine's socket is listed by `corral ps`, entered by `corral exec`,
reported by `corral report` and stopped by `corral stop ID` run with no --engine, no CORRAL_ENGINE and nothing at the usual
sockets: each reads the engine from the session's record. A running session
whose engine does not answer is named in one line; the listing goes on.

Usage: find_engine_e2e.py docker|podman CORRAL SHIM
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import session_e2e as e2e  # noqa: E402  (same arguments: ENGINE CORRAL SHIM)

ENGINE, CORRAL, check, run = e2e.ENGINE, e2e.CORRAL, e2e.check, e2e.run


def process_start(pid):
    stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2:].split()[19]


def main():
    e2e.start_engine()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-find-engine-{ENGINE}-"))
    os.chmod(work, 0o755)
    session = None
    try:
        proj = work / "proj"
        proj.mkdir()
        (work / "home").mkdir()
        (work / "run").mkdir(mode=0o700)
        env = dict(os.environ)
        env.update({
            "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
            "CORRAL_SHIM": e2e.SHIM,
            # Nothing answers where corral looks by itself.
            "CORRAL_ENGINE_SOCKETS": str(work / "no-engine.sock"),
        })
        for name in ("CORRAL_CONFIG", "CORRAL_LEVEL", "CORRAL_IMAGE", "CORRAL_ENGINE",
                     "DOCKER_HOST", "CONTAINER_HOST", "DOCKER_CONTEXT", "CONTAINER_CONNECTION"):
            env.pop(name, None)
        r = run([CORRAL, "allow", str(proj)], env=env)
        check(r.returncode == 0, "corral allow the project", r.stderr)
        r = run([CORRAL, "ps"], env=env)
        check(r.returncode != 0 and "no container engine answered" in r.stderr,
              "with no session and no engine, ps says no engine answered", r.stdout + r.stderr)

        box = subprocess.Popen(
            [CORRAL, "run", "--headless", "--engine", f"unix://{e2e.SOCKET}", "--image",
             "corral-tools:2", "--", "/bin/busybox", "sleep", "300"],
            cwd=proj, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 240
        listed = None
        while time.monotonic() < deadline and box.poll() is None:
            records = list((work / "state/corral/sessions").glob("*.jsonl"))
            if records:
                session = records[0].stem
                listed = run([CORRAL, "ps"], env=env)
                if session in listed.stdout:
                    break
            time.sleep(0.5)
        check(listed is not None and listed.returncode == 0 and session in listed.stdout and
              str(proj) in listed.stdout,
              "corral ps with no engine named lists the session started with --engine",
              (listed.stdout + listed.stderr) if listed else box.stderr)

        r = run([CORRAL, "exec", session, "--", "echo in-the-box"], env=env,
                stdin=subprocess.DEVNULL, timeout=120)
        check(r.returncode == 0 and r.stdout.strip() == "in-the-box",
              "corral exec with no engine named enters the session", r.stdout + r.stderr)
        r = run([CORRAL, "report", "--json", session], env=env)
        check(r.returncode == 0 and json.loads(r.stdout or "{}").get("endpoint") ==
              f"unix://{e2e.SOCKET}",
              "corral report of the running session names its engine", r.stdout + r.stderr)

        # A running session (this test's own process stands for its corral) on an
        # engine that does not answer: one line names it, the rest is listed.
        gone = "0123456789ab"
        (work / f"state/corral/sessions/{gone}.jsonl").write_text(json.dumps({
            "event": "session_started", "session": gone, "engine": "docker 20.10.24",
            "endpoint": f"unix://{work}/gone.sock", "project": "/elsewhere", "agent": "sh",
            "pid": os.getpid(), "pid_start": process_start(os.getpid())}) + "\n")
        r = run([CORRAL, "ps"], env=env)
        lines = [line for line in r.stdout.splitlines() if gone in line]
        check(r.returncode == 0 and session in r.stdout and len(lines) == 1 and
              f"unix://{work}/gone.sock" in lines[0] and "did not answer" in lines[0],
              "an engine that does not answer is named in one line; the listing goes on",
              r.stdout + r.stderr)

        r = run([CORRAL, "stop", session], env=env, timeout=120)
        check(r.returncode == 0, "corral stop ID with no engine named stops it", r.stdout + r.stderr)
        try:
            box.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            box.kill()
            box.communicate()
        check(box.returncode is not None, "the session's corral ends once its box is stopped")
        r = run([CORRAL, "ps", "--engine", f"unix://{e2e.SOCKET}"], env=env)
        check(r.returncode == 0 and session not in r.stdout, "the box is gone from the engine",
              r.stdout + r.stderr)
    finally:
        if session:
            run([CORRAL, "stop", "--engine", f"unix://{e2e.SOCKET}", session], env=env)
        subprocess.run(["rm", "-rf", str(work)])
    print(f"{ENGINE}: {e2e.RESULTS['pass']} passed, {e2e.RESULTS['fail']} failed")
    sys.exit(1 if e2e.RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
