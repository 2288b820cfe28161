#!/usr/bin/env python3
"""Held runs, black-box, with no engine (docs/sessions.md, "Held runs"): a
headless run in a folder corral does not know is held; with
hold.wait_minutes 0 it exits 75 at once with one line naming `corral allow`;
with a wait, `corral held` and the inbox list it, `corral allow DIR` releases
it and it goes on to the engine, which is not there (exit 125: it went on);
a signal ends the wait and removes its record; home, a link to it, / and
corral's folders are refused with one line (exit 125; `corral allow` of them
exits 1). HOME, XDG_STATE_HOME and XDG_CONFIG_HOME are temp folders.

Usage: hold_cli_test.py CORRAL
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

CORRAL = sys.argv.pop(1)
NO_ENGINE = "unix:///nonexistent"


class HoldCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        top = os.path.realpath(self.dir.name)
        self.home = os.path.join(top, "home")
        self.proj = os.path.join(top, "proj")
        self.state = os.path.join(top, "state")
        shim_dir = os.path.join(top, "bin")
        for d in (self.home, self.proj, shim_dir, os.path.join(top, "run")):
            os.makedirs(d)
        # Stand-ins: the run checks they exist, and fails at the engine before using them.
        for name in ("corral-shim", "corral-shell"):
            with open(os.path.join(shim_dir, name), "w"):
                pass
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": self.home,
                    "XDG_CONFIG_HOME": os.path.join(top, "cfg"), "XDG_STATE_HOME": self.state,
                    "XDG_RUNTIME_DIR": os.path.join(top, "run"),
                    "CORRAL_SHIM": os.path.join(shim_dir, "corral-shim"),
                    "CORRAL_ENGINE_SOCKETS": os.path.join(top, "no-engine.sock"),
                    # Nobody watching, whatever terminal is in use meanwhile.
                    "CORRAL_PRESENCE_SOURCES": ""}

    def tearDown(self):
        self.dir.cleanup()

    def corral(self, *args, cwd=None, env=None, timeout=60):
        return subprocess.run([CORRAL, *args], capture_output=True, text=True,
                              env={**self.env, **(env or {})}, cwd=cwd or self.proj,
                              stdin=subprocess.DEVNULL, timeout=timeout)

    def start_run(self, cwd=None, wait_minutes="1"):
        return subprocess.Popen(
            [CORRAL, "run", "--headless", "--image", "x", "--engine", NO_ENGINE, "true"],
            cwd=cwd or self.proj, env={**self.env, "CORRAL_HOLD_WAIT_MINUTES": wait_minutes},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_until_held(self, count=1):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            held = json.loads(self.corral("held", "--json").stdout)
            if len(held) >= count:
                return held
            time.sleep(0.05)
        self.fail("the run was never listed by corral held")

    def held_records(self):
        folder = os.path.join(self.state, "corral", "held")
        return os.listdir(folder) if os.path.isdir(folder) else []

    def test_wait_zero_refuses_at_once_with_75_and_the_allow_line(self):
        r = self.corral("run", "--headless", "--image", "x", "--engine", NO_ENGINE, "true",
                        env={"CORRAL_HOLD_WAIT_MINUTES": "0"})
        self.assertEqual(r.returncode, 75, r.stderr)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn(f"corral allow {self.proj}", lines[0])
        self.assertEqual(self.held_records(), [])

    def test_held_listed_then_allowed_then_it_goes_on_to_the_engine(self):
        run = self.start_run()
        held = self.wait_until_held()
        self.assertEqual(held[0]["folder"], self.proj)
        self.assertEqual(held[0]["command"], ["true"])
        self.assertEqual(held[0]["pid"], run.pid)
        human = self.corral("held").stdout
        self.assertIn(f"corral run true in {self.proj}, since ", human)
        self.assertIn(f"corral allow {self.proj}", human)
        inbox = self.corral("inbox", "--keep").stdout
        self.assertTrue(inbox.startswith(f"Waiting for you: corral run true in {self.proj}"),
                        inbox)
        self.assertIsNone(run.poll(), "still waiting")

        allow = self.corral("allow", self.proj)
        self.assertEqual(allow.returncode, 0, allow.stderr)
        self.assertIn(f"allowed {self.proj}", allow.stdout)
        self.assertIn(f"released: corral run true in {self.proj}", allow.stdout)
        _, err = run.communicate(timeout=20)
        self.assertEqual(run.returncode, 125, err)  # went on, and found no engine
        self.assertIn("released", err)
        self.assertEqual(self.held_records(), [])
        self.assertEqual(self.corral("held").stdout, "No runs are waiting.\n")

    def test_allowing_a_parent_releases_a_run_in_a_folder_inside_it(self):
        inner = os.path.join(self.proj, "web")
        os.makedirs(inner)
        run = self.start_run(cwd=inner)
        self.wait_until_held()
        allow = self.corral("allow", self.proj)
        self.assertIn(f"released: corral run true in {inner}", allow.stdout)
        _, err = run.communicate(timeout=20)
        self.assertEqual(run.returncode, 125, err)

    def test_a_signal_ends_the_wait_and_removes_the_record(self):
        run = self.start_run()
        self.wait_until_held()
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=20)
        self.assertEqual(run.returncode, 128 + signal.SIGTERM, err)
        self.assertEqual(self.held_records(), [])

    def test_a_killed_runs_record_is_dropped(self):
        run = self.start_run()
        self.wait_until_held()
        run.kill()
        run.communicate(timeout=20)
        self.assertEqual(len(self.held_records()), 1)  # SIGKILL: nothing could clean up
        self.assertEqual(json.loads(self.corral("held", "--json").stdout), [])
        self.assertEqual(self.held_records(), [])

    def test_an_allowed_folder_is_not_held(self):
        self.assertEqual(self.corral("allow", self.proj).returncode, 0)
        r = self.corral("run", "--headless", "--image", "x", "--engine", NO_ENGINE, "true")
        self.assertEqual(r.returncode, 125, r.stderr)
        self.assertNotIn("held", r.stderr)
        self.assertIn(self.proj, self.corral("allow", "--list").stdout)
        removed = self.corral("allow", "--remove", self.proj + "/")
        self.assertEqual(removed.returncode, 0, removed.stderr)
        self.assertNotIn(self.proj, self.corral("allow", "--list").stdout)
        self.assertEqual(self.corral("allow", "--remove", self.proj).returncode, 1)

    def test_hold_off_starts_anywhere(self):
        r = self.corral("--set", "hold.unknown_folders=off", "run", "--headless", "--image", "x",
                        "--engine", NO_ENGINE, "true")
        self.assertEqual(r.returncode, 125, r.stderr)
        self.assertNotIn("held", r.stderr)

    def test_print_says_it_would_be_held_and_waits_for_nothing(self):
        r = self.corral("run", "--headless", "--print", "--image", "x", "--engine", NO_ENGINE,
                        "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("would be held", r.stdout)
        self.assertEqual(self.held_records(), [])

    def test_home_a_link_to_it_root_and_corrals_folders_are_never_a_project(self):
        link = os.path.join(self.dir.name, "link-to-home")
        os.symlink(self.home, link)
        config = os.path.join(self.env["XDG_CONFIG_HOME"], "corral")
        os.makedirs(config)
        for cwd, why in ((self.home, "is your home folder"), (link, "is your home folder"),
                         ("/", "/ is the whole machine"), (config, "corral's config folder")):
            for before, after in (([], []), ([], ["--print"]),
                                  (["--set", "hold.unknown_folders=off"], [])):
                r = self.corral(*before, "run", "--headless", *after, "--image", "x",
                                "--engine", NO_ENGINE, "true", cwd=cwd)
                what = f"{cwd} {before} {after}"
                self.assertEqual(r.returncode, 125, f"{what}: {r.stderr}")
                lines = r.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, f"{what}: {r.stderr}")
                self.assertIn(why, lines[0])
        for folder in (self.home, link + "/", "/", config):
            r = self.corral("allow", folder)
            self.assertEqual(r.returncode, 1, f"{folder}: {r.stderr}")
            self.assertIn("never a project", r.stderr)
        self.assertEqual(self.corral("allow", "--list").stdout,
                         "No folders are allowed yet: corral allow DIR adds one.\n")

    def test_a_folder_under_home_is_a_project(self):
        src = os.path.join(self.home, "src", "shop")
        os.makedirs(src)
        r = self.corral("allow", src)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
