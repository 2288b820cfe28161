#!/usr/bin/env python3
"""A tiny smart-HTTP git server on loopback that saves each receive-pack
request body, so the test packs are what `git push` really sends.

usage: receive_pack_server.py BARE_REPO SAVE_DIR PORT_FILE
"""
import http.server
import os
import subprocess
import sys

repo, save_dir, port_file = sys.argv[1:4]
saved = 0


def pkt(line):
    data = line.encode()
    return b"%04x" % (len(data) + 4) + data


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, content_type, body):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if not self.path.endswith("info/refs?service=git-receive-pack"):
            self.send_error(404)
            return
        refs = subprocess.run(["git", "receive-pack", "--stateless-rpc", "--advertise-refs", repo],
                              check=True, capture_output=True).stdout
        self.reply("application/x-git-receive-pack-advertisement",
                   pkt("# service=git-receive-pack\n") + b"0000" + refs)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "") == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers["Content-Length"]))

    def do_POST(self):
        global saved
        if not self.path.endswith("/git-receive-pack"):
            self.send_error(404)
            return
        body = self.read_body()
        assert self.headers.get("Content-Encoding") is None, "gzip body not expected"
        saved += 1
        with open(os.path.join(save_dir, "body%d.bin" % saved), "wb") as f:
            f.write(body)
        result = subprocess.run(["git", "receive-pack", "--stateless-rpc", repo],
                                input=body, check=True, capture_output=True).stdout
        self.reply("application/x-git-receive-pack-result", result)


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(port_file, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
