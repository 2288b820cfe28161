#!/usr/bin/env python3
"""Black-box check of `corral check --batch` against cases.jsonl (default deny list).

Usage: run_cases.py CORRAL_BINARY [CASES_FILE]
Every case must get the expected decision and, for listed commands, the entry.
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    corral = sys.argv[1]
    cases_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(__file__), "cases.jsonl")
    with open(cases_path) as f:
        cases = [json.loads(line) for line in f if line.strip()]
    batch = "".join(json.dumps({"command": c["command"]}) + "\n" for c in cases)
    with tempfile.TemporaryDirectory() as home:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "XDG_CONFIG_HOME": home}
        proc = subprocess.run([corral, "check", "--batch", "-"], input=batch, text=True,
                              capture_output=True, env=env, timeout=120)
    if proc.returncode != 0:
        sys.exit(f"corral check --batch exited {proc.returncode}: {proc.stderr}")
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    if len(answers) != len(cases):
        sys.exit(f"expected {len(cases)} answers, got {len(answers)}")
    failures = []
    for case, answer in zip(cases, answers):
        want = (case["decision"], case["entry"])
        got = (answer.get("decision"), answer.get("entry"))
        if want != got:
            failures.append(f"  {case['command']!r}\n    want {want}, got {got}: {answer.get('reason')}")
    if failures:
        print(f"{len(failures)} of {len(cases)} cases failed:")
        print("\n".join(failures))
        sys.exit(1)
    print(f"all {len(cases)} cases decided as expected")


main()
