#!/usr/bin/env python3
"""Black-box tests of `corral check --batch`'s reading and writing of lines:
every spelling of a JSON line reads as the same command, every verdict is
written as canonical JSON (sorted keys, no spaces, only the escapes JSON
needs), malformed lines are numbered errors, and an answer comes before the
input ends.

Usage: batch_lines_test.py CORRAL_BINARY
"""
import json
import os
import select
import subprocess
import sys
import tempfile
import unittest

CORRAL = sys.argv.pop(1)
HERE = os.path.dirname(os.path.abspath(__file__))
ERROR = 'expected a JSON object like {\\"command\\": \\"...\\"}'


def canonical(value):
    """The JSON text nlohmann::json writes: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class BatchLinesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": self.tmp.name,
                    "XDG_CONFIG_HOME": self.tmp.name}

    def tearDown(self):
        self.tmp.cleanup()

    def batch(self, data, *flags):
        proc = subprocess.run([CORRAL, *flags, "check", "--batch", "-"], input=data,
                              capture_output=True, env=self.env, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout.split(b"\n")[:-1]

    def test_verdicts_are_canonical_json(self):
        with open(os.path.join(HERE, "cases.jsonl")) as f:
            commands = [json.loads(line)["command"] for line in f if line.strip()]
        commands += ["echo 'é' && aws s3 ls", "printf '\\x01\x01\x1f\x7f' | psql", "rm -rf ~/\t",
                     'echo "\\"quoted\\"" \\\\ /']
        for flags in ([], ["--set", "dangerous.action=deny-unattended"]):
            data = "".join(json.dumps({"command": c}) + "\n" for c in commands).encode()
            out = self.batch(data, *flags)
            self.assertEqual(len(out), len(commands))
            for command, line in zip(commands, out):
                self.assertEqual(line.decode(), canonical(json.loads(line)), command)

    def test_every_spelling_reads_the_same_command(self):
        plain = '{"command": "aws s3 ls"}'
        spellings = [
            '{"command":"aws s3 ls"}', '  {  "command"  :  "aws s3 ls"  }  ', plain + "\r",
            '\t{"command":\t"aws s3 ls"}\t', '{"command": "a\\u0077s s3 ls"}',
            '{"command": "aws\\u0020s3 ls"}',
            '{"x": 1, "command": "aws s3 ls"}', '{"command": "aws s3 ls", "x": [1, {"y": null}]}',
            '{"command": "ls", "command": "aws s3 ls"}',
        ]
        out = self.batch("".join(s + "\n" for s in [plain] + spellings).encode())
        self.assertEqual(len(out), len(spellings) + 1)
        self.assertIn(b'"decision":"deny"', out[0])
        for spelling, line in zip(spellings, out[1:]):
            self.assertEqual(line, out[0], spelling)

    def test_escapes_and_utf8_are_decoded(self):
        pairs = [('{"command": "echo \\"$(aws s3 ls)\\""}', 'echo "$(aws s3 ls)"'),
                 ('{"command": "echo a\\\\b\\tc\\nkubectl get pods"}',
                  "echo a\\b\tc\nkubectl get pods"),
                 ('{"command": "aws s3 ls s3:\\/\\/b"}', "aws s3 ls s3://b"),
                 ('{"command": "echo \\u00e9; psql"}', "echo é; psql"),
                 ('{"command": "echo \\ud83d\\ude00 | psql"}', "echo 😀 | psql"),
                 ('{"command": "echo é && terraform apply"}', "echo é && terraform apply")]
        escaped = self.batch("".join(p[0] + "\n" for p in pairs).encode())
        plain = self.batch("".join(json.dumps({"command": p[1]}) + "\n" for p in pairs).encode())
        self.assertEqual(escaped, plain)
        self.assertTrue(all(b'"decision":"deny"' in line for line in plain), plain)

    def test_malformed_lines_are_numbered_errors(self):
        bad = ["", " ", "{}", "[]", "null", '"aws"', '{"command": 1}', '{"command": null}',
               '{"cmd": "aws"}', '{"command": "aws"} x', '{"command": "aws"',
               '{"command": "bad \\x escape"}', '{"command": "raw\ttab"}', '{"command": "\\ud83d"}',
               '{"command": "aws\\u00"}']
        lines = ['{"command": "aws"}'] + bad + ['{"command": "aws"}']
        out = self.batch("".join(line + "\n" for line in lines).encode())
        self.assertEqual(len(out), len(lines))
        self.assertEqual(out[0], out[-1])
        for number, (line, verdict) in enumerate(zip(bad, out[1:-1]), start=2):
            self.assertEqual(verdict.decode(), '{"error":"line %d: %s"}' % (number, ERROR), line)

    def test_invalid_utf8_is_an_error_and_the_next_line_is_decided(self):
        out = self.batch(b'{"command": "echo \xff; aws s3 ls"}\n{"command": "kubectl"}\n')
        self.assertEqual(out[0].decode(), '{"error":"line 1: %s"}' % ERROR)
        self.assertEqual(json.loads(out[1])["decision"], "deny")

    def test_long_line_and_no_final_newline(self):
        long_command = "echo " + "x" * 300_000 + " && aws s3 ls"
        data = (json.dumps({"command": long_command}) + "\n" + '{"command": "git status"}').encode()
        out = self.batch(data)
        self.assertEqual([json.loads(line)["decision"] for line in out], ["deny", "allow"])

    def test_a_repeated_command_gets_its_own_verdict_every_time(self):
        # Repeats may be answered from what was kept; each answer must still
        # be the one `corral check --json` gives that command alone.
        with open(os.path.join(HERE, "cases.jsonl")) as f:
            cases = [json.loads(line)["command"] for line in f if line.strip()]
        commands = cases[::max(1, len(cases) // 40)][:40] + ["git status", "aws s3 ls"]
        order = commands + commands[::-1] + [c for c in commands for _ in range(3)]
        out = self.batch("".join(json.dumps({"command": c}) + "\n" for c in order).encode())
        self.assertEqual(len(out), len(order))
        alone = {}
        for command in commands:
            proc = subprocess.run([CORRAL, "check", "--json", "--", command], capture_output=True,
                                  env=self.env, timeout=60)
            full = json.loads(proc.stdout)
            alone[command] = canonical({k: full[k] for k in
                                        ("decision", "entry", "reason", "dangerous")})
        self.assertIn('"decision":"deny"', "".join(alone.values()))
        self.assertIn('"decision":"allow"', "".join(alone.values()))
        for command, line in zip(order, out):
            self.assertEqual(line.decode(), alone[command], command)

    def test_answers_before_the_input_ends(self):
        proc = subprocess.Popen([CORRAL, "check", "--batch", "-"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=self.env)
        try:
            proc.stdin.write(b'{"command": "aws s3 ls"}\n')
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            self.assertTrue(ready, "no answer while the input stays open")
            self.assertIn(b'"decision":"deny"', proc.stdout.readline())
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
            proc.stdout.close()


if __name__ == "__main__":
    unittest.main()
