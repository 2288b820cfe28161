"""Review mode on an engine elsewhere (issue 32, docs/sessions.md, "Review mode"),
for tests/engines/remote_engines_test.py: its dockerd reached over tcp with TLS and
its namespaced Podman reached over ssh:// cannot see this machine's folders, so the
box works on the project copied into a volume there and the copy-back brings its
changes into review mode's copy.

- A session (busybox sh in the test image) commits in the box (git's own object
  files, made here and written by the box, as git would write them), then edits,
  adds, removes, changes a mode, puts a file where a folder was and plants
  .claude/settings.json, all left uncommitted. Afterwards the user's working tree
  and index are byte-identical, HEAD and the branch untouched, and branch
  corral/SESSION is the box's commit plus one commit holding exactly the rest;
  `corral review --apply` holds the auto-run file back; nothing of the session is
  left on the engine.
- corral killed (SIGKILL) while the box runs: its work stays in the volume,
  `corral ps` names it, and `corral stop SESSION` makes the branch from it.
"""
import base64
import hashlib
import os
import pathlib
import re
import signal
import subprocess
import tempfile
import time
import zlib


def git(proj, *args, env=None):
    return subprocess.run(["git", "-C", str(proj), *args], capture_output=True, text=True,
                          check=True, env=env).stdout.strip()


def tree_of(proj):
    """Every file of the working tree with its bytes' hash and mode, and git's index."""
    found = {}
    for path in sorted(proj.rglob("*")):
        rel = path.relative_to(proj)
        if rel.parts[0] == ".git" and str(rel) != ".git/index":
            continue
        if path.is_file() and not path.is_symlink():
            found[str(rel)] = (hashlib.sha256(path.read_bytes()).hexdigest(),
                               path.stat().st_mode & 0o777)
    return found


def make_project(work):
    proj = work / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "docs").mkdir()
    git(proj, "init", "-q", "-b", "main")
    (proj / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    (proj / "old.txt").write_text("to be removed\n")
    (proj / "run.sh").write_text("echo run\n")
    (proj / "docs" / "a.md").write_text("a folder that becomes a file\n")
    (proj / "README").write_text("committed\n")
    git(proj, "add", "-A")
    git(proj, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-m", "start")
    (proj / "README").write_text("committed\nthe user's uncommitted edit\n")
    (proj / "mine.txt").write_text("untracked, the user's\n")
    return proj


def box_commit(proj, work):
    """A commit of the box's, as loose object files: made here in an object folder of
    their own (the project's borrowed), so the box only writes files git would write.
    Returns its id and the shell lines that write it, with HEAD's branch moved."""
    objects = work / "box-objects"
    objects.mkdir()
    env = dict(os.environ, GIT_OBJECT_DIRECTORY=str(objects),
               GIT_ALTERNATE_OBJECT_DIRECTORIES=str(proj / ".git" / "objects"),
               GIT_INDEX_FILE=str(work / "box.index"),
               GIT_AUTHOR_NAME="agent", GIT_AUTHOR_EMAIL="agent@x",
               GIT_COMMITTER_NAME="agent", GIT_COMMITTER_EMAIL="agent@x")
    (work / "committed.txt").write_text("committed by the agent in the box\n")
    git(proj, "read-tree", "HEAD", env=env)
    blob = git(proj, "hash-object", "-w", str(work / "committed.txt"), env=env)
    git(proj, "update-index", "--add", "--cacheinfo", f"100644,{blob},committed.txt", env=env)
    tree = git(proj, "write-tree", env=env)
    commit = git(proj, "commit-tree", tree, "-p", "HEAD", "-m", "the agent's commit", env=env)
    lines = []
    for path in sorted(objects.rglob("*")):
        if path.is_file():
            rel = path.relative_to(objects)
            data = base64.b64encode(path.read_bytes()).decode()
            zlib.decompress(path.read_bytes())  # a real loose object
            lines.append(f"mkdir -p .git/objects/{rel.parent} && echo {data} | base64 -d "
                         f"> .git/objects/{rel}")
    lines.append(f"echo {commit} > .git/refs/heads/main")
    return commit, "\n".join(lines)


def checks(corral_bin, label, flags, env, check, left_of):
    """`flags`: corral's options that name the engine; `left_of(session)`: what the
    engine still has of the session (its containers, networks and volumes)."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="corral-review-remote-"))
    proj = make_project(work)
    commit, commit_lines = box_commit(proj, work)
    agent = f"""
{commit_lines}
echo 'committed by the agent in the box' > committed.txt
grep -q "the user's uncommitted edit" README && echo SAW-EDIT
echo 'int main(void) {{ return 7; }}' > src/main.c
echo 'new from the box' > added.txt
rm old.txt
chmod 755 run.sh
rm -r docs && echo 'a file now' > docs
mkdir -p .claude && echo '{{"hooks":{{"Stop":[]}}}}' > .claude/settings.json
echo BOX-DONE
"""
    env = dict(env, CORRAL_LEVEL="always", CORRAL_HOLD_UNKNOWN_FOLDERS="off",
               CORRAL_PRESENCE_SOURCES="", PAGER="cat", XDG_STATE_HOME=str(work / "state"))
    for name in ("CORRAL_ENGINE_MODE", "CORRAL_PROJECT_SHARED", "CORRAL_REVIEW_PROJECTS"):
        env.pop(name, None)

    def corral(*args):
        return subprocess.run([corral_bin, *args], cwd=proj, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=600)

    before, head = tree_of(proj), git(proj, "rev-parse", "HEAD")
    r = corral("run", "--review", "--headless", *flags, "--image", "corral-test:latest",
               "--", "/bin/busybox", "sh", "-c", agent)
    m = re.search(r"the agent's work is on branch (corral/([0-9a-f]{12}))", r.stderr)
    check(r.returncode == 0 and "BOX-DONE" in r.stdout and m is not None
          and "for review mode" in r.stderr and "copy of the project in a volume" in r.stderr,
          f"{label}: review mode, the project copied into a volume there, the end line "
          "names the branch", f"exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-1500:]}")
    if not m:
        return
    branch, sid = m.group(1), m.group(2)
    after = tree_of(proj)
    check(after == before, f"{label}: review mode, the working tree and index are byte-identical",
          sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))[:10])
    check(git(proj, "rev-parse", "HEAD") == head
          and git(proj, "symbolic-ref", "HEAD") == "refs/heads/main",
          f"{label}: HEAD and the current branch are untouched")
    tip = git(proj, "rev-parse", branch)
    check(git(proj, "rev-parse", tip + "^") == commit
          and git(proj, "log", "-1", "--format=%s", commit) == "the agent's commit",
          f"{label}: the box's commit came back (its objects and its ref, through the copy-back) and "
          "is the branch's first", git(proj, "log", "--oneline", branch))
    left = sorted(git(proj, "diff", "--no-renames", "--name-status", commit, tip).splitlines())
    check(left == ["A\t.claude/settings.json", "A\tadded.txt", "A\tdocs", "D\tdocs/a.md",
                   "D\told.txt", "M\trun.sh", "M\tsrc/main.c"]
          and git(proj, "diff", "--summary", commit, tip).count("mode change 100644 => 100755 run.sh") == 1,
          f"{label}: the leftover commit holds exactly what the box left uncommitted (a removal, a mode, "
          "a file where a folder was)", left)
    check("SAW-EDIT" in r.stdout and git(proj, "show", f"{branch}:README") == "committed"
          and "mine.txt" not in git(proj, "ls-tree", "-r", "--name-only", tip),
          f"{label}: the box saw the user's uncommitted edit, which is not on the branch")
    applied = corral("review", sid, "--apply")
    check(applied.returncode == 0 and (proj / "added.txt").exists()
          and not (proj / ".claude" / "settings.json").exists()
          and "held back: .claude/settings.json" in applied.stdout,
          f"{label}: --apply brings the work and holds the auto-run file back",
          applied.stdout + applied.stderr)
    check(left_of(sid) == [], f"{label}: nothing of the review session is left on the engine",
          left_of(sid))
    for path in ("added.txt", "committed.txt", "docs"):
        subprocess.run(["rm", "-rf", str(proj / path)])
    git(proj, "checkout", "-q", "--", ".")

    # corral killed while the box runs: the work waits in the volume.
    slow = subprocess.Popen(
        [corral_bin, "run", "--review", "--headless", *flags, "--image",
         "corral-test:latest", "--", "/bin/busybox", "sh", "-c",
         "echo kept > kept.txt && echo WROTE && sleep 300"],
        cwd=proj, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    wrote = False
    deadline = time.time() + 180
    while time.time() < deadline:
        line = slow.stdout.readline()
        if not line:
            break
        if "WROTE" in line:
            wrote = True
            break
    os.killpg(slow.pid, signal.SIGKILL)
    slow.wait()
    err = slow.stderr.read()
    killed = re.search(r"corral stop ([0-9a-f]{12})", err)
    check(wrote and killed is not None, f"{label}: a review session ran until corral was killed",
          err[-800:])
    if not killed:
        return
    sid = killed.group(1)
    time.sleep(3)  # the reaper removes the box; the volume stays
    listed = corral("ps", *flags)
    check(sid in listed.stdout, f"{label}: corral ps names the killed review session's kept work",
          listed.stdout + listed.stderr)
    stopped = corral("stop", sid, *flags)
    m = re.search(r"branch (corral/[0-9a-f]{12})", stopped.stdout + stopped.stderr)
    shown = git(proj, "show", f"{m.group(1)}:kept.txt") if m else ""
    check(stopped.returncode == 0 and shown == "kept" and not (proj / "kept.txt").exists(),
          f"{label}: corral stop brings the killed session's work back as its branch, the tree untouched",
          stopped.stdout + stopped.stderr)
    check(left_of(sid) == [], f"{label}: after corral stop nothing of it is left on the engine",
          left_of(sid))
    subprocess.run(["rm", "-rf", str(work)])
