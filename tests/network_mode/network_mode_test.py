#!/usr/bin/env python3
"""Boxed sessions in the network mode on a real engine (docs/network-mode.md).

`corral run` with CORRAL_ENGINE_MODE=network on the local test engines (the same
code a remote engine gets; remote_engines_test.py runs these checks against a
dockerd that cannot see this machine's folders). Each check is made from inside
the box or against the engine's own API:

- every promise of the local box, by tests/launcher/probe.sh inside the box (the
  session volume's root is the user's alone, mode 700, as the local folder);
- the deny list refusing `aws` through the oracle channel while nobody watches (the
  oracle answered: the refusal is counted as blocked while away and recorded), and an
  unlisted command running;
- the proxy sidecar refusing an unlisted host (a 403 the box sees, in the record) and
  the box having no network interface but lo;
- nothing of the session left on the engine afterwards (containers, networks, volumes);
- corral killed with SIGKILL: the reaper removes the box, the sidecar, the network and
  the volume;
- a deny-list edit while the session runs reaching the box's copy (its fallback), seen
  with this machine's oracle cut off;
- a proxy sidecar that cannot start (a broken image under corral's exact tag): exit
  125 in one line, the agent never started, nothing left on the engine.

Usage: network_mode_test.py docker|podman CORRAL
"""

import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "launcher"))
import slow_engine  # noqa: E402  (its pipe: one direction of a relayed connection)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
from engine_api import Api  # noqa: E402  (tests/engines/engine_api.py)

RESULTS = {"pass": 0, "fail": 0}
PROBE = pathlib.Path(__file__).resolve().parent.parent / "launcher" / "probe.sh"


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + what + ("" if ok else f"  [{str(detail)[-2500:]}]"),
          flush=True)


def make_project(work):
    proj = work / "proj"
    (proj / ".git" / "hooks").mkdir(parents=True)
    (proj / "keys").mkdir()
    (proj / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:corral/x.git\n')
    (proj / ".env").write_text("SECRET=1\n")
    (proj / "keys" / "server.key").write_text("KEY\n")
    shutil.copy(PROBE, proj / "probe.sh")
    return proj


def left_in_project(proj):
    """What the box's mount points left in a project that had no node_modules
    and no .venv (issue 27): those folders, and anything of another uid. The
    project copied, a mount point the engine made in the volume would come
    home as a folder the project never had."""
    me = (os.getuid(), os.getgid())
    left = [name for name in ("node_modules", ".venv") if os.path.lexists(proj / name)]
    for root, dirs, files in os.walk(proj):
        for name in dirs + files:
            st = os.lstat(os.path.join(root, name))
            if (st.st_uid, st.st_gid) != me:
                left.append(f"{os.path.join(root, name)} ({st.st_uid}:{st.st_gid})")
    return left


def session_of(record_path):
    events = [json.loads(l) for l in pathlib.Path(record_path).read_text().splitlines() if l]
    return events


def prove(label, api, corral, flags, env, work, copied=False):
    """The checks of this file against one engine; `flags` name it (--engine ...).
    `copied`: the engine cannot see the project, which is copied in and back."""
    work = pathlib.Path(work)
    proj = make_project(work)
    # No presence sources: nobody watches, whatever terminals this machine has
    # (a terminal touched in the last minutes would count as somebody there).
    env = dict(env, CORRAL_ENGINE_MODE="network", CORRAL_HOLD_UNKNOWN_FOLDERS="off",
               CORRAL_LEVEL="always", CORRAL_IMAGE="corral-test:latest",
               CORRAL_PRESENCE_SOURCES="")

    # 1. Every promise of the box, from inside.
    r = subprocess.run([corral, "--set", "limits.pids=128", "run", *flags, "--headless",
                        "--json-events", str(work / "probe.jsonl"), "--", "/bin/sh",
                        f"{proj}/probe.sh", str(proj), str(os.getuid()), str(os.getgid())],
                       capture_output=True, text=True, env=env, cwd=proj, timeout=600)
    lines = r.stdout.splitlines()
    ran = any(l.startswith("PASS Seccomp 2") for l in lines)
    check(ran and "mode: network" in r.stderr, f"{label}: the probe ran in a network-mode box",
          r.stdout + r.stderr)
    check(any("session volume the user's" in l for l in lines),
          f"{label}: the probe checked the session volume's owner and mode", r.stdout)
    for line in lines:
        if not line.startswith(("PASS ", "FAIL ")):
            continue
        name = line[5:]
        check(line.startswith("PASS "), f"{label}: box: {name}")
    check(("copied into the volume" in r.stderr) == copied,
          f"{label}: the start lines say the project is " + ("copied" if copied else "bound"),
          r.stderr)
    check((proj / "owned-by-agent").exists(),
          f"{label}: what the box wrote in the project is on this machine afterwards", r.stderr)
    started = next((e for e in session_of(work / "probe.jsonl")
                    if e.get("event") == "session_started"), {})
    session = started.get("session", "")
    check(session and api.session_objects(session) == [],
          f"{label}: nothing of session {session} is left on the engine",
          api.session_objects(session) if session else started)
    check(not left_in_project(proj), f"{label}: the box's mount points left nothing in the "
          "project (no node_modules, no .venv, nothing of another uid)", left_in_project(proj))

    # 2. The deny list through the oracle channel, and the proxy sidecar.
    script = ('/run/corral/bin/sh -c "aws s3 ls"; echo "aws-exit $?"; '
              '/run/corral/bin/sh -c "echo unlisted-ran"; '
              'wget -q -O- http://unlisted.test/ 2>&1 | head -2; '
              'wget -q -O /dev/null http://github.com/ 2>&1 | head -2; echo "github-exit $?"')
    r = subprocess.run([corral, "run", *flags, "--headless", "--json-events",
                        str(work / "oracle.jsonl"), "--", "busybox", "sh", "-c", script],
                       capture_output=True, text=True, env=env, cwd=proj, timeout=300)
    out = r.stdout + r.stderr
    check("corral blocked this: `aws`" in out and "aws-exit 1" in out,
          f"{label}: aws refused with corral's message while nobody watches", out)
    check("unlisted-ran" in out, f"{label}: a command not on the list runs", out)
    check("Had 1 command blocked while you were away" in r.stderr,
          f"{label}: the oracle on this machine answered (counted while away), "
          "not the shim's fallback", r.stderr)
    check("403" in out, f"{label}: the sidecar's proxy refuses an unlisted host (403)", out)
    events = session_of(work / "oracle.jsonl")
    commands = [e for e in events if e.get("event") == "command"]
    network = [e for e in events if e.get("event") == "network"]
    check(any(e.get("decision") == "deny" and "aws" in e.get("command", "") for e in commands),
          f"{label}: the refusal is in the session record", commands)
    check(any("unlisted.test" in json.dumps(e) for e in network),
          f"{label}: the proxy's decisions are in the session record", network)
    ended = next((e for e in events if e.get("event") == "session_ended"), {})
    check("unlisted.test" in json.dumps(ended.get("refused_hosts", "")),
          f"{label}: session_ended names the refused host", ended)

    # 3. corral killed: the reaper removes everything of the session.
    p = subprocess.Popen([corral, "run", *flags, "--headless", "--json-events",
                          str(work / "killed.jsonl"), "--", "sleep", "120"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=proj,
                         start_new_session=True)
    session, deadline = "", time.monotonic() + 120
    while time.monotonic() < deadline and not session:
        time.sleep(0.3)
        if (work / "killed.jsonl").exists():
            first = (work / "killed.jsonl").read_text().splitlines()
            session = json.loads(first[0]).get("session", "") if first else ""
    box_running = False
    sidecar = f"/corral-{session}-proxy"
    while session and time.monotonic() < deadline and not box_running:
        objects = api.session_objects(session)
        box_running = (sidecar in objects and f"corral-{session}-session" in objects and
                       any(o.startswith("/") and o.endswith(f"-{session}") for o in objects))
        time.sleep(0.3)
    check(box_running, f"{label}: a session is up (box, sidecar, session volume)",
          api.session_objects(session) if session else "no session")
    # The sidecar has the engine host's network (as corral's proxy has this
    # machine's locally); no network is made for it on an engine that allows that.
    status, inspected = api.json("/containers" + sidecar + "/json")
    check(status == 200 and inspected["HostConfig"]["NetworkMode"] == "host" and
          f"corral-{session}-network" not in api.session_objects(session),
          f"{label}: the sidecar is on the engine host's network, and no network was made",
          (status, inspected["HostConfig"]["NetworkMode"] if status == 200 else inspected))
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    # A copied project's volume stays: it may hold the box's only copy of its work.
    kept = [f"corral-{session}-project"] if copied else []
    gone_after, left = None, None
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60:
        left = api.session_objects(session)
        if left == kept:
            gone_after = time.monotonic() - t0
            break
        time.sleep(0.3)
    check(gone_after is not None,
          f"{label}: corral SIGKILLed: the reaper removed the box, the sidecar, the network and "
          f"the session volume ({gone_after or 0:.1f} s)" +
          (", and kept the project's volume" if copied else ""), left)
    if copied:
        r = subprocess.run([corral, "stop", *flags, session], capture_output=True, text=True,
                           env=env, timeout=120)
        check(r.returncode == 0 and api.session_objects(session) == [],
              f"{label}: corral stop copies the kept volume back and removes it",
              (r.returncode, r.stdout, r.stderr, api.session_objects(session)))
    # The reaper removes them right after the engine's objects.
    deadline = time.monotonic() + 10
    while left_in_project(proj) and time.monotonic() < deadline:
        time.sleep(0.1)
    check(not left_in_project(proj), f"{label}: after corral was killed" +
          (" and its copy went home" if copied else "") + ", the box's mount points left "
          "nothing in the project", left_in_project(proj))


def wait_for(path, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.1)
    return False


# The box's half of prove_deny_list_edit: it says when to edit and to cut the
# oracle's socket, through files in the (bound) project.
EDIT_SCRIPT = """
p=$1; await() { i=0; while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; }
echo "$CORRAL_SESSION" > "$p/session"
grep -qx frobnicate /run/corral/deny-list && echo "listed-before-edit"
touch "$p/ready-for-edit"; await "$p/edited"
/run/corral/bin/sh -c "echo asked-after-edit"
i=0; until grep -qx frobnicate /run/corral/deny-list || [ $i -ge 100 ]; do sleep 0.1; i=$((i+1)); done
grep -qx frobnicate /run/corral/deny-list && echo "box-copy-has-the-edit"
touch "$p/ready-for-cut"; await "$p/cut"
/run/corral/bin/sh -c "frobnicate --now"; echo "frobnicate-exit $?"
"""


def prove_deny_list_edit(label, corral, flags, env, work):
    """A command added to the deny list while a network-mode session runs reaches the
    box's copy of the list (its fallback): with this machine's oracle cut off, the box
    still refuses it. The project is bound, so the box and this test talk through it."""
    work = pathlib.Path(work)
    proj = work / "edit-proj"
    proj.mkdir()
    run = work / "run"
    run.mkdir(mode=0o700)
    config = work / "edit-config.yaml"

    def write_config(deny):
        tmp = config.with_suffix(".tmp")
        tmp.write_text(json.dumps({"level": "always", "deny_unattended": deny}))
        os.replace(tmp, config)

    write_config(["aws"])
    env = dict(env, CORRAL_ENGINE_MODE="network", CORRAL_HOLD_UNKNOWN_FOLDERS="off",
               CORRAL_IMAGE="corral-test:latest", CORRAL_CONFIG=str(config),
               XDG_RUNTIME_DIR=str(run))
    env.pop("CORRAL_LEVEL", None)
    (proj / "edit.sh").write_text(EDIT_SCRIPT)
    p = subprocess.Popen([corral, "run", *flags, "--headless", "--", "/bin/sh",
                          str(proj / "edit.sh"), str(proj)],
                         cwd=proj, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if wait_for(proj / "ready-for-edit"):
        write_config(["aws", "frobnicate"])
        (proj / "edited").touch()
    if wait_for(proj / "ready-for-cut"):
        session = (proj / "session").read_text().strip()
        sock = run / "corral" / "sessions" / session / "oracle.sock"
        check(sock.exists(), f"{label}: the oracle's socket is in the session folder", sock)
        if sock.exists():
            os.rename(sock, str(sock) + ".away")  # the channel can no longer ask it
        (proj / "cut").touch()
    try:
        out, err = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    both = out + err
    check("asked-after-edit" in out and "listed-before-edit" not in out,
          f"{label}: the box ran, frobnicate not listed before the edit", both)
    check("box-copy-has-the-edit" in out,
          f"{label}: a deny-list edit mid-session reaches the box's copy in the session volume",
          both)
    check("frobnicate-exit 1" in out and "the host could not be asked" in both,
          f"{label}: with the oracle cut off, the box's fallback refuses the added command",
          both)


# The copies' fixed mtime: corral's image tag is made from its programs' sizes and
# mtimes, so the copies ask for one tag of their own, the same in every run of a build.
COPIES_MTIME_NS = 1_700_000_000 * 10**9


def prove_sidecar_cannot_start(label, api, corral, flags, env, work):
    """The proxy sidecar cannot start: the image under the exact tag corral asks for
    (corral:VERSION-HASH, which it reuses when the engine has it) is the test image,
    which has no /usr/bin/corral. The agent must not start, corral exits 125 with one
    line naming the cause, and nothing of the session is left on the engine. Copies
    of corral's programs ask for a tag of their own, so no other run is disturbed;
    the tag's real image is put back afterwards."""
    work = pathlib.Path(work)
    copies = work / "broken-sidecar"
    copies.mkdir()
    build = pathlib.Path(corral).resolve().parent.parent
    for src in (pathlib.Path(corral), build / "images" / "corral-shim",
                build / "images" / "corral-shell"):
        shutil.copy(src, copies / src.name)
        os.utime(copies / src.name, ns=(COPIES_MTIME_NS, COPIES_MTIME_NS))
    copy = str(copies / "corral")
    env = dict(env, CORRAL_ENGINE_MODE="network", CORRAL_HOLD_UNKNOWN_FOLDERS="off",
               CORRAL_LEVEL="always", CORRAL_IMAGE="corral-test:latest")
    env.pop("CORRAL_SHIM", None)  # the copies' own, beside the copied corral
    r = subprocess.run([copy, "image", "build", "corral", *flags], capture_output=True,
                       text=True, env=env, timeout=900)
    tag = r.stdout.strip()
    status, real = api.json(f"/images/{tag}/json") if tag else (0, r.stderr)
    check(r.returncode == 0 and status == 200, f"{label}: the copies' corral image is {tag}",
          real)
    if status != 200:
        return
    repo, version = tag.split(":", 1)
    status, out = api.call("POST", f"/images/corral-test:latest/tag?repo={repo}&tag={version}")
    check(status == 201, f"{label}: the test image (no corral in it) tagged {tag}", out)
    try:
        proj = work / "broken-proj"
        proj.mkdir()
        events = work / "broken.jsonl"
        r = subprocess.run([copy, "run", *flags, "--headless", "--json-events", str(events),
                            "--", "sh", "-c", "echo the-agent-ran"], capture_output=True,
                           text=True, env=env, cwd=proj, timeout=300)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        check(r.returncode == 125 and "the-agent-ran" not in r.stdout + r.stderr,
              f"{label}: the sidecar cannot start: exit 125, the agent never ran",
              (r.returncode, r.stdout, r.stderr))
        check(len(lines) == 1 and "proxy sidecar" in lines[0] and
              "/usr/bin/corral" in lines[0],
              f"{label}: one line naming the cause", r.stderr)
        started = next((e for e in session_of(events) if e.get("event") == "session_started"),
                       {}) if events.exists() else {}
        session = started.get("session", "")
        check(session and api.session_objects(session) == [],
              f"{label}: nothing of session {session or '?'} is left on the engine "
              "(containers, networks, volumes)",
              api.session_objects(session) if session else started)
    finally:
        status, out = api.call("POST", f"/images/{real['Id']}/tag?repo={repo}&tag={version}")
        check(status == 201, f"{label}: {tag} is its real image again", out)


class CopierPutEngine:
    """A unix socket in front of the engine that passes every request on unchanged,
    except the copier's archive PUT (the project's copy-in). hold=False: sent to /tmp in
    the copier's own root, as an engine that takes the PUT but puts the files elsewhere.
    hold=True: never passed on (`held` is set), as a copy-in cut off half way."""

    def __init__(self, engine_socket, path, hold=False):
        self.engine_socket, self.path, self.hold = engine_socket, str(path), hold
        self.misplaced = 0
        self.held = threading.Event()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(65536)
            if not chunk:
                client.close()
                return
            head += chunk
        line, rest = head.split(b"\r\n", 1)
        method, target, version = line.split(b" ", 2)
        # Docker's copier PUT is at "/", Podman's at its mount; the session
        # volume's fill (at /run) is left alone.
        for copier_path in (b"path=%2Fcorral-project", b"path=%2F"):
            end = target.find(copier_path)
            after = end + len(copier_path)
            if (method == b"PUT" and b"/archive?" in target and end >= 0 and
                    (after == len(target) or target[after:after + 1] == b"&")):
                if self.hold:
                    self.held.set()
                    return  # the client's connection is kept open, unanswered
                target = target[:end] + b"path=%2Ftmp" + target[after:]
                self.misplaced += 1
                break
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(self.engine_socket)
        # One request per connection, so that each one's head is read here:
        # corral keeps connections open for its next request.
        headers = head.split(b"\r\n\r\n", 1)[0].lower()
        close = b"" if b"\r\nconnection:" in headers else b"Connection: close\r\n"
        upstream.sendall(b" ".join((method, target, version)) + b"\r\n" + close + rest)
        threading.Thread(target=slow_engine.pipe, args=(upstream, client), daemon=True).start()
        slow_engine.pipe(client, upstream)

    def close(self):
        self.listener.close()


def prove_copy_lands_elsewhere(label, api, corral, engine_socket, env, work):
    """The project's copy-in is read back before the agent runs: through an engine that
    puts the copier's files elsewhere, the agent must not start, corral exits 125 naming
    the volume, and neither the volume, the copier nor the copy's manifest is left (a
    copy-back would have read the empty volume as the box deleting everything)."""
    work = pathlib.Path(work)
    proj = work / "misplaced-proj"
    proj.mkdir()
    (proj / "keep.txt").write_text("the project's file\n")
    state = work / "misplaced-state"
    engine = CopierPutEngine(engine_socket, work / "misplacing.sock")
    env = dict(env, CORRAL_ENGINE_MODE="network", CORRAL_PROJECT_SHARED="0",
               CORRAL_HOLD_UNKNOWN_FOLDERS="off", CORRAL_LEVEL="always",
               CORRAL_IMAGE="corral-test:latest", CORRAL_PRESENCE_SOURCES="",
               XDG_STATE_HOME=str(state))
    events = work / "misplaced.jsonl"
    try:
        r = subprocess.run([corral, "run", "--engine", f"unix://{engine.path}", "--headless",
                            "--json-events", str(events), "--", "sh", "-c",
                            "echo the-agent-ran; rm -f keep.txt"],
                           capture_output=True, text=True, env=env, cwd=proj, timeout=300)
    finally:
        engine.close()
    check(engine.misplaced >= 1, f"{label}: the copier's PUT was sent elsewhere",
          engine.misplaced)
    check(r.returncode == 125 and "the-agent-ran" not in r.stdout + r.stderr,
          f"{label}: a copy-in that does not read back: exit 125, the agent never ran",
          (r.returncode, r.stdout, r.stderr))
    check(("read back what was copied in" in r.stderr or "as it was copied in" in r.stderr)
          and "-project" in r.stderr,
          f"{label}: the error names the check and the volume", r.stderr)
    kept = proj / "keep.txt"
    check(kept.exists() and kept.read_text() == "the project's file\n",
          f"{label}: the project on this machine is untouched", sorted(os.listdir(proj)))
    started = next((e for e in session_of(events) if e.get("event") == "session_started"),
                   {}) if events.exists() else {}
    session = started.get("session", "")
    left = api.session_objects(session) if session else ["no session_started event"]
    check(session and left == [], f"{label}: nothing of session {session or '?'} is left "
          "on the engine, the project volume included", left)
    manifests = list(state.rglob("*.copy.json")) if state.exists() else []
    check(manifests == [], f"{label}: the copy's manifest is removed", manifests)


def prove_killed_during_copy_in(label, api, corral, engine_socket, env, work):
    """corral killed while the project goes in (its copier PUT never answered): the
    agent never ran, so `corral stop` must not read the half-filled volume as the box
    deleting files. It removes the volume and the manifest and leaves the project as
    it is; nothing of the session stays on the engine."""
    work = pathlib.Path(work)
    proj = work / "cut-proj"
    proj.mkdir()
    (proj / "keep.txt").write_text("the project's file\n")
    state = work / "cut-state"
    engine = CopierPutEngine(engine_socket, work / "holding.sock", hold=True)
    env = dict(env, CORRAL_ENGINE_MODE="network", CORRAL_PROJECT_SHARED="0",
               CORRAL_HOLD_UNKNOWN_FOLDERS="off", CORRAL_LEVEL="always",
               CORRAL_IMAGE="corral-test:latest", CORRAL_PRESENCE_SOURCES="",
               XDG_STATE_HOME=str(state))
    events = work / "cut.jsonl"
    p = subprocess.Popen([corral, "run", "--engine", f"unix://{engine.path}", "--headless",
                          "--json-events", str(events), "--", "sh", "-c",
                          "echo the-agent-ran; rm -f keep.txt"],
                         cwd=proj, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    held = engine.held.wait(120)
    p.kill()
    out, err = p.communicate()
    engine.close()
    check(held, f"{label}: corral was killed while its copier PUT hung", err)
    started = next((e for e in session_of(events) if e.get("event") == "session_started"),
                   {}) if events.exists() else {}
    session = started.get("session", "")
    manifests = list(state.rglob("*.copy.json")) if state.exists() else []
    check(session and len(manifests) == 1 and f"corral-{session}-project" in
          api.session_objects(session),
          f"{label}: the project volume and its manifest are kept after the kill",
          (session, manifests, api.session_objects(session) if session else None))
    r = subprocess.run([corral, "stop", "--engine", f"unix://{engine_socket}", session],
                       capture_output=True, text=True, env=env, timeout=120)
    kept = proj / "keep.txt"
    check(r.returncode == 0 and kept.exists() and kept.read_text() == "the project's file\n",
          f"{label}: corral stop after a cut copy-in deletes nothing in the project",
          (r.returncode, r.stdout, r.stderr, sorted(os.listdir(proj))))
    deadline = time.monotonic() + 60
    while api.session_objects(session) and time.monotonic() < deadline:
        time.sleep(0.3)  # the reaper's removals
    check(api.session_objects(session) == [] and not list(state.rglob("*.copy.json")),
          f"{label}: the volume, the copier and the manifest are gone",
          api.session_objects(session))
    check("the-agent-ran" not in out + err, f"{label}: the agent never ran", out + err)


def main():
    engine, corral = sys.argv[1:3]
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
    import started
    # As the ordinary user (tests/engines/as_user): their own rootless engine,
    # started with the test images by as_user.
    socket_path = os.environ.get("CORRAL_TEST_ENGINE_SOCKET")
    if not socket_path:
        started.start_engine(engine)
        socket_path = f"/run/corral-test/{engine}.sock"
    url = f"unix://{socket_path}"
    work = tempfile.mkdtemp(prefix=f"corral-nm-{engine}-")
    os.chmod(work, 0o755)
    try:
        prove(engine, Api(url), corral, ["--engine", url], dict(os.environ), work)
        prove_deny_list_edit(engine, corral, ["--engine", url], dict(os.environ), work)
        prove_sidecar_cannot_start(engine, Api(url), corral, ["--engine", url],
                                   dict(os.environ), work)
        prove_copy_lands_elsewhere(engine, Api(url), corral, url[len("unix://"):],
                                   dict(os.environ), work)
        prove_killed_during_copy_in(engine, Api(url), corral, url[len("unix://"):],
                                    dict(os.environ), work)
        # The engine cannot see the project: copied in and back.
        copy_work = pathlib.Path(work) / "copied"
        copy_work.mkdir()
        prove(engine + " (project copied)", Api(url), corral, ["--engine", url],
              dict(os.environ, CORRAL_PROJECT_SHARED="0"), copy_work, copied=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
