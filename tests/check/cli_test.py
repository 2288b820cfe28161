#!/usr/bin/env python3
"""Black-box tests of the corral CLI surface: exit codes, output formats, config errors.

Usage: cli_test.py CORRAL_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

CORRAL = sys.argv.pop(1)


class CliTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.home = self.tmp.name
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": self.home,
                    "XDG_CONFIG_HOME": self.home}

    def tearDown(self):
        self.tmp.cleanup()

    def run_corral(self, *args, stdin=None, env=None):
        return subprocess.run([CORRAL, *args], input=stdin, text=True, capture_output=True,
                              env={**self.env, **(env or {})}, timeout=60)

    def write(self, name, text):
        path = os.path.join(self.home, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def agent_args(self, *args):
        """The agent's command in the box's OCI spec (after the shim's `--`)."""
        project = os.path.join(self.home, "proj")
        os.makedirs(project, exist_ok=True)
        out = subprocess.run([CORRAL, "spec", *args], text=True, capture_output=True,
                             env=self.env, cwd=project, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        argv = json.loads(out.stdout)["process"]["args"]
        return argv[argv.index("--") + 1:]

    def test_agent_arguments_belong_to_the_agent(self):
        # docker run's rule: from the agent's name on, every word is the agent's.
        # In a box corral puts claude's run-without-asking switch before them.
        claude = ["claude", "--dangerously-skip-permissions"]
        self.assertEqual(self.agent_args("claude", "--resume", "abc"),
                         claude + ["--resume", "abc"])
        self.assertEqual(self.agent_args("claude", "--", "--resume", "abc"),
                         claude + ["--resume", "abc"])
        self.assertEqual(self.agent_args("--", "claude", "--resume", "abc"),
                         claude + ["--resume", "abc"])
        self.assertEqual(self.agent_args("--image", "x:1", "claude", "-p", "hi"),
                         claude + ["-p", "hi"])
        # corral's own --version, --help and --image after the name are the agent's.
        self.assertEqual(self.agent_args("claude", "--", "--version"), claude + ["--version"])
        self.assertEqual(self.agent_args("claude", "--help"), claude + ["--help"])
        self.assertEqual(self.agent_args("claude", "--image", "y", "--", "a"),
                         claude + ["--image", "y", "--", "a"])
        # A program corral has no recipe for runs as given.
        self.assertEqual(self.agent_args("sh", "-c", "make"), ["sh", "-c", "make"])
        # Only the first `--` after the name is dropped.
        self.assertEqual(self.agent_args("sh", "--", "--", "x"), ["sh", "--", "x"])

    def test_spec_gives_an_agent_what_run_gives_it(self):
        # Its folders, its login variables as stand-ins (never their values), its
        # switch and its image, as `corral run` would in a box.
        project = os.path.join(self.home, "proj")
        os.makedirs(project, exist_ok=True)
        env = {**self.env, "ANTHROPIC_API_KEY": "sk-secret-value"}
        out = subprocess.run([CORRAL, "spec", "--format", "docker", "claude", "-p", "hi"],
                             text=True, capture_output=True, env=env, cwd=project, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("sk-secret-value", out.stdout)
        body = json.loads(out.stdout)
        # A login is a stand-in in the box, made when the session starts (docs/logins.md).
        self.assertIn("ANTHROPIC_API_KEY=<a stand-in made at start>", body["Env"])
        self.assertTrue(body["Image"].startswith("corral-agent-claude:"), body["Image"])
        by_target = {m["Target"]: m["Source"] for m in body["HostConfig"]["Mounts"]}
        # The box's own settings folder under corral's state folder, never
        # the user's ~/.claude (issue 28).
        self.assertTrue(by_target.get("/home/corral/.claude", "").endswith(
            "/corral/agents/claude/.claude"), by_target)
        self.assertNotIn(os.path.join(self.home, ".claude"), by_target.values())
        command = body["Entrypoint"]
        self.assertEqual(command[command.index("--") + 1:],
                         ["claude", "--dangerously-skip-permissions", "-p", "hi"])

    def test_proxy_takes_logins_and_refuses_to_start_without_them(self):
        """corral proxy --logins-env/--logins-file (docs/logins.md): the network
        mode's sidecar is started this way; without its logins it must not run."""
        unset = subprocess.run([CORRAL, "proxy", "--listen", "127.0.0.1:0",
                                "--logins-env", "CORRAL_TEST_NO_SUCH_VARIABLE"],
                               text=True, capture_output=True, env=self.env, timeout=30)
        self.assertEqual(unset.returncode, 2, unset.stderr)
        self.assertIn("$CORRAL_TEST_NO_SUCH_VARIABLE is not set", unset.stderr)
        login = {"name": "K", "hosts": ["api.example.com:443"], "header": "x-api-key",
                 "prefix": "", "value": "sk-ant-api03-REALREALREAL",
                 "stand_in": "sk-ant-api03-standinstand"}
        short = dict(login, stand_in="sk-ant-api03-x1234567")
        refused = subprocess.run([CORRAL, "proxy", "--listen", "127.0.0.1:0", "--logins-env",
                                  "LOGINS"], text=True, capture_output=True,
                                 env={**self.env, "LOGINS": json.dumps({"logins": [short]})},
                                 timeout=30)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("stand-in was made from another value", refused.stderr)
        self.assertNotIn("REALREAL", refused.stderr)
        cert = os.path.join(self.home, "ca.pem")
        proxy = subprocess.Popen([CORRAL, "proxy", "--listen", "127.0.0.1:0", "--logins-env",
                                  "LOGINS", "--ca-cert-out", cert], text=True,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 env={**self.env, "LOGINS": json.dumps({"logins": [login]})})
        try:
            deadline = time.monotonic() + 20
            while not os.path.exists(cert) and time.monotonic() < deadline:
                time.sleep(0.05)
            with open(cert) as f:
                text = f.read()
            self.assertTrue(text.startswith("-----BEGIN CERTIFICATE-----"), text)
            self.assertNotIn("PRIVATE KEY", text)
        finally:
            proxy.terminate()
            _, err = proxy.communicate(timeout=30)
        self.assertIn("holding 1 login", err)
        self.assertNotIn("REALREAL", err)

    def test_spec_says_did_you_mean_for_a_typo(self):
        project = os.path.join(self.home, "proj")
        os.makedirs(project, exist_ok=True)
        out = subprocess.run([CORRAL, "spec", "clade"], text=True, capture_output=True,
                             env=self.env, cwd=project, timeout=60)
        self.assertEqual(out.returncode, 127, out.stderr)
        self.assertIn("did you mean claude", out.stderr)

    def test_global_options_still_work_before_the_agent(self):
        config = self.write("c.yaml", "image: from-config:1\n")
        project = os.path.join(self.home, "proj")
        os.makedirs(project, exist_ok=True)
        out = subprocess.run([CORRAL, "spec", "--config", config, "--set", "level=always",
                              "claude", "--set", "x"], text=True, capture_output=True,
                             env=self.env, cwd=project, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        argv = json.loads(out.stdout)["process"]["args"]
        self.assertEqual(argv[argv.index("--") + 1:],
                         ["claude", "--dangerously-skip-permissions", "--set", "x"])

    def test_run_print_leaves_agent_version_to_the_agent(self):
        project = os.path.join(self.home, "proj")
        os.makedirs(project, exist_ok=True)
        shim = os.path.join(os.path.dirname(os.path.dirname(CORRAL)), "images", "corral-shim")
        if not os.path.exists(shim):
            self.skipTest("corral-shim is not built beside corral")
        env = {**self.env, "CORRAL_SHIM": shim}
        out = subprocess.run([CORRAL, "run", "--print", "claude", "--", "--version"], text=True,
                             capture_output=True, env=env, cwd=project, timeout=60)
        # Before, corral printed its own version and exited 0 here.
        self.assertNotEqual(out.stdout.strip(), "0.1.0")
        self.assertIn("--version", out.stdout + out.stderr)

    def test_unknown_option_before_the_agent_is_a_usage_error(self):
        out = self.run_corral("run", "--bogus", "claude")
        self.assertEqual(out.returncode, 2)
        self.assertIn("--bogus", out.stderr)

    def test_option_value_missing_at_the_end_is_a_usage_error(self):
        out = self.run_corral("spec", "--image")
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn("--image", out.stderr)

    def test_run_help_shows_the_forms(self):
        out = self.run_corral("run", "--help")
        self.assertEqual(out.returncode, 0)
        self.assertIn("corral run [OPTIONS] AGENT [ARGS...]", out.stdout)

    def test_check_exit_codes(self):
        self.assertEqual(self.run_corral("check", "--", "aws s3 ls").returncode, 1)
        self.assertEqual(self.run_corral("check", "--", "ls -la").returncode, 0)
        self.assertEqual(self.run_corral("check").returncode, 2)
        self.assertEqual(self.run_corral("check", "--bogus").returncode, 2)

    def test_proxy_takes_a_bracketed_ipv6_allow_entry(self):
        proxy = subprocess.Popen([CORRAL, "proxy", "--listen", "127.0.0.1:0", "--log", "none",
                                  "--allow", "[2001:db8::10]"], text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
        try:
            # A refused entry ends the proxy at once with an error.
            with self.assertRaises(subprocess.TimeoutExpired):
                proxy.wait(timeout=2)
        finally:
            proxy.kill()
            _, err = proxy.communicate()
        self.assertNotIn("brackets", err)

    def test_proxy_socket_mode(self):
        # The network mode's sidecar opens its socket to the box's uid with 0666.
        path = os.path.join(self.home, "proxy.sock")
        proxy = subprocess.Popen([CORRAL, "proxy", "--listen", "unix:" + path, "--log", "none",
                                  "--socket-mode", "0666"], text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
        try:
            for _ in range(250):
                if os.path.exists(path) or proxy.poll() is not None:
                    break
                time.sleep(0.02)
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o666)
        finally:
            proxy.kill()
            proxy.communicate()
        for bad in ("999", "rw", ""):
            r = self.run_corral("proxy", "--listen", "unix:" + path, "--socket-mode", bad)
            self.assertEqual(r.returncode, 2, (bad, r.stderr))
            self.assertIn("--socket-mode", r.stderr)

    def test_check_does_not_load_libcurl(self):
        # Audit jobs start corral check often; libcurl and its libraries cost
        # more than half of its start-up, and only engine calls need them.
        out = self.run_corral("check", "--", "git status", env={"LD_DEBUG": "libs"})
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("libc.so", out.stderr)  # the loader did report its libraries
        self.assertNotIn("libcurl", out.stderr)

    def test_check_words_joined(self):
        out = self.run_corral("check", "--json", "--", "git", "push", "origin", "--force")
        self.assertEqual(out.returncode, 1)
        verdict = json.loads(out.stdout)
        self.assertEqual(verdict["entry"], "git push --force")
        self.assertEqual([w["text"] for w in verdict["words"]], ["git", "push", "--force"])

    def test_check_takes_its_words_verbatim(self):
        # CLI11 read '[aws,s3]' as a list ("aws s3") and passed a `--` inside
        # the line to the top level; a line given as words must be decided
        # as the same text given through --batch.
        for words in (["[aws,s3]"], ["[aws,s3]", "ls"], ["git", "--", "x"], ["echo", "--json"],
                      ["aws", "--", "s3"]):
            line = " ".join(words)
            given = self.run_corral("check", "--json", "--", *words)
            batch = self.run_corral("check", "--batch", "-", stdin=json.dumps({"command": line}) + "\n")
            self.assertEqual(batch.returncode, 0, batch.stderr)
            for field in ("decision", "entry", "reason"):
                self.assertEqual(json.loads(given.stdout)[field], json.loads(batch.stdout)[field],
                                 (words, field))
        # Without `--` too: the first word that is not an option starts the line.
        self.assertEqual(self.run_corral("check", "aws", "--version").returncode, 1)

    def test_check_json_positions_point_into_input(self):
        command = "echo hi && sudo -u ops kubectl get pods"
        out = self.run_corral("check", "--json", "--", command)
        verdict = json.loads(out.stdout)
        self.assertEqual(verdict["decision"], "deny")
        self.assertEqual(verdict["entry"], "kubectl")
        word = verdict["words"][0]
        self.assertEqual(command[word["offset"]:word["offset"] + word["length"]], "kubectl")
        self.assertIn("may not run while nobody is watching", verdict["message"])

    def test_check_human_output_names_entry(self):
        out = self.run_corral("check", "--", "FOO=1 /usr/local/bin/aws s3 ls")
        self.assertEqual(out.returncode, 1)
        self.assertIn("refused", out.stdout)
        self.assertIn("entry:     aws", out.stdout)

    def test_deny_list_file_replaces_list(self):
        path = self.write("list.txt", "# mine\nnpm publish\n\n")
        self.assertEqual(self.run_corral("check", "--deny-list", path, "--", "aws s3 ls").returncode, 0)
        self.assertEqual(
            self.run_corral("check", "--deny-list", path, "--", "npm --silent publish").returncode, 1)
        self.assertEqual(self.run_corral("check", "--deny-list", path + ".missing", "--", "ls").returncode, 2)

    def test_batch_keeps_order_and_reports_bad_lines(self):
        lines = '{"command": "aws s3 ls"}\nnot json\n{"cmd": "x"}\n{"command": "ls"}\n'
        out = self.run_corral("check", "--batch", "-", stdin=lines)
        self.assertEqual(out.returncode, 0)
        answers = [json.loads(l) for l in out.stdout.splitlines()]
        self.assertEqual(len(answers), 4)
        self.assertEqual(answers[0], {"decision": "deny", "entry": "aws", "dangerous": None,
                                      "reason": answers[0]["reason"]})
        self.assertIn("error", answers[1])
        self.assertIn("error", answers[2])
        self.assertEqual(answers[3]["decision"], "allow")
        self.assertIsNone(answers[3]["entry"])

    def test_batch_reports_dangerous_category(self):
        out = self.run_corral("check", "--batch", "-", stdin='{"command": "rm -rf build"}\n')
        answer = json.loads(out.stdout)
        self.assertEqual(answer["decision"], "allow")  # dangerous.action defaults to warn
        self.assertIsInstance(answer["dangerous"], str)
        out = self.run_corral("--set", "dangerous.action=deny-unattended", "check", "--batch", "-",
                              stdin='{"command": "rm -rf build"}\n')
        self.assertEqual(json.loads(out.stdout)["decision"], "deny")

    def test_undetermined_follows_setting(self):
        self.assertEqual(self.run_corral("check", "--", "$CMD s3 ls").returncode, 1)
        out = self.run_corral("check", "--", "$CMD s3 ls", env={"CORRAL_UNDETERMINED": "allow"})
        self.assertEqual(out.returncode, 0)
        empty = self.write("empty.txt", "# nothing\n")
        self.assertEqual(self.run_corral("check", "--deny-list", empty, "--", "$CMD x").returncode, 0)

    def test_user_entries_match_like_defaults(self):
        self.write("corral/config.yaml", "deny_unattended:\n  - npm publish\n  - sudo\n")
        self.assertEqual(self.run_corral("check", "--", "cd x && npm publish --tag beta").returncode, 1)
        self.assertEqual(self.run_corral("check", "--", "sudo ls").returncode, 1)
        self.assertEqual(self.run_corral("check", "--", "aws s3 ls").returncode, 0)

    def test_config_check_and_show(self):
        self.assertEqual(self.run_corral("config", "check").returncode, 0)
        path = self.write("corral/config.yaml", "level: always\nundetermined: maybe\n")
        out = self.run_corral("config", "check")
        self.assertEqual(out.returncode, 1)
        self.assertIn(f"{path}:2:15", out.stderr)
        self.assertIn("not one of deny, allow", out.stderr)
        # Every other command refuses to run on a broken config, and says why.
        out = self.run_corral("check", "--", "ls")
        self.assertEqual(out.returncode, 2)
        self.assertIn(path, out.stderr)

    def test_config_show_origins(self):
        self.write("corral/config.yaml", "level: always\n")
        out = self.run_corral("--set", "undetermined=allow", "config", "show", "--json",
                              env={"CORRAL_DANGEROUS_ACTION": "off"})
        self.assertEqual(out.returncode, 0, out.stderr)
        shown = json.loads(out.stdout)
        self.assertEqual(shown["level"]["origin"], "file")
        self.assertEqual(shown["dangerous.action"]["origin"], "environment")
        self.assertEqual(shown["undetermined"]["origin"], "flag")
        self.assertEqual(shown["deny_unattended"]["origin"], "default")

    def test_malformed_yaml_names_line(self):
        path = self.write("bad.yaml", "level: always\n  deny_unattended: [\n")
        out = self.run_corral("--config", path, "config", "check")
        self.assertEqual(out.returncode, 1)
        self.assertIn(path + ":", out.stderr)

    def test_help_everywhere_and_typos(self):
        for args in (["--help"], ["check", "--help"], ["config", "--help"], ["config", "show", "--help"]):
            out = self.run_corral(*args)
            self.assertEqual(out.returncode, 0, args)
            self.assertIn("Usage", out.stdout)
        out = self.run_corral("chek")
        self.assertEqual(out.returncode, 2)
        self.assertIn("corral check", out.stderr)


unittest.main()
