#!/usr/bin/env python3
"""`corral allow --host NAME [--project]`, black-box, with no engine: the host
goes into network.allowed_domains of the user's config (a copy of the old
file kept, the defaults kept), or into this project's list in corral's state,
which `corral run --print` then shows for this project only. Bad names and
flag mixes are refused with exit 2 and nothing written. HOME, XDG_STATE_HOME
and XDG_CONFIG_HOME are temp folders.

Usage: allow_host_cli_test.py CORRAL
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

CORRAL = sys.argv.pop(1)


class AllowHostCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        top = os.path.realpath(self.dir.name)
        self.home = os.path.join(top, "home")
        self.proj = os.path.join(top, "proj")
        self.other = os.path.join(top, "other")
        self.state = os.path.join(top, "state")
        self.config = os.path.join(top, "cfg", "corral", "config.yaml")
        for d in (self.home, os.path.join(self.proj, ".git"), os.path.join(self.other, ".git"),
                  os.path.join(top, "run")):
            os.makedirs(d)
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": self.home,
                    "XDG_CONFIG_HOME": os.path.join(top, "cfg"), "XDG_STATE_HOME": self.state,
                    "XDG_RUNTIME_DIR": os.path.join(top, "run"),
                    "CORRAL_ENGINE_SOCKETS": os.path.join(top, "no-engine.sock")}

    def tearDown(self):
        self.dir.cleanup()

    def corral(self, *args, cwd=None):
        return subprocess.run([CORRAL, *args], capture_output=True, text=True, env=self.env,
                              cwd=cwd or self.proj, stdin=subprocess.DEVNULL, timeout=60)

    def allowed_domains(self):
        out = self.corral("config", "show", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)["network.allowed_domains"]["value"]

    def test_a_host_goes_into_the_users_config_beside_the_defaults(self):
        before = self.allowed_domains()
        self.assertTrue(before, "corral has default allowed domains")
        out = self.corral("allow", "--host", "api.example.com")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(self.config, out.stdout)
        after = self.allowed_domains()
        self.assertEqual(after, before + ["api.example.com"])
        again = self.corral("allow", "--host", "api.example.com")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("already allowed", again.stdout)
        self.assertEqual(self.allowed_domains(), after)

    def test_an_existing_config_keeps_its_other_keys_and_a_copy(self):
        os.makedirs(os.path.dirname(self.config))
        with open(self.config, "w") as f:
            f.write("level: always\nnetwork:\n  allowed_domains:\n    - github.com\n")
        out = self.corral("allow", "--host", "*.example.org")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(os.path.exists(self.config + ".bak"), os.listdir(os.path.dirname(self.config)))
        self.assertEqual(self.allowed_domains(), ["github.com", "*.example.org"])
        level = self.corral("config", "show")
        self.assertIn("level = \"always\"", level.stdout)

    def test_project_hosts_are_kept_in_state_and_apply_to_that_project_only(self):
        out = self.corral("allow", "--host", "pypi.internal:8443", "--project")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertFalse(os.path.exists(self.config), "the user's config is not touched")
        with open(os.path.join(self.state, "corral", "project-hosts.json")) as f:
            kept = json.load(f)
        self.assertEqual(kept, {"projects": {self.proj: ["pypi.internal:8443"]}})
        here = self.corral("run", "--print", "--image", "x", "--", "true")
        self.assertEqual(here.returncode, 0, here.stderr)
        self.assertIn("pypi.internal:8443 allowed for this project", here.stdout)
        there = self.corral("run", "--print", "--image", "x", "--", "true", cwd=self.other)
        self.assertEqual(there.returncode, 0, there.stderr)
        self.assertNotIn("pypi.internal", there.stdout)

    def test_bad_input_is_refused_and_nothing_is_written(self):
        for args in (["--host", "https://api.example.com/v1"], ["--host", "*"],
                     ["--host", "a.com", "somedir"], ["--project"]):
            out = self.corral("allow", *args)
            self.assertEqual(out.returncode, 2, f"{args}: {out.stdout} {out.stderr}")
            self.assertTrue(out.stderr.startswith("corral: "), out.stderr)
        self.assertFalse(os.path.exists(self.config))
        self.assertFalse(os.path.exists(os.path.join(self.state, "corral", "project-hosts.json")))


if __name__ == "__main__":
    unittest.main(verbosity=1)
