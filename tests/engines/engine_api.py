"""An engine's HTTP API for the tests: a unix socket, or tcp with TLS client
certificates (a remote engine's), Docker's v1.41 paths (Podman answers them too)."""
import http.client
import json
import os
import socket
import ssl
from urllib.parse import quote


class Api:
    def __init__(self, url, cert_path=None):
        self.url, self.cert_path = url, cert_path

    def _conn(self, timeout):
        if self.url.startswith("unix://"):
            path = self.url[len("unix://"):]

            class Unix(http.client.HTTPConnection):
                def connect(self):
                    self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    self.sock.settimeout(timeout)
                    self.sock.connect(path)
            return Unix("localhost", timeout=timeout)
        host, port = self.url[len("tcp://"):].rsplit(":", 1)
        context = ssl.create_default_context(cafile=os.path.join(self.cert_path, "ca.pem"))
        context.load_cert_chain(os.path.join(self.cert_path, "cert.pem"),
                                os.path.join(self.cert_path, "key.pem"))
        return http.client.HTTPSConnection(host, int(port), context=context, timeout=timeout)

    def call(self, method, path, body=None, raw=None, content_type="application/json",
             timeout=60):
        """(status, bytes) of one request; `body` is sent as JSON, `raw` as is."""
        conn = self._conn(timeout)
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        conn.request(method, "/v1.41" + path, body=data, headers={"Content-Type": content_type})
        response = conn.getresponse()
        out = response.read()
        conn.close()
        return response.status, out

    def json(self, path):
        """(status, parsed JSON) of a GET; the bytes when the status is not 200."""
        status, data = self.call("GET", path)
        return status, (json.loads(data) if status == 200 else data)

    def logs(self, container):
        """Both output streams of a container without a TTY, as text."""
        _, raw = self.call("GET", f"/containers/{container}/logs?stdout=1&stderr=1")
        return demux(raw)

    def session_objects(self, session):
        """Names of what the engine still has of this session."""
        found = []
        label = quote(json.dumps({"label": [f"corral.session={session}"]}))
        status, data = self.call("GET", "/containers/json?all=1&filters=" + label)
        found += [c["Names"][0] for c in json.loads(data)] if status == 200 else ["?containers"]
        status, data = self.call("GET", "/networks?filters=" + label)
        found += [n["Name"] for n in json.loads(data)] if status == 200 else ["?networks"]
        status, data = self.call("GET", "/volumes?filters=" + label)
        found += ([v["Name"] for v in (json.loads(data).get("Volumes") or [])]
                  if status == 200 else ["?volumes"])
        return found


def demux(raw):
    """Both streams of a stream without a TTY (8-byte frame headers), as text."""
    text, i = b"", 0
    while i + 8 <= len(raw):
        size = int.from_bytes(raw[i + 4:i + 8], "big")
        text += raw[i + 8:i + 8 + size]
        i += 8 + size
    return text.decode(errors="replace")
