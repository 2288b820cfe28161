#!/usr/bin/env python3
"""Review mode without an agent (issue 32, docs/sessions.md, "Review mode").

A git project whose entry under `projects:` in the user's file says
`review: true` runs a boxed headless session (busybox sh in the test image)
that changes a file, adds one, removes one and plants .claude/settings.json.
Afterwards the user's working tree is byte-identical, HEAD and the branch are
as they were, and branch corral/SESSION holds exactly the box's changes;
`corral review` names the auto-run file first, `--apply` brings the rest and
holds it back, and `--apply PATH` brings it. `review: false` for the same
project runs a direct session. In the network mode on this machine's engine
(the project not shared) the box works on the overlay, nothing is copied. Run as an ordinary user (tests/engines/as_user podman),
the same on the user's rootless Podman.

Usage: review_e2e.py docker|podman CORRAL SHIM
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
import started  # noqa: E402  (tests/engines/started.py)
from review_remote import git, make_project, tree_of  # noqa: E402  (beside this file)

ENGINE, CORRAL, SHIM = sys.argv[1], sys.argv[2], sys.argv[3]
SOCKET = os.environ.get("CORRAL_TEST_ENGINE_SOCKET") or f"/run/corral-test/{ENGINE}.sock"
WHO = ENGINE + (" (as an ordinary user)" if os.getuid() != 0 else "")
RESULTS = {"pass": 0, "fail": 0}

AGENT = """
grep -q "the user's uncommitted edit" README && echo SAW-EDIT
echo 'int main(void) { return 7; }' > src/main.c
echo 'new from the box' > added.txt
rm old.txt
mkdir -p .claude && echo '{"hooks":{"Stop":[]}}' > .claude/settings.json
echo BOX-DONE
"""


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{WHO}: {what}" + ("" if ok else f"  [{detail}]"),
          flush=True)


def main():
    if not os.environ.get("CORRAL_TEST_ENGINE_SOCKET"):
        started.start_engine(ENGINE)
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-review-{ENGINE}-"))
    os.chmod(work, 0o755)
    proj = make_project(work)
    config = work / "config" / "corral"
    config.mkdir(parents=True)
    (work / "home").mkdir()
    (work / "run").mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items()
           if k not in ("CORRAL_CONFIG", "CORRAL_IMAGE", "DOCKER_HOST", "CORRAL_ENGINE_MODE",
                        "CORRAL_PROJECT_SHARED", "CORRAL_REVIEW_PROJECTS")}
    env.update({"HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
                "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
                "CORRAL_ENGINE": f"unix://{SOCKET}", "CORRAL_SHIM": SHIM,
                "CORRAL_LEVEL": "always", "CORRAL_HOLD_UNKNOWN_FOLDERS": "off",
                "CORRAL_PRESENCE_SOURCES": "", "PAGER": "cat"})

    def corral(*args, extra=None):
        return subprocess.run([CORRAL, *args], cwd=proj, env=dict(env, **(extra or {})),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=600)

    def session(extra=None):
        return corral("run", "--headless", "--image", "corral-test:latest", "--",
                      "/bin/busybox", "sh", "-c", AGENT, extra=extra)

    (config / "config.yaml").write_text(f"projects:\n  {proj}:\n    review: true\n")
    before, head = tree_of(proj), git(proj, "rev-parse", "HEAD")
    r = session()
    m = re.search(r"the agent's work is on branch (corral/([0-9a-f]{12}))", r.stderr)
    check(r.returncode == 0 and "BOX-DONE" in r.stdout and m is not None,
          "projects: review: true runs the session in review mode; the end line names the branch",
          f"exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-1200:]}")
    if not m:
        return
    branch, sid = m.group(1), m.group(2)
    after = tree_of(proj)
    check(after == before, "the user's working tree and index are byte-identical",
          sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))[:10])
    check(git(proj, "rev-parse", "HEAD") == head
          and git(proj, "symbolic-ref", "HEAD") == "refs/heads/main",
          "HEAD and the current branch are untouched")
    changed = git(proj, "diff", "--name-status", head, branch).splitlines()
    check(sorted(changed) == ["A\t.claude/settings.json", "A\tadded.txt", "D\told.txt",
                              "M\tsrc/main.c"],
          "the branch holds exactly the box's changes", f"{changed}; box: {r.stdout[-400:]} {r.stderr[-400:]}")
    check("SAW-EDIT" in r.stdout, "the box worked on the user's uncommitted edits, as they were")
    check(git(proj, "show", f"{branch}:README") == "committed",
          "the user's own edit is not on the branch (it is not the box's)")

    shown = corral("review", sid, "--no-pager")
    check(shown.returncode == 0
          and "runs without asking: .claude/settings.json (Claude Code)" in shown.stdout
          and "+new from the box" in shown.stdout,
          "corral review names the auto-run file first and shows the diff",
          shown.stdout[-800:] + shown.stderr)
    applied = corral("review", sid, "--apply")
    check(applied.returncode == 0 and (proj / "added.txt").exists()
          and not (proj / "old.txt").exists()
          and "return 7" in (proj / "src" / "main.c").read_text()
          and not (proj / ".claude" / "settings.json").exists()
          and "held back: .claude/settings.json (Claude Code)" in applied.stdout,
          "--apply brings the box's changes and holds the auto-run file back, naming it",
          applied.stdout + applied.stderr)
    named = corral("review", sid, "--apply", ".claude/settings.json")
    check(named.returncode == 0 and (proj / ".claude" / "settings.json").exists(),
          "--apply PATH brings the auto-run file when it is named", named.stdout + named.stderr)
    dropped = corral("review", sid, "--discard")
    check(dropped.returncode == 0 and branch not in git(proj, "branch", "--list", "corral/*"),
          "--discard deletes the branch", dropped.stdout + dropped.stderr)

    # review: false: the same project's next session writes the tree directly.
    (config / "config.yaml").write_text(f"projects:\n  {proj}:\n    review: false\n")
    (proj / ".claude" / "settings.json").unlink()
    r = corral("run", "--headless", "--image", "corral-test:latest", "--",
               "/bin/busybox", "sh", "-c", "echo direct > direct.txt")
    check(r.returncode == 0 and (proj / "direct.txt").read_text() == "direct\n"
          and "corral/" not in r.stderr,
          "projects: review: false runs a direct session", r.stderr[-600:])

    if os.getuid() == 0:  # the network mode on this machine's engine, the project "unseen"
        before = tree_of(proj)
        r = corral("run", "--review", "--headless", "--image", "corral-test:latest", "--",
                   "/bin/busybox", "sh", "-c", "echo from-network > network.txt",
                   extra={"CORRAL_ENGINE_MODE": "network", "CORRAL_PROJECT_SHARED": "0"})
        m = re.search(r"the agent's work is on branch (corral/[0-9a-f]{12})", r.stderr)
        changed = git(proj, "diff", "--name-only", "HEAD", m.group(1)) if m else ""
        check(r.returncode == 0 and m is not None and changed == "network.txt"
              and tree_of(proj) == before and "through review mode's overlay" in r.stderr
              and "copied into the volume" not in r.stderr,
              "the network mode on this machine's engine: the box on the overlay (nothing "
              "copied), its work on a branch, the tree untouched", f"{changed!r} {r.stderr[-900:]}")

    print(f"{RESULTS['pass']} passed, {RESULTS['fail']} failed")
    subprocess.run(["rm", "-rf", str(work)])


if __name__ == "__main__":
    main()
    sys.exit(1 if RESULTS["fail"] else 0)
