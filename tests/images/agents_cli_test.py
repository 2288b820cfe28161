#!/usr/bin/env python3
"""corral agents and what a recipe adds to `corral run --print`, black-box,
with no engine and no network (the version is pinned by a recipe field).

Usage: agents_cli_test.py CORRAL
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

CORRAL = sys.argv.pop(1)
PIN = '{"claude": {"version": "1.0.0"}, "codex": {"version": "0.1.0"}}'


class AgentsCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.home = os.path.join(self.dir.name, "home")
        self.proj = os.path.join(self.dir.name, "proj")
        os.makedirs(self.home)
        os.makedirs(os.path.join(self.proj, ".git"))
        # No engine answers: --print renders the OCI form.
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": self.home,
                    "XDG_CONFIG_HOME": os.path.join(self.home, "cfg"),
                    "XDG_RUNTIME_DIR": self.dir.name,
                    "CORRAL_ENGINE_SOCKETS": os.path.join(self.dir.name, "no-engine.sock"),
                    # Runs here have no terminal, in a new folder: not held (hold_cli_test).
                    "CORRAL_HOLD_UNKNOWN_FOLDERS": "off"}

    def tearDown(self):
        self.dir.cleanup()

    def corral(self, *args, env=None):
        return subprocess.run([CORRAL, *args], capture_output=True, text=True, cwd=self.proj,
                              env=dict(self.env, **(env or {})), stdin=subprocess.DEVNULL,
                              timeout=60)

    def test_lists_the_twelve_agents_with_their_recipes(self):
        out = self.corral("agents", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        agents = {a["name"]: a for a in json.loads(out.stdout)}
        self.assertEqual(set(agents), {"claude", "codex", "gemini", "opencode", "copilot",
                                       "cursor", "amp", "qwen", "droid", "kimi", "pi", "letta"})
        claude = agents["claude"]
        self.assertEqual(claude["install"], "npm @anthropic-ai/claude-code")
        self.assertEqual(claude["switch"], ["--dangerously-skip-permissions"])
        self.assertIn("ANTHROPIC_API_KEY", claude["variables"])
        self.assertIn("api.anthropic.com", claude["hosts"])
        self.assertEqual(claude["folder_variable"], "CLAUDE_CONFIG_DIR")
        self.assertFalse(agents["cursor"]["verified"])
        human = self.corral("agents")
        self.assertIn("claude  [verified", human.stdout)
        self.assertIn("cursor  [not verified]", human.stdout)

    def test_a_recipe_of_the_users_is_listed_and_changes_the_built_in_one(self):
        recipes = '{"aider": {"installer": "pip install aider-chat"}, "claude": {"hosts": ["x.example"]}}'
        out = self.corral("--set", "agents.recipes=" + recipes, "agents", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        agents = {a["name"]: a for a in json.loads(out.stdout)}
        self.assertEqual(agents["aider"]["install"], "installer: pip install aider-chat")
        self.assertEqual(agents["claude"]["hosts"], ["x.example"])
        self.assertFalse(agents["claude"]["verified"])

    def test_print_names_the_login_variables_never_their_values(self):
        out = self.corral("--set", "level=always", "--set", "agents.recipes=" + PIN,
                          "run", "--print", "claude", "-p", "hi",
                          env={"ANTHROPIC_API_KEY": "sk-very-secret", "OPENAI_API_KEY": "sk-other"})
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("sk-very-secret", out.stdout + out.stderr)
        # The key is a login the session's proxy holds: named with its header and host.
        self.assertIn("ANTHROPIC_API_KEY: in x-api-key to api.anthropic.com:443\n", out.stdout)
        self.assertIn('"ANTHROPIC_API_KEY=(a stand-in made at start)"', out.stdout)
        self.assertNotIn("passed by name", out.stdout)
        self.assertNotIn("OPENAI_API_KEY", out.stdout)
        # agents.logins: pass keeps it in the box as it is, by name.
        passed = self.corral("--set", "level=always", "--set", "agents.recipes=" + PIN,
                             "--set", "agents.logins=pass", "run", "--print", "claude",
                             env={"ANTHROPIC_API_KEY": "sk-very-secret"})
        self.assertEqual(passed.returncode, 0, passed.stderr)
        self.assertNotIn("sk-very-secret", passed.stdout + passed.stderr)
        self.assertIn("passed by name (values from your environment, never shown): "
                      "ANTHROPIC_API_KEY\n", passed.stdout)
        self.assertIn("logins in the box as they are (agents.logins: pass): ANTHROPIC_API_KEY\n",
                      passed.stdout)
        self.assertIn("image corral-agent-claude:1.0.0", out.stdout)
        self.assertIn("claude --dangerously-skip-permissions -p hi", out.stdout)
        self.assertIn("api.anthropic.com", out.stdout.split("network:")[1].split("\n")[0])
        # HOME under /tmp is /home/corral in the box; the box's own folder
        # (never the user's) is there.
        self.assertIn("/home/corral/.claude  (read-write)  from "
                      f"{self.home}/.local/state/corral/agents/claude/.claude  — claude's "
                      "settings and login (its own, copied from yours without what runs "
                      "programs)", out.stdout)
        self.assertNotIn(f"from {self.home}/.claude ", out.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.home, ".claude")),
                         "--print made the agent's folder")

    def test_ask_first_and_a_teams_own_image(self):
        out = self.corral("--set", "level=always", "--set", "agents.recipes=" + PIN,
                          "--set", "agents.ask_first=true", "run", "--print",
                          "--image", "team/agent:1", "claude")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("image team/agent:1,", out.stdout)
        self.assertNotIn("--dangerously-skip-permissions", out.stdout.split("network:")[0])

    def test_unboxed_refuses_the_agents_own_bypass_switch(self):
        # At a terminal, watched (a fresh heartbeat): unboxed.
        self.corral("--set", "presence.sources=heartbeat", "presence", "ping")
        def at_terminal(*args):
            line = " ".join([CORRAL, "--set", "level=unattended", "--set",
                             "presence.sources=heartbeat", *args])
            return subprocess.run(["script", "-qec", line + "; echo exit=$?", "/dev/null"],
                                  capture_output=True, text=True, cwd=self.proj, env=self.env,
                                  stdin=subprocess.DEVNULL, timeout=60)
        out = at_terminal("run", "codex", "--yolo")
        self.assertIn("--yolo turns off codex's own sandbox", out.stdout)
        self.assertIn("exit=125", out.stdout)
        # level off: nothing is refused (codex is not installed here: 127 or it runs).
        out = self.corral("--set", "level=off", "run", "codex", "--yolo")
        self.assertNotIn("turns off", out.stderr)

    def test_a_typo_of_an_agents_name_is_not_found(self):
        out = self.corral("--set", "level=off", "run", "clade")
        self.assertEqual(out.returncode, 127, out.stderr)
        self.assertIn("did you mean claude?", out.stderr)


if __name__ == "__main__":
    unittest.main()
