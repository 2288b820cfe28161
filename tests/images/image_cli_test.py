#!/usr/bin/env python3
"""corral image's bad input and an engine that does not answer, black-box,
with no engine and no network: exit 2 for bad input, 125 when the engine
cannot be reached, each with one line saying what to do.

Usage: image_cli_test.py CORRAL
"""
import os
import subprocess
import sys
import tempfile
import unittest

CORRAL = sys.argv.pop(1)


class ImageCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        home = os.path.join(self.dir.name, "home")
        os.makedirs(home)
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": home,
                    "XDG_CONFIG_HOME": os.path.join(home, "cfg"),
                    "CORRAL_ENGINE_SOCKETS": os.path.join(self.dir.name, "no-engine.sock")}

    def tearDown(self):
        self.dir.cleanup()

    def corral(self, *args):
        return subprocess.run([CORRAL, *args], capture_output=True, text=True, env=self.env,
                              cwd=self.dir.name, timeout=60)

    def test_help_names_the_subcommands_and_exit_codes(self):
        r = self.corral("image", "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        for word in ("ls", "build", "rm", "corral-agent-AGENT:VERSION", "125"):
            self.assertIn(word, r.stdout)

    def test_a_subcommand_is_needed(self):
        self.assertEqual(self.corral("image").returncode, 2)

    def test_an_unknown_agent_is_bad_input_with_a_suggestion(self):
        r = self.corral("image", "build", "clade")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("did you mean claude?", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_corral_itself_takes_no_version(self):
        r = self.corral("image", "build", "corral", "--version", "1.0.0")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no --version", r.stderr)

    def test_rm_needs_a_name(self):
        self.assertEqual(self.corral("image", "rm").returncode, 2)

    def test_no_engine_is_an_engine_failure(self):
        for args in (["ls"], ["ls", "--json"], ["rm", "claude"], ["build", "codex"]):
            r = self.corral("image", *args)
            self.assertEqual(r.returncode, 125, f"{args}: {r.stderr}")
            self.assertIn("no container engine answered", r.stderr)
            self.assertEqual(r.stdout, "", args)


if __name__ == "__main__":
    unittest.main()
