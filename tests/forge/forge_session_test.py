#!/usr/bin/env python3
"""The forge scope (docs/forge.md) from inside real boxes: whole sessions on a
real engine whose scripted agent (forge_agent.sh, each command through
`bash -c`) clones and pushes through the session's proxy to a forge of the
test's own (forge_server.py: git http-backend behind HTTPS, a test CA, for
git.forge.test on loopback).

The forge itself lets anybody read and write every repository, so whatever
is refused is refused by corral's proxy. The project's origin is
https://git.forge.test:PORT/me/proj.git (an ssh origin would go to
git.forge.test:443 over HTTPS, where no test server can listen), so the
ssh-to-HTTPS rewrite is checked in `corral run --print` of a second project.

1. Nobody watching: the box clones over HTTPS (trusting the session CA) and
   pushes a new branch; a `git push -f` rewriting it and a push to the default
   branch are refused with git's own report; a push to evil/drop and a curl of
   its receive-pack refs get 403 (X-Corral-Error: forge-other-repository). The
   bare repositories show only the allowed push; the forge never received a
   refused push whole. `corral report --json` lists the refusals with their
   rules, and `corral inbox` names them.
2. Somebody watching (the heartbeat): the same force push goes through.
3. The network mode (CORRAL_ENGINE_MODE=network): the proxy sidecar, on the
   engine host's network, reaches the loopback forge and refuses the force push.
4. Review mode (`corral run --review`, nobody watching): the box on an overlay
   of the project clones, pushes a new branch, and its force push rewriting it
   is refused ([remote rejected], corral); the forge holds the allowed push
   only, and `corral report --json` lists the refusal under forge_refused.

Usage: forge_session_test.py docker|podman CORRAL SHIM
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
TOP = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(TOP / "tests" / "engines"))
import started  # noqa: E402  (tests/engines/started.py)
from engine_api import Api  # noqa: E402  (tests/engines/engine_api.py)
from forge_server import COMMITTER, HOST, run, make_certs, seed_repository, start_forge  # noqa: E402

ENGINE, CORRAL, SHIM = sys.argv[1], sys.argv[2], sys.argv[3]
SOCKET = os.environ.get("CORRAL_TEST_ENGINE_SOCKET") or f"/run/corral-test/{ENGINE}.sock"
RESULTS = {"pass": 0, "fail": 0}


# Review mode's agent (part 4): forge_agent.sh's push and force push of a new
# branch, each step's exit code and output on stdout ("=== STEP CODE").
REVIEW_AGENT = r"""
export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@box GIT_COMMITTER_NAME=agent \
  GIT_COMMITTER_EMAIL=agent@box GIT_TERMINAL_PROMPT=0
step() { name=$1; shift; o=$(bash -c "$1" 2>&1); echo "=== $name $?"; echo "$o"; }
step clone "git clone -q https://FORGE/me/proj.git /tmp/c && git -C /tmp/c rev-parse HEAD"
step push "cd /tmp/c && git checkout -qb review && git commit -q --allow-empty -m review \
  && echo PUSHED \$(git rev-parse HEAD) && git push origin review"
step force "cd /tmp/c && git reset -q --hard HEAD~1 && git commit -q --allow-empty -m rewrite \
  && git push -f origin review"
echo REVIEW-DONE
"""


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{ENGINE}: {what}" + ("" if ok else f"  [{str(detail)[-2500:]}]"),
          flush=True)


def start_engine():
    if os.environ.get("CORRAL_TEST_ENGINE_SOCKET"):
        return  # started, with the images, by tests/engines/as_user
    started.start_engine(ENGINE)
    r = subprocess.run([str(TOP / "tests/engines/tools_image"), ENGINE, SOCKET],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        print(f"FAIL {ENGINE}: the tools image could not be imported")
        sys.exit(1)


def open_forge(owner, name, write, credentials):
    """Anybody reads and writes anything: only corral's proxy refuses."""
    return True


class Forge:
    """The bare repositories me/proj (main, feature) and evil/drop (main),
    served over HTTPS at git.forge.test:PORT."""

    def __init__(self, work):
        self.ca, cert, key = make_certs(str(work))
        self.root = work / "forge"
        git_env = dict(os.environ, HOME=str(work), GIT_CONFIG_NOSYSTEM="1", **COMMITTER)
        seed_repository(str(work / "seed" / "me" / "proj"), str(self.root / "me" / "proj.git"),
                        ["first", "second", "third"], [("feature", "a feature")], git_env)
        seed_repository(str(work / "seed" / "evil" / "drop"), str(self.root / "evil" / "drop.git"),
                        ["the attacker's commit"], env=git_env)
        (work / "forge-home").mkdir()
        self.server = start_forge(str(self.root), str(work / "forge-home"), cert, key, open_forge)
        self.authority = f"{HOST}:{self.server.port}"
        self.start = {repo: self.refs(repo) for repo in ("me/proj", "evil/drop")}

    def refs(self, repo):
        """{branch or tag: commit} of a bare repository."""
        out = run("git", "--git-dir", str(self.root / (repo + ".git")), "for-each-ref",
                  "--format=%(refname:short) %(objectname)").stdout
        return dict(line.split() for line in out.splitlines())

    def mark(self):
        return self.server.mark()

    def seen(self, mark):
        return self.server.since(mark)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def step(out, name):
    """(exit code, stdout, stderr) of one of the agent's steps."""
    def text(suffix):
        path = out / f"{name}.{suffix}"
        return path.read_text() if path.exists() else ""
    return text("code").strip() or "missing", text("out"), text("err")


def sha(out, name):
    path = out / f"{name}.sha"
    return path.read_text().strip() if path.exists() else None


def load_events(path):
    try:
        return [json.loads(line) for line in pathlib.Path(path).read_text().splitlines() if line]
    except FileNotFoundError:
        return []


def check_schema(events, label):
    import jsonschema
    schema = json.loads((TOP / "docs" / "events.schema.json").read_text())
    invalid = []
    for event in events:
        try:
            jsonschema.validate(event, schema)
        except jsonschema.ValidationError as e:
            invalid.append(f"{event.get('event')}: {e.message}")
    check(events and not invalid, f"{label}: all {len(events)} events of the session are valid "
          "against docs/events.schema.json", "; ".join(invalid)[:600])


def report(session, env):
    r = subprocess.run([CORRAL, "report", "--json", session], capture_output=True, text=True,
                       env=env, timeout=60)
    try:
        return json.loads(r.stdout), r
    except ValueError:
        return {}, r


def refused_push(code, err):
    return code not in ("0", "missing") and "[remote rejected]" in err and "corral" in err


def receive_packs(seen, repo="me/proj"):
    return [e for e in seen if e["method"] == "POST" and
            e["path"].startswith(f"/{repo}.git/git-receive-pack")]


def check_print_ssh(work, env):
    """An ssh origin: the box's git goes over HTTPS through the proxy
    (insteadOf in the box's environment), the ssh port stays closed."""
    proj = work / "ssh-proj"
    run("git", "init", "-q", str(proj))
    run("git", "-C", str(proj), "remote", "add", "origin", f"git@{HOST}:me/proj.git")
    r = subprocess.run([CORRAL, "run", "--print", "--", "true"], cwd=proj, env=env,
                       capture_output=True, text=True, timeout=120)
    # The rendering's environment: "NAME=value" (Docker) or "NAME": "value" (libpod).
    pairs = {}
    for kind, n, value in re.findall(r'"GIT_CONFIG_(KEY|VALUE)_(\d+)(?:=|": ")([^"]*)"', r.stdout):
        pairs.setdefault(n, {})[kind] = value
    want = {"KEY": "url.https://git.forge.test/.insteadOf", "VALUE": "git@git.forge.test:"}
    check(r.returncode == 0 and want in pairs.values(),
          "--print, ssh origin: the box's environment holds GIT_CONFIG_KEY_n="
          "url.https://git.forge.test/.insteadOf and GIT_CONFIG_VALUE_n=git@git.forge.test:",
          f"exit {r.returncode}, {pairs}, {r.stderr[-1000:]}")
    network = next((l for l in r.stdout.splitlines() if l.startswith("network:")), "")
    check(f"{HOST}:443" in network.split() and f"{HOST}:22" not in network,
          "--print, ssh origin: the network line allows git.forge.test:443 and not :22", network)
    check(f"{HOST}:22 stays closed" in r.stdout,
          "--print, ssh origin: a start line says the ssh port stays closed", r.stdout[-1500:])


def main():
    start_engine()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-forge-session-{ENGINE}-"))
    os.chmod(work, 0o755)
    forge, volumes = None, set()
    api = Api(f"unix://{SOCKET}")
    try:
        forge = Forge(work)
        proj = work / "proj"
        run("git", "clone", "-q", str(forge.root / "me" / "proj.git"), str(proj))
        run("git", "-C", str(proj), "remote", "set-url", "origin",
            f"https://{forge.authority}/me/proj.git")
        shutil.copy(HERE / "forge_agent.sh", proj / "forge_agent.sh")
        hosts = work / "hosts"
        hosts.write_text(f"127.0.0.1 {HOST}\n")
        heartbeat = work / "heartbeat"
        config_dir = work / "config" / "corral"
        config_dir.mkdir(parents=True)
        (config_dir / "config.yaml").write_text(json.dumps({
            "level": "always",
            "image": "corral-tools:2",
            # The deny list would refuse `git push -f` in the shell before it
            # ran: here the proxy's history rule is what refuses it.
            "deny_unattended": ["aws"],
            "presence": {"sources": ["heartbeat"], "heartbeat_file": str(heartbeat)},
            "notify": {"desktop": False},
            # The git host is allowed from .git/config; the proxy verifies
            # the test forge with the test CA.
            "network": {"allow_addresses": ["127.0.0.1"], "hosts_file": str(hosts),
                        "upstream_ca_file": forge.ca},
        }, indent=1))
        env = dict(os.environ)
        env.update({
            "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
            "CORRAL_ENGINE": f"unix://{SOCKET}", "CORRAL_SHIM": SHIM,
            "CORRAL_HOLD_UNKNOWN_FOLDERS": "off",
        })
        for name in ("CORRAL_CONFIG", "CORRAL_LEVEL", "CORRAL_IMAGE", "CORRAL_ENGINE_MODE",
                     "DOCKER_HOST", "GH_TOKEN", "GITHUB_TOKEN", "GH_HOST", "GH_ENTERPRISE_TOKEN",
                     "GITHUB_ENTERPRISE_TOKEN"):
            env.pop(name, None)
        (work / "home").mkdir()
        (work / "run").mkdir(mode=0o700)

        # The project's volumes (its HOME, node_modules, .venv), removed at the end.
        r = subprocess.run([CORRAL, "run", "--print", "--", "true"], cwd=proj, env=env,
                           capture_output=True, text=True, timeout=120)
        volumes.update(v for v in re.findall(r"from volume (corral-\S+)", r.stdout)
                       if not v.startswith("corral-cache-"))
        check(f"forge {forge.authority}: the box reaches this project's repositories (me/proj)"
              in r.stdout, "--print names the forge and the project's repository", r.stdout[-2000:])
        check_print_ssh(work, env)

        def session(phase, extra_env=None, timeout=180):
            out = proj / f"out-{phase}"
            record = work / f"{phase}.jsonl"
            mark = forge.mark()
            try:
                r = subprocess.run(
                    [CORRAL, "run", "--headless", "--json-events", str(record), "--",
                     "/bin/sh", str(proj / "forge_agent.sh"), str(out), forge.authority, phase],
                    cwd=proj, env=dict(env, **(extra_env or {})), stdin=subprocess.DEVNULL,
                    capture_output=True, text=True, timeout=timeout)
                code, stderr = r.returncode, r.stderr
            except subprocess.TimeoutExpired as e:
                code, stderr = "timeout", (e.stderr or b"").decode(errors="replace")
            print(f"  corral stderr ({phase}): " + stderr.strip().replace("\n", "\n  "), flush=True)
            check(code == 0 and (out / "finished").exists(),
                  f"{phase}: the session ran the agent to its end", f"exit {code}: {stderr[-800:]}")
            events = load_events(record)
            return out, events, forge.seen(mark), stderr

        # 1. Nobody watching.
        out, events, seen, _ = session("away")
        main_sha = forge.start["me/proj"]["main"]
        box_env = (out / "env").read_text() if (out / "env").exists() else ""
        check(all(any(l.startswith(v + "=") for l in box_env.splitlines())
                  for v in ("SSL_CERT_FILE", "GIT_SSL_CAINFO"))
              and "HTTPS_PROXY=http://127.0.0.1:3128" in box_env.splitlines(),
              "away: the box's git and curl trust the session CA (SSL_CERT_FILE, GIT_SSL_CAINFO) "
              "and go through the proxy", box_env[:1500])
        code, so, err = step(out, "clone")
        check(code == "0" and so.strip() == main_sha,
              "away: git clone over HTTPS through the proxy (the forge's TLS ended with the "
              "session CA)", f"exit {code} {so!r} {err!r}")
        code, so, err = step(out, "push")
        pushed = sha(out, "push")
        check(code == "0" and "[new branch]" in err and pushed,
              "away: a push of a new branch goes through", f"exit {code} {err!r}")
        code, so, err = step(out, "force")
        check(refused_push(code, err) and "not a fast-forward" in err,
              "away: `git push -f` rewriting the branch is refused: [remote rejected] (corral: ...)",
              f"exit {code} {err!r}")
        code, so, err = step(out, "main")
        check(refused_push(code, err) and "refs/heads/main" in err,
              "away: a push to the default branch is refused: [remote rejected] (corral: ...)",
              f"exit {code} {err!r}")
        code, so, err = step(out, "evil")
        check(code not in ("0", "missing") and "403" in err,
              "away: a push to another repository on the host (evil/drop) gets 403",
              f"exit {code} {err!r}")
        code, so, err = step(out, "curl")
        head = (out / "curl.head").read_text() if (out / "curl.head").exists() else ""
        check(so == "403" and re.search(r"^X-Corral-Error: forge-other-repository\r?$", head, re.M | re.I),
              "away: curl of evil/drop's receive-pack refs: 403, X-Corral-Error: "
              "forge-other-repository", f"exit {code} {so!r} {err!r} {head!r}")
        refs = forge.refs("me/proj")
        check(refs == dict(forge.start["me/proj"], agent=pushed),
              "away: me/proj holds the allowed push only: main and feature as they were, "
              "agent at the pushed commit (not the rewrite)",
              f"{refs} (rewrite {sha(out, 'force')}, start {forge.start['me/proj']})")
        check(forge.refs("evil/drop") == forge.start["evil/drop"],
              "away: evil/drop is as it was", forge.refs("evil/drop"))
        packs = receive_packs(seen)
        check([e["complete"] for e in packs] == [True, False, False]
              and packs[0]["status"] == 200,
              "away: the forge got the allowed push whole, and neither refused push whole "
              "(nothing written)", packs)
        evil = [e for e in seen if e["path"].startswith("/evil/")]
        check(evil == [], "away: no request for evil/drop reached the forge", evil)
        check_schema(events, "away")
        session_id = next((e["session"] for e in events if e.get("event") == "session_started"), "")
        rep, r = report(session_id, env)
        refusals = rep.get("forge_refused", [])
        history = [f for f in refusals if f.get("rule") == "history"]
        other = [f for f in refusals if f.get("rule") == "other-repository"]
        check(len(history) == 2 and all(
            f.get("repository") == "me/proj" and f.get("host") == HOST and f.get("method") == "POST"
            and f.get("path") == "/me/proj.git/git-receive-pack" for f in history)
              and any("not a fast-forward" in f.get("reason", "") for f in history),
              "away: corral report --json lists both refused pushes in forge_refused "
              "(rule history, me/proj)", json.dumps(refusals)[:1500] + r.stderr)
        check(len(other) == 2 and all(
            f.get("repository") == "evil/drop" and f.get("method") == "GET" and
            f.get("path") == "/evil/drop.git/info/refs?service=git-receive-pack" for f in other),
              "away: corral report --json lists git's and curl's requests for evil/drop "
              "(rule other-repository)", json.dumps(refusals)[:1500])
        check(len(refusals) == 4 and rep.get("hosts_refused") == []
              and any(h.get("host") == HOST for h in rep.get("hosts_reached", [])),
              "away: nothing else refused, and the forge counts as reached, not refused",
              json.dumps(rep)[:1500])
        r = subprocess.run([CORRAL, "inbox", "--json", "--keep"], capture_output=True, text=True,
                           env=env, timeout=60)
        items = [i for i in json.loads(r.stdout or "[]") if i.get("kind") == "forge"]
        said = " | ".join(i.get("command", "") for i in items)
        check(len(items) == 2 and "history me/proj" in said and "other-repository evil/drop" in said,
              "away: the inbox holds the forge's refusals (history me/proj, other-repository "
              "evil/drop)", r.stdout + r.stderr)
        r = subprocess.run([CORRAL, "inbox"], capture_output=True, text=True, env=env, timeout=60)
        check("2 requests to the forge were refused" in r.stdout
              and r.stdout.count("the forge's rules refused") == 2 and "evil/drop" in r.stdout,
              "away: corral inbox names the forge's refusals", r.stdout + r.stderr)

        # 2. Somebody watching: the same rewrite goes through.
        subprocess.run([CORRAL, "presence", "ping"], capture_output=True, env=env, timeout=60)
        out, events, seen, _ = session("watched")
        heartbeat.unlink()
        code, so, err = step(out, "force")
        rewritten = sha(out, "force")
        check(code == "0" and "forced update" in err and rewritten,
              "watched: `git push -f` rewriting the branch goes through", f"exit {code} {err!r}")
        check(forge.refs("me/proj") == dict(forge.start["me/proj"], agent=rewritten),
              "watched: me/proj's agent is the rewritten commit", forge.refs("me/proj"))
        check(any(e["complete"] and e["status"] == 200 for e in receive_packs(seen)),
              "watched: the forge got the push whole", receive_packs(seen))
        session_id = next((e["session"] for e in events if e.get("event") == "session_started"), "")
        rep, r = report(session_id, env)
        check(r.returncode == 0 and rep.get("forge_refused") == [],
              "watched: corral report --json lists no forge refusal", r.stdout[:1500] + r.stderr)
        r = subprocess.run([CORRAL, "inbox", "--json"], capture_output=True, text=True, env=env,
                           timeout=60)
        check(r.returncode == 0 and [i for i in json.loads(r.stdout or "[]")
                                     if i.get("kind") == "forge"] == [],
              "watched: nothing new for the forge in the inbox", r.stdout + r.stderr)

        # 3. The network mode: the proxy sidecar judges the push.
        before = forge.refs("me/proj")
        out, events, seen, stderr = session("network", {"CORRAL_ENGINE_MODE": "network"},
                                            timeout=240)
        check("mode: network" in stderr, "network: the session ran in the network mode",
              stderr[-800:])
        code, so, err = step(out, "clone")
        check(code == "0" and so.strip() == main_sha,
              "network: git clone over HTTPS through the sidecar", f"exit {code} {so!r} {err!r}")
        code, so, err = step(out, "push")
        pushed = sha(out, "push")
        check(code == "0" and "[new branch]" in err and pushed,
              "network: a push of a new branch goes through the sidecar", f"exit {code} {err!r}")
        code, so, err = step(out, "force")
        check(refused_push(code, err) and "not a fast-forward" in err,
              "network: `git push -f` rewriting it is refused by the sidecar: [remote rejected] "
              "(corral: ...)", f"exit {code} {err!r}")
        check(forge.refs("me/proj") == dict(before, net=pushed),
              "network: me/proj holds the allowed push only", forge.refs("me/proj"))
        check([e["complete"] for e in receive_packs(seen)] == [True, False],
              "network: the forge never got the refused push whole", receive_packs(seen))
        session_id = next((e["session"] for e in events if e.get("event") == "session_started"), "")
        rep, r = report(session_id, env)
        refusals = rep.get("forge_refused", [])
        check([(f.get("rule"), f.get("repository")) for f in refusals] == [("history", "me/proj")],
              "network: the sidecar's refusal is in the session record (corral report --json)",
              json.dumps(refusals)[:1500] + r.stderr)
        check(session_id and api.session_objects(session_id) == [],
              f"network: nothing of session {session_id} is left on the engine",
              api.session_objects(session_id) if session_id else events[:1])

        # 4. Review mode (nobody watching): the box on an overlay copy of the
        # project; the proxy still judges its pushes. The agent prints each
        # step's exit code and stderr (it writes nothing in the project, so
        # no branch is left).
        before = forge.refs("me/proj")
        record = work / "review.jsonl"
        mark = forge.mark()
        agent = REVIEW_AGENT.replace("FORGE", forge.authority)
        try:
            r = subprocess.run(
                [CORRAL, "run", "--review", "--headless", "--json-events", str(record), "--",
                 "/bin/sh", "-c", agent],
                cwd=proj, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                timeout=120)
            code, stdout, stderr = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            code, stdout, stderr = ("timeout", (e.stdout or b"").decode(errors="replace"),
                                    (e.stderr or b"").decode(errors="replace"))
        print("  corral stderr (review): " + stderr.strip().replace("\n", "\n  "), flush=True)
        steps = {n: (c, t) for n, c, t in
                 re.findall(r"^=== (\w+) (\S+)$\n(.*?)(?=^=== |\Z)", stdout, re.M | re.S)}
        check(code == 0 and "REVIEW-DONE" in stdout
              and "review mode: the box works on an overlay of the project" in stderr,
              "review: the session ran in review mode, the agent to its end",
              f"exit {code}: {stdout[-800:]} {stderr[-800:]}")
        c, text = steps.get("clone", ("missing", ""))
        check(c == "0" and main_sha in text, "review: git clone over HTTPS through the proxy",
              f"exit {c} {text!r}")
        c, text = steps.get("push", ("missing", ""))
        pushed = re.search(r"^PUSHED ([0-9a-f]{40})$", text, re.M)
        check(c == "0" and "[new branch]" in text and pushed,
              "review: a push of a new branch goes through", f"exit {c} {text!r}")
        c, text = steps.get("force", ("missing", ""))
        check(refused_push(c, text) and "not a fast-forward" in text,
              "review: `git push -f` rewriting it is refused: [remote rejected] (corral: ...)",
              f"exit {c} {text!r}")
        check(pushed and forge.refs("me/proj") == dict(before, review=pushed.group(1)),
              "review: me/proj holds the allowed push only", forge.refs("me/proj"))
        check([e["complete"] for e in receive_packs(forge.seen(mark))] == [True, False],
              "review: the forge never got the refused push whole",
              receive_packs(forge.seen(mark)))
        events = load_events(record)
        session_id = next((e["session"] for e in events if e.get("event") == "session_started"), "")
        rep, r = report(session_id, env)
        refusals = rep.get("forge_refused", [])
        check([(f.get("rule"), f.get("repository"), f.get("path")) for f in refusals]
              == [("history", "me/proj", "/me/proj.git/git-receive-pack")]
              and "not a fast-forward" in refusals[0].get("reason", ""),
              "review: corral report --json lists the refused push in forge_refused",
              json.dumps(refusals)[:1500] + r.stderr)
    finally:
        if forge:
            forge.stop()
        for volume in sorted(volumes):
            api.call("DELETE", f"/volumes/{volume}")
        subprocess.run(["rm", "-rf", str(work)])
    print(f"{ENGINE}: {RESULTS['pass']} passed, {RESULTS['fail']} failed")
    sys.exit(1 if RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
