#!/usr/bin/env python3
"""corral config import, black-box: the printed keys, the exit codes, and
--write into a temporary config that corral's own loader then reads
(`corral config show --config FILE --json`).

Usage: import_cli_test.py CORRAL
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

CORRAL = sys.argv.pop(1)
TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "launcher",
                        "config_import", "testdata")


class ImportCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.home = os.path.join(self.dir.name, "home")
        os.makedirs(os.path.join(self.home, ".cargo"))
        self.config = os.path.join(self.dir.name, "corral.yaml")
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": self.home,
                    "XDG_CONFIG_HOME": os.path.join(self.home, "cfg")}

    def tearDown(self):
        self.dir.cleanup()

    def corral(self, *args):
        return subprocess.run([CORRAL, *args], capture_output=True, text=True, env=self.env,
                              stdin=subprocess.DEVNULL, timeout=60)

    def show(self):
        out = self.corral("config", "show", "--config", self.config, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        return {key: item["value"] for key, item in json.loads(out.stdout).items()}

    def data(self, name):
        return os.path.join(TESTDATA, name)

    def test_prints_keys_and_writes_nothing_without_write(self):
        out = self.corral("config", "import", self.data("github.srt-settings.json"),
                          "--config", self.config)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("read as sandbox-runtime settings (--from srt)", out.stdout)
        self.assertIn('- "*.github.com"', out.stdout)
        self.assertIn("- secrets", out.stdout)
        self.assertIn("# nothing written: --write merges these into " + self.config, out.stdout)
        self.assertFalse(os.path.exists(self.config))

    def test_write_then_corral_loads_the_result(self):
        out = self.corral("config", "import", self.data("github.srt-settings.json"), "--write",
                          "--config", self.config)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("# wrote " + self.config, out.stdout)
        values = self.show()
        self.assertIn("*.github.com", values["network.allowed_domains"])
        self.assertIn("registry.npmjs.org", values["network.allowed_domains"])  # default kept
        self.assertIn("secrets", values["filesystem.deny_read"])
        self.assertIn("*.pem", values["filesystem.deny_read"])

        # A second source merges into the first; a value already set is kept (exit 1).
        with open(self.config, "a") as f:
            f.write("level: unattended\n")
        out = self.corral("config", "import", self.data("workspace.toml"), "--write",
                          "--config", self.config)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn('# level: already set to "unattended"', out.stdout)
        self.assertIn("the old file is kept at " + self.config + ".bak", out.stdout)
        values = self.show()
        self.assertEqual(values["level"], "unattended")
        self.assertEqual(values["agents.ask_first"], False)
        self.assertEqual(values["filesystem.extra_writable"], [os.path.join(self.home, ".cargo")])
        self.assertIn("*.github.com", values["network.allowed_domains"])
        self.assertTrue(os.path.exists(self.config + ".bak"))

    def test_codex_config_with_settings_corral_cannot_say_exits_1(self):
        out = self.corral("config", "import", self.data("config.toml"), "--config", self.config)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("level: always", out.stdout)
        self.assertIn("# not translated: sandbox_workspace_write.network_access = false (line 10)",
                      out.stdout)
        self.assertIn("# no corral meaning: model (line 2)", out.stdout)

    def test_sandbox_json_by_name_and_from_override(self):
        out = self.corral("config", "import", self.data("sandbox.json"), "--config", self.config)
        self.assertIn("(--from sandbox-json)", out.stdout)
        out = self.corral("config", "import", self.data("sandbox.json"), "--from", "srt",
                          "--config", self.config)
        self.assertEqual(out.returncode, 1)
        self.assertIn("# unknown: filesystem.allowRead (line 10)", out.stdout)

    def test_bad_input_exits_2_with_one_line(self):
        for name, expect in [("missing_comma.srt-settings.json", ":4:"),
                             ("unterminated.toml", "unterminated.toml:2:"),
                             ("wrong_type.toml", "sandbox_workspace_write.writable_roots")]:
            out = self.corral("config", "import", self.data(name), "--write",
                              "--config", self.config)
            self.assertEqual(out.returncode, 2, name + out.stdout + out.stderr)
            self.assertIn(expect, out.stderr)
            self.assertEqual(out.stdout, "")
            self.assertFalse(os.path.exists(self.config))
        out = self.corral("config", "import", self.data("config.toml"), "--from", "yaml")
        self.assertEqual(out.returncode, 2)
        self.assertIn("--from yaml: not a format", out.stderr)
        out = self.corral("config", "import", os.path.join(self.dir.name, "nope.json"))
        self.assertEqual(out.returncode, 2)
        self.assertIn("cannot read", out.stderr)

    def test_a_config_corral_cannot_read_is_left_alone(self):
        with open(self.config, "w") as f:
            f.write("levle: always\n")
        out = self.corral("config", "import", self.data("github.srt-settings.json"), "--write",
                          "--config", self.config)
        self.assertEqual(out.returncode, 2)
        self.assertIn("cannot merge into " + self.config, out.stderr)
        with open(self.config) as f:
            self.assertEqual(f.read(), "levle: always\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
