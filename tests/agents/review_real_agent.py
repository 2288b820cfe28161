#!/usr/bin/env python3
"""Review mode and undo with the real Claude Code and the scripted model, on
one engine (issue 32).

Usage: review_real_agent.py docker|podman CORRAL SHIM

Reuses session_real_agent.py's Session (a git project, the scripted model
behind the session's proxy). The project holds an uncommitted edit and an
untracked file of the user's. A review session (review.projects names the
project) writes a file, commits it, and leaves another uncommitted: the
user's files, HEAD and branch are byte-identical afterwards, branch
corral/SESSION holds exactly the agent's two changes (its commit plus one for
what it left), `corral review` shows it and `--apply` brings it. Then a
direct session rewrites, makes and removes files: `corral undo` refuses a
file changed after the session, and then puts every file back.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scripted_model as sm  # noqa: E402
import session_real_agent as sra  # noqa: E402  (Session, check, run)

check, run, CORRAL = sra.check, sra.run, sra.CORRAL


def files(project):
    """Every file of the working tree (not .git), as bytes."""
    return {str(p.relative_to(project)): p.read_bytes() for p in sorted(project.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(project).parts}


def last_session(session):
    """The id of the newest session_started in the records (by its time)."""
    found = []
    for path in (session.work / "state").rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "session_started":
                found.append((event.get("time", ""), event.get("session", "")))
    return max(found)[1] if found else ""


def git(project, *args):
    return run(["git", "-C", str(project), *args]).stdout.strip()


def review(session):
    proj = session.proj
    (proj / "README").write_text("a sample project\nthe user's uncommitted edit\n")
    (proj / "mine.txt").write_text("the user's own, untracked\n")
    before_files, head = files(proj), git(proj, "rev-parse", "HEAD")
    status = git(proj, "status", "--porcelain")
    session.env["CORRAL_REVIEW_PROJECTS"] = str(proj)
    steps = [sm.write_step("feature.txt", "the agent's feature\n"),
             sm.shell_step("git add feature.txt && git -c user.name=agent -c user.email=a@a "
                           "commit -q -m 'agent adds feature' && echo committed"),
             sm.write_step("leftover.txt", "left uncommitted\n"),
             # A file Claude Code on the host would run (a hook): --apply holds it back.
             sm.shell_step("mkdir -p .claude && echo '{\"hooks\": {\"Stop\": []}}' "
                           "> .claude/settings.json && echo planted")]
    model, r, seconds = session.run_agent(steps, timeout=900)
    del session.env["CORRAL_REVIEW_PROJECTS"]
    print("  review stderr: " + r.stderr[-1500:].replace("\n", "\n  "), flush=True)
    sid = last_session(session)
    branch = f"corral/{sid}"
    check(r.returncode == 0 and sm.FINAL_TEXT in r.stdout,
          f"review session ran to its final answer ({seconds:.1f} s)", r.stdout[-600:])
    check("committed" in json.dumps(session.results(model)), "the agent's commit ran in the box",
          session.results(model))
    check(f"the agent's work is on branch {branch}" in r.stderr,
          "the end line names the branch", r.stderr[-600:])
    check(files(proj) == before_files and git(proj, "status", "--porcelain") == status,
          "the user's working tree and uncommitted edits are byte-identical",
          sorted(set(files(proj)) ^ set(before_files)))
    check(git(proj, "rev-parse", "HEAD") == head
          and git(proj, "symbolic-ref", "HEAD") == "refs/heads/main",
          "HEAD and the current branch are untouched")
    log = git(proj, "log", "--format=%an|%s", f"{head}..{branch}").splitlines()
    check(len(log) == 2 and log[1] == "agent|agent adds feature" and log[0].startswith("claude|")
          and sid in log[0], "the branch holds the agent's commit plus one for its leftovers, "
          "authored as the agent and naming the session", log)
    changed = git(proj, "diff", "--name-only", head, branch).splitlines()
    check(changed == [".claude/settings.json", "feature.txt", "leftover.txt"],
          "the branch holds exactly the agent's changes", changed)
    items = session.inbox()
    check(any(i.get("kind") == "branch" and i.get("command") == branch for i in items),
          "corral inbox names the branch", json.dumps(items)[:600])
    shown = run([CORRAL, "review", sid, "--no-pager"], env=session.env)
    check(shown.returncode == 0 and "+the agent's feature" in shown.stdout
          and "leftover.txt" in shown.stdout
          and "runs without asking: .claude/settings.json (Claude Code)" in shown.stdout,
          "corral review SESSION shows the diff and names the auto-run file first",
          shown.stdout[-600:] + shown.stderr)
    applied = run([CORRAL, "review", sid, "--apply"], env=session.env)
    check(applied.returncode == 0
          and (proj / "feature.txt").read_text() == "the agent's feature\n"
          and (proj / "leftover.txt").read_text() == "left uncommitted\n"
          and (proj / "README").read_bytes() == before_files["README"]
          and (proj / "mine.txt").exists()
          and not (proj / ".claude" / "settings.json").exists()
          and "held back: .claude/settings.json (Claude Code)" in applied.stdout,
          "corral review --apply brings the agent's changes, the user's edits stay, "
          "the auto-run file is held back and named", applied.stdout + applied.stderr)
    named = run([CORRAL, "review", sid, "--apply", ".claude/settings.json"], env=session.env)
    check(named.returncode == 0 and (proj / ".claude" / "settings.json").exists(),
          "corral review --apply PATH brings the auto-run file when named",
          named.stdout + named.stderr)
    for name in ("feature.txt", "leftover.txt", ".claude/settings.json"):
        (proj / name).unlink()
    (proj / ".claude").rmdir()


def undo(session):
    proj = session.proj
    before_files = files(proj)
    steps = [sm.write_step("README", "rewritten by the agent\n"),
             sm.write_step("made.txt", "made by the agent\n"),
             sm.shell_step("rm mine.txt && echo removed")]
    model, r, seconds = session.run_agent(steps, timeout=900)
    sid = last_session(session)
    check(r.returncode == 0 and (proj / "made.txt").exists() and not (proj / "mine.txt").exists(),
          f"a direct session changed the project ({seconds:.1f} s)", r.stderr[-800:])
    (proj / "made.txt").write_text("edited by the user after the session\n")
    refused = run([CORRAL, "undo", sid], env=session.env)
    check(refused.returncode == 1 and "made.txt" in refused.stderr
          and (proj / "README").read_text() == "rewritten by the agent\n",
          "corral undo refuses a file changed after the session, naming it, and changes nothing",
          refused.stdout + refused.stderr)
    (proj / "made.txt").write_text("made by the agent\n")
    done = run([CORRAL, "undo", sid], env=session.env)
    check(done.returncode == 0 and files(proj) == before_files,
          "corral undo puts every file back as the session found it",
          done.stdout + done.stderr + str(sorted(set(files(proj)) ^ set(before_files))))


def main():
    sra.start_engine()
    session = sra.Session("claude")
    try:
        review(session)
        undo(session)
    finally:
        shutil.rmtree(session.work, ignore_errors=True)
    print(f"{sra.ENGINE}: {sra.RESULTS['pass']} passed, {sra.RESULTS['fail']} failed")
    return 1 if sra.RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
