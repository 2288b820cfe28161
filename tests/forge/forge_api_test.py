#!/usr/bin/env python3
"""The forge scope's API side (docs/forge.md, "GitHub's API") with real
clients: Debian's `gh` 2.23 and `git-lfs` 3.3 through `corral proxy` to a
GitHub Enterprise stand-in of this test's own, ghe.forge.test, which serves
REST under /api/v3/, GraphQL at /api/graphql and a Git LFS batch endpoint
with an object store, over HTTPS with a test CA, on 127.0.0.1:443 (gh talks
to an enterprise host without a port; ctest's RESOURCE_LOCK
loopback_port_443 keeps the other tests that bind it away).

The stand-in answers as GitHub does: me/proj and other/secret are private
(404 to REST and 401 to LFS without the user's token), other/lfs is public;
GraphQL wants a token at all (401 without, as github.com answers), and
answers the proxy's node(id:) query for the repositories' node ids. It records each
request's method, path, Authorization and body. Each case checks the
client's exit status and words, what the stand-in saw (the real token, or no
Authorization at all, never the stand-in) and the proxy's decision log.

Usage: forge_api_test.py CORRAL_BINARY [unittest args]"""
import hashlib
import http.server
import json
import os
import pathlib
import re
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from forge_server import COMMITTER, Proxy, basic, make_certs, run  # noqa: E402  (tests/forge/forge_server.py)

HOST = "ghe.forge.test"
USER = "x-access-token"
REAL = "ghp_REALtokenREALtokenREALtoken0123"
STAND_IN = "ghp_STANDinSTANDinSTANDin9876543210"  # as long as REAL, its shape
PRIVATE = {"me/proj", "other/secret"}
NODE_IDS = {"me/proj": "R_kgDOproj", "other/secret": "R_kgDOsecret", "other/lfs": "R_kgDOlfs"}
REPO_OF_NODE = {v: k for k, v in NODE_IDS.items()}
UNAUTHENTICATED = {"message": "This endpoint requires you to be authenticated.",
                   "documentation_url": "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"}


# ------------------------------------------------------------------ the stand-in


class GitHub(http.server.ThreadingHTTPServer):
    """GitHub Enterprise's API, the little of it gh and git-lfs use here, on
    127.0.0.1:443 over TLS, keep-alive."""
    daemon_threads = True

    def __init__(self, cert, key):
        super().__init__(("127.0.0.1", 443), Handler)
        self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.tls.load_cert_chain(cert, key)
        self.lock = threading.Condition()
        self.seen = []
        self.active = 0
        self.lfs = {}  # (repo, oid) -> bytes
        self.numbers = iter(range(7, 10000))

    def finish_request(self, request, client_address):
        request.settimeout(20)
        try:
            request = self.tls.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        try:
            self.RequestHandlerClass(request, client_address, self)
        finally:
            request.close()

    def mark(self):
        with self.lock:
            return len(self.seen)

    def since(self, mark):
        with self.lock:
            if not self.lock.wait_for(lambda: self.active == 0, timeout=30):
                raise AssertionError("the stand-in is still serving: %r" % self.seen[mark:])
            return [dict(e) for e in self.seen[mark:]]


def real_auth(auth):
    return auth in (f"token {REAL}", f"Bearer {REAL}", basic(USER, REAL))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        entry = {"method": self.command, "path": self.path, "auth": self.headers.get("Authorization"),
                 "body": body[:4096].decode("utf-8", "replace"), "bytes": len(body), "status": None}
        with self.server.lock:
            self.server.seen.append(entry)
            self.server.active += 1
        try:
            status, answer, headers = self.serve(entry, body)
            entry["status"] = status
            data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", headers.pop("Content-Type", "application/json; charset=utf-8"))
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        finally:
            with self.server.lock:
                self.server.active -= 1
                self.server.lock.notify_all()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    # -- routing

    def serve(self, entry, body):
        path = urllib.parse.urlsplit(self.path).path
        authed = real_auth(entry["auth"])
        if path.startswith("/api/v3"):
            return self.rest(path[len("/api/v3"):] or "/", authed, body)
        if path == "/api/graphql":
            return self.graphql(authed, body)
        m = re.fullmatch(r"/([^/]+)/([^/]+?)(?:\.git)?/info/lfs/objects/(batch|[0-9a-f]{64})", path)
        if m:
            return self.lfs(f"{m[1]}/{m[2]}".lower(), m[3], authed, body)
        return 404, {"message": "Not Found"}, {}

    # -- REST

    def repository(self, name):
        owner, _, short = name.partition("/")
        return {"id": 1000 + len(name), "node_id": NODE_IDS.get(name, "R_x"), "name": short,
                "full_name": name, "private": name in PRIVATE, "owner": {"login": owner},
                "default_branch": "main", "html_url": f"https://{HOST}/{name}"}

    def rest(self, path, authed, body):
        segments = [s for s in path.split("/") if s]
        if segments[:1] == ["repos"] and len(segments) >= 3:
            name = f"{segments[1]}/{segments[2]}".lower()
            if name in PRIVATE and not authed:
                return 404, {"message": "Not Found"}, {}
            if len(segments) == 3:
                return 200, self.repository(name), {}
            return 404, {"message": "Not Found"}, {}
        if path in ("/", "/user"):
            if not authed:
                return 401, {"message": "Requires authentication"}, {}
            return 200, {"login": "me", "id": 1}, {"X-OAuth-Scopes": "repo, gist, read:org"}
        return 404, {"message": "Not Found"}, {}

    # -- GraphQL

    def graphql(self, authed, body):
        if not authed:
            return 401, UNAUTHENTICATED, {}
        request = json.loads(body or b"{}")
        query, variables = request.get("query", ""), request.get("variables") or {}
        if "node(id:" in query:
            name = REPO_OF_NODE.get(variables.get("id"))
            node = {"__typename": "Repository", "nameWithOwner": name} if name else None
            return 200, {"data": {"node": node}}, {}
        if "createPullRequest" in query:
            n = next(self.server.numbers)
            return 200, {"data": {"createPullRequest": {"pullRequest": {
                "id": f"PR_{n}", "number": n, "url": f"https://{HOST}/me/proj/pull/{n}"}}}}, {}
        if "createIssue" in query:
            n = next(self.server.numbers)
            return 200, {"data": {"createIssue": {"issue": {
                "id": f"I_{n}", "number": n, "url": f"https://{HOST}/me/proj/issues/{n}"}}}}, {}
        if "viewer" in query and "repository(" not in query:
            return 200, {"data": {"viewer": {"login": "me", "repositories": {"nodes": [
                {"name": "proj"}, {"name": "secret"}]}}}}, {}
        if "repository(" in query:
            owner, name = variables.get("owner"), variables.get("name") or variables.get("repo")
            literal = re.search(r'repository\(\s*owner:\s*"([^"]+)",?\s*name:\s*"([^"]+)"', query)
            if literal:
                owner, name = literal[1], literal[2]
            full = f"{owner}/{name}".lower()
            if full not in NODE_IDS:
                return 200, {"data": {"repository": None}, "errors": [
                    {"type": "NOT_FOUND", "path": ["repository"],
                     "message": f"Could not resolve to a Repository with the name '{owner}/{name}'."}]}, {}
            return 200, {"data": {"repository": self.graphql_repository(full)}}, {}
        return 200, {"data": {}}, {}

    def graphql_repository(self, full):
        owner, _, name = full.partition("/")
        return {"id": NODE_IDS[full], "name": name, "nameWithOwner": full, "owner": {"login": owner},
                "description": "the stand-in's " + full, "url": f"https://{HOST}/{full}",
                "homepageUrl": "", "isPrivate": full in PRIVATE, "isFork": False, "isArchived": False,
                "isInOrganization": False, "isTemplate": False, "isMirror": False, "isEmpty": False,
                "visibility": "PRIVATE" if full in PRIVATE else "PUBLIC",
                "hasIssuesEnabled": True, "hasWikiEnabled": False, "hasProjectsEnabled": False,
                "viewerPermission": "ADMIN", "viewerCanAdminister": True,
                "defaultBranchRef": {"name": "main"}, "parent": None, "mergeCommitAllowed": True,
                "rebaseMergeAllowed": True, "squashMergeAllowed": True, "stargazerCount": 0,
                "forkCount": 0, "watchers": {"totalCount": 0}, "issues": {"totalCount": 0},
                "pullRequests": {"totalCount": 0, "nodes": []},
                "repositoryTopics": {"nodes": []}, "latestRelease": None,
                "pullRequestTemplates": [], "issueTemplates": [], "labels": {"nodes": []},
                "assignableUsers": {"nodes": []}, "milestones": {"nodes": []},
                "projects": {"nodes": []}, "projectsV2": {"nodes": []},
                "createdAt": "2024-01-01T00:00:00Z", "updatedAt": "2024-01-01T00:00:00Z",
                "pushedAt": "2024-01-01T00:00:00Z"}

    # -- Git LFS

    def lfs(self, repo, what, authed, body):
        if repo in PRIVATE and not authed:
            return 401, {"message": "Credentials needed"}, {"Content-Type": "application/vnd.git-lfs+json",
                                                          "LFS-Authenticate": 'Basic realm="GitHub"'}
        lfs_type = {"Content-Type": "application/vnd.git-lfs+json"}
        if what == "batch":
            request = json.loads(body)
            upload = request.get("operation") == "upload"
            if upload and not authed:
                return 403, {"message": "Write access denied"}, lfs_type
            objects = []
            for obj in request.get("objects", []):
                href = f"https://{HOST}/{repo}.git/info/lfs/objects/{obj['oid']}"
                have = (repo, obj["oid"]) in self.server.lfs
                item = {"oid": obj["oid"], "size": obj["size"]}
                if upload and not have:
                    item["actions"] = {"upload": {"href": href, "expires_in": 3600}}
                elif not upload and have:
                    item["actions"] = {"download": {"href": href, "expires_in": 3600}}
                elif not upload:
                    item["error"] = {"code": 404, "message": "Object does not exist"}
                objects.append(item)
            return 200, {"transfer": "basic", "objects": objects}, lfs_type
        if self.command == "PUT":
            if hashlib.sha256(body).hexdigest() != what:
                return 422, {"message": "wrong oid"}, lfs_type
            self.server.lfs[(repo, what)] = body
            return 200, b"", {"Content-Type": "text/plain"}
        data = self.server.lfs.get((repo, what))
        if data is None:
            return 404, {"message": "Not Found"}, lfs_type
        return 200, data, {"Content-Type": "application/octet-stream"}


# ------------------------------------------------------------------ the test


def port_443_free():
    out = subprocess.run(["ss", "-Hltn", "sport = :443"], capture_output=True, text=True)
    return out.returncode != 0 or not out.stdout.strip()


class ForgeApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="corral-forge-api-")
        d = cls.d = cls.tmp.name
        ca, crt, key = make_certs(d, HOST)
        cls.server = GitHub(crt, key)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        authority = f"{HOST}:443"
        cls.logins_file = os.path.join(d, "logins.json")
        # As launcher/plan/git_logins.cc makes them for GH_ENTERPRISE_TOKEN
        # with GH_HOST=ghe.forge.test: git's Basic, gh's `token`, `Bearer`.
        common = {"name": "GH_ENTERPRISE_TOKEN", "hosts": [authority], "header": "Authorization",
                  "value": REAL, "stand_in": STAND_IN}
        with open(cls.logins_file, "w") as f:
            json.dump({"logins": [dict(common, prefix="Basic ", basic=True),
                                  dict(common, prefix="token "), dict(common, prefix="Bearer ")]}, f)
        config = {"forges": [{"git_host": authority, "api_host": authority, "enterprise": True,
                              "repositories": ["me/proj"]}],
                  "protected_branches": [], "other_reads": True, "history": True}
        cls.proxy = Proxy(CORRAL, d, "proxy", config, cls.logins_file, 443, ca, host=HOST)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.server.shutdown()
        cls.server.server_close()
        cls.tmp.cleanup()

    def setUp(self):
        self.work = tempfile.mkdtemp(dir=self.d, prefix=self._testMethodName + "-")
        self.home = os.path.join(self.work, "home")
        os.makedirs(self.home)
        self.mark = self.server.mark()
        self.log_mark = len(self.proxy.lines())

    def tearDown(self):
        with open(self.proxy.log) as f:
            self.assertNotIn(REAL, f.read())
        self.assertNotIn(REAL, "".join(self.proxy.stderr))
        for e in self.server.since(0):
            self.assertNotIn(STAND_IN, json.dumps(e), e)

    # -- the box's clients

    def env(self):
        return {"PATH": os.environ["PATH"], "HOME": self.home, "LANG": "C",
                "GH_ENTERPRISE_TOKEN": STAND_IN, "GH_HOST": HOST,
                "GH_CONFIG_DIR": os.path.join(self.home, "gh"), "GH_NO_UPDATE_NOTIFIER": "1",
                "GH_PROMPT_DISABLED": "1", "NO_COLOR": "1", "GH_DEBUG": "api",
                "HTTPS_PROXY": self.proxy.url, "https_proxy": self.proxy.url,
                "SSL_CERT_FILE": self.proxy.session_ca, "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_TERMINAL_PROMPT": "0", **COMMITTER}

    def gh(self, *args, cwd=None):
        out = subprocess.run(["gh", *args], cwd=cwd or self.work, env=self.env(),
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assert_not_leaked(out.stdout, out.stderr)
        return out

    def seen(self, part=""):
        return [e for e in self.server.since(self.mark) if part in e["path"]]

    def assert_not_leaked(self, *texts):
        for text in texts:
            self.assertNotIn(REAL, text)

    def assert_denied(self, rule):
        deadline = time.monotonic() + 5
        while True:
            lines = self.proxy.lines()[self.log_mark:]
            denials = [l for l in lines if l.get("decision") == "deny" and l.get("rule")]
            if any(l["rule"] == rule for l in denials) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertIn(rule, [l["rule"] for l in denials], lines)
        return [l for l in denials if l["rule"] == rule]

    def assert_real_token(self, requests, at_least=1):
        """Every one of these carried the user's real token."""
        self.assertGreaterEqual(len(requests), at_least, requests)
        for e in requests:
            self.assertTrue(real_auth(e["auth"]), e)

    def assert_no_token(self, requests, at_least=1):
        """None of these carried any Authorization."""
        self.assertGreaterEqual(len(requests), at_least, requests)
        for e in requests:
            self.assertIsNone(e["auth"], e)

    def graphql_seen(self, part):
        return [e for e in self.seen("/api/graphql") if part in e["body"]]

    # -- 1. gh repo view

    def test_1_repo_view_of_the_project_goes_with_the_real_token(self):
        out = self.gh("repo", "view", "me/proj")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("me/proj", out.stdout)
        self.assertIn("the stand-in's me/proj", out.stdout)
        self.assert_real_token(self.seen(), at_least=2)  # the GraphQL query and the README
        self.assertTrue(self.graphql_seen("RepositoryInfo"))

    def test_1_repo_view_of_another_repository_goes_without_it(self):
        out = self.gh("repo", "view", "other/secret")
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn("HTTP 401", out.stderr)
        self.assert_no_token(self.seen())
        self.assertTrue(self.graphql_seen("other"))
        lines = [l for l in self.proxy.lines()[self.log_mark:] if l.get("path") == "/api/graphql"]
        self.assertTrue(lines and all(l["decision"] == "allow" and "login" not in l for l in lines), lines)

    # -- 2. gh pr create

    def test_2_pr_create_on_the_project_works(self):
        out = self.gh("pr", "create", "--repo", "me/proj", "--head", "feature", "--base", "main",
                      "--title", "a change", "--body", "from the box")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, rf"https://{HOST}/me/proj/pull/\d+")
        [mutation] = self.graphql_seen("createPullRequest")
        self.assertIn(NODE_IDS["me/proj"], mutation["body"])
        self.assertEqual(mutation["status"], 200)
        self.assert_real_token(self.seen(), at_least=3)
        out = self.gh("pr", "create", "--repo", "me/proj", "--head", "feature2", "--base", "main",
                      "--title", "another change", "--body", "from the box")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(len(self.graphql_seen("createPullRequest")), 2)
        # The proxy asked the API whose node the repositoryId is (with the
        # real token), once a session: a second pr create asks no more.
        asked = self.server.since(0)
        nodes = [e for e in asked if "node(id:" in e["body"] and NODE_IDS["me/proj"] in e["body"]]
        self.assertEqual(len(nodes), 1, nodes)
        self.assert_real_token(nodes)

    def test_2_pr_create_on_another_repository_is_refused(self):
        # gh reads the repository first: without the token, a private one is not there.
        out = self.gh("pr", "create", "--repo", "other/secret", "--head", "feature", "--base", "main",
                      "--title", "t", "--body", "b")
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn("HTTP 401", out.stderr)
        self.assert_no_token(self.seen())
        self.assertFalse(self.graphql_seen("createPullRequest"))
        # The mutation itself, as gh sends it, with the other repository's
        # node id: the proxy resolves the id and refuses it.
        self.mark = self.server.mark()
        mutation = ("mutation PullRequestCreate($input: CreatePullRequestInput!) {"
                    " createPullRequest(input: $input) { pullRequest { id url } } }")
        body = json.dumps({"query": mutation, "variables": {"input": {
            "repositoryId": NODE_IDS["other/secret"], "baseRefName": "main",
            "headRefName": "feature", "title": "t", "body": "b"}}})
        path = os.path.join(self.work, "mutation.json")
        with open(path, "w") as f:
            f.write(body)
        out = self.gh("api", "graphql", "--input", path)
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn("HTTP 403", out.stdout + out.stderr)
        self.assertIn("corral", out.stdout + out.stderr)
        self.assertFalse(self.graphql_seen("createPullRequest"), self.seen())
        nodes = self.graphql_seen(NODE_IDS["other/secret"])
        self.assertTrue(all("node(id:" in e["body"] for e in nodes), nodes)
        self.assert_real_token(nodes)
        [line] = [l for l in self.proxy.lines()[self.log_mark:] if l.get("decision") == "deny"]
        self.assertEqual(line["status"], 403, line)
        self.assertEqual(line["path"], "/api/graphql", line)
        self.assertEqual(line["rule"], "other-repo-write", line)
        self.assertIn(f"node id {NODE_IDS['other/secret']} belongs to other/secret", line["reason"])
        self.assertIn("belongs to other/secret", out.stdout + out.stderr)

    # -- 3. gh issue create

    def test_3_issue_create_on_the_project_works(self):
        out = self.gh("issue", "create", "--repo", "me/proj", "--title", "a bug", "--body", "it")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, rf"https://{HOST}/me/proj/issues/\d+")
        [mutation] = self.graphql_seen("createIssue")
        self.assertIn(NODE_IDS["me/proj"], mutation["body"])
        self.assert_real_token(self.seen(), at_least=2)

    def test_3_issue_create_on_another_repository_goes_without_the_token(self):
        out = self.gh("issue", "create", "--repo", "other/secret", "--title", "a bug", "--body", "it")
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assert_no_token(self.seen())
        self.assertFalse(self.graphql_seen("createIssue"))

    # -- 4. REST writes the table refuses on the project itself

    def assert_refused(self, out, rule, method, path):
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn("HTTP 403", out.stderr)
        self.assertIn("corral proxy refused", out.stdout + out.stderr)
        self.assertFalse([e for e in self.seen() if e["method"] == method and e["path"] == path],
                         self.seen())
        [line] = self.assert_denied(rule)
        self.assertEqual((line["method"], line["path"], line["status"]), (method, path, 403), line)
        return line

    def test_4_repository_delete_settings_and_hooks_are_refused(self):
        line = self.assert_refused(self.gh("api", "-X", "DELETE", "repos/me/proj"),
                                   "repo-delete", "DELETE", "/api/v3/repos/me/proj")
        self.assertEqual(line["repository"], "me/proj")
        self.assert_refused(self.gh("api", "-X", "PATCH", "repos/me/proj", "-f", "private=false"),
                            "repo-settings", "PATCH", "/api/v3/repos/me/proj")
        self.assert_refused(self.gh("api", "repos/me/proj/hooks", "-f", "name=web",
                                    "-f", "config[url]=https://hooks.example/"),
                            "hooks", "POST", "/api/v3/repos/me/proj/hooks")
        self.assertEqual(self.seen(), [])

    def test_4_repository_reads_go_with_the_token_on_the_project_only(self):
        out = self.gh("api", "repos/me/proj")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["full_name"], "me/proj")
        self.assert_real_token(self.seen())
        self.mark = self.server.mark()
        out = self.gh("api", "repos/other/secret")
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn("HTTP 404", out.stderr)
        self.assert_no_token(self.seen())

    # -- 5. GraphQL reads

    def test_5_graphql_reading_beyond_the_project_goes_without_the_token(self):
        out = self.gh("api", "graphql", "-f",
                      "query={ viewer { repositories(first:5){ nodes { name } } } }")
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn("HTTP 401", out.stderr)
        self.assertNotIn("secret", out.stdout)
        self.assert_no_token(self.seen())
        [line] = [l for l in self.proxy.lines()[self.log_mark:] if l.get("path") == "/api/graphql"]
        self.assertEqual(line["decision"], "allow", line)
        self.assertNotIn("login", line)

    def test_5_graphql_reading_the_project_goes_with_it(self):
        out = self.gh("api", "graphql", "-f", 'query={ repository(owner:"me", name:"proj"){ name } }')
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["data"]["repository"]["name"], "proj")
        self.assert_real_token(self.seen())

    # -- 6. gists, and the account

    def test_6_gist_create_is_refused(self):
        path = os.path.join(self.work, "notes.txt")
        with open(path, "w") as f:
            f.write("the project's secrets, say\n")
        out = self.gh("gist", "create", path)
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn("HTTP 403", out.stderr)
        self.assertFalse(self.seen("/gists"), self.seen())
        [line] = self.assert_denied("gist-write")
        self.assertEqual((line["method"], line["path"]), ("POST", "/api/v3/gists"), line)

    def test_6_account_reads_go_with_the_token(self):
        out = self.gh("api", "user")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["login"], "me")
        self.assert_real_token(self.seen())


    # -- 7. Git LFS

    def lfs_repo(self, data):
        """A work tree with one LFS object committed on main, remotes origin
        (me/proj) and other (other/lfs); git-lfs sends the box's stand-in
        from the first request (access basic), through the proxy."""
        repo = os.path.join(self.work, "repo")
        helper = f"!f() {{ echo username={USER}; echo password={STAND_IN}; }}; f"
        git = lambda *args: run("git", "-C", repo, *args, env=self.env())
        run("git", "init", "-q", "-b", "main", repo, env=self.env())
        for key, value in [("http.proxy", self.proxy.url), ("http.sslCAInfo", self.proxy.session_ca),
                           ("credential.helper", helper), ("lfs.locksverify", "false"),
                           (f"lfs.https://{HOST}/me/proj.git/info/lfs.access", "basic"),
                           (f"lfs.https://{HOST}/other/lfs.git/info/lfs.access", "basic")]:
            git("config", key, value)
        git("lfs", "install", "--local")
        git("remote", "add", "origin", f"https://{HOST}/me/proj.git")
        git("remote", "add", "other", f"https://{HOST}/other/lfs.git")
        git("lfs", "track", "*.bin")
        with open(os.path.join(repo, "big.bin"), "wb") as f:
            f.write(data)
        git("add", ".gitattributes", "big.bin")
        git("commit", "-qm", "an LFS object")
        return repo, git

    def lfs(self, repo, *args):
        out = subprocess.run(["git", "-C", repo, "lfs", *args], env=dict(self.env(), GIT_TRACE="1"), capture_output=True,
                             text=True, timeout=30)
        self.assert_not_leaked(out.stdout, out.stderr)
        return out

    def test_7_lfs_push_and_pull_on_the_project_go_with_the_token(self):
        data = os.urandom(64 * 1024)
        oid = hashlib.sha256(data).hexdigest()
        repo, git = self.lfs_repo(data)
        out = self.lfs(repo, "push", "--object-id", "origin", oid)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(self.server.lfs.get(("me/proj", oid)), data)
        [batch] = [e for e in self.seen("/me/proj.git/info/lfs/objects/batch")]
        self.assertEqual(json.loads(batch["body"])["operation"], "upload")
        self.assertEqual(batch["status"], 200)
        self.assert_real_token(self.seen("/me/proj.git/info/lfs/"), at_least=2)  # batch and PUT
        # And back: the local copy gone, fetched again from the project.
        self.mark = self.server.mark()
        local = os.path.join(repo, ".git", "lfs", "objects", oid[:2], oid[2:4], oid)
        os.remove(local)
        out = self.lfs(repo, "fetch", "origin", "main")
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(local, "rb") as f:
            self.assertEqual(f.read(), data)
        batches = self.seen("/me/proj.git/info/lfs/objects/batch")
        self.assertEqual([json.loads(e["body"])["operation"] for e in batches], ["download"])
        self.assert_real_token(self.seen("/me/proj.git/info/lfs/"), at_least=2)  # batch and GET

    def test_7_lfs_on_another_repository_downloads_without_the_token_and_never_uploads(self):
        data = os.urandom(32 * 1024)
        oid = hashlib.sha256(data).hexdigest()
        self.server.lfs[("other/lfs", oid)] = data  # other/lfs is public and has it
        repo, git = self.lfs_repo(data)
        local = os.path.join(repo, ".git", "lfs", "objects", oid[:2], oid[2:4], oid)
        os.remove(local)
        out = self.lfs(repo, "fetch", "other", "main")
        # git-lfs sent the box's credentials (GIT_TRACE says so)...
        self.assertIn(f"Filled credentials for https://{HOST}/other/lfs.git", out.stderr)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(local, "rb") as f:
            self.assertEqual(f.read(), data)
        requests = self.seen("/other/lfs.git/info/lfs/")
        self.assertEqual([e["method"] for e in requests], ["POST", "GET"], requests)
        # ...and the proxy took them off, putting nothing on.
        self.assert_no_token(requests, at_least=2)
        # An upload to it is refused at the batch: nothing reaches the stand-in.
        self.mark = self.server.mark()
        self.server.lfs.pop(("other/lfs", oid))
        out = self.lfs(repo, "push", "--object-id", "other", oid)
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertEqual([(e["method"], e["path"]) for e in self.seen()], [])
        self.assertNotIn(("other/lfs", oid), self.server.lfs)
        [line] = self.assert_denied("other-repository")
        self.assertEqual((line["method"], line["path"], line["status"]),
                         ("POST", "/other/lfs.git/info/lfs/objects/batch", 403), line)
        self.assertEqual(line["repository"], "other/lfs")
        self.assertIn("Authorization error", out.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    CORRAL = os.path.abspath(sys.argv.pop(1))
    if not port_443_free():
        sys.exit("127.0.0.1:443 is taken: this test serves ghe.forge.test there")
    unittest.main(verbosity=2)
