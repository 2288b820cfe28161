#!/usr/bin/env python3
"""The forge scope (netfilter/forge/) end to end: real git clients through
`corral proxy` to a real git server, `git http-backend` run as a CGI behind an
HTTPS server of this test's own, for the name git.forge.test.

The server emulates a forge: me/proj is private (401 without the user's
token), me/other and evil/drop are public to read, every push needs
credentials (the user's token for me/*, evil:pw for evil/*). It records each
request's method, path, Authorization header and whether its body arrived
whole. Each case checks git's exit status and words, the bare repository's
refs, what the server saw, and the proxy's decision log.

Usage: forge_git_test.py CORRAL_BINARY [unittest args]"""
import base64
import gzip
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from forge_server import (  # noqa: E402  (tests/forge/forge_server.py)
    COMMITTER, HOST, Proxy, basic, basic_credentials, make_certs, read_text, run, seed_repository,
    start_forge)

CORRAL = None
USER = "x-access-token"
REAL = "ghp_REALtokenREALtokenREALtoken0123"
STAND_IN = "ghp_STANDinSTANDinSTANDin9876543210"  # as long as REAL, its shape
BIG_PUSH = 50 * 1024 * 1024
MIB = 1024 * 1024


def authorize(owner, name, write, creds):
    """The forge's rule: me/proj private, every push needs credentials (the
    user's token for me/*, evil:pw for evil/*), other reads public."""
    if owner == "me" and (name == "proj" or write):
        return creds is not None and creds[1] == REAL
    if write:
        return creds == ("evil", "pw")
    return True  # a public repository: anyone reads it


# ------------------------------------------------------------------ the proxy


class ForgeGit(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="corral-forge-git-")
        d = cls.d = cls.tmp.name
        cls.ca, crt, key = make_certs(d)
        cls.pristine = os.path.join(d, "pristine")
        cls.root = os.path.join(d, "forge")
        cls.seed_repositories()
        shutil.copytree(cls.pristine, cls.root, symlinks=True)
        server_home = os.path.join(d, "server-home")
        os.makedirs(server_home)
        cls.server = start_forge(cls.root, server_home, crt, key, authorize)
        cls.authority = f"{HOST}:{cls.server.port}"
        cls.base = f"https://{cls.authority}"

        cls.logins_file = os.path.join(d, "logins.json")
        with open(cls.logins_file, "w") as f:
            json.dump({"logins": [{"name": "GH_TOKEN", "hosts": [cls.authority],
                                   "header": "Authorization", "prefix": "Basic ",
                                   "value": REAL, "stand_in": STAND_IN, "basic": True}]}, f)
        cls.proxies = []
        cls.proxy = cls.start_proxy("unattended")
        cls.watched = cls.start_proxy("watched", watched=True)
        cls.no_other_reads = cls.start_proxy("no-other-reads", other_reads=False)

    @classmethod
    def tearDownClass(cls):
        for proxy in cls.proxies:
            proxy.stop()
        cls.server.shutdown()
        cls.server.server_close()
        cls.tmp.cleanup()

    @classmethod
    def start_proxy(cls, name, watched=False, other_reads=True):
        config = {"forges": [{"git_host": cls.authority, "api_host": "",
                              "repositories": ["me/proj"]}],
                  "protected_branches": [], "other_reads": other_reads, "history": True}
        proxy = Proxy(CORRAL, cls.d, name, config, cls.logins_file, cls.server.port, cls.ca, watched)
        cls.proxies.append(proxy)
        return proxy

    @classmethod
    def seed_repositories(cls):
        env = dict(os.environ, HOME=cls.d, GIT_CONFIG_NOSYSTEM="1", **COMMITTER)

        def repository(path, commits, branches=()):
            seed_repository(os.path.join(cls.d, "seed", path),
                            os.path.join(cls.pristine, path + ".git"), commits, branches, env)

        repository("me/proj", ["first", "second", "third"], [("feature", "a feature")])
        repository("me/other", ["other's only commit"])
        repository("evil/drop", ["the attacker's commit"])

    # -- per case

    def setUp(self):
        shutil.rmtree(self.root)
        shutil.copytree(self.pristine, self.root, symlinks=True)
        self.work = tempfile.mkdtemp(dir=self.d, prefix=self._testMethodName + "-")
        self.home = os.path.join(self.work, "home")  # the box's git: an empty HOME
        os.makedirs(self.home)
        self.mark = self.server.mark()
        self.log_marks = {id(p): len(p.lines()) for p in self.proxies}

    def tearDown(self):
        # Whatever happened, no proxy said the real token in its log or on stderr.
        for proxy in self.proxies:
            self.assertNotIn(REAL, read_text(proxy.log), proxy.log)
            self.assertNotIn(REAL, "".join(proxy.stderr), proxy.dir)

    def env(self):
        return {"PATH": os.environ["PATH"], "HOME": self.home, "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_TERMINAL_PROMPT": "0", "LANG": "C", **COMMITTER}

    def git(self, proxy, *args, cwd=None, password=STAND_IN, user=USER, extra=(), timeout=120):
        """git as the box runs it: through the proxy, trusting its session CA,
        its credential helper handing out the stand-in."""
        helper = f"!f() {{ echo username={user}; echo password={password}; }}; f"
        return subprocess.run(["git", "-c", f"http.proxy={proxy.url}",
                               "-c", f"http.sslCAInfo={proxy.session_ca}",
                               "-c", f"credential.helper={helper}", *extra, *args],
                              cwd=cwd or self.work, env=self.env(), capture_output=True, text=True,
                              timeout=timeout)

    def local(self, clone, *args):
        return run("git", "-C", clone, *args, env=self.env()).stdout.strip()

    def clone(self, proxy, repo="me/proj", name="clone"):
        out = self.git(proxy, "clone", "-q", f"{self.base}/{repo}.git", name)
        self.assertEqual(out.returncode, 0, out.stderr)
        return os.path.join(self.work, name)

    def commit(self, clone, message, path="change.txt", data=None):
        with open(os.path.join(clone, path), "ab" if data is None else "wb") as f:
            f.write(data if data is not None else (message + "\n").encode())
        self.local(clone, "add", path)
        self.local(clone, "commit", "-qm", message)
        return self.local(clone, "rev-parse", "HEAD")

    def ref(self, repo, ref):
        """The forge's ref, from its bare repository; None when absent."""
        out = subprocess.run(["git", "--git-dir", os.path.join(self.root, repo + ".git"),
                              "rev-parse", "--verify", "-q", ref], capture_output=True, text=True,
                             env=self.env())
        return out.stdout.strip() or None

    def seen(self, path_part=""):
        return [e for e in self.server.since(self.mark) if path_part in e["path"]]

    def assert_only_real_token(self, requests, at_least=1):
        """Every Authorization the forge got for these is the user's real token."""
        with_auth = [e for e in requests if e["auth"]]
        self.assertGreaterEqual(len(with_auth), at_least, requests)
        for e in with_auth:
            self.assertEqual(basic_credentials(e["auth"]), (USER, REAL), e)
            self.assertNotIn(STAND_IN, base64.b64decode(e["auth"][6:]).decode(), e)

    def assert_denied(self, proxy, rule):
        """The proxy's log has a deny line with `rule` since the case began."""
        deadline = time.monotonic() + 5
        while True:
            lines = proxy.lines()[self.log_marks[id(proxy)]:]
            denials = [l for l in lines if l.get("decision") == "deny" and l.get("rule")]
            if any(l["rule"] == rule for l in denials) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertIn(rule, [l["rule"] for l in denials], lines)
        for line in lines:
            self.assertNotIn(REAL, json.dumps(line))
        return [l for l in denials if l["rule"] == rule]

    def assert_not_leaked(self, *texts):
        for text in texts:
            self.assertNotIn(REAL, text)
            self.assertNotIn(base64.b64encode(f"{USER}:{REAL}".encode()).decode(), text)

    def curl(self, proxy, *urls, user=USER, password=STAND_IN):
        """curl through the proxy with the box's stand-in: one (status,
        X-Corral-Error, body, connections made) per URL."""
        common = ["--path-as-is", "-x", proxy.url, "--cacert", proxy.session_ca,
                  "-u", f"{user}:{password}", "--max-time", "30",
                  "-w", "%{http_code} %{num_connects}\n"]
        args, files = ["curl", "-q", "-sS"], []
        for i, url in enumerate(urls):
            files.append((os.path.join(self.work, f"curl-{i}.head"),
                          os.path.join(self.work, f"curl-{i}.body")))
            # --next: options per URL (-D is not), one connection cache for all.
            args += (["--next"] if i else []) + common + ["-D", files[-1][0], "-o", files[-1][1], url]
        out = subprocess.run(args, capture_output=True, text=True, env=self.env(), timeout=60)
        results = []
        for (head_file, body_file), line in zip(files, out.stdout.splitlines()):
            code, connects = (int(x) for x in line.split())
            head, body = read_text(head_file), read_text(body_file)
            error = [h.split(":", 1)[1].strip() for h in head.splitlines()
                     if h.lower().startswith("x-corral-error:")]
            results.append((code, error[0] if error else None, body, connects))
            self.assert_not_leaked(head, body)
        self.assertEqual(len(results), len(urls), out.stderr)
        return results

    # -- 1. clone

    def test_1_clone_sends_the_real_token_and_never_the_stand_in(self):
        out = self.git(self.proxy, "clone", f"{self.base}/me/proj.git", "clone")
        self.assertEqual(out.returncode, 0, out.stderr)
        clone = os.path.join(self.work, "clone")
        self.assertEqual(self.local(clone, "rev-parse", "HEAD"), self.ref("me/proj", "main"))
        self.assertEqual(self.local(clone, "rev-parse", "origin/feature"),
                         self.ref("me/proj", "feature"))
        self.assert_not_leaked(out.stdout, out.stderr)
        requests = self.seen("/me/proj.git")
        # The first request went without credentials (the 401 that makes git
        # ask its helper); every one after carried the real token.
        self.assertEqual(requests[0]["status"], 401, requests)
        self.assert_only_real_token(requests, at_least=2)
        self.assertTrue(any(e["method"] == "POST" and e["status"] == 200 for e in requests), requests)
        # What the forge says back about the credentials reaches the box as the stand-in.
        [(code, _, body, _)] = self.curl(self.proxy, f"{self.base}/me/proj/echo-auth")
        self.assertEqual(code, 200, body)
        self.assertIn(f"credentials seen: {USER}:{STAND_IN}", body)
        self.assert_only_real_token(self.seen("/echo-auth"))

    # -- 2. pushes that keep history

    def test_2_fast_forward_and_new_branch_pushes_go(self):
        clone = self.clone(self.proxy)
        self.local(clone, "checkout", "-q", "feature")
        tip = self.commit(clone, "more feature")
        out = self.git(self.proxy, "push", "origin", "feature", cwd=clone)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(self.ref("me/proj", "feature"), tip)
        self.local(clone, "checkout", "-qb", "topic")
        topic = self.commit(clone, "a topic")
        out = self.git(self.proxy, "push", "origin", "topic", cwd=clone)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("[new branch]", out.stderr)
        self.assertEqual(self.ref("me/proj", "topic"), topic)
        pushes = self.seen("/me/proj.git/git-receive-pack")
        self.assertEqual(len(pushes), 2, pushes)
        self.assertTrue(all(e["complete"] and e["status"] == 200 for e in pushes), pushes)
        self.assert_only_real_token(self.seen("/me/proj.git"), at_least=4)

    def test_2_fast_forwards_the_pack_alone_cannot_prove_go(self):
        # The new commit is already on the forge (copy moves from main to
        # feature's tip, no new objects), or the history of the pushed commits
        # leaves them through a commit the forge has other than the old tip:
        # the proxy asks the forge for the commits between.
        clone = self.clone(self.proxy)
        main, feature = self.ref("me/proj", "main"), self.ref("me/proj", "feature")
        out = self.git(self.proxy, "push", "origin", "origin/main:refs/heads/copy", cwd=clone)
        self.assertEqual(out.returncode, 0, out.stderr)
        out = self.git(self.proxy, "push", "origin", "origin/feature:refs/heads/copy", cwd=clone)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(self.ref("me/proj", "copy"), feature)
        self.assertNotEqual(main, feature)
        out = self.git(self.proxy, "push", "origin", "origin/main:refs/heads/copy2", cwd=clone)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.local(clone, "checkout", "-qb", "onfeature", "origin/feature")
        tip = self.commit(clone, "on top of feature")
        out = self.git(self.proxy, "push", "origin", "HEAD:refs/heads/copy2", cwd=clone)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(self.ref("me/proj", "copy2"), tip)
        # Its twin: a rewind of copy2 to main (the forge has both) is still refused.
        out = self.git(self.proxy, "push", "-f", "origin", "origin/main:refs/heads/copy2", cwd=clone)
        self.assertNotEqual(out.returncode, 0, out.stderr)
        self.assertIn("refs/heads/copy2 is not a fast-forward", out.stderr)
        self.assertEqual(self.ref("me/proj", "copy2"), tip)

    # -- 3. pushes that rewrite history, while nobody watches

    def assert_push_refused(self, out, repo_refs_before, what):
        self.assertNotEqual(out.returncode, 0, out.stderr)
        self.assertIn("[remote rejected]", out.stderr, what)
        self.assertIn("corral", out.stderr, what)
        self.assert_not_leaked(out.stdout, out.stderr)
        for ref, before in repo_refs_before.items():
            self.assertEqual(self.ref("me/proj", ref), before, what)
        # The forge had all of the push but its tail: receive-pack saw its
        # input end early and wrote nothing.
        [push] = self.seen("/me/proj.git/git-receive-pack")
        self.assertFalse(push["complete"], (what, push))
        self.assertNotEqual(push["cgi_exit"], 0, (what, push))
        self.assertEqual(push["auth"], basic(USER, REAL), (what, push))
        self.assert_denied(self.proxy, "history")

    def test_3_force_push_delete_and_default_branch_refused(self):
        clone = self.clone(self.proxy)
        feature, main = self.ref("me/proj", "feature"), self.ref("me/proj", "main")
        refs = {"feature": feature, "main": main}
        self.local(clone, "checkout", "-q", "feature")
        self.local(clone, "reset", "-q", "--hard", "HEAD~1")
        rewritten = self.commit(clone, "rewritten feature")
        out = self.git(self.proxy, "push", "-f", "origin", "feature", cwd=clone)
        self.assert_push_refused(out, refs, "force push")
        self.assertIn("! [remote rejected] feature -> feature (corral: refs/heads/feature is not a "
                      "fast-forward", out.stderr)

        self.mark = self.server.mark()
        out = self.git(self.proxy, "push", "origin", ":feature", cwd=clone)
        self.assert_push_refused(out, refs, "delete")
        self.assertIn("! [remote rejected] feature (corral: deleting refs/heads/feature", out.stderr)

        self.mark = self.server.mark()
        self.local(clone, "checkout", "-q", "main")
        self.commit(clone, "straight to main")
        out = self.git(self.proxy, "push", "origin", "main", cwd=clone)
        self.assert_push_refused(out, refs, "default branch")
        self.assertIn("! [remote rejected] main -> main (corral: refs/heads/main is protected",
                      out.stderr)
        self.assertNotEqual(rewritten, feature)

        # A rewind to a commit the forge has: no new objects to judge by.
        self.mark = self.server.mark()
        out = self.git(self.proxy, "push", "-f", "origin", "origin/feature~1:refs/heads/feature",
                       cwd=clone)
        self.assert_push_refused(out, refs, "rewind")
        self.assertIn("refs/heads/feature is not a fast-forward", out.stderr)

    # -- 4. the same with somebody watching

    def test_4_watched_proxy_lets_the_force_push_through(self):
        clone = self.clone(self.watched)
        self.local(clone, "checkout", "-q", "feature")
        self.local(clone, "reset", "-q", "--hard", "HEAD~1")
        rewritten = self.commit(clone, "rewritten feature")
        out = self.git(self.watched, "push", "-f", "origin", "feature", cwd=clone)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("forced update", out.stderr)
        self.assertEqual(self.ref("me/proj", "feature"), rewritten)
        self.assert_only_real_token(self.seen("/me/proj.git/git-receive-pack"))

    # -- 5. another of the user's repositories: read without the token

    def test_5_other_repository_is_read_without_the_token(self):
        clone = self.clone(self.proxy, "me/other")
        self.assertEqual(self.local(clone, "rev-parse", "HEAD"), self.ref("me/other", "main"))
        # git sending the stand-in unasked on every request: it is taken out.
        header = "http.extraHeader=Authorization: " + basic(USER, STAND_IN)
        out = self.git(self.proxy, "clone", "-q", f"{self.base}/me/other.git", "clone2",
                       extra=("-c", header))
        self.assertEqual(out.returncode, 0, out.stderr)
        requests = self.seen("/me/other.git")
        self.assertGreaterEqual(len(requests), 4, requests)
        for e in requests:
            self.assertIsNone(e["auth"], e)
        # The control: straight to the forge, that git does send the header.
        self.mark = self.server.mark()
        out = subprocess.run(["git", "-c", "http.sslCAInfo=" + self.ca, "-c",
                              f"http.curloptResolve={self.authority}:127.0.0.1", "-c", header,
                              "ls-remote", f"{self.base}/me/other.git"],
                             env=self.env(), capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual({e["auth"] for e in self.seen("/me/other.git")}, {basic(USER, STAND_IN)})

        self.mark = self.server.mark()
        out = self.git(self.no_other_reads, "clone", "-q", f"{self.base}/me/other.git", "clone3")
        self.assertNotEqual(out.returncode, 0, out.stderr)
        self.assertIn("403", out.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "clone3", ".git")))
        self.assertEqual(self.seen("/me/other.git"), [])
        self.assert_denied(self.no_other_reads, "other-repository-read")

    # -- 6. an attacker's repository; the project however it is spelled

    def test_6_push_to_another_repository_is_refused(self):
        clone = self.clone(self.proxy, "evil/drop")
        before = self.ref("evil/drop", "main")
        self.commit(clone, "exfiltrated")
        out = self.git(self.proxy, "push", "origin", "main", cwd=clone, user="evil", password="pw")
        self.assertNotEqual(out.returncode, 0, out.stderr)
        self.assertIn("403", out.stderr)
        self.assertEqual(self.ref("evil/drop", "main"), before)
        self.assertEqual([e for e in self.seen("/evil/drop.git") if "receive-pack" in e["path"]], [])
        self.assert_denied(self.proxy, "other-repository")

    def test_6_project_named_in_another_case_gets_the_token(self):
        out = self.git(self.proxy, "ls-remote", f"{self.base}/ME/Proj.GIT")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(f"{self.ref('me/proj', 'main')}\trefs/heads/main", out.stdout)
        self.assertIn(f"{self.ref('me/proj', 'feature')}\trefs/heads/feature", out.stdout)
        self.assert_only_real_token(self.seen("/ME/Proj.GIT"))

    # -- 7. paths read two ways

    def test_7_path_tricks(self):
        b = self.base
        ok = self.curl(self.proxy, f"{b}/me//proj.git/info/refs?service=git-receive-pack")
        self.assertEqual(ok[0][0], 200, ok)
        self.assertIn("# service=git-receive-pack", ok[0][2])
        ok = self.curl(self.proxy, f"{b}/evil/../me/proj.git/info/refs?service=git-upload-pack")
        self.assertEqual(ok[0][0], 200, ok)
        self.assertIn("# service=git-upload-pack", ok[0][2])
        self.assert_only_real_token(self.server.since(self.mark), at_least=2)

        for target, rule in [
                ("/me/proj.git%2F..%2F..%2Fevil/drop.git/info/refs?service=git-receive-pack",
                 "unresolvable-path"),
                ("/me/proj.git/info/refs?service=git-receive-pack&service=git-upload-pack",
                 "bad-git-request"),
                ("/evil/drop.git/info/refs?service=git-receive-pack", "other-repository")]:
            self.mark = self.server.mark()
            [(code, error, body, _)] = self.curl(self.proxy, b + target)
            self.assertEqual(code, 403, (target, body))
            self.assertEqual(error, "forge-" + rule, (target, body))
            self.assertIn("corral proxy refused", body)
            self.assertEqual(self.seen(), [], target)
            self.assert_denied(self.proxy, rule)

        # A push body git never sends: gzip, which http-backend would inflate.
        self.mark = self.server.mark()
        feature = self.ref("me/proj", "feature")
        command = f"{feature} {'0' * 40} refs/heads/feature\0report-status\n".encode()
        body = os.path.join(self.work, "delete.gz")
        with open(body, "wb") as f:
            f.write(gzip.compress(b"%04x" % (len(command) + 4) + command + b"0000"))
        out = subprocess.run(["curl", "-q", "-sS", "-x", self.proxy.url, "--cacert",
                              self.proxy.session_ca, "-u", f"{USER}:{STAND_IN}",
                              "-H", "Content-Type: application/x-git-receive-pack-request",
                              "-H", "Content-Encoding: gzip", "--data-binary", "@" + body,
                              "-w", "\n%{http_code}", f"{b}/me/proj.git/git-receive-pack"],
                             capture_output=True, text=True, env=self.env(), timeout=60)
        self.assertTrue(out.stdout.endswith("\n403"), out.stdout + out.stderr)
        self.assertIn("could not read this push", out.stdout)
        self.assertEqual(self.ref("me/proj", "feature"), feature)
        for e in self.seen():
            self.assertFalse(e["complete"], e)
        self.assert_denied(self.proxy, "history")

        # In clear, the stand-in is taken out and no login is added.
        self.mark = self.server.mark()
        plain = f"http://{self.authority}/me/proj.git/info/refs?service=git-upload-pack"
        [(code, _, body, _)] = self.curl(self.proxy, plain)
        requests = self.seen()
        self.assertTrue(requests, (code, body))
        for e in requests:
            self.assertFalse(e["tls"], e)
            self.assertIsNone(e["auth"], e)
        self.assertEqual(code, 401, body)

    # -- 8. keep-alive

    def test_8_second_request_on_a_kept_alive_connection_is_judged(self):
        b = self.base
        first, second = self.curl(self.proxy, f"{b}/me/proj.git/info/refs?service=git-receive-pack",
                                  f"{b}/evil/drop.git/info/refs?service=git-receive-pack")
        self.assertEqual(first[0], 200, first)
        self.assertEqual(second[:2], (403, "forge-other-repository"), second)
        self.assertEqual(second[3], 0, "curl opened a second connection: keep-alive not exercised")
        self.assertEqual([e["path"] for e in self.seen()],
                         ["/me/proj.git/info/refs?service=git-receive-pack"])
        self.assert_denied(self.proxy, "other-repository")

    # -- 9. a big push, streamed

    def test_9_big_push_streams_through(self):
        proxy = self.start_proxy("big-push")
        self.log_marks[id(proxy)] = 0
        clone = self.clone(proxy)
        self.local(clone, "checkout", "-q", "feature")
        tip = self.commit(clone, "a big file", path="big.bin", data=os.urandom(BIG_PUSH))
        idle_rss, idle_hwm = proxy.memory_kib("VmRSS"), proxy.memory_kib("VmHWM")
        started = time.monotonic()
        out = self.git(proxy, "push", "origin", "feature", cwd=clone, timeout=300)
        took = time.monotonic() - started
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(self.ref("me/proj", "feature"), tip)
        peak = proxy.memory_kib("VmHWM")
        # git probes with a small POST first (the body is past http.postBuffer),
        # then sends the pack chunked.
        pushes = self.seen("/me/proj.git/git-receive-pack")
        self.assertTrue(pushes and all(e["complete"] and e["status"] == 200 for e in pushes), pushes)
        self.assertTrue(pushes[-1]["chunked"] and pushes[-1]["bytes"] > BIG_PUSH, pushes[-1])
        self.assertEqual(pushes[-1]["auth"], basic(USER, REAL))
        lines = [l for l in proxy.lines() if l.get("rule") == "push"]
        self.assertTrue(lines and lines[-1]["decision"] == "allow", lines)
        self.assertGreater(lines[-1]["bytes_up"], BIG_PUSH, lines[-1])
        sys.stderr.write(f"\n[big push] {BIG_PUSH // MIB} MiB in {took:.1f}s; proxy RSS idle "
                         f"{idle_rss // 1024} MiB (peak so far {idle_hwm // 1024} MiB), "
                         f"peak after {peak // 1024} MiB\n")
        self.assertLess(peak - idle_rss, 40 * 1024, "the proxy held the push in memory")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    CORRAL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
