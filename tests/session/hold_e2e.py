#!/usr/bin/env python3
"""A held run on a real engine (docs/sessions.md, "Held runs"): a headless
run in a folder corral does not know waits and its box is not made; `corral
allow DIR` releases it and the box runs (it writes a file into the project);
the next run there starts at once.

Usage: hold_e2e.py docker|podman CORRAL SHIM
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


def main():
    e2e.start_engine()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-hold-{ENGINE}-"))
    os.chmod(work, 0o755)
    try:
        proj = work / "proj"
        proj.mkdir()
        os.chmod(proj, 0o777)  # the box's user writes the marker
        (work / "home").mkdir()
        (work / "run").mkdir(mode=0o700)
        env = dict(os.environ)
        env.update({
            "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
            "CORRAL_ENGINE": f"unix://{e2e.SOCKET}", "CORRAL_SHIM": e2e.SHIM,
            "CORRAL_HOLD_WAIT_MINUTES": "5",
            # Nobody watching, whatever terminal another test uses meanwhile
            # (the tty source reads the last input on any of root's).
            "CORRAL_PRESENCE_SOURCES": "",
        })
        for name in ("CORRAL_CONFIG", "CORRAL_LEVEL", "CORRAL_IMAGE", "DOCKER_HOST",
                     "CORRAL_HOLD_UNKNOWN_FOLDERS"):
            env.pop(name, None)
        # Held says so before anything is built: the image a --build folder would
        # make is not on the engine after a run held with no wait.
        context = work / "image-context"
        context.mkdir()
        (context / "Dockerfile").write_text("FROM corral-tools:2\nRUN touch /built\n")
        never = f"corral-held-never-built-{os.getpid()}:1"
        r = run([CORRAL, "run", "--headless", "--build", str(context), "--image", never, "--",
                 "/bin/busybox", "true"], cwd=proj, env=dict(env, CORRAL_HOLD_WAIT_MINUTES="0"),
                stdin=subprocess.DEVNULL, timeout=120)
        image = run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--unix-socket",
                     e2e.SOCKET, f"http://engine/v1.41/images/{never}/json"])
        check(r.returncode == 75 and r.stderr.startswith("corral: not started: nobody is watching")
              and image.stdout == "404",
              "a held run says so before anything is built (its --build image was not made)",
              f"exit {r.returncode}, image {image.stdout}: {r.stderr[-600:]}")

        marker = proj / "box-ran"
        command = [CORRAL, "run", "--headless", "--image", "corral-tools:2", "--",
                   "/bin/busybox", "touch", str(marker)]

        held_run = subprocess.Popen(command, cwd=proj, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        held = []
        deadline = time.monotonic() + 60
        while not held and time.monotonic() < deadline and held_run.poll() is None:
            held = json.loads(run([CORRAL, "held", "--json"], env=env).stdout or "[]")
            time.sleep(0.1)
        check(len(held) == 1 and held[0]["folder"] == str(proj),
              "a headless run in an unknown folder is held", held)
        time.sleep(1)
        check(held_run.poll() is None and not marker.exists(),
              "while held, it waits and its box does not run")
        allow = run([CORRAL, "allow", str(proj)], env=env)
        check(allow.returncode == 0 and
              f"released: corral run /bin/busybox touch {marker} in {proj}" in allow.stdout,
              "corral allow names the run it releases", allow.stdout + allow.stderr)
        try:
            _, err = held_run.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            held_run.kill()
            _, err = held_run.communicate()
        check(held_run.returncode == 0 and marker.exists(),
              "released, the box runs (it wrote its file into the project)",
              f"exit {held_run.returncode}: {err[-600:]}")
        check("released" in err, "the run says it was released", err[-600:])

        marker.unlink(missing_ok=True)
        again = run(command, cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=300)
        check(again.returncode == 0 and marker.exists() and "held" not in again.stderr,
              "the next run in the allowed folder starts at once",
              f"exit {again.returncode}: {again.stderr[-600:]}")
    finally:
        subprocess.run(["rm", "-rf", str(work)])
    print(f"{ENGINE}: {e2e.RESULTS['pass']} passed, {e2e.RESULTS['fail']} failed")
    sys.exit(1 if e2e.RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
