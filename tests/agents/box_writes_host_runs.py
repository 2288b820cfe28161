#!/usr/bin/env python3
"""Nothing the box writes runs on the host (issue 28), with the real Claude
Code: a boxed session followed by an unboxed one in the same project, with
the same HOME, runs no hook, MCP server or helper the boxed session wrote.

Usage: box_writes_host_runs.py docker|podman CORRAL SHIM

1. Boxed (`corral run --headless claude -- -p ...`, level unattended, the
   recipe's image, built on first use): the scripted model (scripted_model.py,
   on the host's loopback, reached as model.test through the session's proxy)
   makes Claude Code write, with its Bash tool:
   - the project's .claude/settings.json: SessionStart and Stop hooks;
   - the project's .claude/settings.local.json: a SessionStart hook, and
     enableAllProjectMcpServers; the project's .mcp.json: an MCP server;
   - the box's ~/.claude/settings.json: a SessionStart hook and apiKeyHelper;
   - the box's ~/.claude.json: an MCP server (mcpServers, user scope).
   Every command those name touches a marker in a folder of the test's,
   outside the project, that the box does not have. Whether each write
   happened in the box or was refused is printed (either is fine for the
   box); what the host has afterwards is checked: ~/.claude/settings.json and
   ~/.claude/CLAUDE.md byte for byte as the test seeded them, no marker path
   in ~/.claude.json, none of the project files above on the host.
2. Unboxed (level unattended, somebody watching by the heartbeat, stdin and
   stdout a terminal: DecideBox's attended case): the same project and HOME,
   Claude Code installed on the host (npm, the image's version, kept in
   ~/.cache/corral-tests) against the scripted model with no tool steps. No
   marker may appear.
3. The positive control: the test itself writes the very same files on the
   host and runs the same unboxed session: every marker appears. This proves,
   each run, that this Claude Code version runs SessionStart and Stop hooks
   (from ~/.claude/settings.json, the project's .claude/settings.json and
   settings.local.json), apiKeyHelper (even with ANTHROPIC_API_KEY set) and
   both MCP servers (user scope, and .mcp.json when settings.local.json sets
   enableAllProjectMcpServers) in `claude -p`, so step 2's empty marker folder
   means something. (Checked with Claude Code 2.1.332: all of them run.)

TIME lines give each part's seconds: about 15 s in all on each engine once
the claude image is built (its build, on first use, takes minutes) and
Claude Code is in the cache (an npm install: about 10 s).

On the build of 2b121d4 (settings shared read-write with the host, the
project's files not held) the checks of steps 1 and 2 fail: that is issue 28.
"""
import fcntl
import json
import os
import pathlib
import pty
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scripted_model as sm  # noqa: E402
import agent_env  # noqa: E402

sys.path.insert(0, str(HERE.parent / "engines"))
import started  # noqa: E402  (tests/engines/started.py)

ENGINE, CORRAL, SHIM = sys.argv[1], sys.argv[2], sys.argv[3]
RESULTS = {"pass": 0, "fail": 0}
SEEDED_SETTINGS = '{"theme": "dark"}\n'
SEEDED_MEMORY = "# The user's own memory\nAlways answer in haiku.\n"
SEEDED_CLAUDE_JSON = '{"hasCompletedOnboarding": true}\n'
# Every marker a command the box wrote would touch, on the host, and what wrote it.
MARKERS = {
    "project-SessionStart": "the SessionStart hook in the project's .claude/settings.json",
    "project-Stop": "the Stop hook in the project's .claude/settings.json",
    "local-SessionStart": "the SessionStart hook in the project's .claude/settings.local.json",
    "user-SessionStart": "the SessionStart hook in ~/.claude/settings.json",
    "apiKeyHelper": "the apiKeyHelper in ~/.claude/settings.json",
    "mcp-user": "the MCP server in ~/.claude.json",
    "mcp-project": "the MCP server in the project's .mcp.json",
}


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{ENGINE}: {what}"
          + ("" if ok else f"  [{' '.join(str(detail).split())[-1000:]}]"), flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def timed(what, seconds):
    print(f"TIME {ENGINE} {what} {seconds:.1f}s", flush=True)


def host_claude(version):
    """The bin folder of Claude Code `version` installed on this host with
    npm, kept between runs in ~/.cache/corral-tests (CORRAL_TEST_CACHE)."""
    cache = pathlib.Path(os.environ.get("CORRAL_TEST_CACHE")
                         or pathlib.Path(os.environ.get("XDG_CACHE_HOME")
                                         or pathlib.Path.home() / ".cache") / "corral-tests")

    def installed():
        try:
            return run([str(bin_dir / "claude"), "--version"], timeout=60).stdout
        except OSError:
            return ""

    prefix = cache / f"claude-code-{version}"
    bin_dir = prefix / "node_modules" / ".bin"
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "claude-code.lock", "w") as lock:  # the other engine's test
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed().startswith(version + " "):
            return bin_dir
        shutil.rmtree(prefix, ignore_errors=True)
        prefix.mkdir(parents=True)
        r = run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                 f"{agent_env.PACKAGES['claude']}@{version}"], timeout=600)
        got = installed()
    if r.returncode != 0 or not got.startswith(version + " "):
        print(r.stdout + r.stderr)
        raise SystemExit(f"FAIL {ENGINE}: Claude Code {version} could not be installed on the "
                         f"host with npm in {prefix} (--version says {got!r})")
    return bin_dir


def hooks(markers, events):
    return {event: [{"hooks": [{"type": "command",
                                "command": f"touch {markers}/{prefix}-{event}"}]}]
            for prefix, event in events}


class Test:
    def __init__(self):
        self.work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-boxwrites-{ENGINE}-"))
        os.chmod(self.work, 0o755)
        self.proj = self.work / "proj"
        self.home = self.work / "home"
        self.markers = self.work / "markers"  # outside the project: the box has no such folder
        self.markers.mkdir()
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
        run([*git, "init", "-q", "-b", "main", str(self.proj)], check=True)
        (self.proj / "README").write_text("a sample project\n")
        run([*git, "add", "README"], cwd=self.proj, check=True)
        run([*git, "commit", "-q", "-m", "seed"], cwd=self.proj, check=True)
        # The host's Claude Code settings, as a user has them.
        (self.home / ".claude").mkdir(parents=True)
        (self.home / ".claude" / "settings.json").write_text(SEEDED_SETTINGS)
        (self.home / ".claude" / "CLAUDE.md").write_text(SEEDED_MEMORY)
        (self.home / ".claude.json").write_text(SEEDED_CLAUDE_JSON)
        self.hosts = self.work / "hosts"
        self.hosts.write_text("127.0.0.1 model.test\n")
        self.heartbeat = self.work / "heartbeat"
        self.config = self.work / "config" / "corral" / "config.yaml"
        self.config.parent.mkdir(parents=True)
        (self.work / "state").mkdir()
        (self.work / "run").mkdir(mode=0o700)
        self.env = agent_env.clean(os.environ)
        for name in ("CORRAL_CONFIG", "CORRAL_LEVEL", "CORRAL_IMAGE", "DOCKER_HOST"):
            self.env.pop(name, None)
        self.env.update({
            "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.work / "config"),
            "XDG_STATE_HOME": str(self.work / "state"), "XDG_RUNTIME_DIR": str(self.work / "run"),
            "CORRAL_ENGINE": f"unix:///run/corral-test/{ENGINE}.sock", "CORRAL_SHIM": SHIM,
            "CORRAL_HOLD_UNKNOWN_FOLDERS": "off"})  # holding: tests/session/hold_e2e.py
        m = self.markers
        # What the box writes, by where it lands: the project's files by their
        # path in the project, the home's by their path under HOME.
        self.project_files = {
            ".claude/settings.json": json.dumps({"hooks": hooks(m, [
                ("project", "SessionStart"), ("project", "Stop")])}, indent=1) + "\n",
            ".claude/settings.local.json": json.dumps({
                "enableAllProjectMcpServers": True,
                "hooks": hooks(m, [("local", "SessionStart")])}, indent=1) + "\n",
            ".mcp.json": json.dumps({"mcpServers": {"box-project": {
                "type": "stdio", "command": "/bin/sh",
                "args": ["-c", f"touch {m}/mcp-project; sleep 5"]}}}, indent=1) + "\n",
        }
        self.user_settings = json.dumps({
            "theme": "dark", "hooks": hooks(m, [("user", "SessionStart")]),
            "apiKeyHelper": f"touch {m}/apiKeyHelper; echo sk-scripted-model"}, indent=1) + "\n"
        self.mcp_user = {"type": "stdio", "command": "/bin/sh",
                         "args": ["-c", f"touch {m}/mcp-user; sleep 5"]}

    # ------------------------------------------------------------ sessions

    def write_config(self, model_port, passed, level="unattended"):
        self.config.write_text(json.dumps({
            "level": level,
            "presence": {"sources": ["heartbeat"], "heartbeat_file": str(self.heartbeat)},
            "notify": {"desktop": False},
            "pass": sorted(passed),
            "network": {"allowed_domains": [f"model.test:{model_port}"],
                        "allow_addresses": ["127.0.0.1"], "hosts_file": str(self.hosts)},
        }, indent=1))

    def box_steps(self):
        """The boxed session's steps: what the box sees, then the writes."""
        def write(path, content):
            folder = os.path.dirname(path)
            made = f"mkdir -p {folder} && " if folder not in ("", "~") else ""
            return sm.shell_step(f"{{ {made}printf %s {shlex.quote(content)} > {path}; }} "
                                 f"&& echo WROTE {path} || echo NOT-WRITTEN {path}")
        merge = ("const f=require('os').homedir()+'/.claude.json';const fs=require('fs');"
                 "let c={};try{c=JSON.parse(fs.readFileSync(f,'utf8'))}catch(e){}"
                 "c.mcpServers=Object.assign(c.mcpServers||{},{'box-user':"
                 + json.dumps(self.mcp_user) + "});"
                 "try{fs.writeFileSync(f,JSON.stringify(c,null,1));"
                 "console.log('WROTE ~/.claude.json')}"
                 "catch(e){console.log('NOT-WRITTEN ~/.claude.json: '+e.message)}")
        return [
            sm.shell_step("cat ~/.claude/settings.json ~/.claude/CLAUDE.md"),
            *[write(path, content) for path, content in self.project_files.items()],
            write("~/.claude/settings.json", self.user_settings),
            sm.shell_step("node -e " + shlex.quote(merge)),
            sm.shell_step(f"grep -l {self.markers} ~/.claude/settings.json ~/.claude.json "
                          ".claude/settings.json .claude/settings.local.json .mcp.json; "
                          "echo grep-done"),
        ]

    def boxed(self):
        steps = self.box_steps()
        model = sm.ScriptedModel(steps).start()
        base = f"http://model.test:{model.port}"
        extra = agent_env.agent_env("claude", base)
        self.write_config(model.port, extra)
        env = dict(self.env, **extra)
        start = time.monotonic()
        try:
            r = run([CORRAL, "run", "--headless", "claude", "--", "-p", "Do the task."],
                    cwd=self.proj, env=env, stdin=subprocess.DEVNULL, timeout=1000)
        except subprocess.TimeoutExpired as e:
            r = subprocess.CompletedProcess(e.cmd, -1, str(e.stdout or ""), str(e.stderr or ""))
        timed("boxed session (with any image build)", time.monotonic() - start)
        model.stop()
        results = {n: text for n, (text, _) in model.claude_results().items()}
        return r, results, len(steps)

    def unboxed(self, bin_dir, what):
        """One attended session: level unattended, the heartbeat fresh, stdin
        and stdout a terminal. Returns (exit code, terminal output, stderr, model)."""
        model = sm.ScriptedModel([]).start()  # no tool steps: the final answer
        self.write_config(model.port, [])
        env = dict(self.env, **agent_env.agent_env("claude", model.url()))
        env["PATH"] = f"{bin_dir}:{env['PATH']}"
        run([CORRAL, "presence", "ping"], env=env)
        main, secondary = pty.openpty()
        out = []

        def drain():
            while True:
                try:
                    data = os.read(main, 4096)
                except OSError:
                    return
                if not data:
                    return
                out.append(data)

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        start = time.monotonic()
        p = subprocess.Popen([CORRAL, "run", "claude", "--", "-p", "Do the task."], cwd=self.proj,
                             env=env, stdin=secondary, stdout=secondary, stderr=subprocess.PIPE)
        os.close(secondary)
        try:
            _, err = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
        timed(f"unboxed session ({what})", time.monotonic() - start)
        reader.join(10)
        os.close(main)
        model.stop()
        # Hooks and MCP servers may still be finishing (a SessionEnd, a server's sleep).
        time.sleep(1)
        return p.returncode, b"".join(out).decode(errors="replace"), err.decode(errors="replace"), \
            model

    # ------------------------------------------------------------ checks

    def ran(self):
        return sorted(os.listdir(self.markers))

    def host_is_clean(self, when):
        settings = self.home / ".claude" / "settings.json"
        check(settings.exists() and settings.read_text() == SEEDED_SETTINGS,
              f"{when}: the host's ~/.claude/settings.json is byte for byte what the user had",
              settings.read_text() if settings.exists() else "gone")
        memory = self.home / ".claude" / "CLAUDE.md"
        check(memory.exists() and memory.read_text() == SEEDED_MEMORY,
              f"{when}: the host's ~/.claude/CLAUDE.md is byte for byte what the user had",
              memory.read_text() if memory.exists() else "gone")
        check(not (self.home / ".claude" / "settings.local.json").exists(),
              f"{when}: the host has no ~/.claude/settings.local.json")
        claude_json = self.home / ".claude.json"
        text = claude_json.read_text() if claude_json.exists() else ""
        try:
            servers = json.loads(text).get("mcpServers") if text else None
        except ValueError:
            servers = "unreadable"
        check(str(self.markers) not in text and not servers,
              f"{when}: the host's ~/.claude.json names no MCP server and no program the box "
              "wrote", f"mcpServers={json.dumps(servers)[:600]}")
        for path in self.project_files:
            host = self.proj / path
            check(not host.exists(), f"{when}: the project on the host has no {path} (it had "
                  "none; the box's version is held for review)",
                  host.read_text()[:600] if host.exists() else "")

    def run_all(self):
        # 1. Boxed, nobody watching.
        r, results, count = self.boxed()
        print("  boxed stderr: " + r.stderr[-2500:].replace("\n", "\n  "), flush=True)
        check(r.returncode == 0 and sm.FINAL_TEXT in r.stdout,
              "boxed: Claude Code ran to its final answer and exited 0",
              f"exit {r.returncode}: {r.stdout[-600:]} {r.stderr[-600:]}")
        check(sorted(results) == list(range(count)),
              "boxed: Claude Code ran every step and sent back its result", sorted(results))
        for n in sorted(results):
            print(f"  box step {n}: " + results[n].strip()[-400:].replace("\n", "\n    "))
        targets = [*self.project_files, "~/.claude/settings.json", "~/.claude.json"]
        for n, target in enumerate(targets, start=1):
            said = results.get(n, "")
            check("WROTE" in said or "NOT-WRITTEN" in said,
                  f"boxed: the box's write of {target} happened or was refused: "
                  + ("written" if "WROTE" in said else "refused"), said)
        seen = results.get(0, "")
        check(re.search(r'"theme"\s*:\s*"dark"', seen) and "Always answer in haiku." in seen,
              "boxed: the box's Claude Code sees the user's settings and memory (CLAUDE.md)",
              seen)
        check(not self.ran(), "boxed: nothing ran on the host during the boxed session",
              self.ran())
        self.host_is_clean("after the boxed session")

        # The host's Claude Code: the version of the image the box ran.
        used = re.search(r"image corral-agent-claude:([^\s),]+)", r.stderr)
        version = used.group(1) if used else ""
        if not version:
            check(False, "corral named the claude image the box ran", r.stderr[-600:])
            return
        start = time.monotonic()
        bin_dir = host_claude(version)
        timed(f"Claude Code {version} on the host (npm, or the cache)", time.monotonic() - start)

        # 2. Unboxed, somebody watching: nothing the box wrote may run.
        code, out, err, model = self.unboxed(bin_dir, "after the boxed one")
        print("  unboxed stderr: " + err[-1200:].replace("\n", "\n  "), flush=True)
        check(code == 0 and "runs unboxed" in err and sm.FINAL_TEXT in out
              and model.requests.all(),
              "unboxed: with somebody watching at a terminal, Claude Code ran on the host, "
              "reached the scripted model and exited 0",
              f"exit {code}: out {out[-600:]!r} err {err[-600:]!r}")
        ran = self.ran()
        for marker, what in MARKERS.items():
            check(marker not in ran, f"unboxed: {what}, written in the box, did not run on the "
                  "host", f"{self.markers / marker} exists")
        self.host_is_clean("after the unboxed session")

        # 3. The positive control: the same files, written by the test on the host.
        for marker in self.ran():
            (self.markers / marker).unlink()
        for path, content in self.project_files.items():
            (self.proj / path).parent.mkdir(parents=True, exist_ok=True)
            (self.proj / path).write_text(content)
        (self.home / ".claude" / "settings.json").write_text(self.user_settings)
        claude_json = self.home / ".claude.json"
        config = json.loads(claude_json.read_text()) if claude_json.exists() else {}
        config.setdefault("mcpServers", {})["box-user"] = self.mcp_user
        claude_json.write_text(json.dumps(config, indent=1))
        code, out, err, model = self.unboxed(bin_dir, "the positive control")
        ran = self.ran()
        check(code == 0 and sm.FINAL_TEXT in out, "control: the unboxed session ran",
              f"exit {code}: out {out[-600:]!r} err {err[-600:]!r}")
        for marker, what in MARKERS.items():
            check(marker in ran, f"control: {what}, written on the host by the test, runs in "
                  "an unboxed `claude -p` session", f"ran: {ran}")


def main():
    started.start_engine(ENGINE)
    test = Test()
    start = time.monotonic()
    try:
        test.run_all()
    finally:
        shutil.rmtree(test.work, ignore_errors=True)
    timed("whole test", time.monotonic() - start)
    print(f"{ENGINE}: {RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
