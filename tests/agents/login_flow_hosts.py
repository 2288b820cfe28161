#!/usr/bin/env python3
"""The login flows' hosts (issue 29): the real Claude Code and the real Codex,
started interactively in a box (a terminal: this test's pty) with no login,
are driven through their login flows; every host they ask the session's proxy
for is read from the session record's `network` events. The test fails when
one of them was refused as not allowed, unless the agent's recipe leaves it
out on purpose (NOT_LOGIN below, with the recipe's comment saying why).

Usage: login_flow_hosts.py docker|podman CORRAL SHIM [AGENT...]

Nothing outside this machine is reachable: an allowed host's request fails
upstream (the record says `error`, 502), a host that is not allowed is
refused (`deny`, 403, `not-allowed`). What counts is what the agent asked for.

- Claude Code, first start (no settings): it checks that it can reach its
  services before the first screen, and ends when it cannot.
- Claude Code, onboarded: `!curl` to an unlisted host (the control), then
  `/login`, "Claude account with subscription": it prints the URL for the
  user's browser (opened on the user's side, never from the box) and waits for
  the code; a code pasted makes it ask for the token exchange.
- Codex: its first screen (the login choice); "Sign in with ChatGPT" prints
  the URL for the user's browser; "Sign in with Device Code" asks for a code;
  "Sign in another way", an API key (the box's stand-in of OPENAI_API_KEY,
  which Codex offers). The control is Codex's own, in a short second run:
  `codex exec` with a model provider at the unlisted host. (A `!curl` typed at
  its prompt waits for its startup, which waits on chatgpt.com.)

The hosts asked for, per phase, are printed (`HOSTS ...` lines).
"""
import datetime
import fcntl
import json
import os
import pty
import re
import secrets
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

import session_real_agent as base  # the same arguments; its Session and check
from logins_real_agent import events

check, run, ENGINE, CORRAL = base.check, base.run, base.ENGINE, base.CORRAL
CONTROL_HOST = "corral-control.test"  # never in any list: the proxy must refuse it
CONTROL = f"!curl -sS -o /dev/null --max-time 10 https://{CONTROL_HOST}/"
CONTROL_WHAT = {"claude": f"a !curl at Claude Code's prompt to {CONTROL_HOST}",
                "codex": f"codex exec with a model provider at {CONTROL_HOST}"}

# Hosts an agent asks for that its recipe leaves out on purpose (the recipe's
# comment in launcher/agents/recipes.cc says why): none is on a login flow,
# and the agent works without them.
NOT_LOGIN = {
    "claude": {
        "raw.githubusercontent.com": "the release notes (CHANGELOG.md)",
        "downloads.claude.ai": "the official plugin marketplace and release downloads",
        "github.com": "the official plugin marketplace (a git clone)",
    },
    "codex": {
        "github.com": "the curated plugins repository",
        "api.github.com": "the curated plugins and the update check",
        "raw.githubusercontent.com": "the announcement tip",
        "ab.chatgpt.com": "feature flags and experiments",
    },
}
# Hosts each agent must be seen asking for (and allowed), or the flow was not
# driven as far as the test says.
MUST_ASK = {"claude": {"api.anthropic.com", "platform.claude.com"},
            "codex": {"auth.openai.com"}}

ANSI = re.compile(r"\x1b\[[0-9;?<>=!]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]"
                  r"|\x1b[=>78]|\x1bP[^\x1b]*\x1b\\")
DOWN, ESC, ENTER = "\x1b[B", "\x1b", "\r"


def now():
    """The time as the session record writes it (UTC, milliseconds)."""
    moment = datetime.datetime.now(datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Terminal:
    """`corral run AGENT` on a pty of 50 rows and 200 columns: keys in, the
    screen's text out (escapes and blanks removed, so words wrapped or drawn
    apart still match)."""

    def __init__(self, args, env, cwd):
        self.main, secondary = pty.openpty()
        fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        self.raw, self.mark = [], 0
        self.lock = threading.Lock()
        self.process = subprocess.Popen([CORRAL, "run", *args], cwd=cwd, env=env,
                                        stdin=secondary, stdout=secondary,
                                        stderr=subprocess.PIPE, start_new_session=True)
        os.close(secondary)
        self.stderr = []
        threading.Thread(target=self._drain, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.append(self.process.stderr.read()),
                         daemon=True).start()

    def _drain(self):
        while True:
            try:
                data = os.read(self.main, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.raw.append(data)

    def text(self, since=0):
        with self.lock:
            data = b"".join(self.raw).decode(errors="replace")
        # Blanks and the logos' braille dots out: a check's detail shows words.
        return re.sub(r"[\s\u2800-\u28ff]+", "", ANSI.sub("", data))[since:]

    def wait_for(self, pattern, timeout):
        """True when `pattern` (a regular expression over the text without
        blanks) shows after the last wait that found one."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = re.search(pattern, self.text(self.mark))
            if found:
                self.mark += found.end()
                return True
            if self.process.poll() is not None:
                time.sleep(0.3)  # what is still in the pty
                return bool(re.search(pattern, self.text(self.mark)))
            time.sleep(0.2)
        return False

    def send(self, *keys, pause=0.4):
        for key in keys:
            os.write(self.main, key.encode())
            time.sleep(pause)

    def end(self):
        """Stops corral (it stops its box) and returns its stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        time.sleep(0.3)
        os.close(self.main)
        return (self.stderr[0] if self.stderr else b"").decode(errors="replace")


class FlowSession(base.Session):
    """A session's folders (base.Session), a config with the recipe's hosts
    only, and the hosts asked for per phase from its record."""

    def __init__(self, agent):
        super().__init__(agent)
        self.config.write_text(json.dumps({
            "level": "always", "notify": {"desktop": False},
            "presence": {"sources": ["heartbeat"], "heartbeat_file": str(self.heartbeat)}}))
        self.phases = []  # (name, start time)

    def ensure_image(self):
        """The agent's image (built on first use), before the timed screens."""
        started = time.monotonic()
        r = run([CORRAL, "run", "--headless", self.agent, "--", "--version"], cwd=self.proj,
                env=self.env, timeout=1500)
        check(r.returncode == 0, f"{self.agent}: its image is there and the agent runs "
              f"({time.monotonic() - started:.1f} s, any image build included): "
              f"{r.stdout.strip()[:60]}", r.stderr[-1500:])
        return r.returncode == 0

    def start(self, args=(), extra_env=None):
        """A new run: its phases start with "start"; asked() reads its events."""
        self.phases = [("start", now())]
        env = dict(self.env, TERM="xterm-256color", **(extra_env or {}))
        return Terminal([self.agent, "--", *args], env, self.proj)

    def phase(self, name):
        time.sleep(1)  # a request still under way belongs to the phase before
        self.phases.append((name, now()))

    def wait_for_host(self, host, timeout):
        """Waits until `host` is in the record of this run."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(h == host for _, h, _, _ in self.asked()):
                return True
            time.sleep(0.5)
        return False

    def asked(self):
        """[(phase, host, refused as not allowed, event)] of the record's
        network events, in order."""
        found = []
        for event in events(self):
            when = event.get("time", "")
            if event.get("event") != "network" or not event.get("host") or when < self.phases[0][1]:
                continue
            phase = "start"
            for name, start in self.phases:
                if when >= start:
                    phase = name
            refused = (event.get("decision") == "deny" and event.get("status") == 403
                       and str(event.get("reason", "")).startswith(("not-allowed", "denied-domain")))
            found.append((phase, event["host"], refused, event))
        return found


def report(session, asked, label):
    """Prints the hosts asked per phase and checks them: none refused that is
    on a login flow, the control refused, the known hosts asked and allowed."""
    agent = session.agent
    phases = []
    for phase, host, refused, _ in asked:
        if phase not in phases:
            phases.append(phase)
    for phase in phases:
        hosts = {}
        for p, host, refused, event in asked:
            if p == phase:
                hosts.setdefault(host, set()).add("refused" if refused else
                                                  f"{event.get('decision')} {event.get('status')}")
        print(f"HOSTS {ENGINE} {label} {phase}: "
              + ", ".join(f"{h} ({'/'.join(sorted(s))})" for h, s in sorted(hosts.items())),
              flush=True)
    refused = sorted({host for _, host, r, _ in asked if r} - {CONTROL_HOST})
    missing = [host for host in refused if host not in NOT_LOGIN[agent]]
    check(not missing, f"{label}: no host the agent asked for at start or in its login flow "
          "was refused, but those its recipe leaves out on purpose ("
          + (", ".join(f"{h}: {NOT_LOGIN[agent][h]}" for h in refused) or "none") + ")",
          "refused, and not in the recipe's hosts: " + ", ".join(missing))
    return {host for _, host, _, _ in asked}


def control_check(session, asked, label):
    control = [event for _, host, _, event in asked if host == CONTROL_HOST]
    check(control and all(e.get("decision") == "deny" and e.get("status") == 403
                          and str(e.get("reason")).startswith("not-allowed") for e in control),
          f"{label}: the control ({CONTROL_WHAT[session.agent]}) is in the record as "
          "refused, not allowed (the record is read right)", json.dumps(control)[:600])


def claude(session):
    # 1. The first start, with no settings: Claude Code checks its services.
    terminal = session.start()
    reached = terminal.wait_for(r"Unabletoconnect|Chooseth|Selectloginmethod|trustthisfolder", 90)
    check(reached, "claude, first start: its first screen showed",
          terminal.text()[-1500:])
    first = terminal.text()
    stderr = terminal.end()
    print("  claude first start: " + first[-300:] + "\n  stderr: " + stderr[-600:], flush=True)
    first_asked = session.asked()
    hosts = report(session, first_asked, "claude first start")

    # 2. Onboarded (the user's ~/.claude.json, copied into the box): /login.
    # The project is trusted there too: Claude Code 2.1.332's trust question
    # has "No, exit" first and focused.
    (session.work / "home" / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "theme": "dark",
        "projects": {str(session.proj): {"hasTrustDialogAccepted": True}}}))
    terminal = session.start()
    # The box adds --dangerously-skip-permissions: Claude Code asks once, "No,
    # exit" first and focused.
    if terminal.wait_for(r"Yes,Iaccept|Notloggedin", 90) and "Yes,Iaccept" in terminal.text():
        terminal.send(DOWN, ENTER)
    ok = terminal.wait_for(r"Notloggedin|/login", 60)
    check(ok, "claude: its prompt showed, not logged in", terminal.text()[-1500:])
    session.phase("control")
    terminal.send("!", pause=1)
    terminal.send(CONTROL[1:], pause=1)
    terminal.send(ENTER)
    session.wait_for_host(CONTROL_HOST, 30)
    session.phase("/login")
    terminal.send("/login", pause=2)
    terminal.send(ENTER)
    ok = terminal.wait_for(r"Selectloginmethod", 30)
    check(ok, "claude: /login offers its login methods", terminal.text(terminal.mark)[-1500:])
    terminal.send(ENTER)  # 1. Claude account with subscription
    ok = terminal.wait_for(r"Pastecodehere", 60)
    url = re.search(r"https://[a-z.]+/[a-z/]*oauth/authorize", terminal.text())
    check(ok and url, "claude: the subscription login printed its URL for the user's browser "
          f"({url.group(0) if url else 'none'}) and waits for the code",
          terminal.text(terminal.mark)[-1500:])
    session.phase("/login code")
    terminal.send("corral-test-code#corral-test-state", pause=1)
    terminal.send(ENTER)
    ok = terminal.wait_for(r"OAutherror|[Ee]rror|Loginsuccessful", 60)
    check(ok, "claude: the code was sent for the token exchange (it failed upstream, as "
          "nothing outside is reachable)", terminal.text(terminal.mark)[-1500:])
    stderr = terminal.end()
    print("  claude /login stderr: " + stderr[-600:], flush=True)
    asked = session.asked()
    control_check(session, asked, "claude")
    hosts |= report(session, asked, "claude /login")
    return hosts


def codex(session):
    # A stand-in of an API key in the box: Codex offers it under "Sign in another way".
    key = "sk-proj-" + secrets.token_urlsafe(30).replace("-", "x").replace("_", "y")
    terminal = session.start(extra_env={"OPENAI_API_KEY": key})
    ok = terminal.wait_for(r"SigninwithChatGPT.*Pressentertocontinue", 90)
    check(ok, "codex: its first screen offers the login choices", terminal.text()[-1500:])
    session.phase("ChatGPT login")
    terminal.send(ENTER)
    ok = terminal.wait_for(r"https://auth\.openai\.com/oauth/authorize", 30)
    check(ok, "codex: \"Sign in with ChatGPT\" printed its URL for the user's browser "
          "(auth.openai.com/oauth/authorize, with a callback to the box's own 127.0.0.1:1455)",
          terminal.text()[-1500:])
    session.phase("device code")
    terminal.send(ESC, pause=1)
    terminal.send(DOWN, ENTER)
    ok = terminal.wait_for(r"deviceauth|onetimecode.*(failed|error)|Entertheonetimecode", 40)
    check(ok, "codex: \"Sign in with Device Code\" asked for a code (it failed upstream)",
          terminal.text(terminal.mark)[-1500:])
    session.phase("API key")
    terminal.send(DOWN, ENTER, pause=1)  # 3. Sign in another way
    ok = terminal.wait_for(r"UseanOpenAIAPIkey", 20)
    check(ok, "codex: \"Sign in another way\" offers an API key", terminal.text(terminal.mark)[-1500:])
    # 1. Use an OpenAI API key; an Enter while the list is still drawn may
    # be dropped, so it is pressed again.
    terminal.wait_for(r"Pressentertocontinue", 10)
    for _ in range(3):
        terminal.send(ENTER, pause=1)
        ok = terminal.wait_for(r"OPENAI_API_KEY", 10)
        if ok:
            break
    check(ok, "codex: the API key login offers the box's OPENAI_API_KEY (a stand-in)",
          terminal.text(terminal.mark)[-1500:])
    time.sleep(1)  # the key's field is drawn after the line above
    terminal.send(ENTER)
    ok = terminal.wait_for(r"AskCodex|Implement|Explain|›", 60)
    check(ok, "codex: logged in with the API key, its prompt showed",
          terminal.text(terminal.mark)[-1500:])
    stderr = terminal.end()
    print("  codex stderr: " + stderr[-600:], flush=True)
    hosts = report(session, session.asked(), "codex")
    return hosts | codex_control(session)


def codex_control(session):
    """Codex itself asks for the unlisted host: `codex exec` with a model
    provider there, in the same image and project. It retries for a minute;
    it is stopped once the record has the host."""
    session.phases = [("control", now())]
    provider = (f'model_providers.corral_control={{name="corral control",'
                f'base_url="https://{CONTROL_HOST}/v1",wire_api="responses"}}')
    process = subprocess.Popen(
        [CORRAL, "run", "--headless", "codex", "--", "-c", provider, "-c",
         "model_provider=corral_control", "exec", "--skip-git-repo-check", "hello"],
        cwd=session.proj, env=session.env, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    session.wait_for_host(CONTROL_HOST, 60)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    asked = session.asked()
    control_check(session, asked, "codex")
    return report(session, asked, "codex control")


def main():
    base.start_engine()
    for agent in base.AGENTS:
        session = FlowSession(agent)
        started = time.monotonic()
        try:
            if not session.ensure_image():
                continue
            hosts = claude(session) if agent == "claude" else codex(session)
            missing = MUST_ASK[agent] - hosts
            check(not missing, f"{agent}: asked for its login hosts ({', '.join(sorted(MUST_ASK[agent]))})",
                  f"never asked: {sorted(missing)}")
            print(f"HOSTS {ENGINE} {agent} all: {', '.join(sorted(hosts))}", flush=True)
            print(f"TIME {ENGINE} {agent} {time.monotonic() - started:.1f}s", flush=True)
        finally:
            base.shutil.rmtree(session.work, ignore_errors=True)
    print(f"{ENGINE}: {base.RESULTS['pass']} passed, {base.RESULTS['fail']} failed")
    return 1 if base.RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
