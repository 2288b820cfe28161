#!/usr/bin/env python3
"""Real bash as the judge of `corral check`.

Usage: differential_bash.py CORRAL_BINARY [EVERY_NTH] [--every-context] [--list]

Builds command lines from contexts (pipelines, subshells, substitutions,
nested shells, heredocs, data such as `echo X`), wrappers (env, nice, timeout,
...) and spellings of `aws` (quotes, escapes, $'...', braces, a full path).
Each line is decided by `corral check --batch` and then run by bash with a
stand-in `aws` first in PATH that leaves a mark when it runs. A line that ran
`aws` but was allowed is a way past the deny list, and fails the test. Lines
refused that did not run `aws` are counted only: refusing is the safe side.
Every generated command is harmless (stand-ins, echo, true, cat).

A second set (bash_families.py, issue 14) starts the stand-in in other ways:
programs that run commands from their options or scripts (git, make, npm, tar,
sed, ...), interpreter APIs, files written earlier in the line, startup and
prompt variables, history, copies, bash's evaluating expansions, and force
pushes (judged by the fixture remote's update hook). Each line runs in a fresh
copy of a small git repository. Its harmless lines must be allowed: refusing
one fails the test too. --list prints every line with its verdict.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import shutil
import tempfile

import bash_families

CONTEXTS = [
    "X", "true && X", "false || X", "true; X", "true | X", "(X)", "{ X; }", "$(X)",
    "echo $(X)", "echo `X`", 'echo "$(X)"', "if true; then X; fi", "for i in 1; do X; done",
    "case a in a) X;; esac", "f(){ X; }; f", "bash -c 'X'", 'sh -c "X"', "eval 'X'",
    "bash <<< 'X'", "echo 'X' | bash", "cat <(X)", "X &\nwait",
    "while true; do X; break; done", "x=$(X)", "echo ${x:-$(X)}", "[[ -n $(X) ]]",
    "timeout 5 bash -c 'X'", "xargs -I{} sh -c 'X' <<< 1", "find . -maxdepth 0 -exec X \\;",
    "echo | xargs X", 'bash -c "X"', "sh <<EOF\nX\nEOF", "cat <<EOF\n$(X)\nEOF", "! X",
    "time X", "coproc X\nwait", "X |& cat", "X 2>&1", ">/dev/null X", "exec 3>&1; X",
    "bash -c \"$(cat <<'EOF'\nX\nEOF\n)\"", "eval \"$(cat <<'EOF'\nX\nEOF\n)\"",
    # data: these must stay allowed whatever X is
    "echo X", "echo 'X'", "cat <<'EOF'\nX\nEOF", "grep -q X /dev/null", "printf '%s' 'X'",
    ": X", "# X", "true # X", "git commit -q -m \"$(cat <<'EOF'\nX\nEOF\n)\"",
]
WRAPPERS = [
    "", "env ", "nice -n 1 ", "timeout 5 ", "command ", "nohup ", "stdbuf -o0 ", "time ",
    "setsid -w ", "A=1 ", "env -- ", "nice -- ", "timeout -k 1 5 ", "ionice -c3 ",
    "taskset -c 0 ", "nice nohup env ",
]


def names(stub_dir):
    return ["aws", "a\\ws", "'aws'", '"aws"', "a''ws", "$'aws'", "$'\\x61ws'", '"a"ws',
            'aw""s', "\\aws", f"{stub_dir}/aws", "a{w,}s", "{aws,}"]


def command_lines(stub_dir):
    lines = []
    for context in CONTEXTS:
        for wrapper in WRAPPERS:
            for name in names(stub_dir):
                x = wrapper + name + " s3 ls"
                if ("'" in context and "'" in x) or ('"' in context and '"' in x):
                    continue
                lines.append(context.replace("X", x))
    return list(dict.fromkeys(lines))


def decide(corral, lines, work):
    batch = "".join(json.dumps({"command": line}) + "\n" for line in lines)
    own = {k: v for k, v in os.environ.items() if not k.startswith("CORRAL_")}
    own["XDG_CONFIG_HOME"] = work  # the default list, whatever the user configured
    decided = subprocess.run([corral, "check", "--batch", "-"], input=batch, env=own,
                             capture_output=True, text=True, check=True)
    verdicts = [json.loads(line) for line in decided.stdout.splitlines()]
    assert len(verdicts) == len(lines), decided.stderr
    return [v["decision"] == "deny" for v in verdicts]


def run_in_bash(line, number, work, stub_dir, fixture):
    """True when bash running `line` started the stand-in (or forced a push)."""
    mark = os.path.join(work, f"m{number}")
    if fixture:
        shutil.copytree(fixture, mark, symlinks=True)
    else:
        os.mkdir(mark)
    env = {"PATH": f"{stub_dir}:/usr/bin:/bin", "MARK": mark, "HOME": mark,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
           "npm_config_offline": "true", "npm_config_update_notifier": "false",
           "npm_config_audit": "false", "npm_config_fund": "false", "TERM": "dumb"}
    try:
        subprocess.run(["bash", "-c", line], cwd=mark, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
    except subprocess.TimeoutExpired:
        pass
    ran = os.path.exists(os.path.join(mark, "ran"))
    shutil.rmtree(mark, ignore_errors=True)
    return ran


def judge(corral, lines, work, stub_dir, fixture):
    refused = decide(corral, lines, work)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        ran = list(pool.map(lambda a: run_in_bash(a[1], a[0], work, stub_dir, fixture),
                            enumerate(lines)))
    return refused, ran


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    corral = args[0]
    every = int(args[1]) if len(args) > 1 else 7
    listing = "--list" in sys.argv
    missing = sorted({tool for tools in bash_families.NEEDS.values() for tool in tools
                      if shutil.which(tool) is None})
    if missing:
        print("missing programs the families need (scripts/packages/check.txt): " +
              " ".join(missing))
        sys.exit(1)
    failed = False
    with tempfile.TemporaryDirectory() as work:
        stub_dir = os.path.join(work, "bin")
        os.mkdir(stub_dir)
        stub = os.path.join(stub_dir, "aws")
        with open(stub, "w") as f:
            f.write('#!/bin/sh\ntouch "$MARK/ran"\n')
        os.chmod(stub, 0o755)

        # The first set: contexts x wrappers x spellings.
        lines = command_lines(stub_dir)[::every]
        refused, ran = judge(corral, lines, work, stub_dir, None)
        bypasses = [l for l, r, d in zip(lines, ran, refused) if r and not d]
        refused_only = sum(1 for r, d in zip(ran, refused) if d and not r)
        print(f"{len(lines)} command lines run by bash: {len(bypasses)} ran aws while allowed, "
              f"{refused_only} refused without running it")
        for line in bypasses:
            print("ALLOWED BUT RAN aws:", repr(line))
        # The judge itself must work: most generated lines do run the stand-in.
        if sum(ran) < len(lines) // 2:
            print(f"only {sum(ran)} lines ran the stand-in aws: the harness is broken")
            sys.exit(1)
        failed |= bool(bypasses)

        # The second set: families, in a fresh repository each.
        fixture = os.path.join(work, "fixture")
        bash_families.make_fixture(fixture, "MARK")
        pairs = bash_families.family_lines(stub_dir, "--every-context" in sys.argv)
        harmless = bash_families.harmless_lines()
        lines = [l for _, l in pairs] + [l for _, l in harmless]
        refused, ran = judge(corral, lines, work, stub_dir, fixture)
        n = len(pairs)
        stats = {}
        for (family, line), r, d in zip(pairs, ran[:n], refused[:n]):
            s = stats.setdefault(family, [0, 0, 0, []])
            s[0] += 1
            s[1] += r
            s[2] += r and not d
            if r and not d:
                s[3].append(line)
            if listing:
                print(f"{'RAN' if r else 'no '} {'deny ' if d else 'allow'} {family}: {line!r}")
        total_ran = sum(s[1] for s in stats.values())
        total_bypass = sum(s[2] for s in stats.values())
        print(f"{n} family lines run by bash: {total_ran} started the stand-in, "
              f"{total_bypass} of them while allowed")
        for family, (count, fam_ran, bypass, _) in stats.items():
            print(f"  {family}: {count} lines, {fam_ran} ran it, {bypass} allowed")
        for family, s in stats.items():
            for line in s[3]:
                print(f"ALLOWED BUT RAN ({family}):", repr(line))
        # The judge must work for every family: each has lines that ran it.
        silent = [family for family, s in stats.items() if s[1] == 0]
        if silent or total_ran < n // 2:
            print("the harness is broken: no line ran the stand-in in " +
                  (", ".join(silent) or f"most families ({total_ran} of {n} ran it)"))
            sys.exit(1)
        harmless_refused, harmless_ran = [], []
        for (family, line), r, d in zip(harmless, ran[n:], refused[n:]):
            if r:
                harmless_ran.append(line)
            elif d:
                harmless_refused.append((family, line))
            if listing:
                print(f"{'RAN' if r else 'no '} {'deny ' if d else 'allow'} harmless {family}: "
                      f"{line!r}")
        print(f"{len(harmless)} harmless lines: {len(harmless_refused)} refused")
        for family, line in harmless_refused:
            print(f"HARMLESS BUT REFUSED ({family}):", repr(line))
        if harmless_ran:
            print("the harness is broken: harmless lines ran the stand-in:", harmless_ran)
            sys.exit(1)
        failed |= bool(total_bypass or harmless_refused)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
