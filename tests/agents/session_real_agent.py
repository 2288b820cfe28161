#!/usr/bin/env python3
"""Whole boxed sessions of the real Claude Code and Codex, driven by the
scripted model (scripted_model.py), on one engine.

Usage: session_real_agent.py docker|podman CORRAL SHIM [AGENT...]

`corral run --headless AGENT -- ARGS` runs the agent from its recipe's image
(built on first use). The scripted model listens on the host's loopback; a
hosts file maps model.test and other.test to 127.0.0.1 and only
model.test:PORT is allowed, so the box reaches the model through the
session's proxy and nothing else. The model's four steps: write NOTES.md,
`aws s3 ls`, fetch http://other.test/, `git push --force`. The test reads the
tool results the agent sent back, the project on the host and `corral inbox`;
next, three detours to the stand-in `aws` in scripts an earlier step wrote
(/dev/fd/3, a link to /proc/self/fd/3, a #! line naming it) are refused by
the exec check and the agent goes on;
then, with somebody watching (heartbeat), `aws` (a stand-in in the project)
runs.

CORRAL_TEST_RUNTIME=gvisor: the same sessions with `runtime: gvisor` (the box
on gVisor's kernel; Podman: tests/engines/start's podman-gvisor). There the
exec check is off (no seccomp user notification): the shell front still
refuses the detours it reads, and the #! detour, which only the exec check
sees, runs, as the start line says. Claude Code only there, unless agents
are named: see AGENTS.

A session past its time prints what it was doing (the model's requests, the
session record's last lines, the box's processes) before it is stopped.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scripted_model as sm  # noqa: E402
import agent_env  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
import started  # noqa: E402  (tests/engines/started.py)
from engine_api import Api  # noqa: E402  (tests/engines/engine_api.py)

ENGINE, CORRAL, SHIM = sys.argv[1], sys.argv[2], sys.argv[3]
RUNTIME = os.environ.get("CORRAL_TEST_RUNTIME", "default")
GVISOR = RUNTIME == "gvisor"
# Under gVisor, Claude Code alone: Codex there (runsc 20221219, Debian 12's)
# now and then never returns from a command that has ended: its shell is a
# zombie Codex does not reap, every Codex thread waits in futex or epoll, and
# a SIGCHLD sent by hand does not wake it. Seen within 8 to 156 commands
# with two sessions at once, and with Codex alone under `runsc do` (no
# corral); never with the default runtime, nor with Claude Code under gVisor
# (docs/sessions.md, "gVisor").
# Name it to run it anyway.
AGENTS = sys.argv[4:] or (["claude"] if GVISOR else ["claude", "codex"])
# Podman's API ignores a per-box runtime: its gVisor service has runsc as default.
STARTED = "podman-gvisor" if GVISOR and ENGINE == "podman" else ENGINE
SOCKET = os.environ.get("CORRAL_TEST_ENGINE_SOCKET") or f"/run/corral-test/{STARTED}.sock"
TOP = HERE.parent.parent
RESULTS = {"pass": 0, "fail": 0}
REFUSED = "may not run while nobody is watching"
STAND_IN = '#!/bin/sh\necho "aws stand-in ran: $*"\n'


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{ENGINE}: {what}"
          + ("" if ok else f"  [{str(detail)[-1500:]}]"), flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def run_stopping(cmd, timeout, on_timeout=None, **kw):
    """Runs corral; past `timeout` it gets SIGTERM (it stops its box) and a
    minute to end before SIGKILL. Its return code is then negative.
    `on_timeout()` runs first, while the box is still there."""
    process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, **kw)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        if on_timeout:
            on_timeout()
        process.terminate()
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
    return subprocess.CompletedProcess(cmd, process.returncode, out, err)


def engine_get(path):
    """GET from the engine's API: its JSON, or None (with a line saying why)."""
    try:
        status, data = Api(f"unix://{SOCKET}").json(path)
    except (OSError, ValueError) as e:
        status, data = None, e
    if status == 200:
        return data
    print(f"  engine: GET {path}: {status} {str(data)[:200]}", flush=True)
    return None


def responses_or_claude_results(body):
    """The step numbers whose results a model request carried."""
    found = {**sm.responses_tool_results(body), **sm.anthropic_tool_results(body)}
    return [int(key.rsplit("_", 1)[1]) for key in found]


# The login each agent's session gives it, and where the model finds it.
LOGIN_VARIABLES = {"claude": "ANTHROPIC_API_KEY", "codex": "OPENAI_API_KEY"}
LOGIN_HEADERS = {"claude": ("x-api-key", ""), "codex": ("authorization", "Bearer ")}


def start_engine():
    if not os.environ.get("CORRAL_TEST_ENGINE_SOCKET"):
        started.start_engine(STARTED)


class Session:
    """One agent's project, config and environment under a fresh folder."""

    def __init__(self, agent):
        self.agent = agent
        self.work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-agent-{ENGINE}-{agent}-"))
        os.chmod(self.work, 0o755)
        self.proj = self.work / "proj"
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
        run([*git, "init", "-q", "-b", "main", str(self.proj)], check=True)
        (self.proj / "README").write_text("a sample project\n")
        stand_in = self.proj / ".stand-in" / "aws"
        stand_in.parent.mkdir()
        stand_in.write_text(STAND_IN)
        stand_in.chmod(0o755)
        run([*git, "add", "README", ".stand-in"], cwd=self.proj, check=True)
        run([*git, "commit", "-q", "-m", "seed"], cwd=self.proj, check=True)
        # Never reached: the push is refused before git runs.
        run([*git, "remote", "add", "origin", "ssh://git.test/repo.git"], cwd=self.proj,
            check=True)
        self.hosts = self.work / "hosts"
        self.hosts.write_text("127.0.0.1 model.test other.test\n")
        self.heartbeat = self.work / "heartbeat"
        self.config = self.work / "config" / "corral" / "config.yaml"
        self.config.parent.mkdir(parents=True)
        for folder in ("home", "state"):
            (self.work / folder).mkdir()
        (self.work / "run").mkdir(mode=0o700)
        self.env = agent_env.clean(os.environ)
        for name in ("CORRAL_CONFIG", "CORRAL_LEVEL", "CORRAL_IMAGE", "DOCKER_HOST"):
            self.env.pop(name, None)
        self.env.update({
            "HOME": str(self.work / "home"), "XDG_CONFIG_HOME": str(self.work / "config"),
            "XDG_STATE_HOME": str(self.work / "state"), "XDG_RUNTIME_DIR": str(self.work / "run"),
            "CORRAL_ENGINE": f"unix://{SOCKET}", "CORRAL_SHIM": SHIM,
            "CORRAL_HOLD_UNKNOWN_FOLDERS": "off"})  # holding: tests/session/hold_e2e.py

    def write_config(self, model_port, passed, network=None):
        """`network`: more network.* keys; allowed_domains are added to the model's."""
        network = dict(network or {})
        allowed = [f"model.test:{model_port}", *network.pop("allowed_domains", [])]
        config = {
            "level": "always",
            "runtime": RUNTIME,
            "deny_unattended": ["aws", "git push --force", "git push -f"],
            "presence": {"sources": ["heartbeat"], "heartbeat_file": str(self.heartbeat)},
            "notify": {"desktop": False},
            "pass": sorted(passed),
            "network": {"allowed_domains": allowed, "allow_addresses": ["127.0.0.1"],
                        "hosts_file": str(self.hosts), **network},
        }
        self.config.write_text(json.dumps(config, indent=1))

    def run_agent(self, steps, timeout, tls=None, network=None, key=agent_env.SCRIPTED_KEY,
                  passed=None):
        """Runs the agent against a scripted model with `steps` (over HTTPS with
        `tls`, a server ssl.SSLContext), holding `key` as its login, with the
        variables `passed` in the box too: (model, result, seconds)."""
        model = sm.ScriptedModel(steps, tls=tls).start()
        base = model.url("model.test")
        extra = agent_env.agent_env(self.agent, base)
        extra[LOGIN_VARIABLES[self.agent]] = key
        extra.update(passed or {})
        extra = {name: value for name, value in extra.items() if value is not None}
        self.write_config(model.port, extra, network)
        env = dict(self.env, **extra)
        args = agent_env.agent_args(self.agent, base, "Do the task.")
        started = time.monotonic()
        result = run_stopping([CORRAL, "run", "--headless", self.agent, "--", *args],
                              timeout, on_timeout=lambda: self.describe_hang(model),
                              cwd=self.proj, env=env)
        seconds = time.monotonic() - started
        model.stop()
        return model, result, seconds

    def describe_hang(self, model):
        """What a session past its time was doing: the requests the model got
        and when, the session record's last lines, and the box's processes."""
        print(f"--- {self.agent}: the session is past its time; what it was doing", flush=True)
        for request in model.requests.all():
            body = request["body"] if isinstance(request["body"], dict) else {}
            outputs = sorted(responses_or_claude_results(body))
            print(f"  model got {request['method']} {request['path']} at "
                  f"{time.strftime('%H:%M:%S', time.gmtime(request['time']))} "
                  f"(results of steps {outputs})", flush=True)
        for path in sorted((self.work / "state").rglob("sessions/*.jsonl")):
            for line in path.read_text(errors="replace").splitlines()[-30:]:
                print(f"  record: {line[:400]}", flush=True)
        label = json.dumps({"label": [f"corral.project={self.proj}"]})
        boxes = engine_get("/containers/json?filters=" + urllib.parse.quote(label)) or []
        for box in boxes:
            # Under gVisor the engine lists the sandbox's host processes, not
            # the box's: `runsc ps` shows those.
            top = engine_get(f"/containers/{box['Id']}/top") or {}
            print(f"  box {box['Id'][:12]} ({box.get('State')}) processes:", flush=True)
            for row in (top.get("Processes") or [])[:40]:
                print("    " + " ".join(str(field) for field in row), flush=True)

    def results(self, model):
        if self.agent == "claude":
            return {step: text for step, (text, _) in model.claude_results().items()}
        return model.codex_results()

    def started_event(self):
        """The last session_started event in the session records."""
        found = {}
        for path in sorted((self.work / "state").rglob("*.jsonl")):
            for line in path.read_text().splitlines():
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == "session_started":
                    found = event
        return found

    def inbox(self):
        r = run([CORRAL, "inbox", "--json"], env=self.env)
        try:
            return json.loads(r.stdout)
        except ValueError:
            return [{"unreadable": r.stdout + r.stderr}]


def unattended(session):
    agent = session.agent
    model, r, seconds = session.run_agent(sm.demo_steps("http://other.test/"), timeout=1800)
    print(f"  {agent} stderr: " + r.stderr[-2500:].replace("\n", "\n  "), flush=True)
    check(r.returncode == 0 and sm.FINAL_TEXT in r.stdout,
          f"{agent}: the session ran to its final answer and exited 0 ({seconds:.1f} s, "
          "including any image build)", f"exit {r.returncode}: {r.stdout[-800:]}")
    if not model.requests.all():
        check(False, f"{agent}: the agent reached the scripted model", r.stderr[-1500:])
        return False
    check("in a box" in r.stderr and "network only through the proxy" in r.stderr,
          f"{agent}: corral printed the box's summary lines", r.stderr[-800:])
    hosts = {req["headers"].get("Host") or req["headers"].get("host")
             for req in model.requests.all()}
    check(hosts == {f"model.test:{model.port}"},
          f"{agent}: every request reached the model by its allowed name, through the proxy",
          hosts)
    # The box held a stand-in; the proxy added the real key on the way out.
    header, prefix = LOGIN_HEADERS[agent]
    got = model.requests.logins(header)
    check(got == {prefix + agent_env.SCRIPTED_KEY},
          f"{agent}: the model received the real key in {header} on every request "
          "(added by the session's proxy)", sorted(v[:len(prefix) + 3] + "..." for v in got))
    started = session.started_event()
    check(started.get("logins") == [LOGIN_VARIABLES[agent]] and agent_env.SCRIPTED_KEY not in json.dumps(started),
          f"{agent}: the session record names the login the proxy holds, and no value",
          json.dumps({k: started.get(k) for k in ("logins", "logins_passed")}))
    check(started.get("runtime") == RUNTIME,
          f"{agent}: the session record says runtime {RUNTIME}", started.get("runtime"))
    if GVISOR:
        check("runtime gvisor (runsc): the box runs on gVisor's kernel" in r.stderr
              and "exec check: off under gVisor" in r.stderr,
              f"{agent}: the start line names gVisor and what stands in for the exec check",
              r.stderr[-1200:])
    check("logins held by the proxy (the box has stand-ins): " + LOGIN_VARIABLES[agent]
          in r.stderr, f"{agent}: the start line says the proxy holds the login", r.stderr[-800:])
    results = session.results(model)
    check(sorted(results) == [0, 1, 2, 3], f"{agent}: sent back a result for each step",
          sorted(results))
    notes = session.proj / "NOTES.md"
    check(notes.exists() and notes.read_text() == sm.demo_steps()[0]["content"]
          and notes.stat().st_uid == os.getuid(),
          f"{agent}: NOTES.md is in the project on the host, owned by the user",
          f"{results.get(0)!r}; exists={notes.exists()}"
          + (f" uid={notes.stat().st_uid}" if notes.exists() else ""))
    aws = results.get(1, "")
    check("corral blocked this" in aws and REFUSED in aws and "stand-in" not in aws,
          f"{agent}: `aws s3 ls` was refused with corral's message, which the agent read", aws)
    fetch = results.get(2, "")
    check("HTTP 403" in fetch, f"{agent}: the fetch of a host not allowed got 403", fetch)
    push = results.get(3, "")
    check("corral blocked this" in push and REFUSED in push and "git push --force" in push,
          f"{agent}: `git push --force` was refused with corral's message", push)
    # The end line names the refused commands themselves, not the agent's wrapper text.
    blocked = [line for line in r.stderr.splitlines()
               if line.strip().startswith("Had 2 commands blocked while you were away (")]
    check(len(blocked) == 1 and "`aws s3 ls`" in blocked[0] and "`git push --force" in blocked[0]
          and blocked[0].rstrip().endswith("): corral inbox") and "eval" not in blocked[0],
          f"{agent}: the session ended with the blocked-commands line naming both commands",
          r.stderr[-400:])
    items = session.inbox()
    commands = [i for i in items if i.get("kind", "command") == "command"]
    entries = sorted(item.get("entry") or "" for item in commands)
    check(entries == ["aws", "git push --force"] and all(i.get("agent") == agent for i in items),
          f"{agent}: `corral inbox` lists the two refused commands, and no other command",
          json.dumps(items)[:1200])
    hosts = [i.get("command") for i in items if i.get("kind") == "host"]
    check(hosts.count("other.test") == 1,
          f"{agent}: `corral inbox` names the host the proxy refused, once", json.dumps(hosts))
    return True


# Issue 30: the scripted model asks for the stand-in `aws` by routes whose
# text no command line shows: scripts an earlier step wrote, which start it
# as /dev/fd/3 and through a link to /proc/self/fd/3 (the box's sh is the
# shell front, which reads the script and refuses it; the exec check stands
# behind it), and a script whose #! line names it, which only the exec check
# sees (the kernel starts the stand-in within the script's exec).
DETOURS = [
    ("/dev/fd/3", "detour-fd.sh", "/dev/fd/3 s3 ls 3<.stand-in/aws\n",
     'sh detour-fd.sh; echo "exit $?"'),
    ("a link to /proc/self/fd/3", "detour-link.sh",
     "ln -sf /proc/self/fd/3 fd-link\n./fd-link s3 ls 3<.stand-in/aws\n",
     'sh detour-link.sh; echo "exit $?"'),
    ("a #! line", "via-shebang", None, 'chmod +x via-shebang; ./via-shebang s3 ls; echo "exit $?"'),
]


def detours(session):
    """Nobody watching: each detour is refused, the agent reads why and goes on."""
    agent = session.agent
    refusals_before = [i for i in session.inbox() if i.get("kind") == "command"]
    steps = []
    for _, name, content, command in DETOURS:
        steps.append(sm.write_step(name, content or f"#!{session.proj}/.stand-in/aws\n"))
        steps.append(sm.shell_step(command))
    steps.append(sm.write_step("AFTER.md", "went on\n"))
    model, r, seconds = session.run_agent(steps, timeout=300)
    check(r.returncode == 0 and sm.FINAL_TEXT in r.stdout,
          f"{agent}: the detours session ran to its final answer and exited 0 ({seconds:.1f} s)",
          f"exit {r.returncode}: {r.stdout[-600:]} {r.stderr[-800:]}")
    results = session.results(model)
    for number, (route, *_) in zip((1, 3, 5), DETOURS):
        text = results.get(number, "")
        exec_check = route == "a #! line"
        if exec_check and GVISOR:  # the gap the start line names: no exec check there
            check("aws stand-in ran" in text,
                  f"{agent}: under gVisor the stand-in started through {route} runs: only the "
                  "exec check sees it, and it is off there (as the start line says)", text[-400:])
            continue
        refused = "ermission denied" in text or (not exec_check and "corral blocked this" in text)
        check("aws stand-in ran" not in text and refused,
              f"{agent}: nobody watching, the stand-in started through {route} is refused"
              + (" by the exec check (EACCES)" if exec_check else "") + ", and the agent got why",
              text[-400:])
    check((session.proj / "AFTER.md").exists(),
          f"{agent}: the agent went on after the refusals (its next step ran)")
    refusals = [i for i in session.inbox() if i.get("kind") == "command"]
    new = [i for i in refusals if i not in refusals_before]
    if GVISOR:  # the shell front's two, as with the default runtime; no #! one
        check(len(new) == len(DETOURS) - 1 and new[0].get("entry") == "aws"
              and "/dev/fd/3" in new[0].get("command", "")
              and "fd-link" in new[1].get("command", ""),
              f"{agent}: `corral inbox` has one refusal per detour the shell front read, "
              "the /dev/fd/3 one as `aws`", json.dumps(new)[:900])
        return
    check(len(new) == len(DETOURS) and new[-1].get("entry") == "aws"
          and "via-shebang" in new[-1].get("command", ""),
          f"{agent}: `corral inbox` has one refusal per detour, the #! one as `aws`",
          json.dumps(new)[:900])


def watched(session):
    agent = session.agent
    run([CORRAL, "presence", "ping"], env=session.env)
    check(session.heartbeat.exists(), f"{agent}: `corral presence ping` wrote the heartbeat")
    # The box's environment goes to files in the project, never back to the
    # model: the proxy refuses a stand-in in a request body.
    steps = [sm.shell_step('export PATH="$PWD/.stand-in:$PATH"; aws s3 ls'),
             sm.shell_step("env > box-env.txt; (tr '\\0' '\\n' < /proc/1/environ || "
                           "echo unreadable) > pid1-env.txt 2>&1; echo saved")]
    model, r, seconds = session.run_agent(steps, timeout=600)
    results = session.results(model)
    check(r.returncode == 0 and "aws stand-in ran: s3 ls" in results.get(0, ""),
          f"{agent}: with somebody watching, `aws s3 ls` runs ({seconds:.1f} s)",
          f"exit {r.returncode}: {results.get(0)!r} {r.stderr[-600:]}")
    check(session.inbox() == [], f"{agent}: nothing was added to the inbox while watched")
    box_env(session)


def box_env(session):
    """What the box's environment (and PID 1's) held: a stand-in, never the key."""
    agent, real = session.agent, agent_env.SCRIPTED_KEY
    variable = LOGIN_VARIABLES[agent]
    env_file, pid1_file = session.proj / "box-env.txt", session.proj / "pid1-env.txt"
    text = env_file.read_text() if env_file.exists() else ""
    values = [line.split("=", 1)[1] for line in text.splitlines()
              if line.startswith(variable + "=")]
    stand_in = values[0] if values else ""
    check(len(values) == 1 and len(stand_in) == len(real) and stand_in != real
          and stand_in.startswith("sk-"),
          f"{agent}: the box's {variable} is a stand-in of the key's length and prefix",
          f"{len(values)} values; length {len(stand_in)} vs {len(real)}")
    check(text and real not in text, f"{agent}: the real key is nowhere in the box's env",
          "env not saved" if not text else "found")
    pid1 = pid1_file.read_text() if pid1_file.exists() else "not saved"
    readable = "unreadable" not in pid1 and pid1 != "not saved"
    check(real not in pid1, f"{agent}: the real key is not in PID 1's environment ("
          + ("read it" if readable else "not readable from the box") + ")")


def main():
    start_engine()
    for agent in AGENTS:
        session = Session(agent)
        try:
            if unattended(session):
                detours(session)
                watched(session)
        finally:
            shutil.rmtree(session.work, ignore_errors=True)
    print(f"{ENGINE} ({RUNTIME}): {RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
