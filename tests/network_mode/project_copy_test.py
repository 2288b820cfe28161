#!/usr/bin/env python3
"""The network mode's project volume on a real engine (docs/network-mode.md),
through `corral project-copy in|back SESSION` (hidden: no session uses it yet),
`corral ps` and `corral stop`.

A git project is copied into corral-ID-project; a box (corral-tools:2, as uid
1000, no network) edits, creates, deletes, changes modes, makes symlinks that
point out of the project, and commits; this machine edits one of the same
files. The copy-back brings the box's work home (the commit too), keeps this
machine's version of the file changed on both sides and writes the box's
beside it, leaves nothing outside the project, and removes the volume and the
manifest. Then: a copy-back killed half way, finished by `corral stop ID`
(which `corral ps` names beforehand); a session killed before any copy-back,
the same; a copy-in that fails leaves nothing.

Usage: project_copy_test.py docker|podman CORRAL
"""
import json
import os
import pathlib
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "engines"))
sys.path.insert(0, HERE)
from network_mode_test import Api, check, RESULTS  # noqa: E402

IMAGE = "corral-tools:2"


def git(project, *args):
    return subprocess.run(["git", "-C", project, "-c", "user.email=t@t", "-c", "user.name=t",
                           *args], capture_output=True, text=True)


def make_project(root):
    project = os.path.join(root, "project")
    os.makedirs(os.path.join(project, "src"))
    files = {"a.txt": "alpha\n", "keep.txt": "keep\n", "gone.txt": "gone\n",
             "both.txt": "both\n", "run.sh": "#!/bin/sh\necho hi\n", "src/main.c": "int main;\n"}
    for name, text in files.items():
        pathlib.Path(project, name).write_text(text)
    os.chmod(os.path.join(project, "run.sh"), 0o755)
    os.symlink("a.txt", os.path.join(project, "link"))
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "first")
    return project


def run_box(api, volume, script):
    """A box as uid 1000 with no network and the project volume at /work/p."""
    body = {"Image": IMAGE, "Cmd": ["bash", "-c", script], "User": "1000:1000",
            "Env": ["HOME=/tmp", "PATH=/usr/local/bin:/usr/bin:/bin"], "WorkingDir": "/work/p",
            "NetworkDisabled": True,
            "HostConfig": {"NetworkMode": "none", "CapDrop": ["ALL"],
                           "Mounts": [{"Type": "volume", "Source": volume, "Target": "/work/p"}]}}
    status, data = api.call("POST", "/containers/create", body)
    if status != 201:
        return f"create: {status} {data[:300]!r}", None
    box = json.loads(data)["Id"]
    api.call("POST", f"/containers/{box}/start")
    _, waited = api.call("POST", f"/containers/{box}/wait")
    text = api.logs(box)
    api.call("DELETE", f"/containers/{box}?force=1")
    return text, json.loads(waited).get("StatusCode")


def volume(api, name):
    status, data = api.json(f"/volumes/{name}")
    return data if status == 200 else None


def read(path):
    try:
        return pathlib.Path(path).read_text()
    except OSError as e:
        return f"<{e.strerror}>"


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


BOX_EDITS = r"""
set -e
echo box > a.txt
rm gone.txt
mkdir -p new/deep
echo n > new/deep/file
chmod 0640 new/deep/file
chmod 0644 run.sh
echo boxside > both.txt
ln -sfn /etc/passwd link
ln -s /etc escape
git -c user.email=b@b -c user.name=box commit -qam "box commit"
echo box-done
"""


def round_trip(label, api, corral, env, args, root):
    project = make_project(root)
    session = secrets.token_hex(6)
    name = f"corral-{session}-project"
    r = subprocess.run([corral, "project-copy", "in", session, *args, "--project", project,
                        "--image", IMAGE, "--uid", "1000", "--gid", "1000"],
                       capture_output=True, text=True, env=env, timeout=300)
    check(r.returncode == 0, f"{label}: copy in", r.stdout + r.stderr)
    check(f"copied into the volume {name}" in r.stdout and f"corral stop {session}" in r.stdout,
          f"{label}: the line says the project is copied and how its work comes back", r.stdout)
    manifest = os.path.join(env["XDG_STATE_HOME"], "corral", "sessions", f"{session}.copy.json")
    check(os.path.exists(manifest) and mode(manifest) == 0o600,
          f"{label}: the manifest is saved, 0600", manifest)
    vol = volume(api, name) or {}
    labels = vol.get("Labels") or {}
    check(labels.get("corral.session") == session and labels.get("corral.part") == "project"
          and labels.get("corral.project") == project,
          f"{label}: the volume is labelled with the session, its part and the project", labels)
    text, code = run_box(api, name, BOX_EDITS)
    check(code == 0 and "box-done" in text, f"{label}: the box (uid 1000) edits and commits", text)
    pathlib.Path(project, "both.txt").write_text("hostside\n")  # this machine, meanwhile
    r = subprocess.run([corral, "ps", *args], capture_output=True, text=True, env=env, timeout=60)
    check(f"{session}: the box's work on {project} is kept in the volume {name}" in r.stdout
          and f"corral stop {session}" in r.stdout, f"{label}: corral ps names the kept volume",
          r.stdout + r.stderr)
    started = time.monotonic()
    r = subprocess.run([corral, "project-copy", "back", session, *args],
                       capture_output=True, text=True, env=env, timeout=300)
    took = time.monotonic() - started
    check(r.returncode == 0, f"{label}: copy back ({took:.2f} s)", r.stdout + r.stderr)
    check(read(f"{project}/a.txt") == "box\n", f"{label}: an edit came home")
    check(not os.path.lexists(f"{project}/gone.txt"), f"{label}: a deletion came home")
    check(read(f"{project}/new/deep/file") == "n\n" and mode(f"{project}/new/deep/file") == 0o640,
          f"{label}: a new file in new folders, with its mode")
    check(mode(f"{project}/run.sh") == 0o644, f"{label}: a mode change came home")
    beside = f"{project}/both.txt.corral-{session}"
    check(read(f"{project}/both.txt") == "hostside\n" and read(beside) == "boxside\n",
          f"{label}: changed on both sides: this machine's kept, the box's beside it",
          read(f"{project}/both.txt") + read(beside))
    check(f"both.txt.corral-{session}" in r.stdout, f"{label}: the conflict is named", r.stdout)
    check(os.path.islink(f"{project}/link") and os.readlink(f"{project}/link") == "/etc/passwd"
          and os.path.islink(f"{project}/escape") and os.readlink(f"{project}/escape") == "/etc",
          f"{label}: symlinks out of the project come home as links, not followed")
    check(read(f"{project}/keep.txt") == "keep\n", f"{label}: an untouched file is untouched")
    log = git(project, "log", "-1", "--format=%s")
    check(log.stdout.strip() == "box commit", f"{label}: the box's commit is in the project's git",
          log.stdout + log.stderr)
    fsck = git(project, "fsck", "--no-dangling")
    check(fsck.returncode == 0, f"{label}: git fsck after the copy-back", fsck.stdout + fsck.stderr)
    check(volume(api, name) is None and not os.path.exists(manifest),
          f"{label}: the volume and the manifest are gone after a complete copy-back")
    leftovers = [p for p in pathlib.Path(project).rglob("*.corral-tmp")]
    check(not leftovers, f"{label}: no temporary files left", leftovers)


def copy_in(label, corral, env, args, project, session):
    r = subprocess.run([corral, "project-copy", "in", session, *args, "--project", project,
                        "--image", IMAGE, "--uid", "1000", "--gid", "1000"],
                       capture_output=True, text=True, env=env, timeout=300)
    check(r.returncode == 0, f"{label}: copy in {session}", r.stdout + r.stderr)


MANY = 1500
MANY_FILES = f"""
set -e
mkdir many
for i in $(seq 1 {MANY}); do printf 'file %s\\n' $i > many/f$i; done
echo box-done
"""


def resumed(label, api, corral, env, args, root):
    """A copy-back killed half way, then `corral stop ID`; a session killed before
    any copy-back, then `corral stop ID`."""
    project = make_project(os.path.join(root, "resume"))
    session = secrets.token_hex(6)
    name = f"corral-{session}-project"
    copy_in(label, corral, env, args, project, session)
    text, code = run_box(api, name, MANY_FILES)
    check(code == 0, f"{label}: the box writes {MANY} files", text)
    back = subprocess.Popen([corral, "project-copy", "back", session, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 120
    many = pathlib.Path(project, "many")
    while time.monotonic() < deadline and back.poll() is None:
        if many.exists() and any(many.iterdir()):
            break
        time.sleep(0.005)
    back.send_signal(signal.SIGKILL)
    back.wait()
    there = len(list(many.iterdir())) if many.exists() else 0
    print(f"INFO {label}: copy-back killed with {there} of {MANY} files on this machine",
          flush=True)
    check(0 < there < MANY, f"{label}: the kill came half way through the copy-back", there)
    check(volume(api, name) is not None, f"{label}: after the kill the volume is kept")
    r = subprocess.run([corral, "ps", *args], capture_output=True, text=True, env=env, timeout=60)
    check(f"corral stop {session}" in r.stdout, f"{label}: corral ps names it", r.stdout)
    r = subprocess.run([corral, "stop", session, *args], capture_output=True, text=True, env=env,
                       timeout=300)
    check(r.returncode == 0, f"{label}: corral stop finishes the copy-back", r.stdout + r.stderr)
    wrong = [i for i in range(1, MANY + 1) if read(f"{many}/f{i}") != f"file {i}\n"]
    check(not wrong, f"{label}: every file the box wrote is here", wrong[:5])
    check(volume(api, name) is None, f"{label}: and then the volume is gone", r.stderr)
    leftovers = list(pathlib.Path(project).rglob("*.corral-tmp"))
    check(not leftovers, f"{label}: no temporary file of the killed copy-back is left", leftovers)
    r = subprocess.run([corral, "stop", session, *args], capture_output=True, text=True, env=env,
                       timeout=60)
    check(r.returncode != 0 and "no corral session" in r.stderr,
          f"{label}: a second stop says there is nothing", r.stdout + r.stderr)

    project = make_project(os.path.join(root, "killed"))
    session = secrets.token_hex(6)
    name = f"corral-{session}-project"
    copy_in(label, corral, env, args, project, session)
    text, code = run_box(api, name, "echo late > a.txt && echo box-done")
    check(code == 0, f"{label}: a box writes, and its corral is gone before any copy-back", text)
    r = subprocess.run([corral, "stop", session, *args], capture_output=True, text=True, env=env,
                       timeout=300)
    check(r.returncode == 0 and read(f"{project}/a.txt") == "late\n"
          and volume(api, name) is None,
          f"{label}: corral stop copies the work back and removes the volume", r.stdout + r.stderr)


def failed_copy_in(label, api, corral, env, args, root):
    project = make_project(os.path.join(root, "failed"))
    session = secrets.token_hex(6)
    r = subprocess.run([corral, "project-copy", "in", session, *args, "--project", project,
                        "--image", "corral-no-such-image:0"],
                       capture_output=True, text=True, env=env, timeout=120)
    manifest = os.path.join(env["XDG_STATE_HOME"], "corral", "sessions", f"{session}.copy.json")
    check(r.returncode == 125 and r.stderr.count("\n") == 1, f"{label}: a copy-in that fails: "
          "exit 125, one line", r.stderr)
    check(volume(api, f"corral-{session}-project") is None and not os.path.exists(manifest),
          f"{label}: and leaves no volume and no manifest")


def main():
    engine, corral = sys.argv[1:3]
    import started
    started.start_engine(engine)
    url = f"unix:///run/corral-test/{engine}.sock"
    api = Api(url)
    status, _ = api.call("GET", f"/images/{IMAGE}/json")
    if status != 200:
        r = subprocess.run([os.path.join(HERE, "..", "engines", "tools_image"), engine],
                           capture_output=True, text=True, timeout=1200)
        check(r.returncode == 0, f"{engine}: tools image", r.stdout + r.stderr)
    root = tempfile.mkdtemp(prefix="corral-copy-")
    try:
        env = dict(os.environ, XDG_STATE_HOME=os.path.join(root, "state"))
        args = ["--engine", url]
        round_trip(engine, api, corral, env, args, root)
        resumed(engine, api, corral, env, args, root)
        failed_copy_in(engine, api, corral, env, args, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
