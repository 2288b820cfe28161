#!/usr/bin/env python3
"""Keeps the arrows of docs/architecture.md true.

Reads every `#include "..."` of every .cc, .h and .c file and fails, naming
the file, the line and the include, when a room includes a room it may not
use, or a header another room keeps private. ROOMS below is the one table of
the allowed arrows; KNOWN_CROSSINGS lists the includes that break it today,
each with its reason, so that a new crossing fails and a mended one is
noticed (an exception that matches nothing fails too: remove it).

    include_arrows.py [SOURCE_DIR]     check the tree (default: this checkout)
    include_arrows.py --self-test      check the checker on small made-up trees
"""
import os
import re
import sys
import tempfile

# The rooms whose base is the same for every launcher room: launcher.h is the
# session plan's data and brings policy/config with it.
LAUNCHER_FLOOR = ["launcher", "policy/config", "base"]
POLICY = ["policy/shell", "policy/matcher", "policy/network", "policy/config",
          "policy/presence", "policy/inbox", "policy/oracle"]
NETFILTER_ROOMS = ["netfilter/http", "netfilter/rules", "netfilter/tls", "netfilter/logins", "netfilter/forge",
                   "netfilter/requests"]
LAUNCHER_ROOMS = ["launcher/plan", "launcher/render", "launcher/engine", "launcher/session",
                  "launcher/network_mode", "launcher/agents", "launcher/autorun",
                  "launcher/hold", "launcher/doctor", "launcher/config_import",
                  "launcher/review"]

# room -> the rooms it may include (its own files aside). A room's public
# header is ROOM/NAME.h (NAME the folder's last part) unless `public` says
# otherwise; "*" makes every header of the room public.
ROOMS = {
    "base": {"uses": [], "public": "*"},  # a toolbox: each header one small tool
    "policy/shell": {"uses": ["base"]},
    "policy/matcher": {"uses": ["policy/shell", "base"]},
    "policy/network": {"uses": ["base"]},
    "policy/config": {"uses": ["policy/matcher", "policy/network", "base"]},
    "policy/presence": {"uses": ["policy/config", "base"]},
    "policy/inbox": {"uses": ["base"]},
    "policy/oracle": {"uses": ["policy/config", "policy/matcher", "policy/inbox", "base"]},
    "seccomp": {"uses": ["policy/config", "base"]},
    # netfilter/ is the proxy's server; its rooms below it, lowest first.
    "netfilter/http": {"uses": ["base"]},
    "netfilter/rules": {"uses": ["policy/network", "base"]},
    "netfilter/tls": {"uses": ["netfilter/rules", "base"]},
    "netfilter/logins": {"uses": ["netfilter/http", "netfilter/rules", "base"]},
    "netfilter/forge": {"uses": ["base"]},  # pure judgements over bytes
    "netfilter/requests": {"uses": ["policy/network", "base"]},  # registries read-only, network.rules
    "netfilter": {"uses": NETFILTER_ROOMS + ["policy/config", "policy/network", "base"]},
    "images/shell": {"uses": []},  # C, libc only
    "images/shim": {"uses": ["images/shell", "policy/matcher", "base"]},
    # session_plan.h: the plan's data; launcher.h: the top-level commands.
    "launcher": {"uses": ["policy/config", "base"],
                 "public": ["launcher/launcher.h", "launcher/session_plan.h"]},
    "launcher/config_import": {"uses": ["policy/network"] + LAUNCHER_FLOOR},
    "launcher/autorun": {"uses": ["policy/inbox", "base"]},
    "launcher/review": {"uses": ["base"]},  # git plumbing on the project and the upper folder
    "launcher/engine": {"uses": ["launcher/render"] + LAUNCHER_FLOOR},
    "launcher/plan": {"uses": ["launcher/autorun", "policy/network", "seccomp", "netfilter"]
                      + LAUNCHER_FLOOR},
    "launcher/render": {"uses": ["launcher/plan", "policy/network"] + LAUNCHER_FLOOR},
    "launcher/agents": {"uses": ["launcher/engine"] + LAUNCHER_FLOOR},
    "launcher/hold": {"uses": ["launcher/plan", "launcher/agents"] + LAUNCHER_FLOOR},
    "launcher/network_mode": {"uses": ["launcher/engine", "netfilter"] + LAUNCHER_FLOOR},
    "launcher/session": {"uses": ["launcher/plan", "launcher/render", "launcher/engine",
                                  "launcher/agents",
                                  "launcher/autorun", "launcher/review", "launcher/hold", "launcher/network_mode",
                                  "netfilter", "policy/oracle", "policy/presence",
                                  "policy/inbox"] + LAUNCHER_FLOOR},
    "launcher/doctor": {"uses": ["launcher/plan", "launcher/engine", "launcher/agents",
                                 "launcher/session", "netfilter", "seccomp",
                                 "policy/presence"] + LAUNCHER_FLOOR},
    # cli.h is private to the corral executable, which may use everything.
    "launcher/cli": {"uses": LAUNCHER_ROOMS + POLICY + ["launcher", "netfilter", "seccomp",
                                                        "base"]},
    # Black-box tests, benchmarks and fuzz targets: any room, through its public header.
    "tests": {"uses": "*"},
    "bench": {"uses": "*"},
    "fuzz": {"uses": "*"},
}

# Headers for tests alone: a *_test.cc of the rooms named may include them
# whatever the arrows say.
TEST_HELPERS = {"launcher/test_util.h": "launcher/"}

# (file, include) -> why it is allowed for now. docs/architecture.md, "Known
# crossings", says the same in words.
KNOWN_CROSSINGS = {
    ("launcher/engine/engine_test.cc", "launcher/plan/plan.h"):
        "engine -> plan in a test: the create body's tests make their plan with MakePlan",
    ("launcher/render/kubernetes_render.cc", "launcher/network_mode/network_mode.h"):
        "render -> network_mode: the session volume's layout (SessionFiles); brings engine.h",
    ("launcher/render/kubernetes_logins.cc", "launcher/network_mode/network_mode.h"):
        "render -> network_mode: the sidecar's logins (ProxyLogins); brings engine.h",
    ("launcher/render/kubernetes_render_test.cc", "launcher/network_mode/network_mode.h"):
        "render -> network_mode, in the rendering's test (as its code above)",
    ("launcher/plan/login_files_test.cc", "launcher/agents/agents.h"):
        "plan -> agents in a test: a cycle (agents -> engine -> plan); the test reads the recipes",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_ENDINGS = (".cc", ".h", ".c")
SKIPPED_FOLDERS = {".git", ".ci"}


def room_of(path):
    """The room a repository path is in: the longest room name it starts with."""
    best = None
    for room in ROOMS:
        if path == room or path.startswith(room + "/"):
            if best is None or len(room) > len(best):
                best = room
    return best


def is_public(room, header):
    public = ROOMS[room].get("public")
    if public == "*":
        return True
    if public is None:
        public = [room + "/" + room.rsplit("/", 1)[-1] + ".h"]
    return header in public


def may_use(room, other):
    uses = ROOMS[room]["uses"]
    return uses == "*" or other in uses


def source_files(root):
    for folder, subfolders, files in os.walk(root):
        top = folder == root
        subfolders[:] = sorted(s for s in subfolders if s not in SKIPPED_FOLDERS
                               and not (top and s.startswith("build")))
        for name in sorted(files):
            if name.endswith(SOURCE_ENDINGS):
                yield os.path.relpath(os.path.join(folder, name), root)


def resolve(root, path, include):
    """An include as a repository path: as written from the top, else beside the file."""
    if os.path.exists(os.path.join(root, include)):
        return include
    beside = os.path.normpath(os.path.join(os.path.dirname(path), include))
    return beside if os.path.exists(os.path.join(root, beside)) else include


def problem(path, included, room, other):
    """What is wrong with `path` (in `room`) including `included` (in `other`), or None."""
    if other is None:
        return f"{included} is in no room: add its folder to ROOMS"
    if other == room:
        return None
    helper_for = TEST_HELPERS.get(included)
    if helper_for and path.startswith(helper_for) and path.endswith("_test.cc"):
        return None
    if not may_use(room, other):
        return f"{room} may not use {other}"
    if not is_public(other, included):
        return f"{included} is private to {other}"
    return None


def check(root):
    """The error lines for the tree at `root`: none when it keeps the arrows."""
    errors = []
    used_crossings = set()
    for path in source_files(root):
        room = room_of(path)
        if room is None:
            errors.append(f"{path}: in no room: add its folder to ROOMS in {__file__}")
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, 1):
                found = INCLUDE.match(line)
                if not found:
                    continue
                included = resolve(root, path, found.group(1))
                why = problem(path, included, room, room_of(included))
                if why is None:
                    continue
                if (path, included) in KNOWN_CROSSINGS:
                    used_crossings.add((path, included))
                    continue
                errors.append(f'{path}:{number}: #include "{found.group(1)}": {why}')
    for path, included in sorted(set(KNOWN_CROSSINGS) - used_crossings):
        errors.append(f'{path}: no longer crosses with #include "{included}": remove it from '
                      f"KNOWN_CROSSINGS (and from docs/architecture.md, \"Known crossings\")")
    return errors


def self_test():
    """The checker on made-up trees: a good one passes, each kind of fault fails."""
    def tree(files):
        root = tempfile.mkdtemp(prefix="include-arrows-")
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as out:
                out.write(text)
        return root

    crossing_files = {}
    for path, included in KNOWN_CROSSINGS:
        crossing_files[path] = f'#include "{included}"\n'
        crossing_files.setdefault(included, "")
    good = dict(crossing_files)
    good.update({
        "base/base.h": "", "base/files.h": "",
        "policy/shell/shell.h": '#include "base/files.h"\n',
        "policy/matcher/matcher.h": '#include "policy/shell/shell.h"\n',
        "policy/matcher/walker.h": "",
        "policy/matcher/walker.cc": '#include "policy/matcher/walker.h"\n',
        "launcher/launcher.h": '#include "base/base.h"\n',
        "launcher/test_util.h": '#include "launcher/launcher.h"\n',
        "launcher/engine/endpoint_test.cc": '#include "launcher/test_util.h"\n',
    })
    cases = {
        "good": ({}, []),
        "wrong room": ({"policy/shell/lexer.cc": '#include "policy/matcher/matcher.h"\n'},
                       ['policy/shell/lexer.cc:1: #include "policy/matcher/matcher.h": '
                        "policy/shell may not use policy/matcher"]),
        "private header": ({"policy/config/load.cc": '\n#include "policy/matcher/walker.h"\n'},
                           ['policy/config/load.cc:2: #include "policy/matcher/walker.h": '
                            "policy/matcher/walker.h is private to policy/matcher"]),
        "test helper outside a test": (
            {"launcher/engine/engine_http.cc": '#include "launcher/test_util.h"\n'},
            ['launcher/engine/engine_http.cc:1: #include "launcher/test_util.h": '
             "launcher/test_util.h is private to launcher"]),
        "no room": ({"tools/x.cc": ""}, ["tools/x.cc: in no room"]),
    }
    failures = []
    for name, (extra, expected) in cases.items():
        files = dict(good)
        files.update(extra)
        errors = check(tree(files))
        if len(errors) != len(expected) or any(
                not error.startswith(want) for error, want in zip(errors, expected)):
            failures.append(f"{name}: expected {expected}, got {errors}")
    mended = dict(good)
    first = sorted(KNOWN_CROSSINGS)[0]
    mended[first[0]] = ""
    errors = check(tree(mended))
    if len(errors) != 1 or "no longer crosses" not in errors[0]:
        failures.append(f"mended crossing: expected one 'no longer crosses' line, got {errors}")
    for line in failures:
        print("self-test: " + line)
    print("self-test: " + ("FAILED" if failures else f"{len(cases) + 1} cases pass"))
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    errors = check(os.path.abspath(root))
    for line in errors:
        print(line)
    if errors:
        print(f"{len(errors)} include(s) against the arrows: see docs/architecture.md; the "
              f"allowed arrows are ROOMS in {os.path.relpath(__file__, root)}")
        return 1
    print(f"include arrows: every include keeps them ({len(KNOWN_CROSSINGS)} known crossings)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
