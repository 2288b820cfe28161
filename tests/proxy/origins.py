"""Local origins for the proxy integration tests: plain HTTP, HTTPS, and git
over HTTPS (git http-backend behind lighttpd). Loopback only."""
import gzip
import http.server
import os
import socket
import ssl
import struct
import subprocess
import threading
import time


def run(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, **kw)


def make_certs(d, names):
    """A throwaway CA and one server certificate for `names`, with the openssl CLI."""
    ca_key, ca_crt = os.path.join(d, "ca.key"), os.path.join(d, "ca.crt")
    key, csr, crt = (os.path.join(d, n) for n in ("server.key", "server.csr", "server.crt"))
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("openssl", "req", "-x509", *ec, "-keyout", ca_key, "-out", ca_crt, "-days", "2",
        "-subj", "/CN=corral test CA")
    run("openssl", "req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=" + names[0])
    ext = os.path.join(d, "san.cnf")
    with open(ext, "w") as f:
        f.write("subjectAltName=" + ",".join("DNS:" + n for n in names) + "\n")
    run("openssl", "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial",
        "-out", crt, "-days", "2", "-extfile", ext)
    pem = os.path.join(d, "server.pem")
    with open(pem, "w") as f:
        f.write(open(crt).read() + open(key).read())
    return ca_crt, crt, key, pem


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, code, body, extra=()):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def do_GET(self):
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (b"chun", b"ked!"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        if self.path == "/chunked-big":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(200):
                part = bytes([97 + i % 26]) * (1 + i * 37 % 4000)
                self.wfile.write(b"%x;ext=%d\r\n%s\r\n" % (len(part), i, part))
            self.wfile.write(b"0\r\nX-Trailer: t\r\n\r\n")
            return
        if self.path == "/gzip-chunked":  # a transfer coding under chunked
            data = gzip.compress(b"zipped!")
            self.send_response(200)
            self.send_header("Transfer-Encoding", "gzip, chunked")
            self.end_headers()
            for part in (data[:5], data[5:]):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        if self.path == "/headers":
            text = "".join(f"{k}: {v}\n" for k, v in self.headers.items())
            return self._send(200, text.encode())
        self._send(200, b"hello from " + self.headers.get("Host", "?").encode())

    def do_POST(self):
        self._send(200, self._body())


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 1024
    daemon_threads = True
    tls_context = None

    def finish_request(self, request, client_address):
        # The TLS handshake runs on the connection's own thread, so a client
        # that never sends a ClientHello cannot block the accept loop.
        if self.tls_context:
            request.settimeout(10)
            try:
                request = self.tls_context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return
        self.RequestHandlerClass(request, client_address, self)


def start_http(bind, tls_context=None):
    server = Server((bind, 0), Handler)
    server.tls_context = tls_context
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


class StaleOrigin:
    """An origin that answers only the first request on each connection and
    then drops the connection when the next one arrives, without a byte of
    answer (with a FIN, or a reset for paths under /rst/): what a proxy sees
    when the origin closes an idle kept-alive connection just as the next
    request is on its way. Records (connection number, request line)."""

    def __init__(self, bind):
        self.sock = socket.socket()
        self.sock.bind((bind, 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.seen = []
        self.lock = threading.Lock()
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def requests(self, line):
        with self.lock:
            return [c for c, l in self.seen if l == line]

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
                number = self.connections
            threading.Thread(target=self._serve, args=(conn, number), daemon=True).start()

    def _serve(self, conn, number):
        conn.settimeout(10)
        data, answered = b"", 0
        try:
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, data = data.split(b"\r\n\r\n", 1)
                line = head.split(b"\r\n")[0].decode()
                length = 0
                for h in head.split(b"\r\n")[1:]:
                    name, _, value = h.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(data) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                body, data = data[:length], data[length:]
                with self.lock:
                    self.seen.append((number, line))
                if answered:
                    if " /rst/" in line:
                        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                answered += 1
                reply = f"fresh {line.split()[1]} on connection {number}".encode() + body
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(reply), reply))
        except OSError:
            pass
        finally:
            conn.close()

    def close(self):
        self.sock.close()


def free_port(bind):
    with socket.socket() as s:
        s.bind((bind, 0))
        return s.getsockname()[1]


def start_git(d, bind, pem, users=None):
    """A bare repository served over HTTPS by git http-backend behind lighttpd;
    with `users` ({name: password}), only to Basic credentials among them."""
    root = os.path.join(d, "git")
    work = os.path.join(d, "work")
    os.makedirs(root)
    run("git", "init", "-q", "-b", "main", work)
    with open(os.path.join(work, "README"), "w") as f:
        f.write("corral proxy test repository\n")
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    run("git", "-C", work, "add", "README", env=env)
    run("git", "-C", work, "commit", "-q", "-m", "first", env=env)
    run("git", "clone", "-q", "--bare", work, os.path.join(root, "repo.git"))
    port = free_port(bind)
    conf = os.path.join(d, "lighttpd.conf")
    auth = ""
    if users:
        with open(os.path.join(d, "git-users"), "w") as f:
            f.write("".join(f"{name}:{password}\n" for name, password in users.items()))
        auth = f'''
server.modules += ("mod_auth", "mod_authn_file")
auth.backend = "plain"
auth.backend.plain.userfile = "{d}/git-users"
auth.require = ("/git" => ("method" => "basic", "realm" => "git", "require" => "valid-user"))
'''
    with open(conf, "w") as f:
        f.write(f'''
server.modules = ("mod_alias", "mod_cgi", "mod_setenv", "mod_openssl")
server.document-root = "{root}"
server.bind = "{bind}"
server.port = {port}
server.errorlog = "{d}/lighttpd.err"
ssl.engine = "enable"
ssl.pemfile = "{pem}"
alias.url = ("/git" => "/usr/lib/git-core/git-http-backend")
$HTTP["url"] =~ "^/git" {{
  cgi.assign = ("" => "")
  setenv.add-environment = ("GIT_PROJECT_ROOT" => "{root}", "GIT_HTTP_EXPORT_ALL" => "1")
}}
''' + auth)
    proc = subprocess.Popen(["lighttpd", "-D", "-f", conf], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    for _ in range(100):
        try:
            socket.create_connection((bind, port), timeout=0.2).close()
            return proc, port
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("lighttpd did not start: " + proc.stderr.read().decode())
            time.sleep(0.05)
    raise RuntimeError("lighttpd did not listen")
