#!/usr/bin/env python3
"""Mount points in the project (issue 27): what the box needs there and the
project did not have (node_modules/, .venv/, .git/hooks/) is made by corral as
the user before the box starts, and removed again when the session ends, if
it is still empty. Before, the OCI runtime made them as the box's root: a
subordinate uid under rootless Podman (e.g. 100000), root under rootful
Docker; either way a folder the user could not remove.

Usage: mount_points_e2e.py docker|podman CORRAL SHIM

Run as root, and as an ordinary user through tests/engines/as_user (rootless
Podman, or the test dockerd through the docker group). Each session is
checked afterwards: nothing in the project belongs to another uid, and the
folders corral made are gone; what the project had (a node_modules with a
file in it, an empty .venv) is kept as it was. The exit paths: the box's
command ending, corral stopped by SIGTERM, corral killed by SIGKILL (the
reaper), and two sessions in one project, the first to end leaving alone
what the other's box still has mounted.
"""
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
import started  # noqa: E402  (tests/engines/started.py)

ENGINE, CORRAL, SHIM = sys.argv[1], sys.argv[2], sys.argv[3]
# tests/engines/as_user: an engine started, with the images, for the ordinary user.
SOCKET = os.environ.get("CORRAL_TEST_ENGINE_SOCKET") or f"/run/corral-test/{ENGINE}.sock"
WHO = f"{ENGINE} as uid {os.getuid()}"
RESULTS = {"pass": 0, "fail": 0}
# What the box needs in the project and a fresh one lacks.
MADE = ("node_modules", ".venv", ".git/hooks")


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{WHO}: {what}" + ("" if ok else f"  [{detail}]"),
          flush=True)


def fresh_project(parent, name):
    """A git project with no hooks folder (git init with no template), no
    node_modules and no .venv."""
    proj = parent / name
    proj.mkdir()
    subprocess.run(["git", "init", "-q", "--template=", str(proj)], check=True)
    (proj / "README").write_text("a project\n")
    assert not (proj / ".git" / "hooks").exists()
    return proj


def foreign(proj):
    """Every path in the project that belongs to another uid or gid."""
    me = (os.getuid(), os.getgid())
    found = []
    paths = [str(proj)]
    for root, dirs, files in os.walk(proj):
        paths += [os.path.join(root, name) for name in dirs + files]
    for path in paths:
        st = os.lstat(path)
        if (st.st_uid, st.st_gid) != me:
            found.append(f"{path} ({st.st_uid}:{st.st_gid})")
    return found


def left_over(proj):
    return [p for p in MADE if os.path.lexists(proj / p)]


class Corral:
    def __init__(self, work):
        self.env = dict(os.environ)
        for name in ("CORRAL_CONFIG", "CORRAL_IMAGE", "DOCKER_HOST", "CORRAL_ENGINE_MODE",
                     "CORRAL_PROJECT_SHARED"):
            self.env.pop(name, None)
        (work / "home").mkdir()
        (work / "run").mkdir(mode=0o700)
        self.env.update({
            "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
            "CORRAL_ENGINE": f"unix://{SOCKET}", "CORRAL_SHIM": SHIM, "CORRAL_LEVEL": "always",
            "CORRAL_HOLD_UNKNOWN_FOLDERS": "off", "CORRAL_PRESENCE_SOURCES": "",
        })

    def command(self, script):
        return [CORRAL, "run", "--headless", "--image", "corral-test:latest", "--",
                "/bin/busybox", "sh", "-c", script]

    def run(self, proj, script):
        return subprocess.run(self.command(script), cwd=proj, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=300)

    def start(self, proj, script):
        return subprocess.Popen(self.command(script), cwd=proj, env=self.env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_for(predicate, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


# In the box: the mount points are there (the volumes, the read-only hooks).
SEES_MOUNTS = ('grep -q " $PWD/node_modules " /proc/self/mountinfo && '
               'grep -q " $PWD/.git/hooks " /proc/self/mountinfo && echo MOUNTED; ')


def prove_fresh_project(corral, work):
    proj = fresh_project(work, "fresh")
    r = corral.run(proj, SEES_MOUNTS + "echo in-volume > node_modules/pkg; touch box-ran")
    check(r.returncode == 0 and (proj / "box-ran").exists() and "MOUNTED" in r.stdout,
          "a session in a fresh project ran, with node_modules and .git/hooks mounted",
          f"exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-600:]}")
    check(not foreign(proj), "afterwards nothing in the project belongs to another uid",
          foreign(proj))
    check(not left_over(proj), "the folders corral made for the box are gone", left_over(proj))


def prove_what_was_there_is_kept(corral, work):
    proj = fresh_project(work, "had")
    (proj / "node_modules").mkdir()
    (proj / "node_modules" / "kept.js").write_text("the user's\n")
    (proj / ".venv").mkdir()  # empty, but the user's: it stays
    r = corral.run(proj, SEES_MOUNTS + "touch box-ran")
    check(r.returncode == 0 and "MOUNTED" in r.stdout, "a session in a project with "
          "node_modules and .venv ran", f"exit {r.returncode}: {r.stderr[-600:]}")
    check((proj / "node_modules" / "kept.js").read_text() == "the user's\n"
          and sorted(os.listdir(proj / "node_modules")) == ["kept.js"],
          "the project's own node_modules is kept, with its content",
          list(os.listdir(proj / "node_modules")) if (proj / "node_modules").exists() else "gone")
    check((proj / ".venv").is_dir(), "the project's own empty .venv is kept")
    check(not (proj / ".git" / "hooks").exists(), "the .git/hooks corral made is gone")
    check(not foreign(proj), "nothing in the project belongs to another uid", foreign(proj))


def prove_content_is_kept(corral, work):
    """A folder corral made that got content on this machine while the box
    ran is the user's now: kept."""
    proj = fresh_project(work, "content")
    p = corral.start(proj, "touch up; while [ ! -e go ]; do sleep 0.1; done")
    up = wait_for(lambda: (proj / "up").exists() or p.poll() is not None)
    check(up and p.poll() is None, "a session is up", p.poll())
    try:
        (proj / ".venv" / "note").write_text("written on the host\n")
        wrote = ""
    except OSError as e:  # a .venv the runtime made belongs to the box's root
        wrote = str(e)
    check(not wrote, "the user can write into the .venv made for the box", wrote)
    (proj / "go").touch()
    _, err = p.communicate(timeout=120)
    check(p.returncode == 0, "it ended", f"exit {p.returncode}: {err[-600:]}")
    check((proj / ".venv" / "note").exists(), "a made folder with content is kept, content and all")
    check(not (proj / "node_modules").exists() and not (proj / ".git" / "hooks").exists(),
          "the empty ones are gone", left_over(proj))
    check(not foreign(proj), "nothing in the project belongs to another uid", foreign(proj))


def prove_stopped(corral, work):
    proj = fresh_project(work, "stopped")
    p = corral.start(proj, "touch up; sleep 120")
    up = wait_for(lambda: (proj / "up").exists() or p.poll() is not None)
    check(up and p.poll() is None, "a session is up, to be stopped", p.poll())
    os.kill(p.pid, signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    check(p.returncode == 128 + signal.SIGTERM, "corral stopped by SIGTERM ends the box",
          f"exit {p.returncode}: {err[-600:]}")
    check(not left_over(proj), "stopped: the folders corral made are gone", left_over(proj))
    check(not foreign(proj), "stopped: nothing in the project belongs to another uid",
          foreign(proj))


def prove_killed(corral, work):
    proj = fresh_project(work, "killed")
    p = corral.start(proj, "touch up; sleep 120")
    up = wait_for(lambda: (proj / "up").exists() or p.poll() is not None)
    check(up and p.poll() is None, "a session is up, to be killed", p.poll())
    os.kill(p.pid, signal.SIGKILL)
    p.communicate()
    # The reaper removes the box, then the empty folders corral made.
    gone = wait_for(lambda: not left_over(proj), 60)
    check(gone, "corral SIGKILLed: the reaper removed the box, then the folders corral made",
          left_over(proj))
    check(not foreign(proj), "killed: nothing in the project belongs to another uid",
          foreign(proj))


def prove_two_sessions(corral, work):
    """The first session made the mount points; a second one's box has them
    mounted. When the first ends, it must not remove them: a folder removed
    on the host is unmounted in every box (Linux detaches the mounts on it),
    and the second box could then write .git/hooks, which git on this machine
    runs."""
    proj = fresh_project(work, "two")
    first = corral.start(proj, "touch first-up; while [ ! -e first-go ]; do sleep 0.1; done")
    up = wait_for(lambda: (proj / "first-up").exists() or first.poll() is not None)
    check(up and first.poll() is None, "the first session is up", first.poll())
    second = corral.start(proj, "touch second-up; while [ ! -e second-go ]; do sleep 0.1; done; "
                          + SEES_MOUNTS + "mkdir -p .git/hooks; "
                          "echo 'touch hooked' > .git/hooks/post-checkout 2>/dev/null "
                          "&& echo HOOK-WRITTEN || echo HOOK-REFUSED")
    up = wait_for(lambda: (proj / "second-up").exists() or second.poll() is not None)
    check(up and second.poll() is None, "the second session is up", second.poll())
    (proj / "first-go").touch()
    _, err = first.communicate(timeout=120)
    check(first.returncode == 0, "the first session ended", f"exit {first.returncode}: {err[-600:]}")
    (proj / "second-go").touch()
    out, err = second.communicate(timeout=120)
    check(second.returncode == 0 and "MOUNTED" in out,
          "the second box still had node_modules and .git/hooks mounted after the first ended",
          f"exit {second.returncode}: {out[-300:]} {err[-600:]}")
    check("HOOK-REFUSED" in out and not (proj / ".git" / "hooks" / "post-checkout").exists(),
          "the second box still could not write .git/hooks", out[-300:])
    check(not foreign(proj), "two sessions: nothing in the project belongs to another uid",
          foreign(proj))


def main():
    if not os.environ.get("CORRAL_TEST_ENGINE_SOCKET"):
        started.start_engine(ENGINE)
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-mountpoints-{ENGINE}-"))
    os.chmod(work, 0o755)
    try:
        corral = Corral(work)
        prove_fresh_project(corral, work)
        prove_what_was_there_is_kept(corral, work)
        prove_content_is_kept(corral, work)
        prove_stopped(corral, work)
        prove_killed(corral, work)
        prove_two_sessions(corral, work)
    finally:
        # Root can remove what the box left; the ordinary user needs the engine's
        # user namespace for a subordinate uid's folder.
        r = subprocess.run(["rm", "-rf", str(work)], capture_output=True)
        if r.returncode != 0 and ENGINE == "podman" and os.getuid() != 0:
            subprocess.run(["podman", "unshare", "rm", "-rf", str(work)], capture_output=True)
    print(f"{WHO}: {RESULTS['pass']} passed, {RESULTS['fail']} failed")
    sys.exit(1 if RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
