#!/usr/bin/env python3
"""End-to-end sessions on a real engine: the shim, the oracle, the proxy
bridge, `corral-shim connect`, presence, the inbox, and an unboxed session.

Usage: session_e2e.py docker|podman CORRAL SHIM

A scripted agent (agent.sh) runs commands through `bash -c` inside a box made
from corral-tools:2 (this host's bash, git, ssh, curl: tests/engines/
tools_image). On the host the test serves an HTTP origin and an ssh git
server on loopback; a hosts file maps origin.test, git.test and other.test to
127.0.0.1, and only origin.test (and the project's git host) are allowed.
"""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import http.server
import functools

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
import started  # noqa: E402  (tests/engines/started.py)

ENGINE, CORRAL, SHIM = sys.argv[1], sys.argv[2], sys.argv[3]
# CORRAL_TEST_RUNTIME=gvisor: the same sessions with runtime: gvisor (Podman:
# tests/engines/start's podman-gvisor, whose default runtime is runsc).
RUNTIME = os.environ.get("CORRAL_TEST_RUNTIME", "default")
GVISOR = RUNTIME == "gvisor"
STARTED = "podman-gvisor" if GVISOR and ENGINE == "podman" else ENGINE
# tests/engines/as_user: an engine started for the ordinary user this runs as.
SOCKET = os.environ.get("CORRAL_TEST_ENGINE_SOCKET") or f"/run/corral-test/{STARTED}.sock"
HERE = pathlib.Path(__file__).resolve().parent
TOP = HERE.parent.parent
RESULTS = {"pass": 0, "fail": 0}


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{ENGINE}: {what}" + ("" if ok else f"  [{detail}]"),
          flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_engine():
    if os.environ.get("CORRAL_TEST_ENGINE_SOCKET"):
        return  # started, with the images, by tests/engines/as_user
    started.start_engine(STARTED)
    r = run([str(TOP / "tests/engines/tools_image"), ENGINE, SOCKET])
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        print(f"FAIL {ENGINE}: the tools image could not be imported")
        sys.exit(1)


class Origin:
    """A local HTTP origin serving one file."""

    def __init__(self, root):
        (root / "hello.txt").write_text("hello from the origin\n")
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
        handler.log_message = lambda *a: None
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


class Webhook:
    """Collects the JSON bodies POSTed to it (notify.webhook_url)."""

    def __init__(self):
        self.bodies = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                if self.headers.get("Content-Type") == "application/json":
                    outer.bodies.append(json.loads(body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def start_sshd(work, user):
    """sshd on 127.0.0.1, key login only, serving git from work/srv."""
    port = free_port()
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(work / "host-key")])
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(work / "client-key")])
    shutil.copy(work / "client-key.pub", work / "authorized_keys")
    os.chmod(work / "authorized_keys", 0o600)
    config = work / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {work}/host-key\n"
        f"AuthorizedKeysFile {work}/authorized_keys\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
        "StrictModes no\nUsePAM no\nPidFile none\n")
    if os.getuid() == 0:
        os.makedirs("/run/sshd", exist_ok=True)  # root's sshd wants its privilege separation folder
    proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(config)],
                            stdout=subprocess.DEVNULL, stderr=open(work / "sshd.log", "w"))
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"FAIL {ENGINE}: sshd did not start: " + (work / "sshd.log").read_text())


def git(*args, cwd=None):
    r = run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd)
    if r.returncode != 0:
        raise SystemExit(f"FAIL {ENGINE}: git {args}: {r.stderr}")
    return r.stdout


def wait_for(path, timeout=120):
    end = time.time() + timeout
    while time.time() < end:
        if path.exists():
            return True
        time.sleep(0.1)
    return False


def check_record(work, proj, env):
    """The session record: every line valid against docs/events.schema.json,
    the same in the state folder and the --json-events copy, and corral report
    sums it up."""
    import jsonschema
    schema = json.loads((TOP / "docs" / "events.schema.json").read_text())
    copy = (work / "events.jsonl").read_text().splitlines()
    events = [json.loads(l) for l in copy]
    invalid = []
    for event in events:
        try:
            jsonschema.validate(event, schema)
        except jsonschema.ValidationError as e:
            invalid.append(f"{event.get('event')}: {e.message}")
    check(events and not invalid, f"all {len(events)} events of the session are valid against "
          "docs/events.schema.json", "; ".join(invalid)[:600])
    kinds = [e.get("event") for e in events]
    check(kinds[:1] == ["session_started"] and kinds[-1:] == ["session_ended"],
          "the record starts with session_started and ends with session_ended", str(kinds[:3]))
    session = events[0]["session"] if events else "?"
    stored = work / "state" / "corral" / "sessions" / f"{session}.jsonl"
    check(stored.exists() and stored.read_text().splitlines() == copy,
          "the state folder keeps the same record as --json-events wrote", str(stored))
    started_event = events[0] if events else {}
    check(started_event.get("runtime") == RUNTIME, f"session_started says runtime {RUNTIME}",
          json.dumps(started_event)[:400])
    check(started_event.get("boxed") is True and started_event.get("mode") == "local"
          and any(h.startswith("origin.test") for h in started_event.get("allowed_hosts", [])),
          "session_started says boxed, local, and the allowed hosts", json.dumps(started_event)[:400])
    refused = [e for e in events if e.get("event") == "command" and e.get("decision") == "deny"]
    check(any(e.get("entry") == "aws" and e.get("message") for e in refused),
          "a refused command is recorded with its entry and the agent's message",
          json.dumps(refused)[:400])
    network = [e for e in events if e.get("event") == "network"]
    check(any(e.get("host") == "other.test" and e.get("status") == 403 for e in network)
          and any(e.get("host") == "origin.test" and e.get("decision") == "allow" for e in network),
          "the proxy's decisions are in the record: origin.test allowed, other.test refused",
          json.dumps(network)[:400])
    ended = events[-1] if events else {}
    counts = ended.get("counts", {})
    check(counts.get("refused") == len(refused) and counts.get("commands") == sum(
        1 for e in events if e.get("event") == "command")
          and {"host": "other.test", "count": sum(1 for e in network if e.get("host") == "other.test"
                                                   and e.get("status") == 403)}
          in ended.get("refused_hosts", []),
          "session_ended counts what the record holds, and names the refused host",
          json.dumps(ended)[:400])
    changed = ended.get("files_changed") or []
    check("out/edited" in changed and "agent.sh" not in changed and "Makefile" not in changed,
          "files_changed lists what changed during the session, not what was dirty before",
          str(changed)[:400])
    r = run([CORRAL, "report", "--json", session[:6]], env=env)
    report = json.loads(r.stdout or "{}")
    check(r.returncode == 0 and report.get("commands", {}).get("refused") == len(refused)
          and any(h["host"] == "other.test" for h in report.get("hosts_refused", []))
          and any(h["host"] == "origin.test" for h in report.get("hosts_reached", []))
          and report.get("files_changed") == changed,
          "corral report --json sums up the record (by an id prefix)", r.stdout[:400] + r.stderr)
    r = run([CORRAL, "report"], env=env)
    refused_line = next((l for l in r.stdout.splitlines() if "hosts refused:" in l), "")
    check(r.returncode == 0 and f"session {session}" in r.stdout and "other.test (" in refused_line
          and all(l.startswith(" ") for l in r.stdout.splitlines()[1:]),
          "corral report prints the last session for a person, one line per item", r.stdout)
    r = run([CORRAL, "run", "--print", "--", "true"], cwd=proj, env=env)
    check("last session the proxy refused other.test (" in r.stdout,
          "corral run --print names the hosts refused in this project's last session",
          r.stdout[:600] + r.stderr)
    r = run([CORRAL, "inbox", "--json", "--keep"], env=env)
    hosts = [i for i in json.loads(r.stdout or "[]") if i.get("kind") == "host"]
    check([h.get("command") for h in hosts].count("other.test") == 1,
          "the refused host is in the inbox, once", json.dumps(hosts))


def main():
    start_engine()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-e2e-{ENGINE}-"))
    os.chmod(work, 0o755)
    user = subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
    sshd = None
    try:
        origin = Origin(pathlib.Path(tempfile.mkdtemp(dir=work)))
        webhook = Webhook()
        sshd, ssh_port = start_sshd(work, user)
        # The git server's repository, reached as ssh://USER@git.test:PORT/repo.git
        # (its path is the login user's home-relative path: use an absolute one).
        srv = work / "srv"
        seed = work / "seed"
        git("init", "-q", "-b", "main", str(seed))
        (seed / "README").write_text("cloned through the proxy\n")
        git("add", "README", cwd=seed)
        git("commit", "-q", "-m", "seed", cwd=seed)
        git("clone", "-q", "--bare", str(seed), str(srv / "repo.git"))
        # The ssh URL path is the server-side path; make /repo.git resolve there.
        repo_url_path = str(srv / "repo.git")

        proj = work / "proj"
        git("clone", "-q", str(srv / "repo.git"), str(proj))
        git("remote", "set-url", "origin", f"ssh://{user}@git.test:{ssh_port}{repo_url_path}",
            cwd=proj)
        out = proj / "out"
        shutil.copy(HERE / "agent.sh", proj / "agent.sh")
        (proj / "deploy.sh").write_text("#!/bin/sh\necho deploying\nkubectl apply -f app.yaml\n")
        # make ignores $SHELL and this Makefile names /bin/sh: MAKEFLAGS overrides it.
        (proj / "Makefile").write_text("SHELL := /bin/sh\nrollout:\n\tkubectl rollout restart deploy/app\n")
        shutil.copy(work / "client-key", proj / "client-key")
        # agent.sh reads the key from $OUT/.. = the project.

        hosts = work / "hosts"
        hosts.write_text("127.0.0.1 origin.test git.test other.test\n")
        config_dir = work / "config" / "corral"
        config_dir.mkdir(parents=True)
        config = config_dir / "config.yaml"
        heartbeat = work / "heartbeat"

        def write_config(extra_deny=()):
            deny = ["aws", "kubectl", "git push --force", "git push -f", *extra_deny]
            text = {
                "level": "always",
                "runtime": RUNTIME,
                "image": "corral-tools:2",
                "deny_unattended": deny,
                "presence": {"sources": ["heartbeat"], "heartbeat_file": str(heartbeat)},
                "notify": {"desktop": False, "webhook_url": webhook.url},
                "network": {"allowed_domains": [f"origin.test:{origin.port}"],
                            "allow_addresses": ["127.0.0.1"], "hosts_file": str(hosts)},
                # The test's git server speaks ssh alone (git over `corral-shim connect`).
                "forge": {"ssh": "allow"},
            }
            tmp = config.with_suffix(".tmp")
            tmp.write_text(json.dumps(text, indent=1))
            os.replace(tmp, config)

        write_config()
        env = dict(os.environ)
        env.update({
            "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
            "CORRAL_ENGINE": f"unix://{SOCKET}", "CORRAL_SHIM": SHIM,
            # Sessions in a fresh temp folder; holding is tested in hold_e2e.py.
            "CORRAL_HOLD_UNKNOWN_FOLDERS": "off",
        })
        for name in ("CORRAL_CONFIG", "CORRAL_LEVEL", "CORRAL_IMAGE", "DOCKER_HOST"):
            env.pop(name, None)
        (work / "home").mkdir()
        (work / "run").mkdir(mode=0o700)

        # 1. Nobody watching: one session, the scripted agent.
        agent = subprocess.Popen(
            [CORRAL, "run", "--headless", "--json-events", str(work / "events.jsonl"), "--",
             "/bin/sh", str(proj / "agent.sh"), str(out),
             str(origin.port), user, str(ssh_port), repo_url_path],
            cwd=proj, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        if wait_for(out / "ready-for-edit"):
            write_config(extra_deny=["frobnicate"])
            (out / "edited").touch()
        if wait_for(out / "ready-for-unreachable"):
            session = (out / "session").read_text().strip()
            sock = work / "run" / "corral" / "sessions" / session / "oracle.sock"
            check(sock.exists(), "the oracle's socket is in the session folder", str(sock))
            os.rename(sock, str(sock) + ".away")  # the shim can no longer reach the host
            (out / "unreachable").touch()
        try:
            stdout, stderr = agent.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            agent.kill()
            stdout, stderr = agent.communicate()
        print("  corral stderr: " + stderr.replace("\n", "\n  "))

        def step(name):
            code = (out / f"{name}.code").read_text().strip() if (out / f"{name}.code").exists() else "missing"
            err = (out / f"{name}.err").read_text() if (out / f"{name}.err").exists() else ""
            so = (out / f"{name}.out").read_text() if (out / f"{name}.out").exists() else ""
            return code, so, err

        def refused(name, why):
            code, so, err = step(name)
            check(code == "1" and "corral blocked this" in err, why, f"exit {code}, stderr {err!r}")

        def not_refused(name, why):
            code, so, err = step(name)
            check(code != "missing" and "corral blocked" not in err, why, f"exit {code}, stderr {err!r}")
            return code, so, err

        check(agent.returncode == 0 and (out / "finished").exists(),
              "the agent ran to the end after refusals", f"exit {agent.returncode}")
        envs = (out / "env").read_text() if (out / "env").exists() else ""
        for line in ("SHELL=/run/corral/bin/bash", "HTTPS_PROXY=http://127.0.0.1:3128",
                     "CLAUDE_CODE_SHELL=/run/corral/bin/bash", "NODE_USE_ENV_PROXY=1"):
            check(line in envs.splitlines(), f"the box sets {line}", "env: " + envs[:300])
        check(any(l.startswith("PATH=/run/corral/bin:") for l in envs.splitlines()),
              "PATH finds the shim first")
        refused("aws", "unattended: `aws s3 ls` refused with the message")
        code, so, err = step("aws")
        check("Leave it for the user" in err, "the refusal tells the agent what to do", err)
        refused("push_force", "`git push --force` refused")
        code, so, err = not_refused("push", "`git push` allowed")
        check(code == "0", "`git push` over ssh through `corral-shim connect` reached the git host",
              f"exit {code}: {err}")
        refused("deploy", "`bash deploy.sh` holding `kubectl apply` refused")
        refused("piped", "text piped into bash holding `kubectl` refused")
        code, so, err = step("make_recipe")
        check(code == "2" and "corral blocked this" in err and "kubectl" in err,
              "a make recipe holding `kubectl` refused (make's shell is the front)",
              f"exit {code}, stderr {err!r}")
        code, so, err = step("curl_ok")
        check(code == "0" and so == "hello from the origin\n",
              "curl to an allowed origin through the bridge", f"exit {code} {so!r} {err!r}")
        code, so, err = step("curl_refused")
        check(so == "403", "curl to a host not allowed gets 403", f"exit {code} {so!r} {err!r}")
        code, so, err = step("curl_ip")
        check(so == "403", "curl to an IP literal gets 403", f"exit {code} {so!r} {err!r}")
        code, so, err = step("clone_ok")
        check(code == "0" and "cloned through the proxy" in so,
              "git clone over ssh to the git host works", f"exit {code} {err!r}")
        code, so, err = step("clone_refused")
        check(code != "0" and "refused" in err, "git clone over ssh to another host is refused",
              f"exit {code} {err!r}")
        not_refused("before_edit", "a command not on the list runs")
        refused("after_edit", "the list edited mid-session: the next command follows it")
        code, so, err = step("fallback_listed")
        check(code == "1" and "could not" in err.lower(),
              "oracle unreachable: a listed command is refused, saying the host could not be asked",
              f"exit {code} {err!r}")
        code, so, err = step("fallback_other")
        check(code == "0" and so.strip() == "still-running",
              "oracle unreachable: other commands run", f"exit {code} {so!r} {err!r}")
        check("Had 6 commands blocked while you were away (`aws s3 ls`, " in stderr and
              ", ...): corral inbox" in stderr,
              "the session ends with the blocked-commands line, naming the first ones",
              stderr[-400:])
        check("the proxy refused other.test (" in stderr and "corral allow --host" in stderr,
              "the session's end line names the refused host and how to allow it", stderr[-400:])
        pushed = run(["git", "--git-dir", str(srv / "repo.git"), "branch", "--list"]).stdout
        check("agent-push" in pushed and "forced" not in pushed,
              "the git server got the allowed push only", pushed)
        check_record(work, proj, env)

        hooked = [b.get("command", "") for b in webhook.bodies]
        check(len(hooked) == 6 and "aws s3 ls" in hooked,
              "the webhook got one JSON POST per refusal while away", str(hooked))

        # 2. The inbox shows the refusals, then is clear.
        r = run([CORRAL, "inbox", "--json"], env=env)
        items = json.loads(r.stdout or "[]")
        commands = " | ".join(i.get("command", "") for i in items)
        check("aws s3 ls" in commands and "kubectl" in commands and "frobnicate" in commands,
              "corral inbox lists the refused commands", commands)
        r = run([CORRAL, "inbox", "--json"], env=env)
        check(json.loads(r.stdout or "null") == [], "viewing the inbox cleared it", r.stdout)

        # 2b. --json-events -: stdout is the record alone; --fail-on-refusal.
        r = run([CORRAL, "run", "--headless", "--fail-on-refusal", "--json-events", "-", "--",
                 "/usr/bin/bash", "-c", "bash -c 'aws s3 ls'; echo agent-said-$?"],
                cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=120)
        lines = r.stdout.splitlines()
        parsed = [json.loads(l) for l in lines if l.startswith("{")]
        check(r.returncode == 77 and "agent-said-1" in r.stderr,
              "--fail-on-refusal: an agent that exits 0 after a refusal makes corral exit 77; "
              "with --json-events - the agent's output goes to stderr",
              f"exit {r.returncode} {r.stderr[-300:]!r}")
        check(len(parsed) == len(lines) and [e["event"] for e in parsed][0] == "session_started"
              and parsed[-1]["event"] == "session_ended"
              and any(e["event"] == "command" and e["decision"] == "deny" for e in parsed),
              "--json-events -: stdout carries only the record's lines, start to end", r.stdout[:400])
        run([CORRAL, "inbox"], env=env)  # clears it

        # 3. Somebody watching (heartbeat): the listed command runs.
        r = run([CORRAL, "presence", "ping"], env=env)
        r = run([CORRAL, "run", "--headless", "--", "bash", "-c", "aws s3 ls; echo ran-$?"],
                cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=120)
        check("ran-127" in r.stdout and "corral blocked" not in r.stderr,
              "present (heartbeat): `aws` runs (and is not installed)", r.stdout + r.stderr)
        heartbeat.unlink()

        # 4. Unboxed (level off): the agent runs on the host, the list still applies.
        r = run([CORRAL, "--set", "level=off", "run", "--", "bash", "-c",
                 "echo $CORRAL_SESSION; bash -c 'aws s3 ls'; echo after-$?"],
                cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=60)
        check("after-1" in r.stdout and "corral blocked this" in r.stderr and "unboxed" in r.stderr,
              "unboxed session: the host shim asks the oracle and `aws` is refused",
              r.stdout + r.stderr)

        # Not under gVisor: step 5 builds an image, the engine's work rather than the box's.
        if not GVISOR:
            # 5. An image whose /bin/sh and /bin/bash are diverted to corral-shell
            # (images/agent/divert-shells): hard-coded shell paths, and a shell
            # started with an empty environment, are checked too.
            ctx = work / "diverted"
            ctx.mkdir()
            shim_dir = pathlib.Path(SHIM).resolve().parent
            for program in ("corral-shell", "corral-shim"):
                shutil.copy(shim_dir / program, ctx / program)
            shutil.copy(HERE.parent.parent / "images" / "agent" / "divert-shells", ctx)
            # The context's .dockerignore is applied as the docker CLI applies it.
            (ctx / "secret.env").write_text("TOKEN=x\n")
            (ctx / "cache").mkdir()
            (ctx / "cache" / "big").write_text("x\n")
            (ctx / ".dockerignore").write_text("*.env\ncache\n")
            (ctx / "Dockerfile").write_text(
                "FROM corral-tools:2\n"
                "COPY corral-shell corral-shim divert-shells /usr/lib/corral/\n"
                "COPY . /context/\n"
                "RUN /usr/lib/corral/divert-shells\n")
            tag = f"corral-diverted-test-{os.getpid()}:1"
            script = ("/bin/sh -c 'kubectl get pods'; echo sh-$?; "
                      "env -i /usr/bin/bash -c 'aws s3 ls'; echo bash-$?; "
                      "/bin/sh -c 'echo diverted-ok'; /usr/bin/bash -c 'echo bash-ok'; "
                      "ls -A /context | tr '\\n' ' ' | sed 's/^/context: /'; echo; "
                      "echo /elsewhere > .git/commondir")
            r = run([CORRAL, "run", "--headless", "--image", tag, "--build", str(ctx), "--",
                     "/bin/busybox", "sh", "-c", script],
                    cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=300)
            check("sh-1" in r.stdout and "bash-1" in r.stdout
                  and r.stderr.count("corral blocked this") == 2,
                  "diverted image: /bin/sh and `env -i /usr/bin/bash` are checked; listed commands refused",
                  r.stdout + r.stderr[-600:])
            check("diverted-ok" in r.stdout and "bash-ok" in r.stdout,
                  "diverted image: other commands run through the real shells", r.stdout)
            check(not (proj / ".git" / "commondir").exists() and "removed" in r.stderr,
                  "a .git/commondir the box wrote is removed when the session ends",
                  r.stderr[-400:])
            listed = next((line for line in r.stdout.splitlines() if line.startswith("context: ")), "")
            check("Dockerfile" in listed and "divert-shells" in listed and "secret.env" not in listed
                  and "cache" not in listed,
                  "--build leaves out what the context's .dockerignore excludes", listed or r.stdout)
            run(["curl", "-s", "--unix-socket", SOCKET, "-X", "DELETE",
                 f"http://d/v1.41/images/{tag}?force=1"])
    finally:
        finish(sshd, work)


def finish(sshd, work):
    if sshd:
        sshd.terminate()
    subprocess.run(["rm", "-rf", str(work)])
    print(f"{ENGINE} ({RUNTIME}): {RESULTS['pass']} passed, {RESULTS['fail']} failed")
    sys.exit(1 if RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
