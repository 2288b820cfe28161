#!/usr/bin/env python3
"""corral doctor, black-box, with no real engine: none there, one that is
stopped (a socket nobody accepts on, or one that never answers), a broken
config, a missing shim. Every failed check names its fix; none hangs, and no
private Podman is started.

Usage: doctor_cli_test.py CORRAL SHIM
"""
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
import unittest

CORRAL = sys.argv.pop(1)
SHIM = sys.argv.pop(1)
ORDER = ["engine", "runtime", "seccomp", "user namespace", "image", "shim", "shell",
         "session folder", "presence", "proxy", "CA bundle", "config"]


class DoctorCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        self.home = os.path.join(d, "home")
        os.makedirs(self.home)
        # A podman that leaves a mark when anybody starts it: doctor must not.
        self.bin = os.path.join(d, "bin")
        os.makedirs(self.bin)
        self.podman_mark = os.path.join(d, "podman-ran")
        self.write(os.path.join(self.bin, "podman"),
                   f"#!/bin/sh\necho \"$@\" >> {self.podman_mark}\nexit 1\n", 0o755)
        self.env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": self.home,
                    "XDG_CONFIG_HOME": os.path.join(self.home, "cfg"),
                    "XDG_STATE_HOME": os.path.join(self.home, "state"),
                    "XDG_RUNTIME_DIR": os.path.join(d, "run"), "CORRAL_SHIM": SHIM}
        os.makedirs(self.env["XDG_RUNTIME_DIR"], mode=0o700)
        self.nowhere = os.path.join(d, "nobody-listens.sock")

    def tearDown(self):
        self.dir.cleanup()

    @staticmethod
    def write(path, text, mode=0o644):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)

    def doctor(self, *args, env=None, budget=30):
        start = time.monotonic()
        out = subprocess.run([CORRAL, *args], capture_output=True, text=True, cwd=self.home,
                             env=dict(self.env, **(env or {})), stdin=subprocess.DEVNULL,
                             timeout=120)
        elapsed = time.monotonic() - start
        self.assertLess(elapsed, budget, f"corral doctor took {elapsed:.1f} s")
        return out

    def checks(self, *args, env=None):
        out = self.doctor("doctor", "--json", *args, env=env)
        self.assertIn(out.returncode, (0, 1), out.stderr)
        report = json.loads(out.stdout)
        self.assertEqual([c["name"] for c in report["checks"]], ORDER)
        for check in report["checks"]:
            self.assertIn(check["status"], ("ok", "warn", "fail"))
            if check["status"] == "fail":
                self.assertTrue(check["fix"], f"{check['name']} failed without a fix")
        self.assertEqual(report["ok"], out.returncode == 0)
        self.assertEqual(report["ok"], all(c["status"] != "fail" for c in report["checks"]))
        return {c["name"]: c for c in report["checks"]}

    def line(self, stdout, name):
        lines = stdout.splitlines()
        for i, text in enumerate(lines):
            if text[6:].startswith(name + ": "):
                fix = lines[i + 1] if i + 1 < len(lines) and lines[i + 1].startswith("      fix: ") else ""
                return text, fix
        self.fail(f"no {name} line in:\n{stdout}")

    def test_a_named_engine_nobody_listens_on_fails_with_the_fix(self):
        out = self.doctor("doctor", env={"CORRAL_ENGINE": "unix://" + self.nowhere,
                                         "PATH": self.bin + ":" + self.env["PATH"]})
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        engine, fix = self.line(out.stdout, "engine")
        self.assertTrue(engine.startswith("fail  engine: "), engine)
        self.assertIn(self.nowhere + " (no socket there)", engine)
        self.assertIn("start the engine", fix)
        self.assertEqual(self.line(out.stdout, "image")[0],
                         "warn  image: not checked: no engine answered")
        self.assertTrue(out.stdout.endswith("each says what to do.\n"), out.stdout)
        self.assertFalse(os.path.exists(self.podman_mark), "doctor started podman")

    def test_no_engine_and_no_podman_says_to_install_one(self):
        checks = self.checks(env={"CORRAL_ENGINE_SOCKETS": self.nowhere, "PATH": self.bin + "/none"})
        self.assertEqual(checks["engine"]["status"], "fail")
        self.assertIn("apt-get install podman", checks["engine"]["fix"])

    def test_no_engine_with_podman_installed_names_the_private_podman_without_starting_it(self):
        checks = self.checks(env={"CORRAL_ENGINE_SOCKETS": self.nowhere,
                                  "PATH": self.bin + ":" + self.env["PATH"]})
        engine = checks["engine"]
        self.assertEqual(engine["status"], "warn", engine)
        self.assertIn("private Podman (" + self.bin + "/podman)", engine["detail"])
        self.assertIn("doctor does not try", engine["detail"])
        self.assertFalse(os.path.exists(self.podman_mark), "doctor started podman")

    def test_a_stopped_engine_is_reported_at_once(self):
        # The socket file stays, nobody listens: refused at once.
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(self.nowhere)
        stale.close()
        checks = self.checks(env={"CORRAL_ENGINE": "unix://" + self.nowhere})
        self.assertEqual(checks["engine"]["status"], "fail")
        self.assertIn(self.nowhere + " (nothing listens there)", checks["engine"]["detail"])

    def test_an_engine_that_accepts_and_never_answers_does_not_hold_doctor(self):
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        silent.bind(self.nowhere)
        silent.listen(8)  # never accepted, never answered
        try:
            out = self.doctor("doctor", env={"CORRAL_ENGINE": "unix://" + self.nowhere}, budget=20)
        finally:
            silent.close()
        self.assertEqual(out.returncode, 1)
        engine, fix = self.line(out.stdout, "engine")
        self.assertIn(self.nowhere + " (no answer within 2 s)", engine)
        self.assertNotIn("waiting for it", out.stderr)

    def test_a_broken_config_names_file_line_and_fix(self):
        bad = os.path.join(self.home, "bad.yaml")
        self.write(bad, "level: unattended\nnetwork:\n  allowed_domains: [a.example\n")
        out = self.doctor("--config", bad, "doctor",
                          env={"CORRAL_ENGINE": "unix://" + self.nowhere})
        self.assertEqual(out.returncode, 1)
        config, fix = self.line(out.stdout, "config")
        self.assertTrue(config.startswith("fail  config: " + bad + ":"), config)
        line_number = config[len("fail  config: " + bad + ":"):].split(":")[0]
        self.assertIn(line_number, ("3", "4"), config)
        self.assertIn("corral config check", fix)
        # The other checks still ran, on the built-in defaults.
        self.assertTrue(self.line(out.stdout, "proxy")[0].startswith("ok    proxy: listened on unix:"))

    def test_an_unknown_key_is_a_config_failure_too(self):
        bad = os.path.join(self.home, "typo.yaml")
        self.write(bad, "levle: always\n")
        checks = self.checks("--engine", "unix://" + self.nowhere, env={"CORRAL_CONFIG": bad})
        self.assertEqual(checks["config"]["status"], "fail")
        self.assertIn(bad + ":1", checks["config"]["detail"])

    def test_a_missing_shim_fails_with_the_fix(self):
        missing = os.path.join(self.dir.name, "no-such-corral-shim")
        out = self.doctor("doctor", env={"CORRAL_SHIM": missing,
                                         "CORRAL_ENGINE": "unix://" + self.nowhere})
        self.assertEqual(out.returncode, 1)
        shim, fix = self.line(out.stdout, "shim")
        self.assertEqual(shim, f"fail  shim: CORRAL_SHIM names {missing}, which is not a file")
        self.assertIn("set CORRAL_SHIM to corral-shim's path", fix)
        self.assertTrue(self.line(out.stdout, "shell")[0].startswith("fail  shell: "))

    def test_the_shim_and_shell_found_and_the_session_folder_binds(self):
        checks = self.checks("--engine", "unix://" + self.nowhere)
        self.assertEqual(checks["shim"], {"name": "shim", "status": "ok",
                                          "detail": SHIM + " (runs)", "fix": ""})
        self.assertEqual(checks["shell"]["status"], "ok", checks["shell"])
        run = os.path.join(self.env["XDG_RUNTIME_DIR"], "corral")
        self.assertEqual(checks["session folder"]["status"], "ok", checks["session folder"])
        self.assertTrue(checks["session folder"]["detail"].startswith(run))
        self.assertEqual(os.listdir(os.path.join(run, "sessions")), [], "the probe socket stayed")
        self.assertEqual(stat.S_IMODE(os.stat(run).st_mode), 0o700)
        self.assertEqual(checks["config"]["detail"], "no config file; the defaults apply")

    def test_help_has_an_example_and_a_bad_flag_is_a_usage_error(self):
        out = self.doctor("doctor", "--help")
        self.assertEqual(out.returncode, 0)
        self.assertIn("Example:\n  corral doctor", out.stdout)
        self.assertEqual(self.doctor("doctor", "--no-such-flag").returncode, 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
