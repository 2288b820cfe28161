#!/usr/bin/env python3
"""The registries read-only and rules per host (netfilter/requests/, issue 44)
end to end: real npm and curl through `corral proxy --judge-requests` to
stand-ins of this test's own, HTTPS with a test CA, on 127.0.0.1:

- registry.npmjs.org: an npm registry serving real packuments and tarballs
  (made by `npm pack`) and npm's audit endpoint; it takes PUT and DELETE too,
  so a refusal is the proxy's; it records every request.
- api.internal.test: any request answered 200; the config's network.rules
  allow it `GET /v1/**` only.
- plain.internal.test: no rules, so a plain tunnel (its own certificate).

Each case checks the client's exit status and words, what the stand-ins saw,
and the proxy's decision log (`"decision":"deny"` with its rule).

Usage: registries_test.py CORRAL_BINARY [unittest args]"""
import base64
import hashlib
import http.server
import json
import os
import pathlib
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "forge"))
from forge_server import Proxy, make_certs  # noqa: E402  (tests/forge/forge_server.py)

CORRAL = None
NPM_HOST = "registry.npmjs.org"
API_HOST = "api.internal.test"
PLAIN_HOST = "plain.internal.test"
AUDIT = "/-/npm/v1/security/advisories/bulk"


# ------------------------------------------------------------------ the stand-ins


class StandIn(http.server.ThreadingHTTPServer):
    """HTTPS on 127.0.0.1, one thread per connection; records every request
    (`seen`: method, path) and answers with `app(handler, body)` ->
    (status, content type, body bytes)."""
    daemon_threads = True

    def __init__(self, cert, key, app):
        super().__init__(("127.0.0.1", 0), StandInHandler)
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(cert, key)
        self.app = app
        self.port = self.server_address[1]
        self.lock = threading.Lock()
        self.seen = []
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def finish_request(self, request, client_address):
        request.settimeout(20)
        try:
            request = self.ctx.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        try:
            self.RequestHandlerClass(request, client_address, self)
        finally:
            request.close()

    def requests(self):
        with self.lock:
            return list(self.seen)

    def stop(self):
        self.shutdown()
        self.server_close()


class StandInHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def handle_one(self):
        with self.server.lock:
            self.server.seen.append((self.command, self.path))
        body = self.body()
        status, ctype, data = self.server.app(self, body)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = handle_one


class Registry:
    """The npm registry's stand-in: packuments and tarballs of `packages`
    (name -> (package.json dict, tarball bytes)) at `base`."""

    def __init__(self, base):
        self.base = base
        self.packages = {}

    def add(self, manifest, tarball):
        self.packages[manifest["name"]] = (manifest, tarball)

    def filename(self, manifest):
        return f"{manifest['name']}-{manifest['version']}.tgz"

    def packument(self, name):
        manifest, tarball = self.packages[name]
        version = manifest["version"]
        meta = dict(manifest, _id=f"{name}@{version}", dist={
            "tarball": f"{self.base}/{name}/-/{self.filename(manifest)}",
            "shasum": hashlib.sha1(tarball).hexdigest(),
            "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()})
        return {"_id": name, "_rev": "1-0123456789abcdef", "name": name,
                "dist-tags": {"latest": version}, "versions": {version: meta},
                "time": {"created": "2024-01-01T00:00:00.000Z",
                         "modified": "2024-01-01T00:00:00.000Z",
                         version: "2024-01-01T00:00:00.000Z"}}

    def __call__(self, handler, body):
        path = handler.path.split("?")[0]
        js = "application/json"
        if handler.command in ("PUT", "DELETE", "PATCH"):
            return 200, js, b'{"ok":true}'
        if handler.command == "POST":
            if path == AUDIT:
                return 200, js, b"{}"
            return 404, js, b'{"error":"not found"}'
        parts = path.strip("/").split("/")
        if len(parts) == 4 and parts[:2] == ["-", "package"] and parts[3] == "dist-tags":
            name = parts[2]
            if name in self.packages:
                return 200, js, json.dumps({"latest": self.packages[name][0]["version"]}).encode()
        if len(parts) == 1 and parts[0] in self.packages:
            return 200, js, json.dumps(self.packument(parts[0])).encode()
        if len(parts) == 3 and parts[1] == "-" and parts[0] in self.packages:
            manifest, tarball = self.packages[parts[0]]
            if parts[2] == self.filename(manifest):
                return 200, "application/octet-stream", tarball
        return 404, js, b'{"error":"not found"}'


def echo(handler, body):
    return 200, "text/plain", f"{handler.server.name} {handler.command} {handler.path}\n".encode()


# ------------------------------------------------------------------ the test


class Registries(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="corral-registries-")
        d = cls.d = cls.tmp.name
        certs = {}
        for host in (NPM_HOST, API_HOST, PLAIN_HOST):
            hd = os.path.join(d, "certs-" + host)
            os.makedirs(hd)
            certs[host] = make_certs(hd, host)
        cls.test_ca = os.path.join(d, "test-cas.pem")  # the three test CAs, one bundle
        with open(cls.test_ca, "w") as out:
            for ca, _, _ in certs.values():
                with open(ca) as f:
                    out.write(f.read())

        cls.npm_server = StandIn(*certs[NPM_HOST][1:], app=None)
        cls.npm_authority = f"{NPM_HOST}:{cls.npm_server.port}"
        cls.npm_base = f"https://{cls.npm_authority}"
        cls.registry = Registry(cls.npm_base)
        cls.npm_server.app = cls.registry
        cls.api = StandIn(*certs[API_HOST][1:], app=echo)
        cls.api.name = API_HOST
        cls.plain = StandIn(*certs[PLAIN_HOST][1:], app=echo)
        cls.plain.name = PLAIN_HOST
        cls.make_packages()

        hosts = [f"--hosts-line=127.0.0.1 {API_HOST}", f"--hosts-line=127.0.0.1 {PLAIN_HOST}",
                 f"--allow={API_HOST}:{cls.api.port}", f"--allow={PLAIN_HOST}:{cls.plain.port}"]
        cls.proxies = []
        # The default: registries read-only; api.internal.test with rules; a
        # bare registry.npmjs.org entry (which opens port 80 were it not a registry).
        cls.proxy = cls.start_proxy(
            "read-only", [*hosts, "--allow", NPM_HOST],
            config=f'network:\n  rules:\n    - "{API_HOST} GET /v1/**"\n')
        # The twin: registries.publish: [npm].
        cls.publisher = cls.start_proxy("publish", [], config="registries:\n  publish: [npm]\n")

    @classmethod
    def start_proxy(cls, name, extra, config):
        proxy = Proxy(CORRAL, cls.d, name, None, None, cls.npm_server.port, cls.test_ca,
                      host=NPM_HOST, extra=["--judge-requests", *extra], config=config)
        cls.proxies.append(proxy)
        return proxy

    @classmethod
    def tearDownClass(cls):
        for proxy in cls.proxies:
            proxy.stop()
        for server in (cls.npm_server, cls.api, cls.plain):
            server.stop()
        cls.tmp.cleanup()

    @classmethod
    def make_packages(cls):
        """corral-test-a 1.0.0, corral-test-b 1.0.0 (needs a), packed by npm."""
        packs = os.path.join(cls.d, "packs")
        os.makedirs(packs)
        env = cls.base_env(os.path.join(cls.d, "pack-home"))
        for name, deps in (("corral-test-a", {}), ("corral-test-b", {"corral-test-a": "^1.0.0"})):
            src = os.path.join(cls.d, "src", name)
            os.makedirs(src)
            manifest = {"name": name, "version": "1.0.0", "description": name, "license": "MIT",
                        "main": "index.js", "dependencies": deps}
            with open(os.path.join(src, "package.json"), "w") as f:
                json.dump(manifest, f)
            with open(os.path.join(src, "index.js"), "w") as f:
                f.write(f"module.exports = {json.dumps(name)};\n")
            out = subprocess.run(["npm", "pack", "--json", "--pack-destination", packs], cwd=src,
                                 env=env, capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            filename = json.loads(out.stdout)[0]["filename"]
            with open(os.path.join(packs, filename), "rb") as f:
                cls.registry.add(manifest, f.read())

    @staticmethod
    def base_env(home):
        os.makedirs(home, exist_ok=True)
        return {"PATH": os.environ["PATH"], "HOME": home, "LANG": "C",
                "npm_config_cache": os.path.join(home, ".npm"),
                "npm_config_update_notifier": "false", "npm_config_fund": "false",
                "npm_config_loglevel": "warn"}

    # -- per case

    def setUp(self):
        self.work = tempfile.mkdtemp(dir=self.d, prefix=self._testMethodName + "-")
        self.home = os.path.join(self.work, "home")
        self.mark = len(self.npm_server.requests())
        self.log_marks = {id(p): len(p.lines()) for p in self.proxies}

    def seen(self, server=None):
        server = server or self.npm_server
        if server is self.npm_server:
            return server.requests()[self.mark:]
        return server.requests()

    def new_lines(self, proxy):
        return proxy.lines()[self.log_marks[id(proxy)]:]

    def denials(self, proxy):
        return [l for l in self.new_lines(proxy) if l.get("decision") == "deny"]

    def assert_no_writes(self):
        writes = [r for r in self.seen() if r[0] not in ("GET", "HEAD")]
        self.assertEqual(writes, [], "a write reached the registry")

    def npm(self, proxy, *args, cwd=None, token=False):
        env = self.base_env(self.home)
        npmrc = os.path.join(self.home, ".npmrc")
        with open(npmrc, "w") as f:
            if token:
                f.write(f"//{self.npm_authority}/:_authToken=x\n")
        env.update({"npm_config_registry": self.npm_base + "/", "npm_config_userconfig": npmrc,
                    "HTTPS_PROXY": proxy.url, "https_proxy": proxy.url,
                    "npm_config_https_proxy": proxy.url, "npm_config_cafile": proxy.session_ca,
                    "NODE_EXTRA_CA_CERTS": proxy.session_ca})
        return subprocess.run(["npm", *args], cwd=cwd or self.work, env=env, capture_output=True,
                              text=True, timeout=120)

    def curl(self, proxy, *args, cacert=None):
        """curl through `proxy`: (exit status, HTTP status, headers, body)."""
        headers = os.path.join(self.work, "curl-headers")
        body = os.path.join(self.work, "curl-body")
        for path in (headers, body):
            if os.path.exists(path):
                os.remove(path)
        out = subprocess.run(
            ["curl", "-sS", "--max-time", "30", "--noproxy", "", "-x", proxy.url,
             "--cacert", cacert or proxy.session_ca, "-D", headers, "-o", body,
             "-w", "%{http_code}", *args],
            env={"PATH": os.environ["PATH"], "HOME": self.work}, capture_output=True, text=True,
            timeout=60)
        def read(path):
            if not os.path.exists(path):
                return ""
            with open(path, errors="replace") as f:
                return f.read()
        return out.returncode, out.stdout.strip(), read(headers), read(body) + out.stderr

    def project(self, name="app", **extra):
        path = os.path.join(self.work, name)
        os.makedirs(path)
        with open(os.path.join(path, "package.json"), "w") as f:
            json.dump({"name": name, "version": "1.0.0", "license": "MIT", **extra}, f)
        return path

    def assert_refused_npm(self, out, method, path):
        """npm failed on a 403, the registry saw no write, the proxy's log
        has the refusal of METHOD PATH by the registry's read-only rule."""
        text = out.stdout + out.stderr
        self.assertNotEqual(out.returncode, 0, text)
        self.assertIn("403", text)
        self.assert_no_writes()
        denials = self.denials(self.proxy)
        self.assertIn((method, path, "registry npm read-only"),
                      [(l.get("method"), l.get("path"), l.get("rule")) for l in denials],
                      self.new_lines(self.proxy))
        for line in denials:
            self.assertTrue(line["reason"].startswith("request-rule:"), line)
            self.assertIn("registries.publish", line["reason"])

    def assert_refused_curl(self, result, rule=None, proxy=None, error="request-rule"):
        """A 403 from the proxy naming `error`, and every refusal logged
        since the case began names `rule` (request-rule) or `error`."""
        code, status, headers, body = result
        self.assertEqual(status, "403", (code, headers, body))
        self.assertIn(f"x-corral-error: {error}", headers.lower(), headers)
        denials = self.denials(proxy or self.proxy)
        self.assertTrue(denials, self.new_lines(proxy or self.proxy))
        for line in denials:
            self.assertEqual(line.get("status"), 403, line)
            if error == "request-rule":
                self.assertEqual(line.get("rule"), rule, line)
            else:
                self.assertTrue(line.get("reason", "").startswith(error + ":"), line)
        return denials

    # -- npm reads

    def test_npm_install_and_audit(self):
        app = self.project()
        out = self.npm(self.proxy, "install", "--no-audit", "corral-test-b", cwd=app)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        for name in ("corral-test-a", "corral-test-b"):
            with open(os.path.join(app, "node_modules", name, "package.json")) as f:
                self.assertEqual(json.load(f)["name"], name)
        paths = [p for _, p in self.seen()]
        self.assertIn("/corral-test-b/-/corral-test-b-1.0.0.tgz", paths)
        self.assertIn("/corral-test-a/-/corral-test-a-1.0.0.tgz", paths)

        out = self.npm(self.proxy, "audit", cwd=app)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("found 0 vulnerabilities", out.stdout)
        self.assertIn(("POST", AUDIT), self.seen())
        self.assert_no_writes_but_audit()
        self.assertEqual(self.denials(self.proxy), [])

    def assert_no_writes_but_audit(self):
        writes = [r for r in self.seen() if r[0] not in ("GET", "HEAD") and r != ("POST", AUDIT)]
        self.assertEqual(writes, [])

    # -- npm writes refused

    def local_package(self, name="corral-test-c"):
        return self.project(name, description="published by a test", main="index.js")

    def test_npm_publish_refused(self):
        out = self.npm(self.proxy, "publish", cwd=self.local_package(), token=True)
        self.assert_refused_npm(out, "PUT", "/corral-test-c")
        self.assertNotIn("PUT", [m for m, _ in self.seen()])

    def test_npm_unpublish_refused(self):
        # The only version: npm reads the packument, then DELETEs the package.
        out = self.npm(self.proxy, "unpublish", "corral-test-a@1.0.0", "--force", token=True)
        self.assert_refused_npm(out, "DELETE", "/corral-test-a/-rev/1-0123456789abcdef")
        self.assertIn(("GET", "/corral-test-a?write=true"), self.seen())

    def test_npm_dist_tag_refused(self):
        out = self.npm(self.proxy, "dist-tag", "add", "corral-test-a@1.0.0", "beta", token=True)
        self.assert_refused_npm(out, "PUT", "/-/package/corral-test-a/dist-tags/beta")

    # -- raw requests refused

    def test_curl_put_refused(self):
        result = self.curl(self.proxy, "-X", "PUT", "-H", "Content-Type: application/json",
                           "--data", '{"name":"corral-test-a"}', f"{self.npm_base}/corral-test-a")
        self.assert_refused_curl(result, "registry npm read-only")
        self.assertEqual(self.seen(), [])

    def test_method_override_refused(self):
        for header in ("X-HTTP-Method-Override: PUT", "X-HTTP-Method: PUT",
                       "X-Method-Override: PUT"):
            with self.subTest(header=header):
                self.log_marks[id(self.proxy)] = len(self.proxy.lines())
                result = self.curl(self.proxy, "-X", "POST", "-H", header, "--data", "{}",
                                   f"{self.npm_base}/corral-test-a")
                self.assert_refused_curl(result, "method-override")
        self.assertEqual(self.seen(), [])

    def test_websocket_upgrade_refused(self):
        result = self.curl(self.proxy, "--http1.1", "-H", "Upgrade: websocket",
                           "-H", "Connection: Upgrade", "-H", "Sec-WebSocket-Version: 13",
                           "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                           f"{self.npm_base}/corral-test-a")
        self.assert_refused_curl(result, "upgrade")
        self.assertEqual(self.seen(), [])

    def test_post_under_audit_path_refused(self):
        result = self.curl(self.proxy, "-X", "POST", "--data", "{}", f"{self.npm_base}{AUDIT}/x")
        self.assert_refused_curl(result, "registry npm read-only")
        self.assertEqual(self.seen(), [])
        # The audit itself passes.
        code, status, _, body = self.curl(self.proxy, "-X", "POST", "-H",
                                          "Content-Type: application/json", "--data", "{}",
                                          f"{self.npm_base}{AUDIT}")
        self.assertEqual((code, status, body.strip()), (0, "200", "{}"))

    def test_plain_http_refused(self):
        result = self.curl(self.proxy, f"http://{NPM_HOST}:80/")
        denials = self.assert_refused_curl(result, error="registry-plain-http")
        self.assertEqual([(l["host"], l["port"], l["address"]) for l in denials],
                         [(NPM_HOST, 80, None)])  # refused before any dial

    # -- the twin: registries.publish: [npm]

    def test_publish_allowed_by_config(self):
        out = self.npm(self.publisher, "publish", cwd=self.local_package(), token=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn(("PUT", "/corral-test-c"), self.seen())
        self.assertEqual(self.denials(self.publisher), [])

    # -- rules per host

    def test_rules_per_host(self):
        base = f"https://{API_HOST}:{self.api.port}"
        before = len(self.api.requests())
        code, status, _, body = self.curl(self.proxy, f"{base}/v1/a/b")
        self.assertEqual((code, status), (0, "200"), body)
        self.assertIn(f"{API_HOST} GET /v1/a/b", body)
        refused = [("GET", f"{base}/v2/x", ()), ("DELETE", f"{base}/v1/a", ()),
                   ("GET", f"{base}/v1/../v2/x", ("--path-as-is",))]
        for method, url, flags in refused:
            with self.subTest(method=method, url=url):
                self.log_marks[id(self.proxy)] = len(self.proxy.lines())
                result = self.curl(self.proxy, *flags, "-X", method, url)
                self.assert_refused_curl(result, "network.rules")
        self.assertEqual(self.api.requests()[before:], [("GET", "/v1/a/b")])

    def test_host_without_rules_is_a_tunnel(self):
        url = f"https://{PLAIN_HOST}:{self.plain.port}/anything"
        code, status, _, body = self.curl(self.proxy, "-X", "DELETE", url, cacert=self.test_ca)
        self.assertEqual((code, status), (0, "200"), body)
        self.assertIn(f"{PLAIN_HOST} DELETE /anything", body)
        # Its TLS is not ended: the session CA does not vouch for it.
        code, status, _, body = self.curl(self.proxy, url)
        self.assertNotEqual(code, 0, body)
        self.assertIn(code, (35, 60), body)


if __name__ == "__main__":
    CORRAL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
