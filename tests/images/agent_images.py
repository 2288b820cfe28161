#!/usr/bin/env python3
"""Every agent whose recipe installs from npm, in its own image, on a real
engine: the image builds through the engine's API (`corral image build`),
`corral run AGENT -- --version` prints the version the image was built
with, in the box, as the user's uid, and the shells the agent's recipe names
resolve to corral-shell there.

Usage: agent_images.py docker|podman CORRAL [AGENT...]

The list below is the one `corral agents` marks verified: a unit test
(launcher/agents/recipes_test.cc) fails when the two differ. Times go to
stdout (`TIME ...` lines) and, with CORRAL_TIMES=FILE, to that file.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

# corral agents: verified.
# letta is not here: its latest release depends on a package version this
# CI's npm registry does not hold (@janhapke/sharp-electron@0.35.3-electron.1).
AGENTS = ["claude", "codex", "gemini", "opencode", "copilot", "amp", "qwen", "droid", "kimi",
          "pi"]

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
import started  # noqa: E402  (tests/engines/started.py)

ENGINE, CORRAL = sys.argv[1], sys.argv[2]
WANTED = sys.argv[3:] or AGENTS
HERE = pathlib.Path(__file__).resolve().parent
TOP = HERE.parent.parent
SOCK = f"/run/corral-test/{ENGINE}.sock"
USER = 4321  # a user the image does not know, as on a host
RESULTS = {"pass": 0, "fail": 0}


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{ENGINE}: {what}" + ("" if ok else f"  [{detail}]"),
          flush=True)


def timed(what, seconds):
    line = f"TIME {ENGINE} {what} {seconds:.1f}s"
    print(line, flush=True)
    if os.environ.get("CORRAL_TIMES"):
        with open(os.environ["CORRAL_TIMES"], "a") as out:
            out.write(line + "\n")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def start_engine():
    started.start_engine(ENGINE)


def agent_images():
    """{agent: tag} for the corral-agent-* images on the engine."""
    r = run([CORRAL, "image", "ls", "--json"])
    images = json.loads(r.stdout or "[]") if r.returncode == 0 else []
    return {i["agent"]: i["tag"] for i in images if i.get("agent")}


def main():
    start_engine()
    os.environ.update(CORRAL_ENGINE=f"unix://{SOCK}", CORRAL_LEVEL="always")
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-agents-{ENGINE}-"))
    os.chmod(work, 0o755)
    proj, home = work / "proj", work / "home"
    proj.mkdir()
    home.mkdir()
    os.chown(proj, USER, USER)
    os.chown(home, USER, USER)
    user_env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    user_env["HOME"] = str(home)
    user_env["CORRAL_HOLD_UNKNOWN_FOLDERS"] = "off"  # headless runs in a temp folder

    def as_user(cmd):
        """Runs cmd as the test user, in the project, with the engine's socket open to it."""
        mode = os.stat(SOCK).st_mode & 0o777
        os.chmod(SOCK, 0o666)  # the test's own engine, for this one run
        try:
            return run(["setpriv", f"--reuid={USER}", f"--regid={USER}", "--clear-groups"] + cmd,
                       cwd=proj, env=user_env, stdin=subprocess.DEVNULL, timeout=300)
        finally:
            os.chmod(SOCK, mode)

    for agent in WANTED:
        start = time.monotonic()
        r = run([CORRAL, "image", "build", agent], timeout=1500)
        timed(f"build {agent}", time.monotonic() - start)
        check(r.returncode == 0, f"{agent}: its image builds", r.stderr[-1500:])
        if r.returncode != 0:
            continue
        tag = agent_images().get(agent, "")
        version = tag.split(":", 1)[1] if ":" in tag else ""
        check(version != "", f"{agent}: corral image ls lists its image", tag)
        r = as_user([CORRAL, "run", "--print", agent])
        check(f"image {tag}: built\n" in r.stdout, f"{agent}: `corral run --print` says its image is built",
              r.stdout[-600:] + r.stderr[-300:])

        start = time.monotonic()
        r = as_user([CORRAL, "run", "--headless", agent, "--", "--version"])
        timed(f"run {agent} --version", time.monotonic() - start)
        printed = r.stdout + r.stderr
        check(r.returncode == 0 and version.replace("_", "+") in printed,
              f"{agent}: `corral run {agent} -- --version` prints {version} in the box",
              f"exit {r.returncode}: {printed[-800:]}")

        # The same image, asked how the agent finds its shell (its recipe's
        # `shell` list, from corral agents --json) and who runs it.
        recipe = next(a for a in json.loads(run([CORRAL, "agents", "--json"]).stdout)
                      if a["name"] == agent)
        probes = []
        for way in recipe["shell"]:
            if way.startswith("$"):
                probes.append(f'echo \'{way}\' "$(readlink -f "${{{way[1:]}}}")"')
            elif way.startswith("/"):
                probes.append(f'echo \'{way}\' "$(readlink -f {way})"')
            else:
                probes.append(f'echo \'{way}\' "$(readlink -f "$(command -v {way})")"')
        script = "id -u; " + "; ".join(probes)
        r = as_user([CORRAL, "run", "--headless", "--image", tag,
                     "/usr/lib/corral/real/sh", "-c", script])
        lines = r.stdout.strip().splitlines()
        check(r.returncode == 0 and lines[:1] == [str(USER)],
              f"{agent}: the box runs as the user's uid ({USER})", r.stdout + r.stderr[-500:])
        resolved = dict(line.split(" ", 1) for line in lines[1:] if " " in line)
        for way in recipe["shell"]:
            got = resolved.get(way, "")
            check(got.endswith("/corral-shell"), f"{agent}: its shell ({way}) is corral-shell",
                  f"{way} -> {got!r}")

    # A build that fails (a version npm does not have): 125, the failing
    # step's last lines, nothing tagged.
    r = run([CORRAL, "image", "build", "codex", "--version", "0.0.0-no-such"], timeout=600)
    check(r.returncode == 125 and "No matching version found for @openai/codex@0.0.0-no-such"
          in r.stderr and "\033[" not in r.stderr,
          "a failing build exits 125 with its last lines", f"exit {r.returncode}: {r.stderr[-800:]}")
    check("0.0.0-no-such" not in run([CORRAL, "image", "ls"]).stdout, "a failing build tags nothing")

    # A typo of an agent's name: no recipe, no such program in the default
    # image (which is not even here to pull): 127, a suggestion, nothing built.
    before = run([CORRAL, "image", "ls", "--json"]).stdout
    r = as_user([CORRAL, "run", "--headless", "clade"])
    check(r.returncode == 127 and "did you mean claude?" in r.stderr,
          "`corral run clade` exits 127 with the closest agent named", f"exit {r.returncode}: {r.stderr}")
    check(run([CORRAL, "image", "ls", "--json"]).stdout == before, "`corral run clade` built nothing")

    print(f"{RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
