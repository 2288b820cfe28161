#!/usr/bin/env python3
"""Every verified agent's settings and login folders (issue 28): what a box
writes there never reaches the host's folder.

Usage: agent_folders_e2e.py docker|podman CORRAL SHIM

The verified recipes, their binaries and folders come from `corral agents
--json` at run time. One small image is built through the engine (`corral run
--build`, FROM the busybox test image, tests/engines/test_image) holding a
stand-in program under each recipe's binary name. The real agents' images
are not needed: the stand-in does in the box what an agent (or a prompt
injected into one) could do to its own settings:
- in each folder the recipe names: append a line to every file there,
  overwrite settings.json with a SessionStart hook, append `notify` and an
  `[mcp_servers]` entry to config.toml, add a new file and a new folder, and
  remove a file;
- each file the recipe names (~/.claude.json): overwrite it with an MCP
  server whose command is a program.
It prints what it did and what was refused; either is fine in the box.

Before: the test seeds the host's folders (under the HOME of the test's
environment) with known content (settings.json, config.toml, notes.md,
sub/keep.txt; a file entry with a small JSON). After each agent's session:
every one of its folders and files on the host is byte for byte as before,
with no file added or removed. (No agent runs on the host here: that the
hooks would run is tests/agents/box_writes_host_runs.py's part, for Claude.)
On the build of 2b121d4 (`agents.settings: shared`, the default) this fails
for every agent: that is issue 28. About 5 s per engine: the image builds in
about a second and is removed at the end; each session takes under a second.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
import started  # noqa: E402  (tests/engines/started.py)

ENGINE, CORRAL, SHIM = sys.argv[1], sys.argv[2], sys.argv[3]
SOCKET = f"/run/corral-test/{ENGINE}.sock"
RESULTS = {"pass": 0, "fail": 0}
TAG = f"corral-agent-folders-test-{os.getpid()}:1"

# The stand-in: `$0`'s name finds its recipe's folders in the image, and
# what it writes is there too (payload/, made by payloads()).
STAND_IN = r"""#!/bin/sh
me=$(basename "$0")
share=/usr/local/share/stand-in
did() { if "$@" 2>/dev/null; then echo "OK $what"; else echo "REFUSED $what"; fi; }
echo "STAND-IN $me in $PWD, HOME=$HOME"
while read -r entry; do
  path="$HOME/${entry#\~/}"
  case "$entry" in
    */)
      path=${path%/}
      what="mkdir $path"; did mkdir -p "$path"
      for f in $(find "$path" -type f 2>/dev/null); do
        what="append to $f"; did sh -c "echo '# written in the box' >> '$f'"
      done
      what="overwrite $path/settings.json with a hook and an MCP server"
      did sh -c "cat $share/payload/settings.json > '$path/settings.json'"
      what="append notify and mcp_servers to $path/config.toml"
      did sh -c "cat $share/payload/config.toml >> '$path/config.toml'"
      what="add $path/box-new-file"; did sh -c "echo new > '$path/box-new-file'"
      what="add $path/box-new-folder/"; did mkdir -p "$path/box-new-folder"
      what="remove $path/sub/keep.txt"; did rm -f "$path/sub/keep.txt"
      ;;
    *)
      what="mkdir $(dirname "$path")"; did mkdir -p "$(dirname "$path")"
      what="overwrite $path with an MCP server"
      did sh -c "cat $share/payload/file.json > '$path'"
      ;;
  esac
done < "$share/folders/$me"
echo "STAND-IN DONE $me"
"""


def payloads(markers):
    """What the stand-in writes: each command touches a marker on the host's
    side (no host program reads these folders here; the marker only makes
    the content what an attacker would write)."""
    hook = f"touch {markers}/hook"
    return {
        "settings.json": json.dumps({
            "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": hook}]}]},
            "mcpServers": {"box": {"command": "sh", "args": ["-c", hook + "-mcp"]}}}) + "\n",
        "config.toml": (f'notify = ["sh", "-c", "{hook}-notify"]\n'
                        f'[mcp_servers.box]\ncommand = "sh"\nargs = ["-c", "{hook}-mcp"]\n'),
        "file.json": json.dumps({"mcpServers": {"box": {
            "command": "sh", "args": ["-c", hook + "-file-mcp"]}}}) + "\n",
    }


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{ENGINE}: {what}"
          + ("" if ok else f"  [{' '.join(str(detail).split())[-1200:]}]"), flush=True)


def timed(what, seconds):
    print(f"TIME {ENGINE} {what} {seconds:.1f}s", flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def host_path(home, entry):
    return home / entry[2:].rstrip("/") if entry.startswith("~/") else pathlib.Path(entry)


def snapshot(path):
    """{relative path: what it is}: every folder, file (its bytes and mode)
    and link under `path`, or the file itself."""
    found = {}
    if not os.path.lexists(path):
        return found
    if not path.is_dir() or path.is_symlink():
        return {path.name: describe(path)}
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            full = pathlib.Path(root) / name
            found[str(full.relative_to(path))] = describe(full)
    return found


def describe(path):
    st = os.lstat(path)
    if os.path.islink(path):
        return ("link", os.readlink(path))
    if path.is_dir():
        return ("folder", st.st_mode & 0o7777)
    return ("file", st.st_mode & 0o7777, path.read_bytes())


def differences(before, after):
    changed = [p for p in before if p in after and before[p] != after[p]]
    added = [p for p in after if p not in before]
    removed = [p for p in before if p not in after]
    return ([f"changed {p}" for p in sorted(changed)] + [f"added {p}" for p in sorted(added)]
            + [f"removed {p}" for p in sorted(removed)])


def seed(home, entry, agent):
    path = host_path(home, entry)
    if entry.endswith("/"):
        (path / "sub").mkdir(parents=True, exist_ok=True)
        (path / "settings.json").write_text(json.dumps({"seeded_by_the_user": agent}) + "\n")
        (path / "config.toml").write_text(f'# the user\'s own\nmodel = "{agent}-model"\n')
        (path / "notes.md").write_text(f"The user's notes for {agent}.\n")
        (path / "sub" / "keep.txt").write_text("kept\n")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"seeded_by_the_user": agent}) + "\n")


def main():
    started.start_engine(ENGINE)
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-agentfolders-{ENGINE}-"))
    os.chmod(work, 0o755)
    home, proj, markers = work / "home", work / "proj", work / "markers"
    for folder in (home, proj, markers, work / "state"):
        folder.mkdir()
    (work / "run").mkdir(mode=0o700)
    (proj / "README").write_text("a project\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("CORRAL_CONFIG", "CORRAL_IMAGE", "CORRAL_LEVEL", "DOCKER_HOST")}
    env.update({
        "HOME": str(home), "XDG_CONFIG_HOME": str(work / "config"),
        "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
        "CORRAL_ENGINE": f"unix://{SOCKET}", "CORRAL_SHIM": SHIM,
        "CORRAL_HOLD_UNKNOWN_FOLDERS": "off", "CORRAL_PRESENCE_SOURCES": ""})
    total = time.monotonic()
    try:
        r = run([CORRAL, "agents", "--json"], env=env)
        recipes = [a for a in json.loads(r.stdout or "[]") if a.get("verified")]
        check(len(recipes) >= 1, "corral agents --json lists the verified agents",
              r.stdout[-300:] + r.stderr[-300:])
        print(f"  verified: {', '.join(a['name'] for a in recipes)}", flush=True)
        for recipe in recipes:  # a folder named by variable would replace ~/...
            if recipe.get("folder_variable"):
                env.pop(recipe["folder_variable"], None)

        # The image: busybox, and the stand-in under every binary name.
        ctx = work / "image"
        (ctx / "bin").mkdir(parents=True)
        (ctx / "share" / "folders").mkdir(parents=True)
        (ctx / "share" / "payload").mkdir()
        for name, content in payloads(markers).items():
            (ctx / "share" / "payload" / name).write_text(content)
        for recipe in recipes:
            program = ctx / "bin" / recipe["binary"]
            program.write_text(STAND_IN)
            program.chmod(0o755)
            (ctx / "share" / "folders" / recipe["binary"]).write_text(
                "\n".join(recipe["folders"]) + "\n")
        (ctx / "Dockerfile").write_text(
            "FROM corral-test:latest\n"
            "COPY bin/ /usr/local/bin/\n"
            "COPY share/ /usr/local/share/stand-in/\n")
        start = time.monotonic()
        r = run([CORRAL, "run", "--headless", "--image", TAG, "--build", str(ctx), "--",
                 "/bin/true"], cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=600)
        timed("image build and one session", time.monotonic() - start)
        check(r.returncode == 0, f"the stand-ins' image {TAG} is built", r.stderr[-800:])
        if r.returncode != 0:
            return

        for recipe in recipes:
            agent = recipe["name"]
            for entry in recipe["folders"]:
                seed(home, entry, agent)
            before = {e: snapshot(host_path(home, e)) for e in recipe["folders"]}
            start = time.monotonic()
            r = run([CORRAL, "run", "--headless", "--image", TAG, agent], cwd=proj, env=env,
                    stdin=subprocess.DEVNULL, timeout=300)
            timed(f"{agent} session", time.monotonic() - start)
            done = [l for l in r.stdout.splitlines() if l.startswith(("OK ", "REFUSED "))]
            check(r.returncode == 0 and f"STAND-IN DONE {recipe['binary']}" in r.stdout
                  and done,
                  f"{agent}: its stand-in ran in the box ({len(done)} writes tried: "
                  f"{sum(l.startswith('OK ') for l in done)} done, "
                  f"{sum(l.startswith('REFUSED ') for l in done)} refused)",
                  f"exit {r.returncode}: {r.stdout[-600:]} {r.stderr[-600:]}")
            for entry in recipe["folders"]:
                after = snapshot(host_path(home, entry))
                diff = differences(before[entry], after)
                check(not diff, f"{agent}: the host's {entry} is byte for byte as before, "
                      "nothing added or removed", "; ".join(diff))
    finally:
        run(["curl", "-s", "--unix-socket", SOCKET, "-X", "DELETE",
             f"http://d/v1.41/images/{TAG}?force=1"])
        shutil.rmtree(work, ignore_errors=True)
    timed("whole test", time.monotonic() - total)
    print(f"{ENGINE}: {RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
