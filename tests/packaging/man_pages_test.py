#!/usr/bin/env python3
"""The man pages the build makes (packaging/make_man_pages): one per command and
subcommand `--help` lists, none for the hidden ones, each rendered by man without
warnings, named after its command, with the summary `--help` gives it, and every
option of that command's --help.

Usage: man_pages_test.py CORRAL MAN_DIR
"""
import os
import re
import subprocess
import sys
import unittest

CORRAL, MAN_DIR = sys.argv.pop(1), sys.argv.pop(1)


def corral_help(words):
    return subprocess.run([CORRAL, *words, "--help"], capture_output=True, text=True,
                          timeout=30).stdout


def subcommands(words):
    """[(name, summary)] of the Subcommands section of `corral WORDS --help`."""
    found, inside = [], False
    for line in corral_help(words).splitlines():
        if line == "Subcommands:":
            inside = True
        elif inside and not line.startswith("  "):
            break
        elif inside:
            name, summary = line.split(None, 1)
            found.append((name, summary))
    return found


def commands(words=()):
    for name, summary in subcommands(list(words)):
        yield [*words, name], summary
        yield from commands([*words, name])


def render(page):
    r = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True,
                       env=dict(os.environ, MANWIDTH="200", MAN_KEEP_FORMATTING="0"), timeout=30)
    return r.returncode, re.sub(r".\x08", "", r.stdout), r.stderr


class ManPagesTest(unittest.TestCase):
    def test_a_page_per_command(self):
        wanted = {"corral.1.gz"} | {"corral-" + "-".join(w) + ".1.gz" for w, _ in commands()}
        self.assertIn("corral-run.1.gz", wanted)
        self.assertIn("corral-image-ls.1.gz", wanted)
        self.assertEqual(sorted(os.listdir(MAN_DIR)), sorted(wanted))
        self.assertNotIn("corral-relay.1.gz", os.listdir(MAN_DIR))  # hidden

    def test_pages_say_what_help_says(self):
        for words, summary in [([], "run AI coding agents in containers"), *commands()]:
            name = "-".join(["corral", *words])
            with self.subTest(page=name):
                code, text, warnings = render(os.path.join(MAN_DIR, name + ".1.gz"))
                self.assertEqual(code, 0, warnings)
                self.assertEqual(warnings, "")
                self.assertTrue(text.startswith(f"{name.upper()}(1)"), text[:80])
                self.assertIn(f"{' '.join(['corral', *words])} - {summary[0].lower()}", text)
                options = re.findall(r"^\s+(?:-\w,)?(--[\w-]+)", corral_help(words), re.M)
                self.assertIn("--help", options)
                for option in options:
                    self.assertIn(option, text)
                self.assertIn("SEE ALSO", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
