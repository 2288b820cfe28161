#!/usr/bin/env python3
"""The exec check in a real box (docs/exec-check.md): with nobody watching, a
stand-in listed program started without a shell's text naming it is refused
with EACCES and appears once in the inbox per refusal; with somebody watching
(the heartbeat), each of them runs; a make build works with the check on; a
box whose seccomp profile refuses seccomp() says at start that the check is
off, or does not start with exec_check: require; exec_check: off turns it off.

With `network` as a fourth argument, the sessions of 1 and 2 (every route,
the gate's included) run in the network mode (CORRAL_ENGINE_MODE=network:
the project copied into a volume and back: CORRAL_PROJECT_SHARED=0).

Usage: exec_check_e2e.py docker|podman CORRAL SHIM [network]

The box's image is corral-tools:2 (busybox, bash, git, make: tests/engines/
tools_image) plus a stand-in `aws` (a script) in /usr/local/bin and a compiled
stand-in `kubectl` (gate_stand_in.c, linked from /usr/local/bin to a versioned
file in /usr/local/lib), built with --build. kubectl is behind the exec gate
(docs/exec-check.md, "The gate").
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import session_e2e as e2e  # noqa: E402  (same arguments: ENGINE CORRAL SHIM)

ENGINE, CORRAL, check, run = e2e.ENGINE, e2e.CORRAL, e2e.check, e2e.run
NETWORK = len(sys.argv) > 4 and sys.argv[4] == "network"
HERE = pathlib.Path(__file__).resolve().parent

# Each route to the stand-in, refused while nobody watches, with the list
# entry it is refused as (ldso and ldcopy run `git push --force` through the
# dynamic loader).
ROUTES = {name: "aws" for name in [
    "env", "find", "copy", "link", "interpreter", "make", "git", "devfd", "stdin", "procdot",
    "fdlink", "procrel", "shebang", "interpcopy", "rewrite"]}
ROUTES.update({"ldso": "git push --force", "ldcopy": "git push --force"})
# The gate's routes to the compiled kubectl refused while nobody watches:
# by name (at the gate's own exec), by its file's path and /proc/self/root
# (by the gate, which says so), and with a signal to die.
GATE_REFUSED = {"gatename": "Permission denied", "gateversioned": "was refused",
                "gateprocroot": "was refused", "gatesignal": "Permission denied"}

STAND_IN = '#!/bin/sh\necho "aws-ran $*" >>"${AWS_RAN_LOG:-/dev/null}"\necho aws-ran\n'


def mode_env():
    # The project copied into a volume, as for an engine that cannot see it.
    return {"CORRAL_ENGINE_MODE": "network", "CORRAL_PROJECT_SHARED": "0"} if NETWORK else {}


def exec_into_session(proj, env, session_env, tag, heartbeat):
    """A session whose agent waits for exec-stop in its project, entered with
    corral exec (which also gives it exec-stop: in the network mode the
    project in the box is a copy)."""
    started, stop = proj / "exec-started", proj / "exec-stop"
    agent = (f"id -u >{started}.uid; env >{started}.env; touch {started}; "
             f"while [ ! -e {stop} ]; do sleep 0.2; done")
    box = subprocess.Popen([CORRAL, "run", "--headless", "--image", tag, "--", "/bin/busybox",
                            "sh", "-c", agent], cwd=proj, env=session_env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    sid = None

    def exec_(*words):
        return run([CORRAL, "exec", sid[:6], "--", *words], env=env, stdin=subprocess.DEVNULL,
                   timeout=120)

    try:
        for _ in range(300):
            if box.poll() is not None:
                break
            ids = [line.split()[0] for line in run([CORRAL, "ps"], env=env).stdout.splitlines()
                   if line.endswith(" " + str(proj))]
            if len(ids) == 1:
                sid = ids[0]
                if exec_(f"test -e {started}").returncode == 0:
                    break
            time.sleep(0.2)
        check(sid is not None and box.poll() is None,
              "corral ps names the running session to enter", str(sid))
        if sid is None:
            return
        r = exec_("id -u; pwd; echo HOME=$HOME")
        lines = r.stdout.splitlines()
        check(r.returncode == 0 and len(lines) == 3 and lines[1] == str(proj),
              "corral exec runs in the box, in the project",
              f"{r.returncode} {r.stdout!r} {r.stderr[-300:]!r}")
        agent = exec_(f"cat {started}.uid; grep ^HOME= {started}.env").stdout.splitlines()
        check(len(lines) == 3 and lines[:1] + lines[2:] == agent,
              "corral exec runs as the agent's user, with the box's environment",
              f"{lines} agent's: {agent}")
        r = exec_("exit 5")
        check(r.returncode == 5, "corral exec exits with the command's status", str(r.returncode))
        r = exec_("AWS_RAN_LOG=/dev/stdout aws s3 ls")
        check(r.returncode != 0 and "aws-ran" not in r.stdout
              and "corral blocked this" in r.stderr and "`aws`" in r.stderr,
              "nobody watching: a listed command given to corral exec is refused, and says why",
              f"{r.returncode} {r.stdout!r} {r.stderr[-300:]!r}")
        inbox = run([CORRAL, "inbox", "--json"], env=env).stdout
        check("aws s3 ls" in inbox, "the inbox names the command refused in corral exec",
              inbox[-400:])
        # Without an engine named, and none at the default sockets: the
        # session's record names the engine it runs on.
        bare = {k: v for k, v in env.items() if k not in ("CORRAL_ENGINE", "DOCKER_HOST")}
        bare["CORRAL_ENGINE_SOCKETS"] = str(proj / "no-engine.sock")
        r = run([CORRAL, "exec", sid[:6], "--", "echo found"], env=bare, stdin=subprocess.DEVNULL,
                timeout=120)
        check(r.returncode == 0 and r.stdout.strip() == "found",
              "corral exec without --engine finds the session's engine from its record",
              f"{r.returncode} {r.stdout!r} {r.stderr[-300:]!r}")
        # A copy under another name (in the project: /tmp is noexec): the shell front
        # cannot know it; the exec check can.
        exec_("cp /usr/local/bin/aws ./exec-renamed")
        r = exec_("AWS_RAN_LOG=/dev/stdout ./exec-renamed s3 ls")
        check(r.returncode != 0 and "aws-ran" not in r.stdout and "ermission denied" in r.stderr,
              "nobody watching: corral exec's processes are under the exec check",
              f"{r.returncode} {r.stdout!r} {r.stderr[-300:]!r}")
        r = exec_("/usr/local/lib/kubectl-1.29 get pods")
        check(r.returncode == 126 and "kubectl-ran" not in r.stdout and "was refused" in r.stderr,
              "nobody watching: corral exec's processes find the exec gate over kubectl",
              f"{r.returncode} {r.stdout!r} {r.stderr[-300:]!r}")
        run([CORRAL, "presence", "ping"], env=env)
        time.sleep(2.5)  # the box believes an answer about presence for two seconds
        r = exec_("AWS_RAN_LOG=/dev/stdout ./exec-renamed s3 ls")
        check("aws-ran s3 ls" in r.stdout, "somebody watching: corral exec runs a listed command",
              f"{r.returncode} {r.stdout!r} {r.stderr[-300:]!r}")
        heartbeat.unlink(missing_ok=True)
        r = run([CORRAL, "exec", "ffffffffffff", "--", "true"], env=env, stdin=subprocess.DEVNULL)
        check(r.returncode == 125 and "no running session" in r.stderr,
              "corral exec of a session that is not running: 125, and why", r.stderr[-300:])
    finally:
        if sid is not None:
            exec_(f"touch {stop}")
        stop.touch()
        try:
            box.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            box.kill()
        for name in ("exec-started", "exec-started.uid", "exec-started.env", "exec-stop",
                     "exec-renamed"):
            (proj / name).unlink(missing_ok=True)


def main():
    e2e.start_engine()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-exec-{ENGINE}-"))
    os.chmod(work, 0o755)
    tag = f"corral-exec-check-test-{os.getpid()}:1"
    try:
        ctx = work / "image"
        ctx.mkdir()
        (ctx / "aws").write_text(STAND_IN)
        os.chmod(ctx / "aws", 0o755)
        subprocess.run(["gcc", "-static", "-O2", "-o", str(ctx / "kubectl-1.29"),
                        str(HERE / "gate_stand_in.c")], check=True)
        (ctx / "bin").mkdir()
        os.symlink("/usr/local/lib/kubectl-1.29", ctx / "bin" / "kubectl")
        (ctx / "Dockerfile").write_text(
            "FROM corral-tools:2\nCOPY aws /usr/local/bin/aws\n"
            "COPY kubectl-1.29 /usr/local/lib/kubectl-1.29\nCOPY bin/ /usr/local/bin/\n")

        proj = work / "proj"
        (proj / ".git").mkdir(parents=True)
        (proj / ".git" / "config").write_text("")
        shutil.copy(HERE / "exec_agent.sh", proj / "exec_agent.sh")
        (proj / "Makefile.aws").write_text("SHELL := /bin/sh\nall:\n\taws s3 ls\n")
        (proj / "src").mkdir()
        for name in "abcd":
            (proj / "src" / f"{name}.in").write_text(f"{name} in\n")
        (proj / "Makefile.build").write_text(
            "SHELL := /bin/sh\nall: out/a.txt out/b.txt out/c.txt out/d.txt\n"
            "out/%.txt: src/%.in | out\n\tsed 's/in/out/' $< > $@\nout:\n\tmkdir -p out\n")

        heartbeat = work / "heartbeat"
        config_dir = work / "config" / "corral"
        config_dir.mkdir(parents=True)
        (config_dir / "config.yaml").write_text(json.dumps({
            "level": "always", "image": tag, "deny_unattended": ["aws", "git push --force", "kubectl"],
            "presence": {"sources": ["heartbeat"], "heartbeat_file": str(heartbeat)},
            "notify": {"desktop": False},
        }))
        env = dict(os.environ)
        env.update({
            "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
            "CORRAL_ENGINE": f"unix://{e2e.SOCKET}", "CORRAL_SHIM": e2e.SHIM,
            "CORRAL_HOLD_UNKNOWN_FOLDERS": "off",  # holding is tested in hold_e2e.py
        })
        for name in ("CORRAL_CONFIG", "CORRAL_LEVEL", "CORRAL_IMAGE", "DOCKER_HOST"):
            env.pop(name, None)
        (work / "home").mkdir()
        (work / "run").mkdir(mode=0o700)

        def session(out, *extra):
            mode = mode_env()
            r = run([CORRAL, *extra, "run", "--headless", "--image", tag, "--build", str(ctx), "--",
                     "/bin/busybox", "sh", str(proj / "exec_agent.sh"), str(proj / out)],
                    cwd=proj, env=dict(env, **mode), stdin=subprocess.DEVNULL, timeout=300)
            print("  corral stderr: " + r.stderr.strip().replace("\n", "\n  "))
            return r

        def step(out, name):
            files = {s: proj / out / f"{name}.{s}" for s in ("code", "out", "err", "ran")}
            code = files["code"].read_text().strip() if files["code"].exists() else "missing"
            err = files["err"].read_text() if files["err"].exists() else ""
            return code, files["ran"].exists(), err

        # 1. Nobody watching: every route is refused, each once in the inbox.
        r = session("away")
        check((proj / "away" / "finished").exists(), "the agent ran to the end", r.stderr[-400:])
        check("exec check is off" not in r.stderr, "the exec check runs in the box", r.stderr)
        check(not NETWORK or "copied into the volume" in r.stderr,
              "the session ran in the network mode, its project copied", r.stderr[-400:])
        for name in ROUTES:
            code, ran, err = step("away", name)
            # (busybox find reports a command it cannot run, and exits 0)
            check(code != "missing" and not ran and "ermission denied" in err,
                  f"nobody watching: the stand-in `aws` started by {name} is refused (EACCES)",
                  f"exit {code}, ran {ran}, stderr {err!r}")
        for name, said in GATE_REFUSED.items():
            code, _, err = step("away", name)
            out = (proj / "away" / f"{name}.out").read_text()
            check(code == "126" and "kubectl-ran" not in out and said in err,
                  f"nobody watching: the gate keeps kubectl from running ({name})",
                  f"exit {code}, out {out!r}, stderr {err!r}")
        code, _, err = step("away", "gatecopy")
        check(code == "126" and "a copy of corral's exec gate" in err,
              "a copy of a covered program's file with a byte added is a copy of the gate",
              f"exit {code}, stderr {err!r}")
        code, ran, err = step("away", "build")
        built = [(proj / "out" / f"{n}.txt").read_text() if (proj / "out" / f"{n}.txt").exists()
                 else "" for n in "abcd"]
        check(code == "0" and built == [f"{n} out\n" for n in "abcd"],
              "a make -j2 build runs with the exec check on", f"exit {code} {err!r} {built}")
        refusals = len(ROUTES) + len(GATE_REFUSED)
        check(f"Had {refusals} commands blocked while you were away" in r.stderr,
              "the session counts each refusal once", r.stderr[-300:])
        items = json.loads(run([CORRAL, "inbox", "--json"], env=env).stdout or "[]")
        entries = sorted(i.get("entry") for i in items)
        check(entries == sorted(list(ROUTES.values()) + ["kubectl"] * len(GATE_REFUSED)),
              "the inbox has one entry per refusal, each the listed command it was",
              json.dumps(items)[:600])
        logs = list((work / "state" / "corral" / "sessions").glob("*.jsonl"))
        events = [e for p in logs for e in map(json.loads, p.read_text().splitlines())
                  if e.get("event") == "command"]
        execs = [e for e in events if e.get("shell") == "exec"]
        check(len(execs) == refusals and any(
            str(e.get("program", "")).endswith("/renamed-tool") for e in execs),
            "each refusal is logged with the program that was started", json.dumps(execs)[:600])

        # 2. Somebody watching: every route runs, and nothing reaches the inbox.
        run([CORRAL, "presence", "ping"], env=env)
        shutil.rmtree(proj / "out", ignore_errors=True)
        r = session("here")
        for name in ROUTES:
            code, ran, err = step("here", name)
            check(ran, f"somebody watching: the stand-in started by {name} runs",
                  f"exit {code}, stderr {err!r}")
        for name, argv in (("gatename", "kubectl get pods"),
                           ("gateversioned", "/usr/local/lib/kubectl-1.29 get"),
                           ("gateprocroot", "/proc/self/root/usr/local/lib/kubectl-1.29 get")):
            code, _, err = step("here", name)
            out = (proj / "here" / f"{name}.out").read_text()
            check(code == "42" and out == f"kubectl-ran argv0={argv}\n",
                  f"somebody watching: kubectl runs through the gate with its argv[0], "
                  f"arguments and exit status ({name})", f"exit {code}, out {out!r}, {err!r}")
        code, _, _ = step("here", "gatesignal")
        check(code == "143", "through the gate, a signal that ends kubectl is its exit status",
              f"exit {code}")
        code, _, err = step("here", "gatecopy")
        check(code == "126" and "a copy of corral's exec gate" in err,
              "somebody watching: a copy of the gate still runs nothing", f"exit {code} {err!r}")
        items = json.loads(run([CORRAL, "inbox", "--json"], env=env).stdout or "[]")
        check(items == [], "nothing was refused while somebody watched", json.dumps(items)[:300])
        heartbeat.unlink()

        # 3. corral exec into a running session: one of the agent's own
        # processes (its user, folder and environment), under its checks.
        exec_into_session(proj, env, dict(env, **mode_env()), tag, heartbeat)

        if not NETWORK:  # the rest is the same in either mode
            # 4. A profile that refuses seccomp(): the session says the check is off, and runs.
            r = run([CORRAL, "--set", "seccomp.deny=seccomp", "run", "--headless", "--", "true"],
                    cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=300)
            check(r.returncode == 0 and "exec check is off in this box" in r.stderr
                  and "seccomp" in r.stderr,
                  "without seccomp() the session says at start that the exec check is off",
                  f"exit {r.returncode}: {r.stderr[-400:]}")

            # 5. exec_check: require on such a box: the session does not start (125).
            r = run([CORRAL, "--set", "seccomp.deny=seccomp", "--set", "exec_check=require", "run",
                     "--headless", "--", "touch", str(proj / "started")],
                    cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=300)
            check(r.returncode == 125 and "exec_check is require" in r.stderr
                  and not (proj / "started").exists(),
                  "exec_check: require without seccomp(): exit 125, nothing started",
                  f"exit {r.returncode}: {r.stderr[-400:]}")

            # 6. exec_check: off: a renamed copy runs while nobody watches.
            r = run([CORRAL, "--set", "exec_check=off", "run", "--headless", "--", "/bin/busybox",
                     "sh",
                     "-c", "AWS_RAN_LOG=/dev/stdout ./renamed-tool s3"],
                    cwd=proj, env=env, stdin=subprocess.DEVNULL, timeout=300)
            check("aws-ran s3" in r.stdout, "exec_check: off: nothing is checked at exec time",
                  f"exit {r.returncode}: {r.stdout!r} {r.stderr[-300:]}")
    finally:
        run(["curl", "-s", "--unix-socket", e2e.SOCKET, "-X", "DELETE",
             f"http://d/v1.41/images/{tag}?force=1"])
        subprocess.run(["rm", "-rf", str(work)])
    print(f"{ENGINE}: {e2e.RESULTS['pass']} passed, {e2e.RESULTS['fail']} failed")
    sys.exit(1 if e2e.RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
