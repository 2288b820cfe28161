"""A forge of the tests' own, for the forge scope's tests (tests/forge/):
git http-backend run as a CGI behind an HTTPS server for the name
git.forge.test, with a test CA made by the openssl CLI.

Used by forge_git_test.py (a `corral proxy` on this machine) and
forge_session_test.py (whole boxed sessions)."""
import base64
import http.server
import json
import os
import socket
import signal
import ssl
import subprocess
import threading
import time
import urllib.parse

HOST = "git.forge.test"
HTTP_BACKEND = "/usr/lib/git-core/git-http-backend"
COMMITTER = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
             "GIT_COMMITTER_EMAIL": "t@t"}


def run(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def make_certs(d, host=HOST):
    """A test CA and a leaf certificate for `host`, with the openssl CLI."""
    ca_key, ca_crt = os.path.join(d, "ca.key"), os.path.join(d, "ca.pem")
    key, csr, crt = (os.path.join(d, n) for n in ("leaf.key", "leaf.csr", "leaf.pem"))
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("openssl", "req", "-x509", *ec, "-keyout", ca_key, "-out", ca_crt, "-days", "2",
        "-subj", "/CN=corral forge test CA")
    run("openssl", "req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=" + host)
    ext = os.path.join(d, "leaf.cnf")
    with open(ext, "w") as f:
        f.write(f"subjectAltName=DNS:{host}\nextendedKeyUsage=serverAuth\n")
    run("openssl", "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial",
        "-out", crt, "-days", "2", "-extfile", ext)
    return ca_crt, crt, key


def basic_credentials(header):
    """(user, password) from a Basic Authorization header, or None."""
    if not header or not header.lower().startswith("basic "):
        return None
    try:
        user, _, password = base64.b64decode(header[6:].strip()).decode().partition(":")
    except (ValueError, UnicodeDecodeError):
        return None
    return user, password


def read_text(path):
    """A file's text, "" when it is not there."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


# ------------------------------------------------------------------ the forge


class IncompleteBody(Exception):
    pass


class ForgeServer(http.server.ThreadingHTTPServer):
    """HTTPS (and, on the same port, plain HTTP: the first byte tells) in front
    of git http-backend, one thread per connection, keep-alive, on 127.0.0.1.
    It serves the bare repositories ROOT/OWNER/NAME.git, records each request
    (`seen`: method, path, Authorization, status, whether its body arrived
    whole) and answers 401 where `authorize` says no."""
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, root, home, tls_context, authorize):
        super().__init__(("127.0.0.1", 0), ForgeHandler)
        self.root, self.home, self.tls_context = root, home, tls_context
        # authorize(owner, name, write, credentials) -> bool: may this request
        # go on (else 401)? owner and name lower case, name without .git;
        # credentials (user, password) from Basic, or None.
        self.authorize = authorize
        self.port = self.server_address[1]
        self.lock = threading.Condition()
        self.seen = []
        self.active = 0

    def finish_request(self, request, client_address):
        request.settimeout(20)
        try:
            tls = request.recv(1, socket.MSG_PEEK) == b"\x16"
            if tls:
                request = self.tls_context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        try:
            self.RequestHandlerClass(request, client_address, self)
        finally:
            if tls:  # the wrapped socket is its own object: socketserver closes the raw one
                request.close()

    def record(self, entry):
        with self.lock:
            self.seen.append(entry)
            self.active += 1

    def done(self):
        with self.lock:
            self.active -= 1
            self.lock.notify_all()

    def mark(self):
        with self.lock:
            return len(self.seen)

    def since(self, mark):
        """The requests seen since `mark`, once none is being served."""
        with self.lock:
            if not self.lock.wait_for(lambda: self.active == 0, timeout=30):
                raise AssertionError("the forge is still serving: %r" % self.seen[mark:])
            return [dict(e) for e in self.seen[mark:]]


class ForgeHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        entry = {"method": self.command, "path": self.path,
                 "auth": self.headers.get("Authorization"),
                 "tls": isinstance(self.connection, ssl.SSLSocket), "complete": None, "status": None,
                 "chunked": "chunked" in self.headers.get("Transfer-Encoding", "").lower(),
                 "bytes": 0}
        self.server.record(entry)
        started = time.monotonic()
        try:
            self.serve(entry)
        finally:
            entry["seconds"] = round(time.monotonic() - started, 2)
            self.server.done()

    do_POST = do_HEAD = do_GET

    # -- the request

    def body_pieces(self):
        """The request body, de-chunked, as it arrives; IncompleteBody when
        the peer stops before its framing says the body ends."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            while True:
                line = self.rfile.readline(1024)
                if not line.endswith(b"\n"):
                    raise IncompleteBody()
                size = int(line.split(b";")[0].strip() or b"x", 16)
                if size == 0:
                    while True:
                        trailer = self.rfile.readline(8192)
                        if not trailer.endswith(b"\n"):
                            raise IncompleteBody()
                        if trailer in (b"\r\n", b"\n"):
                            return
                yield from self.exactly(size)
                if self.rfile.readline(16) not in (b"\r\n", b"\n"):
                    raise IncompleteBody()
        else:
            yield from self.exactly(int(self.headers.get("Content-Length") or 0))

    def exactly(self, left):
        while left:
            data = self.rfile.read(min(left, 1 << 16))
            if not data:
                raise IncompleteBody()
            left -= len(data)
            yield data

    def drain(self):
        try:
            for _ in self.body_pieces():
                pass
            return True
        except (IncompleteBody, OSError, ValueError):
            return False

    def answer(self, entry, status, body, headers=()):
        entry["status"] = status
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    # -- the forge

    def serve(self, entry):
        url = urllib.parse.urlsplit(self.path)
        # Resolved as a forge would: empty and dot segments, then %-escapes.
        segments = []
        for raw in url.path.split("/"):
            if raw in ("", "."):
                continue
            if raw == "..":
                if segments:
                    segments.pop()
                continue
            segments.append(urllib.parse.unquote(raw))
        if len(segments) < 2:
            entry["complete"] = self.drain()
            return self.answer(entry, 404, b"not a repository\n")
        owner, name = segments[0].lower(), segments[1].lower()
        if name.endswith(".git"):
            name = name[:-4]
        rest = segments[2:]
        repo_dir = os.path.join(self.server.root, owner, name + ".git")
        if rest == ["echo-auth"]:  # a page that shows the box what the forge saw
            entry["complete"] = self.drain()
            creds = basic_credentials(entry["auth"])
            text = f"credentials seen: {creds[0]}:{creds[1]}\n" if creds else "no credentials\n"
            return self.answer(entry, 200, text.encode(), [("Content-Type", "text/plain")])
        if not os.path.isdir(repo_dir):
            entry["complete"] = self.drain()
            return self.answer(entry, 404, b"no such repository\n")
        write = rest == ["git-receive-pack"] or "service=git-receive-pack" in url.query
        creds = basic_credentials(entry["auth"])
        if not self.server.authorize(owner, name, write, creds):
            entry["complete"] = self.drain()
            return self.answer(entry, 401, b"authentication required\n",
                               [("WWW-Authenticate", 'Basic realm="forge"')])
        self.cgi(entry, f"/{owner}/{name}.git/" + "/".join(rest), url.query,
                 creds[0] if creds else None)

    def cgi(self, entry, path_info, query, remote_user):
        env = {"PATH": os.environ["PATH"], "HOME": self.server.home, "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_PROJECT_ROOT": self.server.root, "GIT_HTTP_EXPORT_ALL": "1",
               "GATEWAY_INTERFACE": "CGI/1.1", "SERVER_PROTOCOL": "HTTP/1.1",
               "REQUEST_METHOD": self.command, "PATH_INFO": path_info, "QUERY_STRING": query,
               "REMOTE_ADDR": self.client_address[0],
               "CONTENT_TYPE": self.headers.get("Content-Type", "")}
        if remote_user:
            env["REMOTE_USER"] = remote_user
        # The body goes de-framed, with no CONTENT_LENGTH: http-backend reads
        # its input to the end, so a body cut short is an early end of input.
        # (With CONTENT_LENGTH, git 2.39's http-backend spins forever on one.)
        for key, value in self.headers.items():
            if key.lower() not in ("authorization", "proxy-authorization", "content-type",
                                   "content-length", "transfer-encoding"):
                env["HTTP_" + key.upper().replace("-", "_")] = value
        proc = subprocess.Popen([HTTP_BACKEND], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
        state = {"complete": True}

        def feed():
            stdin_open = True
            try:
                for piece in self.body_pieces():
                    entry["bytes"] += len(piece)
                    if stdin_open:
                        try:
                            proc.stdin.write(piece)
                        except BrokenPipeError:
                            stdin_open = False  # it answered without the body; keep reading it
            except (IncompleteBody, OSError, ValueError) as e:
                state["complete"] = False
                state["why"] = repr(e)
            finally:
                try:
                    proc.stdin.close()
                except BrokenPipeError:
                    pass

        output = {}
        threads = [threading.Thread(target=feed),
                   threading.Thread(target=lambda: output.update(out=proc.stdout.read())),
                   threading.Thread(target=lambda: output.update(err=proc.stderr.read()))]
        for thread in threads:
            thread.start()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            entry["cgi_killed"] = True
        for thread in threads:
            thread.join()
        proc.stdout.close()
        proc.stderr.close()
        out = output.get("out", b"")
        entry["complete"] = state["complete"]
        entry["why"] = state.get("why")
        entry["cgi_exit"] = proc.returncode
        entry["cgi_stderr"] = output.get("err", b"").decode("utf-8", "replace")[-500:]
        if not state["complete"]:
            # The body never ended: a server has nobody to answer.
            self.close_connection = True
            return
        head, sep, body = out.partition(b"\r\n\r\n")
        if not sep:
            head, sep, body = out.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.split()[0])
            elif key:
                headers.append((key.strip(), value.strip()))
        self.answer(entry, status, body, headers)


def start_forge(root, home, cert, key, authorize):
    """A ForgeServer for ROOT with the leaf certificate CERT/KEY, serving on a
    thread of its own; stop it with .shutdown() and .server_close()."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    server = ForgeServer(root, home, ctx, authorize)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def seed_repository(seed_dir, bare, commits, branches=(), env=None):
    """A bare repository BARE (pushes enabled for http-backend), made from a
    work tree SEED_DIR with a commit per message in COMMITS on main, each
    appending to file.txt, and a branch per (name, message) of BRANCHES off
    main's tip, each adding NAME.txt."""
    env = env or dict(os.environ, GIT_CONFIG_NOSYSTEM="1", **COMMITTER)
    run("git", "init", "-q", "-b", "main", seed_dir, env=env)
    for i, message in enumerate(commits):
        with open(os.path.join(seed_dir, "file.txt"), "a") as f:
            f.write(f"{bare} {message} {i}\n")
        run("git", "-C", seed_dir, "add", "file.txt", env=env)
        run("git", "-C", seed_dir, "commit", "-qm", message, env=env)
    for branch, message in branches:
        run("git", "-C", seed_dir, "checkout", "-qb", branch, env=env)
        with open(os.path.join(seed_dir, branch + ".txt"), "w") as f:
            f.write(message + "\n")
        run("git", "-C", seed_dir, "add", branch + ".txt", env=env)
        run("git", "-C", seed_dir, "commit", "-qm", message, env=env)
        run("git", "-C", seed_dir, "checkout", "-q", "main", env=env)
    run("git", "clone", "-q", "--bare", seed_dir, bare, env=env)
    run("git", "--git-dir", bare, "config", "http.receivepack", "true", env=env)


class Proxy:
    """One `corral proxy` for a forge on `host`:`server_port`; stopped with SIGTERM."""

    def __init__(self, corral, d, name, forge_config, logins_file, server_port, upstream_ca,
                 watched=False, host=HOST, extra=(), config=None):
        """forge_config or logins_file None: no --forge-file, no --logins-file.
        `extra`: more of `corral proxy`'s flags; `config`: a config file's
        text, given as `corral --config FILE proxy`."""
        self.dir = os.path.join(d, name)
        for sub in ("home", "config", "state"):
            os.makedirs(os.path.join(self.dir, sub))
        self.log = os.path.join(self.dir, "decisions.jsonl")
        self.session_ca = os.path.join(self.dir, "session-ca.pem")
        args = [corral]
        if config is not None:
            config_file = os.path.join(self.dir, "config.yaml")
            with open(config_file, "w") as f:
                f.write(config)
            args += ["--config", config_file]
        args += ["proxy", "--listen", "127.0.0.1:0", "--log", self.log, "--threads", "2",
                 "--hosts-line", f"127.0.0.1 {host}", "--allow", f"{host}:{server_port}",
                 "--allow-address", "127.0.0.1", "--upstream-ca-file", upstream_ca,
                 "--ca-cert-out", self.session_ca]
        if logins_file is not None:
            args += ["--logins-file", logins_file]
        if forge_config is not None:
            forge_file = os.path.join(self.dir, "forge.json")
            with open(forge_file, "w") as f:
                json.dump(forge_config, f)
            args += ["--forge-file", forge_file]
        if watched:
            args.append("--watched")
        args += list(extra)
        env = {"PATH": os.environ["PATH"], "HOME": os.path.join(self.dir, "home"),
               "XDG_CONFIG_HOME": os.path.join(self.dir, "config"),
               "XDG_STATE_HOME": os.path.join(self.dir, "state")}
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.stderr = []
        while True:
            line = self.proc.stderr.readline()
            if not line:
                self.proc.wait()
                raise RuntimeError("corral proxy did not start:\n" + "".join(self.stderr))
            self.stderr.append(line)
            if "listening on" in line:
                break
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.drain = threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr),
                                      daemon=True)
        self.drain.start()
        deadline = time.monotonic() + 10
        while not os.path.exists(self.session_ca) and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.drain.join(timeout=10)
        self.proc.stderr.close()

    def lines(self):
        try:
            with open(self.log) as f:
                return [json.loads(l) for l in f if l.strip()]
        except FileNotFoundError:
            return []

    def memory_kib(self, field):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise AssertionError(f"no {field} in /proc/{self.proc.pid}/status")


# ------------------------------------------------------------------ the test
