#!/usr/bin/env python3
"""Package caches (issue 33, docs/sessions.md "Package caches"): what a box in
one project writes into npm's cache (npm_config_cache) a box in another
project reads, also in the network mode (the project copied into a volume);
with caches.mode: project the second project's box has a cache of its own,
which `corral cache ls` lists and `corral cache rm VOLUME` removes. The agent's
user writes the caches (a new volume is given to it).

The shared caches are the engine's user's (corral-cache-TOOL-uUID), used by
every test on that engine: this test only adds a file of its own to one and
takes it away again, and removes only its own project's volumes.

Usage: caches_e2e.py docker|podman CORRAL SHIM
"""
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import session_e2e as e2e  # noqa: E402  (same arguments: ENGINE CORRAL SHIM)

ENGINE, CORRAL, check, run = e2e.ENGINE, e2e.CORRAL, e2e.check, e2e.run
NETWORK = {"CORRAL_ENGINE_MODE": "network", "CORRAL_PROJECT_SHARED": "0"}


def main():
    e2e.start_engine()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-caches-{ENGINE}-"))
    os.chmod(work, 0o755)
    mark = f"corral-caches-test-{os.getpid()}-{os.urandom(4).hex()}"
    env = dict(os.environ)
    env.update({
        "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
        "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
        "CORRAL_ENGINE": f"unix://{e2e.SOCKET}", "CORRAL_SHIM": e2e.SHIM,
        "CORRAL_IMAGE": "corral-tools:2", "CORRAL_LEVEL": "always",
        "CORRAL_HOLD_UNKNOWN_FOLDERS": "off", "CORRAL_NOTIFY_DESKTOP": "false",
    })
    for name in ("CORRAL_CONFIG", "CORRAL_CACHES", "DOCKER_HOST"):
        env.pop(name, None)
    (work / "home").mkdir()
    (work / "run").mkdir(mode=0o700)
    one, two = work / "one", work / "two"
    one.mkdir()
    two.mkdir()

    def session(proj, script, *sets, extra_env=None):
        words = [CORRAL]
        for s in sets:
            words += ["--set", s]
        r = run(words + ["run", "--headless", "--", "/bin/busybox", "sh", "-c", script],
                cwd=proj, env=dict(env, **(extra_env or {})), stdin=subprocess.DEVNULL,
                timeout=300)
        if r.returncode != 0:
            print("  corral stderr: " + r.stderr.strip().replace("\n", "\n  "))
        return r

    own = []
    try:
        # 1. Project one writes into the shared npm cache, as the agent's user.
        r = session(one, f'echo "$npm_config_cache $GOCACHE"; id -u; echo one >"$npm_config_cache/{mark}"')
        lines = r.stdout.split()
        check(r.returncode == 0 and lines[:2] == ["/var/cache/corral/npm",
                                                  "/var/cache/corral/go-build"]
              and lines[2] == str(os.getuid()),
              "the box's npm cache is a volume at /var/cache/corral/npm, written as the agent",
              f"{r.returncode} {r.stdout!r}")

        # 2. Project two, in the network mode, reads it (and takes it away).
        r = session(two, f'cat "$npm_config_cache/{mark}" && rm "$npm_config_cache/{mark}"',
                    extra_env=NETWORK)
        check(r.returncode == 0 and r.stdout.strip() == "one",
              "another project's box reads the shared cache (network mode)",
              f"{r.returncode} {r.stdout!r}")

        # 3. caches.mode: project: project two's box has a cache of its own.
        session(one, f'echo one >"$npm_config_cache/{mark}"')
        r = session(two, f'test ! -e "$npm_config_cache/{mark}" && echo two >"$npm_config_cache/{mark}"'
                         ' && echo own', "caches.mode=project")
        check(r.returncode == 0 and r.stdout.strip() == "own",
              "with caches.mode: project, the other project's cache is not there",
              f"{r.returncode} {r.stdout!r}")
        r = session(one, f'cat "$npm_config_cache/{mark}" && rm "$npm_config_cache/{mark}"')
        check(r.returncode == 0 and r.stdout.strip() == "one",
              "and what it wrote stays out of the shared one", f"{r.returncode} {r.stdout!r}")

        # 4. corral cache ls names both; rm removes project two's own.
        r = run([CORRAL, "cache", "ls"], env=env)
        uid = os.getuid()
        own = [line.split()[0] for line in r.stdout.splitlines()
               if line.startswith(f"corral-cache-") and "-two-" in line.split()[0]]
        check(r.returncode == 0 and f"corral-cache-npm-u{uid} " in r.stdout
              and len(own) == 5 and all("project two-" in line for line in r.stdout.splitlines()
                                        if "-two-" in line),
              "corral cache ls lists the shared caches and the project's own", r.stdout + r.stderr)
        r = run([CORRAL, "cache", "rm", *own], env=env)
        check(r.returncode == 0 and r.stdout.count("removed ") == len(own) == 5,
              "corral cache rm VOLUME... removes them", r.stdout + r.stderr)
        r = run([CORRAL, "cache", "ls"], env=env)
        check(r.returncode == 0 and "-two-" not in r.stdout, "and they are gone", r.stdout)
        r = run([CORRAL, "cache", "rm", own[0]], env=env)
        check(r.returncode == 1 and "no cache volume" in r.stderr,
              "removing one that is not there: 1, and a line", r.stdout + r.stderr)
        own = []

        r = run([CORRAL, "cache", "rm", "ruby"], env=env)
        check(r.returncode == 2 and "npm, pip, cargo, go, go-build" in r.stderr,
              "a name that is no cache: 2, and the names there are", r.stderr)
        r = run([CORRAL, "cache", "ls", "--engine", f"unix://{work}/none.sock"], env=env)
        check(r.returncode == 1 and "no container engine answered" in r.stderr
              and "caches are volumes on an engine" in r.stderr,
              "no engine: 1, and a line saying so", r.stderr)
    finally:
        if own:
            run([CORRAL, "cache", "rm", *own], env=env)
        subprocess.run(["rm", "-rf", str(work)])
    print(f"{ENGINE}: {e2e.RESULTS['pass']} passed, {e2e.RESULTS['fail']} failed")
    sys.exit(1 if e2e.RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
