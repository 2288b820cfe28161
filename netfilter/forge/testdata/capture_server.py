# Runs git-http-backend as CGI on 127.0.0.1:PORT and saves each request body,
# response body and headers under OUT, named after OUT/scenario.txt.
#   capture_server.py PROJECT_ROOT OUT PORT
import http.server, os, subprocess, sys, itertools, gzip
ROOT = sys.argv[1]; OUT = sys.argv[2]; PORT = int(sys.argv[3])
counter = itertools.count()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                line = self.rfile.readline().strip()
                n = int(line.split(b";")[0], 16)
                if n == 0:
                    self.rfile.readline(); break
                data += self.rfile.read(n); self.rfile.readline()
            return data
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))
    def handle_one(self, method):
        body = self.read_body() if method == "POST" else b""
        if self.headers.get("Content-Encoding") == "gzip": body = gzip.decompress(body)
        path, _, query = self.path.partition("?")
        env = dict(os.environ, GIT_PROJECT_ROOT=ROOT, GIT_HTTP_EXPORT_ALL="1",
                   REQUEST_METHOD=method, PATH_INFO=path, QUERY_STRING=query,
                   CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(len(body)), REMOTE_USER="tester", REMOTE_ADDR="127.0.0.1")
        if self.headers.get("Git-Protocol"): env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run(["/usr/lib/git-core/git-http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, resp = out.partition(b"\r\n\r\n")
        n = next(counter)
        sc = open(os.path.join(OUT, "scenario.txt")).read().strip()
        tag = sc + "_" + f"{n:02d}_{method}_{path.rsplit('/',1)[-1]}_{query.replace('service=','')}"
        with open(os.path.join(OUT, tag + ".req"), "wb") as f: f.write(body)
        with open(os.path.join(OUT, tag + ".resp"), "wb") as f: f.write(resp)
        with open(os.path.join(OUT, tag + ".hdr"), "w") as f: f.write(str(self.headers) + "\n---\n" + head.decode())
        status = 200
        hdrs = []
        for l in head.split(b"\r\n"):
            k, _, v = l.decode().partition(":")
            if k.lower() == "status": status = int(v.strip().split()[0])
            else: hdrs.append((k, v.strip()))
        self.send_response(status)
        for k, v in hdrs: self.send_header(k, v)
        self.send_header("Content-Length", str(len(resp)))
        self.end_headers(); self.wfile.write(resp)
    def do_GET(self): self.handle_one("GET")
    def do_POST(self): self.handle_one("POST")
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
