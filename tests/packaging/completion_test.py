#!/usr/bin/env python3
"""`corral completion bash|zsh|fish` in the real shells: each script loads and
completes a command name, an option and an option's choices; nothing is offered
for an agent's own words. Bash's completions are compared with the commands and
options `--help` lists, command by command: the scripts come from the same
table as the help, so the two must agree.

Usage: completion_test.py CORRAL
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

CORRAL = sys.argv.pop(1)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x07\x08\r]")


def corral(*args):
    return subprocess.run([CORRAL, *args], capture_output=True, text=True, timeout=30)


def help_section(words, section):
    """The first words of the lines of `corral WORDS --help`'s SECTION ("Subcommands:")."""
    out, names, inside = corral(*words, "--help").stdout, [], False
    for line in out.splitlines():
        if line == section:
            inside = True
        elif inside and not line.startswith("  "):
            break
        elif inside and line.startswith("  ") and not line.startswith("   "):
            names.append(line.split()[0])
    return names


def long_options(words):
    return [m for line in corral(*words, "--help").stdout.splitlines()
            for m in re.findall(r"^\s+(?:-\w,)?(--[\w-]+)", line)]


def need(shell):
    if not shutil.which(shell):
        raise AssertionError(f"{shell} is not installed: scripts/setup installs it "
                             "(scripts/packages/packaging.txt)")


class CompletionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        for shell, name in (("bash", "corral.bash"), ("zsh", "_corral"), ("fish", "corral.fish")):
            r = corral("completion", shell)
            assert r.returncode == 0 and r.stdout, f"corral completion {shell}: {r.stderr}"
            with open(os.path.join(cls.dir, name), "w") as f:
                f.write(r.stdout)
        with open(os.path.join(cls.dir, "deny.txt"), "w") as f:
            f.write("aws s3\n")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def bash(self, lines):
        """{line: COMPREPLY} for each command line, completed at its end by _corral."""
        need("bash")
        script = [f"source {self.dir}/corral.bash",
                  't() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); '
                  '_corral; printf "%s\\n" "${COMPREPLY[*]}"; }']
        for line in lines:
            words = line.split(" ")
            script.append("t " + " ".join(f"'{w}'" for w in words))
        r = subprocess.run(["bash", "--norc", "--noprofile", "-c", "\n".join(script)],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        replies = r.stdout.split("\n")
        return {line: replies[i].split() for i, line in enumerate(lines)}

    def test_bash_completes_what_help_lists(self):
        commands = help_section([], "Subcommands:")
        self.assertIn("run", commands)
        self.assertIn("completion", commands)
        cases = ["corral ", "corral ru"] + [f"corral {c} --" for c in commands]
        nested = {c: help_section([c], "Subcommands:") for c in commands}
        cases += [f"corral {c} " for c, subs in nested.items() if subs]
        got = self.bash(cases)
        self.assertEqual(sorted(got["corral "]), sorted(commands))
        self.assertEqual(got["corral ru"], ["run"])
        for c in commands:
            wanted = long_options([c])
            self.assertTrue(wanted, c)
            for option in wanted:
                self.assertIn(option, got[f"corral {c} --"], f"corral {c} --<TAB>")
            if nested[c]:
                self.assertEqual(sorted(got[f"corral {c} "]), sorted(nested[c]), c)

    def test_bash_values_and_agent_words(self):
        deny = os.path.join(self.dir, "den")
        got = self.bash(["corral run --i", "corral spec --format ", "corral --config x ru",
                         "corral image build --engine unix:///x --", "corral run claude --",
                         "corral check ls -", f"corral check --deny-list {deny}",
                         "corral completion ", "corral nosuch "])
        self.assertEqual(got["corral run --i"], ["--image"])
        self.assertEqual(sorted(got["corral spec --format "]),
                         ["docker", "kubernetes", "libpod", "oci"])
        self.assertEqual(got["corral --config x ru"], ["run"])
        self.assertIn("--engine", got["corral image build --engine unix:///x --"])
        self.assertEqual(got["corral run claude --"], [])  # claude's own words
        self.assertEqual(got["corral check ls -"], [])  # the command line checked
        self.assertEqual(got[f"corral check --deny-list {deny}"], [deny + "y.txt"])
        self.assertEqual(sorted(got["corral completion "]), ["bash", "fish", "zsh"])
        self.assertEqual(got["corral nosuch "], [])

    def zsh(self, lines):
        """What an interactive zsh (compinit, the script on fpath) shows after TAB."""
        need("zsh")
        driver = os.path.join(self.dir, "drive.zsh")
        with open(driver, "w") as f:
            f.write(r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "stty columns 200; PS1='ZP> '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; setopt autolist nolistambiguous; print READY\$((1))"
# Typing starts at a prompt: zle reads TAB as completion only once it is there.
zpty -r z out '*READY1*ZP> *' || exit 3
n=1
for line in "${@:2}"; do
  n=$((n + 1))
  zpty -w -n z "$line"$'\t'$'\x15'"print END\$(($n))"$'\n'
  zpty -r z out "*END$n*ZP> *" || exit 4
  print -r -- "=== $line"
  print -r -- "$out"
done
zpty -d z
""")
        r = subprocess.run(["zsh", "-f", driver, self.dir, *lines], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        shown = {}
        for part in ANSI.sub("", r.stdout).split("=== ")[1:]:
            line, _, text = part.partition("\n")
            shown[line] = text
        return shown

    def test_zsh(self):
        shown = self.zsh(["corral ru", "corral image ", "corral run --ima",
                          "corral spec --format ", "corral run claude --"])
        self.assertIn("corral run ", shown["corral ru"])
        for name, help_text in (("ls", "List corral's images on the engine"),
                                ("build", "Build an agent's image"), ("rm", "Remove")):
            self.assertRegex(shown["corral image "], rf"{name}\s+-- {re.escape(help_text)}")
        self.assertIn("corral run --image ", shown["corral run --ima"])
        for choice in ("oci", "docker", "libpod", "kubernetes"):
            self.assertIn(choice, shown["corral spec --format "])
        self.assertNotIn("--image", shown["corral run claude --"])

    def fish(self, line):
        need("fish")
        r = subprocess.run(["fish", "--no-config", "-c",
                            f"source {self.dir}/corral.fish; complete -C '{line}'"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")  # fish warns and goes on, e.g. on a pattern it globbed
        return dict((l.split("\t") + [""])[:2] for l in r.stdout.splitlines())

    def test_fish(self):
        self.assertEqual(self.fish("corral ru"), {"run": "Run an agent in its box, in this project"})
        self.assertIn("--image", self.fish("corral run --ima"))
        self.assertEqual(sorted(self.fish("corral image ")), ["build", "ls", "rm"])
        self.assertEqual(sorted(self.fish("corral spec --format ")),
                         ["docker", "kubernetes", "libpod", "oci"])
        self.assertEqual(sorted(self.fish("corral --config x do")), ["doctor"])
        self.assertNotIn("--image", self.fish("corral run claude --"))

    def test_unknown_shell(self):
        r = corral("completion", "tcsh")
        self.assertEqual(r.returncode, 2)
        self.assertIn("tcsh", r.stderr)
        self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
