#!/usr/bin/env python3
"""Real bash as the judge of `corral check`.

Usage: differential_bash.py CORRAL_BINARY [EVERY_NTH]

Builds command lines from contexts (pipelines, subshells, substitutions,
nested shells, heredocs, data such as `echo X`), wrappers (env, nice, timeout,
...) and spellings of `aws` (quotes, escapes, $'...', braces, a full path).
Each line is decided by `corral check --batch` and then run by bash with a
stand-in `aws` first in PATH that leaves a mark when it runs. A line that ran
`aws` but was allowed is a way past the deny list, and fails the test. Lines
refused that did not run `aws` are counted only: refusing is the safe side.
Every generated command is harmless (stand-ins, echo, true, cat).
"""
import json
import os
import subprocess
import sys
import tempfile

CONTEXTS = [
    "X", "true && X", "false || X", "true; X", "true | X", "(X)", "{ X; }", "$(X)",
    "echo $(X)", "echo `X`", 'echo "$(X)"', "if true; then X; fi", "for i in 1; do X; done",
    "case a in a) X;; esac", "f(){ X; }; f", "bash -c 'X'", 'sh -c "X"', "eval 'X'",
    "bash <<< 'X'", "echo 'X' | bash", "cat <(X)", "X &\nwait",
    "while true; do X; break; done", "x=$(X)", "echo ${x:-$(X)}", "[[ -n $(X) ]]",
    "timeout 5 bash -c 'X'", "xargs -I{} sh -c 'X' <<< 1", "find . -maxdepth 0 -exec X \\;",
    "echo | xargs X", 'bash -c "X"', "sh <<EOF\nX\nEOF", "cat <<EOF\n$(X)\nEOF", "! X",
    "time X", "coproc X\nwait", "X |& cat", "X 2>&1", ">/dev/null X", "exec 3>&1; X",
    # data: these must stay allowed whatever X is
    "echo X", "echo 'X'", "cat <<'EOF'\nX\nEOF", "grep -q X /dev/null", "printf '%s' 'X'",
    ": X", "# X", "true # X",
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


def main():
    corral = sys.argv[1]
    every = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    with tempfile.TemporaryDirectory() as work:
        stub_dir = os.path.join(work, "bin")
        os.mkdir(stub_dir)
        stub = os.path.join(stub_dir, "aws")
        with open(stub, "w") as f:
            f.write('#!/bin/sh\ntouch "$MARK/ran"\n')
        os.chmod(stub, 0o755)
        lines = command_lines(stub_dir)[::every]
        batch = "".join(json.dumps({"command": line}) + "\n" for line in lines)
        own = {k: v for k, v in os.environ.items() if not k.startswith("CORRAL_")}
        own["XDG_CONFIG_HOME"] = work  # the default list, whatever the user configured
        decided = subprocess.run([corral, "check", "--batch", "-"], input=batch, env=own,
                                 capture_output=True, text=True, check=True)
        verdicts = [json.loads(line) for line in decided.stdout.splitlines()]
        assert len(verdicts) == len(lines), decided.stderr
        bypasses, refused_only, ran_total = [], 0, 0
        for number, (line, verdict) in enumerate(zip(lines, verdicts)):
            mark = os.path.join(work, f"m{number}")
            os.mkdir(mark)
            env = {"PATH": f"{stub_dir}:/usr/bin:/bin", "MARK": mark, "HOME": work}
            try:
                subprocess.run(["bash", "-c", line], cwd=mark, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
            except subprocess.TimeoutExpired:
                pass
            ran = os.path.exists(os.path.join(mark, "ran"))
            ran_total += ran
            refused = verdict["decision"] == "deny"
            if ran and not refused:
                bypasses.append(line)
            refused_only += refused and not ran
    print(f"{len(lines)} command lines run by bash: {len(bypasses)} ran aws while allowed, "
          f"{refused_only} refused without running it")
    for line in bypasses:
        print("ALLOWED BUT RAN aws:", repr(line))
    # The judge itself must work: most generated lines do run the stand-in.
    if ran_total < len(lines) // 2:
        print(f"only {ran_total} lines ran the stand-in aws: the harness is broken")
        sys.exit(1)
    sys.exit(1 if bypasses else 0)


if __name__ == "__main__":
    main()
