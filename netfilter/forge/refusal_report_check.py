#!/usr/bin/env python3
"""Shows corral's RefusalReport to a real `git push` and checks what git prints.

A small HTTP server answers `GET info/refs` with git-http-backend's real
advertisement (optionally without some capabilities, to make git ask for
less) and answers `POST git-receive-pack` with the output of
refusal_report_tool, fed the real request body. Each case checks that git
prints ` ! [remote rejected] <ref> (<reason>)` and that nothing was written.

  refusal_report_check.py [--tool PATH]

Without --tool, the tool is built with g++ from the source tree. Exit 0 when
every case passes. Needs git and /usr/lib/git-core/git-http-backend.
"""
import argparse
import http.server
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import threading

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent  # the source tree: netfilter/forge/ -> .
BACKEND = "/usr/lib/git-core/git-http-backend"
NOT_PUSHED = "not pushed: another ref in this push was refused by corral"
BAND2_NOTE = "remote: corral: this push was refused as a whole while nobody watches; nothing was written"


def build_tool(out_dir):
    tool = os.path.join(out_dir, "refusal_report_tool")
    sources = [HERE / "refusal_report_tool.cc", HERE / "receive_pack.cc", HERE / "pkt_line.cc"]
    subprocess.run(["g++", "-std=c++20", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{ROOT}",
                    *map(str, sources), "-o", tool], check=True)
    return tool


def without_capabilities(advertisement, names):
    """The advertisement with `names` dropped from the first ref line's capabilities."""
    out, at, first = b"", 0, True
    while at < len(advertisement):
        size = int(advertisement[at:at + 4], 16)
        if size < 4:
            out += advertisement[at:at + 4]
            at += 4
            continue
        payload = advertisement[at + 4:at + size]
        at += size
        if first and b"\0" in payload:
            first = False
            refs, caps = payload.split(b"\0", 1)
            kept = [c for c in caps.rstrip(b"\n").split(b" ") if c.decode() not in names]
            payload = refs + b"\0" + b" ".join(kept) + b"\n"
        out += b"%04x" % (len(payload) + 4) + payload
    return out


class Server(http.server.ThreadingHTTPServer):
    """Serves one bare repository; `case` says how to answer the current push."""
    project_root = ""
    tool = ""
    case = {}
    bodies = []


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def reply(self, status, content_type, data):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path, _, query = self.path.partition("?")
        env = dict(os.environ, GIT_PROJECT_ROOT=self.server.project_root, GIT_HTTP_EXPORT_ALL="1",
                   REQUEST_METHOD="GET", PATH_INFO=path, QUERY_STRING=query, REMOTE_USER="tester",
                   REMOTE_ADDR="127.0.0.1")
        env.pop("GIT_PROTOCOL", None)  # protocol v0, as the proxy asks for it
        out = subprocess.run([BACKEND], env=env, capture_output=True, check=True).stdout
        head, _, advertisement = out.partition(b"\r\n\r\n")
        content_type = re.search(rb"Content-Type: *([^\r\n]+)", head, re.I).group(1).decode()
        strip = self.server.case.get("strip", ())
        self.reply(200, content_type, without_capabilities(advertisement, strip))

    def do_POST(self):
        body = self.body()
        self.server.bodies.append(body)
        refused = [f"{ref}={reason}" for ref, reason in self.server.case["refused"].items()]
        run = subprocess.run([self.server.tool, *refused], input=body, capture_output=True)
        if run.returncode != 0:
            self.reply(500, "text/plain", run.stderr)
            return
        self.reply(200, "application/x-git-receive-pack-result", run.stdout)


def git(*args, cwd=None, env=None, check=True):
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=check)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", help="a built refusal_report_tool")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tool = args.tool or build_tool(tmp)
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env.update(HOME=tmp, GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", LC_ALL="C",
                   GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@example.com",
                   GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@example.com")
        bare = os.path.join(tmp, "srv", "repo.git")
        work = os.path.join(tmp, "work")
        git("init", "-q", "--bare", "-b", "main", bare, env=env)
        git("init", "-q", "-b", "main", work, env=env)
        pathlib.Path(work, "file").write_text("one")
        git("add", "file", cwd=work, env=env)
        git("commit", "-qm", "one", cwd=work, env=env)
        # The starting state, written past the server; then a commit to push.
        git("push", "-q", bare, "main", "main:refs/heads/old", cwd=work, env=env)
        pathlib.Path(work, "file").write_text("two")
        git("commit", "-qam", "two", cwd=work, env=env)
        before = git("for-each-ref", cwd=bare, env=env).stdout

        server = Server(("127.0.0.1", 0), Handler)
        server.project_root, server.tool = os.path.join(tmp, "srv"), tool
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/repo.git"
        git("branch", "feature", cwd=work, env=env)

        reason = "corral: refs/heads/main is protected and is not written while nobody watches"
        cases = [
            # (name, refspecs, refused, capabilities taken from the advertisement, expected lines)
            ("side band 64k, report-status-v2", ["main"], {"refs/heads/main": reason}, (),
             [f" ! [remote rejected] main -> main ({reason})", BAND2_NOTE]),
            ("two refs, one refused", ["main", "feature"], {"refs/heads/feature": "corral: no"}, (),
             [f" ! [remote rejected] main -> main ({NOT_PUSHED})",
              " ! [remote rejected] feature -> feature (corral: no)"]),
            ("no side band", ["main"], {"refs/heads/main": reason}, ("side-band-64k",),
             [f" ! [remote rejected] main -> main ({reason})"]),
            ("report-status v1, no side band", ["main"], {"refs/heads/main": reason},
             ("side-band-64k", "report-status-v2"), [f" ! [remote rejected] main -> main ({reason})"]),
            ("report-status v1, side band", ["main"], {"refs/heads/main": reason},
             ("report-status-v2",), [f" ! [remote rejected] main -> main ({reason})", BAND2_NOTE]),
            ("delete, no packfile", [":old"], {"refs/heads/old": "corral: deleting refs/heads/old"}, (),
             [" ! [remote rejected] old (corral: deleting refs/heads/old)"]),
        ]
        failures = 0
        for name, refspecs, refused, strip, expected in cases:
            server.case = {"refused": refused, "strip": strip}
            server.bodies.clear()
            push = git("push", url, *refspecs, cwd=work, env=env, check=False)
            said = [line.rstrip() for line in push.stderr.splitlines()]  # git pads "remote:" lines
            problems = [f"missing: {line!r}" for line in expected if line not in said]
            if push.returncode == 0:
                problems.append("git push succeeded")
            if not server.bodies:
                problems.append("git sent no receive-pack request")
            if git("for-each-ref", cwd=bare, env=env).stdout != before:
                problems.append("the repository changed")
            print(f"{'ok  ' if not problems else 'FAIL'} {name}")
            for problem in problems:
                print(f"     {problem}")
            if problems:
                print("     git said:\n" + "".join(f"       {l}\n" for l in push.stderr.splitlines()))
            failures += bool(problems)

        # Documented limit: a client that asks no report-status cannot show reasons.
        for strip in (("report-status", "report-status-v2"),
                      ("report-status", "report-status-v2", "side-band-64k")):
            server.case = {"refused": {"refs/heads/main": reason}, "strip": strip}
            push = git("push", url, "main", cwd=work, env=env, check=False)
            print(f"info without {', '.join(strip)}: exit {push.returncode}; git said: "
                  + " | ".join(line.rstrip() for line in push.stderr.splitlines()))
            if git("for-each-ref", cwd=bare, env=env).stdout != before:
                print("FAIL the repository changed")
                failures += 1
        server.shutdown()
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
