#!/usr/bin/env python3
"""The proxy's lists are checked by the proxy's own rules when the config is
loaded, black-box, with no engine: `corral config check` lists every bad entry
(file:line:column, the problem, the fix) and exits 1; `corral run --print` and
`corral proxy` refuse the same file with the same lines, so no command calls a
list good that a session's proxy would refuse. The environment and flags are
checked too, named instead of a line. HOME and XDG_* are temp folders.

Usage: network_lists_cli_test.py CORRAL
"""
import os
import subprocess
import sys
import tempfile
import unittest

CORRAL = sys.argv.pop(1)

# The file of issue 27, with one more problem of another kind.
BAD = """\
level: always
network:
  allowed_domains: [https://x.com/path, "*", "exa mple.com", registry.npmjs.org]
  denied_domains:
    - "*.com"
  allow_addresses: [10.0.0.0/33]
dangerous:
  acton: warn
"""


class NetworkListsCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        top = os.path.realpath(self.dir.name)
        self.home = os.path.join(top, "home")
        self.proj = os.path.join(top, "proj")
        for d in (self.home, os.path.join(self.proj, ".git"), os.path.join(top, "run")):
            os.makedirs(d)
        self.config = os.path.join(top, "config.yaml")
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": self.home,
                    "XDG_CONFIG_HOME": os.path.join(top, "cfg"),
                    "XDG_STATE_HOME": os.path.join(top, "state"),
                    "XDG_RUNTIME_DIR": os.path.join(top, "run"),
                    "CORRAL_ENGINE_SOCKETS": os.path.join(top, "no-engine.sock"),
                    "CORRAL_HOLD_UNKNOWN_FOLDERS": "off"}

    def tearDown(self):
        self.dir.cleanup()

    def write(self, text):
        with open(self.config, "w") as f:
            f.write(text)

    def corral(self, *args, env=None):
        return subprocess.run([CORRAL, *args], capture_output=True, text=True, cwd=self.proj,
                              env=dict(self.env, **(env or {})), stdin=subprocess.DEVNULL,
                              timeout=60)

    def expected_lines(self):
        c = self.config
        return [
            "corral: 6 problems in the configuration:",
            f"{c}:3:21: network.allowed_domains: `https://x.com/path` is a URL: "
            "write the host alone, `x.com`",
            f"{c}:3:41: network.allowed_domains: `*` would allow every host: "
            "list the hosts, or `*.example.com` for a domain's subdomains",
            f"{c}:3:46: network.allowed_domains: `exa mple.com` has a space: "
            "a host name has none",
            f"{c}:5:7: network.denied_domains: `*.com` would allow a whole top-level domain: "
            "name a domain, as in `*.example.com`",
            f"{c}:6:21: network.allow_addresses: `10.0.0.0/33` has a prefix length past /32: "
            "write e.g. `10.0.0.0/8`",
            f"{c}:8:3: unknown key 'dangerous.acton' (did you mean 'dangerous.action'?)",
        ]

    def test_config_check_lists_every_problem_and_exits_1(self):
        self.write(BAD)
        out = self.corral("config", "check", "--config", self.config)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertNotIn("config OK", out.stdout)
        self.assertEqual(out.stderr.splitlines(), self.expected_lines())

    def test_run_print_refuses_the_same_file_with_the_same_lines(self):
        self.write(BAD)
        out = self.corral("--config", self.config, "run", "--print", "--image", "x", "--", "true")
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertNotIn("network:", out.stdout)  # no plan, no list of allowed hosts
        self.assertEqual(out.stderr.splitlines(), self.expected_lines())

    def test_the_proxy_refuses_the_same_file_with_the_same_lines(self):
        self.write(BAD)
        out = self.corral("--config", self.config, "proxy", "--listen", "127.0.0.1:0")
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertEqual(out.stderr.splitlines(), self.expected_lines())

    def test_the_environment_and_flags_are_named_instead_of_a_line(self):
        self.write("level: always\n")
        out = self.corral("config", "check", "--config", self.config,
                          env={"CORRAL_ALLOWED_DOMAINS": "ok.example, https://x.com/path"})
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertEqual(out.stderr, "corral: CORRAL_ALLOWED_DOMAINS: `https://x.com/path` is a "
                                     "URL: write the host alone, `x.com`\n")
        out = self.corral("--config", self.config, "--set", "network.denied_domains=*.com",
                          "config", "check")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("corral: --set network.denied_domains: `*.com` would allow a whole "
                      "top-level domain", out.stderr)
        out = self.corral("--config", self.config, "proxy", "--listen", "127.0.0.1:0",
                          "--allow", "*", "--allow-address", "localhost")
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertEqual(out.stderr.splitlines(), [
            "corral: 2 problems in the configuration:",
            "--allow network.allowed_domains: `*` would allow every host: list the hosts, or "
            "`*.example.com` for a domain's subdomains",
            "--allow-address network.allow_addresses: `localhost` is not an IP address or CIDR "
            "range: write e.g. `10.0.0.5`, `10.0.0.0/8`, `fd00::/8`"])

    def test_good_lists_are_ok_and_print_lists_them(self):
        self.write("network:\n"
                   '  allowed_domains: [example.com, "*.pkg.dev", "git.example.com:8443"]\n'
                   "  allow_addresses: [10.0.0.0/8]\n")
        out = self.corral("config", "check", "--config", self.config)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("config OK", out.stdout)
        out = self.corral("--config", self.config, "run", "--print", "--image", "x", "--", "true")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        network = out.stdout.split("network:")[1].split("\n")[0]
        self.assertTrue(network.endswith(" example.com *.pkg.dev git.example.com:8443"), network)

    def test_a_git_remote_the_proxy_would_refuse_is_left_out_with_a_note(self):
        with open(os.path.join(self.proj, ".git", "config"), "w") as f:
            f.write('[remote "origin"]\n\turl = https://*.example.org/a/b.git\n'
                    '[remote "mirror"]\n\turl = ssh://git@git.example.com:0/a/b.git\n'
                    '[remote "fine"]\n\turl = git@good.example:a/b.git\n')
        self.write("level: always\n")
        out = self.corral("--config", self.config, "run", "--print", "--image", "x", "--", "true")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        network = out.stdout.split("network:")[1].split("\n")[0].split()
        # The ssh remote goes over HTTPS through the proxy; its ssh port stays closed...
        self.assertIn("good.example:443", network)
        self.assertNotIn("good.example:22", network)
        self.assertNotIn("*.example.org:443", network)
        self.assertNotIn("git.example.com:0", network)
        self.assertIn("*.example.org:443 (a git remote in .git/config) left out of the proxy's "
                      "list: `*.example.org:443` is a wildcard, and a URL names one host",
                      out.stdout)
        # ...unless the config opens it.
        self.write("level: always\nforge:\n  ssh: allow\n")
        out = self.corral("--config", self.config, "run", "--print", "--image", "x", "--", "true")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        network = out.stdout.split("network:")[1].split("\n")[0].split()
        self.assertIn("good.example:22", network)
        self.assertNotIn("good.example:443", network)
        self.assertIn("git.example.com:0 (a git remote in .git/config) left out of the proxy's "
                      "list: `git.example.com:0` has a port that is not a number from 1 to 65535",
                      out.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=1)
