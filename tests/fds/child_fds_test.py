#!/usr/bin/env python3
"""What the programs corral starts are handed: 0, 1, 2 and nothing else.

Every way corral starts a program is tried with a stand-in (tests/fds/
fd_report.c) first in PATH, which writes down the descriptors it was started
with and then runs the real program. corral itself is started holding two
descriptors it did not open for them (at 7 and 201), as a CI runner or a
shell may leave, and, where an engine is used, it holds its engine
connections (libcurl's sockets) when it starts the program.

Usage:
  child_fds_test.py blackbox CORRAL FD_REPORT
      no engine: a program run for an answer (`claude --version`, posix_spawn),
      the agent run unboxed (fork and exec)
  child_fds_test.py engine docker|podman CORRAL SHIM FD_REPORT
      on a real engine: tar packing a build context with the engine's
      connection open, the agent started by the shim in the box, and (podman)
      the private `podman system service` corral runs when no engine answers
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

MODE = sys.argv.pop(1)
if MODE == "engine":
    ENGINE = sys.argv.pop(1)
CORRAL = sys.argv.pop(1)
SHIM = sys.argv.pop(1) if MODE == "engine" else None
FD_REPORT = sys.argv.pop(1)
TOP = pathlib.Path(__file__).resolve().parent.parent.parent
# The box lists its own descriptors: `ls` of the shell's, one a line (no pipe
# or substitution, whose descriptors the shell would hold meanwhile; not last,
# or the shell execs ls in its own place and ls's folder is listed too).
LIST_SHELLS_FDS = "ls /proc/$$/fd; true"


class ChildFds(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="corral-fds-")
        self.work = pathlib.Path(self.dir.name)
        os.chmod(self.work, 0o755)
        self.spy = self.work / "spy"
        self.spy.mkdir()
        self.report = self.work / "report"
        self.home = self.work / "home"
        self.proj = self.work / "proj"
        for folder in (self.home, self.proj):
            folder.mkdir()
        self.env = {
            "PATH": f"{self.spy}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_STATE_HOME": str(self.home / ".local/state"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_RUNTIME_DIR": str(self.work / "xdg"),
            "CORRAL_TEST_FD_REPORT": str(self.report),
            "CORRAL_HOLD_UNKNOWN_FOLDERS": "off",
        }
        (self.work / "xdg").mkdir(mode=0o700)
        # Descriptors corral did not open, left inheritable (not close-on-exec).
        self.held = open(self.work / "held", "w")
        self.leaked = [os.dup2(self.held.fileno(), 7), os.dup2(self.held.fileno(), 201)]

    def tearDown(self):
        for fd in self.leaked:
            os.close(fd)
        self.held.close()
        self.dir.cleanup()

    def stand_in(self, name):
        os.symlink(FD_REPORT, self.spy / name)

    def corral(self, *args, env=None, timeout=300):
        return subprocess.run([CORRAL, *args], capture_output=True, text=True, cwd=self.proj,
                              env=dict(self.env, **(env or {})), stdin=subprocess.DEVNULL,
                              pass_fds=self.leaked, timeout=timeout)

    def reported(self, name):
        """The descriptor lists the stand-in `name` wrote, one per start."""
        lines = self.report.read_text().splitlines() if self.report.exists() else []
        return [line.split(":", 1)[1].split() for line in lines if line.startswith(name + ":")]

    def assert_only_stdio(self, name, started):
        self.assertEqual(started.returncode, 0, started.stderr)
        starts = self.reported(name)
        self.assertTrue(starts, f"{name} was never started: {started.stderr}")
        for fds in starts:
            numbers = [fd.split("(")[0] for fd in fds]
            self.assertEqual(numbers, ["0", "1", "2"], f"{name} was handed more than 0, 1, 2: {fds}")


@unittest.skipUnless(MODE == "blackbox", "blackbox mode")
class WithoutEngine(ChildFds):
    def test_a_program_run_for_its_answer(self):
        # corral asks the host's claude for its version to pick the image.
        self.stand_in("claude")
        out = self.corral("--set", "level=always", "run", "--print", "claude",
                          env={"CORRAL_TEST_FD_SAY": "2.1.7 (Claude Code)",
                               "CORRAL_ENGINE_SOCKETS": str(self.work / "no-engine.sock")})
        self.assert_only_stdio("claude", out)
        self.assertIn("image corral-agent-claude:2.1.7", out.stdout)

    def test_the_agent_run_unboxed(self):
        self.stand_in("my-agent")
        out = self.corral("--set", "level=off", "run", "--", "my-agent")
        self.assert_only_stdio("my-agent", out)


@unittest.skipUnless(MODE == "engine", "engine mode")
class OnEngine(ChildFds):
    def setUp(self):
        super().setUp()
        sys.path.insert(0, str(TOP / "tests/engines"))
        import started  # tests/engines/started.py
        started.start_engine(ENGINE)
        self.env.update(CORRAL_SHIM=SHIM, CORRAL_LEVEL="always", CORRAL_IMAGE="corral-test:latest")
        self.on_engine = {"CORRAL_ENGINE": f"unix:///run/corral-test/{ENGINE}.sock"}

    def test_tar_packing_a_build_context_and_the_agent_in_the_box(self):
        self.stand_in("tar")
        context = self.work / "context"
        context.mkdir()
        (context / "Dockerfile").write_text("FROM corral-test:latest\nCOPY note /note\n")
        (context / "note").write_text("packed by tar\n")
        tag = "corral-fds-test:latest"
        self.remove_image(tag)  # built only when missing
        self.addCleanup(self.remove_image, tag)
        out = self.corral("run", "--headless", "--image", tag, "--build", str(context), "--",
                          "sh", "-c", "cat /note; " + LIST_SHELLS_FDS, env=self.on_engine)
        self.assert_only_stdio("tar", out)
        lines = out.stdout.splitlines()
        self.assertEqual(lines[0], "packed by tar")
        # The agent, started by corral-shim (PID 1): the watchdog, the proxy
        # bridge and the exec check's descriptors stay PID 1's.
        self.assertEqual(lines[1:], ["0", "1", "2"])

    def remove_image(self, tag):
        subprocess.run(["curl", "-s", "--unix-socket", f"/run/corral-test/{ENGINE}.sock", "-X",
                        "DELETE", f"http://d/v1.41/images/{tag}?force=1"], capture_output=True)

    @unittest.skipUnless(MODE == "engine" and ENGINE == "podman", "podman only")
    def test_the_private_podman_service(self):
        self.stand_in("podman")
        out = self.corral("run", "--headless", "--", "sh", "-c", LIST_SHELLS_FDS,
                          env={"CORRAL_ENGINE_SOCKETS": str(self.work / "none.sock"),
                               "CONTAINERS_CONF": str(TOP / "tests/engines/containers.conf")})
        self.assert_only_stdio("podman", out)
        self.assertIn("running podman system service for this session", out.stderr)
        self.assertEqual(out.stdout.split(), ["0", "1", "2"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
