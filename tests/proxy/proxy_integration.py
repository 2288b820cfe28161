#!/usr/bin/env python3
"""Black-box tests of `corral proxy` with real clients on loopback: curl, git,
openssl s_client, and raw hostile requests over sockets.

Usage: proxy_integration.py CORRAL_BINARY [unittest args]"""
import gzip
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import origins  # noqa: E402

CORRAL = None
HTTP_IP, HTTPS_IP, GIT_IP = "127.0.0.2", "127.0.0.3", "127.0.0.4"


class Proxy:
    """One `corral proxy` process; stopped with SIGTERM."""

    def __init__(self, d, *flags, config=None):
        self.log = os.path.join(d, f"log-{time.monotonic_ns()}.jsonl")
        args = [CORRAL]
        if config:
            args += ["--config", config]
        args += ["proxy", "--listen", "127.0.0.1:0", "--log", self.log, "--threads", "2", *flags]
        self.proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, XDG_CONFIG_HOME=d))
        line = self.proc.stderr.readline()
        if "listening on" not in line:
            raise RuntimeError("corral proxy did not start: " + line + self.proc.stderr.read())
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return None
        return self.proc.returncode

    def lines(self):
        time.sleep(0.1)
        try:
            with open(self.log) as f:
                return [json.loads(l) for l in f if l.strip()]
        except FileNotFoundError:
            return []


def raw(port, data, timeout=5, read_until_close=True):
    """Sends bytes to the proxy and returns everything it answers."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
            if not read_until_close and b"\r\n\r\n" in out:
                break
        return out
    finally:
        s.close()


def read_until_close(s, limit=5):
    """Everything the peer sends until it closes; fails if it stays open."""
    s.settimeout(limit)
    out = b""
    while True:
        chunk = s.recv(65536)  # socket.timeout here: the proxy did not close
        if not chunk:
            return out
        out += chunk


def read_response(s):
    """One Content-Length-framed response from a kept-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise AssertionError("connection closed before a response head: %r" % data)
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return status(head), head, body


def status(reply):
    try:
        return int(reply.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


class ProxyIntegration(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="corral-proxy-it-")
        d = cls.d = cls.tmp.name
        cls.ca, crt, key, pem = origins.make_certs(d, ["secure.test", "git.test", "other.test"])
        cls.http, cls.http_port = origins.start_http(HTTP_IP)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(crt, key)
        cls.https, cls.https_port = origins.start_http(HTTPS_IP, ctx)
        cls.git, cls.git_port = origins.start_git(d, GIT_IP, pem)
        cls.stale = origins.StaleOrigin(HTTP_IP)
        cls.hosts = os.path.join(d, "hosts")
        with open(cls.hosts, "w") as f:
            f.write(f"{HTTP_IP} origin.test stale.test\n{HTTPS_IP} secure.test other.test\n{GIT_IP} git.test\n"
                    "127.0.0.1 self.test\n10.0.0.1 private.test\n169.254.169.254 metadata.test\n")
        cls.allow = [f"origin.test:{cls.http_port}", f"secure.test:{cls.https_port}",
                     f"other.test:{cls.https_port}", f"git.test:{cls.git_port}",
                     f"metadata.test:{cls.http_port}", f"private.test:{cls.http_port}",
                     f"self.test:{cls.http_port}", f"stale.test:{cls.stale.port}"]
        flags = ["--hosts", cls.hosts, "--head-timeout", "1.5", "--max-tunnels", "8"]
        for a in cls.allow:
            flags += ["--allow", a]
        for a in (HTTP_IP, HTTPS_IP, GIT_IP):
            flags += ["--allow-address", a]
        flags += ["--deny", f"other.test:{cls.https_port}"]
        cls.proxy = Proxy(d, *flags)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.stale.close()
        cls.git.terminate()
        cls.git.wait()
        cls.http.shutdown()
        cls.https.shutdown()
        cls.tmp.cleanup()

    def curl(self, *args):
        return subprocess.run(["curl", "-sS", "--max-time", "10", "-x", self.proxy.url, *args],
                              capture_output=True, text=True)

    # -- real clients ---------------------------------------------------------

    def test_curl_plain_http(self):
        r = self.curl("-i", f"http://origin.test:{self.http_port}/x")
        self.assertIn("200 OK", r.stdout)
        self.assertIn(f"hello from origin.test:{self.http_port}", r.stdout)

    def test_curl_keep_alive_chunked_and_post(self):
        url = f"http://origin.test:{self.http_port}"
        r = self.curl("-v", f"{url}/chunked", f"{url}/a", "-H", "Expect:")
        self.assertIn("chunked!", r.stdout)
        self.assertIn("Re-using existing connection", r.stderr)
        big = os.path.join(self.d, "big")
        with open(big, "w") as f:
            f.write("x" * 200000)
        r = self.curl("--data-binary", "@" + big, f"{url}/echo")
        self.assertEqual(r.stdout, "x" * 200000)
        r = self.curl("-H", "Transfer-Encoding: chunked", "--data-binary", "chunky", f"{url}/echo")
        self.assertEqual(r.stdout, "chunky")

    def test_forwarded_headers_are_clean(self):
        r = self.curl("-H", "Connection: X-Secret", "-H", "X-Secret: 1", "-H", "Proxy-Authorization: Basic eDp5",
                      f"http://ORIGIN.test.:{self.http_port}/headers")
        self.assertIn(f"Host: origin.test:{self.http_port}", r.stdout)
        self.assertNotIn("X-Secret", r.stdout)
        self.assertNotIn("Proxy-Authorization", r.stdout)

    def test_curl_https_via_connect(self):
        r = self.curl("--cacert", self.ca, f"https://secure.test:{self.https_port}/")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("hello from secure.test", r.stdout)

    def test_git_clone_over_https(self):
        dest = os.path.join(self.d, f"clone-{time.monotonic_ns()}")
        env = dict(os.environ, GIT_SSL_CAINFO=self.ca, https_proxy=self.proxy.url, HOME=self.d,
                   GIT_TERMINAL_PROMPT="0")
        r = subprocess.run(["git", "clone", "-q", f"https://git.test:{self.git_port}/git/repo.git", dest],
                           capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(dest, "README")) as f:
            self.assertIn("corral proxy test repository", f.read())

    def test_sni_must_match_the_connect_host(self):
        base = ["openssl", "s_client", "-proxy", f"127.0.0.1:{self.proxy.port}",
                "-connect", f"secure.test:{self.https_port}", "-CAfile", self.ca, "-brief"]
        ok = subprocess.run(base + ["-servername", "secure.test"], input="", capture_output=True,
                            text=True, timeout=20)
        self.assertIn("Verification: OK", ok.stderr + ok.stdout)
        bad = subprocess.run(base + ["-servername", "git.test"], input="", capture_output=True,
                             text=True, timeout=20)
        self.assertNotIn("Verification: OK", bad.stderr + bad.stdout)
        self.assertTrue(any("sni-mismatch" in l["reason"] for l in self.proxy.lines()))

    # -- kept-alive origin connections that went stale ---------------------------

    def test_stale_origin_connection_is_retried_with_curl(self):
        url = f"http://stale.test:{self.stale.port}"
        r = self.curl("-v", f"{url}/curl-a", f"{url}/curl-b")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Re-using existing connection", r.stderr)  # one client connection
        self.assertIn("fresh /curl-a on connection", r.stdout)
        self.assertIn("fresh /curl-b on connection", r.stdout)
        # /curl-b went out on the kept connection first, then on a fresh one.
        seen = self.stale.requests("GET /curl-b HTTP/1.1")
        self.assertEqual(len(seen), 2, seen)
        self.assertEqual(seen[0], self.stale.requests("GET /curl-a HTTP/1.1")[0])
        self.assertNotEqual(seen[0], seen[1])
        line = [l for l in self.proxy.lines() if l["host"] == "stale.test" and l["status"] == 200][-1]
        self.assertIn("sent again on a fresh connection", line["reason"])

    def test_stale_origin_connection_reset_and_put_body_replayed(self):
        t = f"stale.test:{self.stale.port}"
        with socket.create_connection(("127.0.0.1", self.proxy.port), timeout=5) as s:
            s.sendall(f"GET http://{t}/rst/first HTTP/1.1\r\nHost: {t}\r\n\r\n".encode())
            self.assertEqual(read_response(s)[0], 200)
            s.sendall(f"GET http://{t}/rst/again HTTP/1.1\r\nHost: {t}\r\n\r\n".encode())
            code, _, body = read_response(s)
            self.assertEqual(code, 200, body)
            self.assertIn(b"fresh /rst/again", body)
            s.sendall(f"PUT http://{t}/put HTTP/1.1\r\nHost: {t}\r\nContent-Length: 7\r\n\r\npayload".encode())
            code, _, body = read_response(s)
            self.assertEqual(code, 200, body)
            self.assertTrue(body.startswith(b"fresh /put on connection") and body.endswith(b"payload"), body)
        self.assertEqual(len(self.stale.requests("GET /rst/again HTTP/1.1")), 2)
        self.assertEqual(len(self.stale.requests("PUT /put HTTP/1.1")), 2)

    def test_stale_origin_connection_post_is_not_replayed(self):
        t = f"stale.test:{self.stale.port}"
        with socket.create_connection(("127.0.0.1", self.proxy.port), timeout=5) as s:
            s.sendall(f"GET http://{t}/before-post HTTP/1.1\r\nHost: {t}\r\n\r\n".encode())
            self.assertEqual(read_response(s)[0], 200)
            s.sendall(f"POST http://{t}/post HTTP/1.1\r\nHost: {t}\r\nContent-Length: 5\r\n\r\nhello".encode())
            code, head, _ = read_response(s)
        self.assertEqual(code, 502, head)
        self.assertEqual(len(self.stale.requests("POST /post HTTP/1.1")), 1)

    # -- HTTP/1.0 clients -------------------------------------------------------

    def test_http10_client_gets_a_chunked_response_without_chunks(self):
        t = f"origin.test:{self.http_port}"
        expected = b"".join(bytes([97 + i % 26]) * (1 + i * 37 % 4000) for i in range(200))
        for path, want in (("/chunked", b"chunked!"), ("/chunked-big", expected)):
            for extra in ("", "Connection: keep-alive\r\n"):
                with socket.create_connection(("127.0.0.1", self.proxy.port), timeout=5) as s:
                    s.sendall(f"GET http://{t}{path} HTTP/1.0\r\n{extra}\r\n".encode())
                    reply = read_until_close(s)
                head, _, body = reply.partition(b"\r\n\r\n")
                self.assertEqual(status(head), 200, head)
                self.assertNotIn(b"transfer-encoding", head.lower())
                self.assertIn(b"\r\nconnection: close", head.lower())
                self.assertEqual(len(body), len(want), f"{path} {extra!r}: {body[:80]!r}")
                self.assertEqual(body, want)
        # An HTTP/1.1 client on the same path still gets chunked framing.
        reply = raw(self.proxy.port, f"GET http://{t}/chunked HTTP/1.1\r\nHost: {t}\r\nConnection: close\r\n\r\n".encode())
        self.assertIn(b"Transfer-Encoding: chunked", reply)
        self.assertIn(b"4\r\nchun\r\n", reply)

    def test_transfer_codings_under_chunked_are_passed_on(self):
        t = f"origin.test:{self.http_port}"
        reply = raw(self.proxy.port, f"GET http://{t}/gzip-chunked HTTP/1.1\r\nHost: {t}\r\nConnection: close\r\n\r\n".encode())
        head, _, body = reply.partition(b"\r\n\r\n")
        self.assertEqual(status(head), 200, head)
        self.assertIn(b"\r\nTransfer-Encoding: gzip, chunked", head)
        data, rest = b"", body
        while True:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            data, rest = data + rest[:size], rest[size + 2:]
        self.assertEqual(gzip.decompress(data), b"zipped!")
        # An HTTP/1.0 client gets the data unchunked, still named as gzip.
        with socket.create_connection(("127.0.0.1", self.proxy.port), timeout=5) as s:
            s.sendall(f"GET http://{t}/gzip-chunked HTTP/1.0\r\n\r\n".encode())
            reply = read_until_close(s)
        head, _, body = reply.partition(b"\r\n\r\n")
        self.assertIn(b"\r\nTransfer-Encoding: gzip\r\n", head + b"\r\n")
        self.assertEqual(gzip.decompress(body), b"zipped!")

    def test_http10_client_keep_alive_with_content_length(self):
        t = f"origin.test:{self.http_port}"
        with socket.create_connection(("127.0.0.1", self.proxy.port), timeout=5) as s:
            for _ in range(2):
                s.sendall(f"GET http://{t}/x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".encode())
                code, head, body = read_response(s)
                self.assertEqual(code, 200, head)
                self.assertIn(b"Connection: keep-alive", head)
                self.assertIn(b"hello from origin.test", body)

    # -- refusals ---------------------------------------------------------------

    def test_refused_host_names_the_config_line(self):
        r = self.curl("-i", "http://elsewhere.test/")
        self.assertIn("403 Forbidden", r.stdout)
        self.assertIn("X-Corral-Error: not-allowed", r.stdout)
        self.assertIn("'elsewhere.test' to network.allowed_domains", r.stdout)
        r = self.curl("-i", "--cacert", self.ca, f"https://other.test:{self.https_port}/")
        self.assertNotEqual(r.returncode, 0)
        line = [l for l in self.proxy.lines() if l["host"] == "other.test"][-1]
        self.assertEqual(line["decision"], "deny")
        self.assertIn("denied_domains", line["reason"])
        for key in ("time", "client", "method", "host", "port", "address", "decision", "reason",
                    "bytes_up", "bytes_down", "duration_ms"):
            self.assertIn(key, line)

    def test_ip_literals_in_every_spelling(self):
        p = self.http_port
        for host in ("127.0.0.2", "2130706434", "0x7f000002", "0177.0.0.2", "127.2", "0x7f.2",
                     "[::ffff:127.0.0.2]", "[::ffff:7f00:2]", "127.0.0.2.", "１２７.０.０.２"):
            for req in (f"CONNECT {host}:{p} HTTP/1.1\r\nHost: {host}:{p}\r\n\r\n",
                        f"GET http://{host}:{p}/ HTTP/1.1\r\nHost: {host}:{p}\r\n\r\n"):
                reply = raw(self.proxy.port, req.encode())
                self.assertIn(status(reply), (400, 403), f"{host}: {reply[:200]!r}")

    def test_private_and_local_answers_refused(self):
        for name in ("metadata.test", "private.test", "self.test"):
            reply = raw(self.proxy.port,
                        f"GET http://{name}:{self.http_port}/ HTTP/1.1\r\nHost: {name}:{self.http_port}\r\n\r\n".encode())
            self.assertEqual(status(reply), 403, reply)
            self.assertIn(b"X-Corral-Error: address-refused", reply)
            self.assertIn(b"network.allow_addresses", reply)

    def test_hosts_names_refused_until_allow_address(self):
        flags = ["--hosts", self.hosts, "--allow", f"origin.test:{self.http_port}"]
        closed = Proxy(self.d, *flags)
        try:
            r = subprocess.run(["curl", "-sS", "-i", "-x", closed.url, f"http://origin.test:{self.http_port}/"],
                               capture_output=True, text=True)
            self.assertIn("403", r.stdout)
            self.assertIn("--allow-address 127.0.0.2", r.stdout)
        finally:
            closed.stop()
        opened = Proxy(self.d, *flags, "--allow-address", "127.0.0.0/30")
        try:
            r = subprocess.run(["curl", "-sS", "-x", opened.url, f"http://origin.test:{self.http_port}/"],
                               capture_output=True, text=True)
            self.assertIn("hello from origin.test", r.stdout)
        finally:
            opened.stop()

    # -- hostile requests -------------------------------------------------------

    def test_hostile_requests_get_400(self):
        t = f"origin.test:{self.http_port}"
        cases = {
            "CL+TE": f"POST http://{t}/echo HTTP/1.1\r\nHost: {t}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "TE obfuscated": f"POST http://{t}/echo HTTP/1.1\r\nHost: {t}\r\nTransfer-Encoding: xchunked\r\n\r\n",
            "TE space": f"POST http://{t}/echo HTTP/1.1\r\nHost: {t}\r\nTransfer-Encoding : chunked\r\n\r\n",
            "two CL": f"POST http://{t}/echo HTTP/1.1\r\nHost: {t}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            "obs-fold": f"GET http://{t}/ HTTP/1.1\r\nHost: {t}\r\nX: a\r\n b\r\n\r\n",
            "dup host": f"GET http://{t}/ HTTP/1.1\r\nHost: {t}\r\nHost: evil.test\r\n\r\n",
            "host mismatch": f"GET http://{t}/ HTTP/1.1\r\nHost: evil.test\r\n\r\n",
            "connect host mismatch": f"CONNECT secure.test:{self.https_port} HTTP/1.1\r\nHost: evil.test:443\r\n\r\n",
            "CR in CONNECT": f"CONNECT secure.test:{self.https_port}\rHost: x HTTP/1.1\r\nHost: secure.test\r\n\r\n",
            "LF in CONNECT": f"CONNECT secure.test:{self.https_port}\nX: y HTTP/1.1\r\nHost: secure.test\r\n\r\n",
            "encoded CRLF": f"CONNECT secure.test%0d%0a:{self.https_port} HTTP/1.1\r\n\r\n",
            "bare LF": f"GET http://{t}/ HTTP/1.1\nHost: {t}\n\n",
            "origin-form": f"GET / HTTP/1.1\r\nHost: {t}\r\n\r\n",
            "https scheme": f"GET https://{t}/ HTTP/1.1\r\nHost: {t}\r\n\r\n",
            "userinfo": f"GET http://user@{t}/ HTTP/1.1\r\nHost: {t}\r\n\r\n",
            "userinfo trick": f"GET http://evil.test@{t}/ HTTP/1.1\r\nHost: {t}\r\n\r\n",
            "h2 preface": "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
            "NUL": f"GET http://{t}/ HTTP/1.1\r\nHost: {t}\r\nX: a\x00b\r\n\r\n",
            "version": f"GET http://{t}/ HTTP/9.9\r\nHost: {t}\r\n\r\n",
            "zone id": "CONNECT [fe80::1%25lo]:443 HTTP/1.1\r\n\r\n",
            "no port": "CONNECT secure.test HTTP/1.1\r\nHost: secure.test\r\n\r\n",
            # A leading zero is octal to some parsers: 400, not "443 is not allowed" (403).
            "leading zero port": "CONNECT secure.test:0443 HTTP/1.1\r\nHost: secure.test:0443\r\n\r\n",
            "leading zero port in URL": "GET http://origin.test:080/ HTTP/1.1\r\nHost: origin.test:080\r\n\r\n",
            "signed port": "CONNECT secure.test:+443 HTTP/1.1\r\nHost: secure.test:+443\r\n\r\n",
            "hex port": "CONNECT secure.test:0x1bb HTTP/1.1\r\nHost: secure.test:0x1bb\r\n\r\n",
            "empty port": "CONNECT secure.test: HTTP/1.1\r\nHost: secure.test:\r\n\r\n",
            "port past 65535": "CONNECT secure.test:65979 HTTP/1.1\r\nHost: secure.test:65979\r\n\r\n",
        }
        for name, req in cases.items():
            reply = raw(self.proxy.port, req.encode())
            self.assertEqual(status(reply), 400, f"{name}: {reply[:300]!r}")
            self.assertIn(b"X-Corral-Error:", reply, name)

    def test_smuggled_second_request_is_judged_alone(self):
        t = f"origin.test:{self.http_port}"
        smuggled = f"GET http://elsewhere.test/ HTTP/1.1\r\nHost: elsewhere.test\r\n\r\n"
        req = (f"POST http://{t}/echo HTTP/1.1\r\nHost: {t}\r\nContent-Length: 5\r\n\r\nhello" + smuggled)
        reply = raw(self.proxy.port, req.encode())
        self.assertTrue(reply.startswith(b"HTTP/1.1 200"), reply)
        self.assertIn(b"hello", reply)
        self.assertIn(b"HTTP/1.1 403", reply)
        self.assertIn(b"elsewhere.test", reply)

    def test_head_too_large_gets_431(self):
        t = f"origin.test:{self.http_port}"
        req = f"GET http://{t}/ HTTP/1.1\r\nHost: {t}\r\nX: {'a' * 70000}\r\n\r\n"
        self.assertEqual(status(raw(self.proxy.port, req.encode())), 431)

    def test_slowloris_gets_408_and_others_are_served(self):
        t = f"origin.test:{self.http_port}"
        slow = []
        for _ in range(50):
            s = socket.create_connection(("127.0.0.1", self.proxy.port), timeout=5)
            s.sendall(f"GET http://{t}/ HTTP/1.1\r\nHo".encode())
            slow.append(s)
        start = time.monotonic()
        r = self.curl(f"http://{t}/")
        self.assertIn("hello", r.stdout)
        self.assertLess(time.monotonic() - start, 1.0)
        reply = b""
        while True:
            chunk = slow[0].recv(4096)
            if not chunk:
                break
            reply += chunk
        self.assertEqual(status(reply), 408, reply)
        self.assertLess(time.monotonic() - start, 5)
        for s in slow:
            s.close()

    def test_tunnel_cap_gets_429(self):
        held = []
        try:
            got = None
            for _ in range(12):
                s = socket.create_connection(("127.0.0.1", self.proxy.port), timeout=5)
                t = f"origin.test:{self.http_port}"
                s.sendall(f"CONNECT {t} HTTP/1.1\r\nHost: {t}\r\n\r\n".encode())
                reply = s.recv(4096)
                held.append(s)
                if status(reply) == 429:
                    got = reply
                    break
            self.assertIsNotNone(got)
            self.assertIn(b"max_tunnels", got)
        finally:
            for s in held:
                s.close()


class ProxyLifecycle(unittest.TestCase):
    def test_token_reload_and_clean_shutdown(self):
        with tempfile.TemporaryDirectory() as d:
            http, port = origins.start_http(HTTP_IP)
            hosts = os.path.join(d, "hosts")
            with open(hosts, "w") as f:
                f.write(f"{HTTP_IP} origin.test\n")
            config = os.path.join(d, "config.yaml")
            with open(config, "w") as f:
                f.write(f"network:\n  allowed_domains: [nothing.test]\n  allow_addresses: ['{HTTP_IP}']\n")
            p = Proxy(d, "--hosts", hosts, "--token", "s3cret", config=config)
            try:
                url = f"http://origin.test:{port}/"
                r = subprocess.run(["curl", "-sS", "-i", "-x", p.url, url], capture_output=True, text=True)
                self.assertIn("407", r.stdout)
                authed = ["curl", "-sS", "-i", "-x", f"http://anyone:s3cret@127.0.0.1:{p.port}", url]
                self.assertIn("403", subprocess.run(authed, capture_output=True, text=True).stdout)
                with open(config, "w") as f:
                    f.write(f"network:\n  allowed_domains: ['origin.test:{port}']\n"
                            f"  allow_addresses: ['{HTTP_IP}']\n")
                p.proc.send_signal(signal.SIGHUP)
                for _ in range(50):
                    out = subprocess.run(authed, capture_output=True, text=True).stdout
                    if "200 OK" in out:
                        break
                    time.sleep(0.1)
                self.assertIn("hello from origin.test", out)
            finally:
                self.assertEqual(p.stop(), 0)
                http.shutdown()


if __name__ == "__main__":
    CORRAL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
