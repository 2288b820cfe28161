#!/usr/bin/env python3
"""The network mode's pieces on a real engine (docs/network-mode.md), through
`corral network-mode up|down SESSION` (hidden: no session uses them yet).

`up` makes an internal network, a network with a way out, a session volume
filled by PUT archive into a container that is never started, and the proxy
sidecar (the corral image running `corral proxy`) on both networks. A probe
container on the internal network only, with the session volume read-only at
/run/corral (as the agent will have it), finds the shim, corral-shell's names
and the deny list there; reaches the sidecar by its alias (a 403 for an
unlisted host, from the proxy); has no default route and cannot reach the
outside network's gateway. `down` removes everything; an `up` that fails (no
such image) leaves nothing behind and says so in one line, exit 125.

Usage: network_mode_test.py docker|podman CORRAL SHIM SHELL
       network_mode_test.py --url tcp://HOST:PORT CORRAL SHIM SHELL  (with DOCKER_TLS_VERIFY,
       DOCKER_CERT_PATH: a remote engine; remote_engines_test.py uses prove())
"""
import http.client
import json
import os
import secrets
import socket
import ssl
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engines"))

RESULTS = {"pass": 0, "fail": 0}


def gap_or_check(ok, what, detail=""):
    """A promise the engine does not keep here: with CORRAL_NETWORK_MODE_STRICT=1 a
    failure, else a GAP line (docs/network-mode.md says which and why)."""
    if ok or os.environ.get("CORRAL_NETWORK_MODE_STRICT") == "1":
        check(ok, what, detail)
        return
    RESULTS["gap"] = RESULTS.get("gap", 0) + 1
    print(f"GAP  {what}: not so on this engine", flush=True)


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + what + ("" if ok else f"  [{str(detail)[-1500:]}]"),
          flush=True)


class Api:
    """The engine's HTTP API over a unix socket or tcp with TLS client certificates."""

    def __init__(self, url, cert_path=None):
        self.url, self.cert_path = url, cert_path

    def _conn(self):
        if self.url.startswith("unix://"):
            path = self.url[len("unix://"):]

            class Unix(http.client.HTTPConnection):
                def connect(self):
                    self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    self.sock.connect(path)
            return Unix("localhost", timeout=60)
        host, port = self.url[len("tcp://"):].rsplit(":", 1)
        context = ssl.create_default_context(cafile=os.path.join(self.cert_path, "ca.pem"))
        context.load_cert_chain(os.path.join(self.cert_path, "cert.pem"),
                                os.path.join(self.cert_path, "key.pem"))
        return http.client.HTTPSConnection(host, int(port), context=context, timeout=60)

    def call(self, method, path, body=None, raw=None, content_type="application/json"):
        conn = self._conn()
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        conn.request(method, "/v1.41" + path, body=data, headers={"Content-Type": content_type})
        response = conn.getresponse()
        out = response.read()
        conn.close()
        return response.status, out

    def json(self, path):
        status, data = self.call("GET", path)
        return status, (json.loads(data) if status == 200 else data)

    def exec_output(self, container, command):
        """A command run in a running container, its output (both streams)."""
        status, data = self.call("POST", f"/containers/{container}/exec",
                                 {"AttachStdout": True, "AttachStderr": True, "Cmd": command})
        if status != 201:
            return f"exec failed: {status} {data[:200]!r}"
        _, raw = self.call("POST", f"/exec/{json.loads(data)['Id']}/start",
                           {"Detach": False, "Tty": False})
        return demux(raw)

    def logs(self, container):
        _, raw = self.call("GET", f"/containers/{container}/logs?stdout=1&stderr=1")
        return demux(raw)


def demux(raw):
    """Both streams of a stream without a TTY (8-byte frame headers)."""
    text, i = b"", 0
    while i + 8 <= len(raw):
        size = int.from_bytes(raw[i + 4:i + 8], "big")
        text += raw[i + 8:i + 8 + size]
        i += 8 + size
    return text.decode(errors="replace")


PROBE = r"""
echo "shim $(wc -c < /run/corral/bin/corral-shim)"
echo "shell $(wc -c < /run/corral/bin/corral-shell)"
echo "sh-link $(readlink /run/corral/bin/sh)"
echo "deny $(grep -c . /run/corral/deny-list)"
echo "relay-owner $(stat -c %u /run/corral/relay 2>/dev/null || ls -lnd /run/corral/relay | awk '{print $3}')"
if touch /run/corral/x 2>/dev/null; then echo volume-writable; else echo volume-read-only; fi
awk 'NR > 1 { print "route " $1 " " $2 " " $3 " " $8 }' /proc/net/route
curl -s -m 5 -o /dev/null -w 'proxy: %{http_code}\n' -x "$http_proxy" http://unlisted.test/
curl -s -m 5 -o /dev/null -w 'alias: %{http_code}\n' -x ALIAS http://unlisted.test/
timeout 3 bash -c 'exec 3<>/dev/tcp/GATEWAY/80' 2>&1 | sed 's/^.*: /direct: /'
echo "direct: exit ${PIPESTATUS[0]}"
echo probe-done
"""


def run_probe(api, names, image):
    status, outside = api.json(f"/networks/{names['outside_network']}")
    gateway = ""
    if status == 200:
        for config in (outside.get("IPAM") or {}).get("Config") or []:
            gateway = config.get("Gateway") or gateway
        if not gateway:  # Podman's compat answer: the subnet's first address
            for config in (outside.get("IPAM") or {}).get("Config") or []:
                subnet = config.get("Subnet", "")
                if subnet.count(".") == 3:
                    a, b, c, _ = subnet.split("/")[0].split(".")
                    gateway = f"{a}.{b}.{c}.1"
    script = PROBE.replace("GATEWAY", gateway or "10.255.255.1").replace(
        "ALIAS", names["proxy_by_alias"])
    body = {"Image": image, "Cmd": ["bash", "-c", script],
            "Env": [f"http_proxy={names['proxy']}"], "User": "1000:1000",
            "HostConfig": {"NetworkMode": names["inside_network"], "CapDrop": ["ALL"],
                           "Mounts": [{"Type": "volume", "Source": names["session_volume"],
                                       "Target": "/run/corral", "ReadOnly": True}]}}
    status, data = api.call("POST", "/containers/create", body)
    if status != 201:
        return f"probe create failed: {status} {data[:300]!r}", gateway
    probe = json.loads(data)["Id"]
    api.call("POST", f"/containers/{probe}/start")
    api.call("POST", f"/containers/{probe}/wait")
    text = api.logs(probe)
    api.call("DELETE", f"/containers/{probe}?force=1")
    return text, gateway


def prove(label, api, corral, corral_args, env, shim, shell, probe_image, corral_image):
    """Every check against one engine; `corral_args` name it (--engine, TLS flags)."""
    session = secrets.token_hex(6)
    started = time.monotonic()
    r = subprocess.run([corral, "network-mode", "up", session, *corral_args, "--image", corral_image,
                        "--shim", shim, "--shell", shell, "--allow", "origin.test"],
                       capture_output=True, text=True, env=env, timeout=180)
    check(r.returncode == 0, f"{label}: network-mode up ({time.monotonic() - started:.1f} s)",
          r.stdout + r.stderr)
    if r.returncode != 0:
        return
    names = json.loads(r.stdout)
    _, inside = api.json(f"/networks/{names['inside_network']}")
    _, outside = api.json(f"/networks/{names['outside_network']}")
    check(isinstance(inside, dict) and inside.get("Internal") is True,
          f"{label}: the agent's network is internal", inside)
    check(isinstance(outside, dict) and not outside.get("Internal"),
          f"{label}: the way-out network is not", outside)
    check(isinstance(inside, dict) and (inside.get("Labels") or {}).get("corral.session") == session,
          f"{label}: the networks carry the session's label", inside)
    status, volume = api.json(f"/volumes/{names['session_volume']}")
    check(status == 200, f"{label}: the session volume exists", volume)
    sidecar = None
    for _ in range(50):
        status, sidecar = api.json(f"/containers/{names['sidecar']}/json")
        if status == 200 and sidecar["State"].get("Running"):
            break
        time.sleep(0.2)
    running = status == 200 and sidecar["State"].get("Running")
    check(running, f"{label}: the sidecar runs", sidecar)
    if running:
        networks = sidecar["NetworkSettings"]["Networks"]
        check(set(networks) >= {names["inside_network"], names["outside_network"]},
              f"{label}: the sidecar is on both networks", list(networks))
        status_1 = api.exec_output(names["sidecar"], ["cat", "/proc/1/status"])
        inside = {l.split(":")[0]: l.split(":", 1)[1].strip() for l in status_1.splitlines()
                  if ":" in l}
        check(inside.get("CapEff") == "0000000000000000" and inside.get("NoNewPrivs") == "1" and
              inside.get("Uid", "").split()[:1] == ["65534"] and
              sidecar["HostConfig"]["ReadonlyRootfs"],
              f"{label}: the proxy runs as nobody with no capabilities, no-new-privileges and a "
              "read-only root (seen from inside)", status_1[-600:])
        check("--allow" in sidecar["Args"] and "origin.test" in sidecar["Args"],
              f"{label}: the sidecar runs the session's list", sidecar["Args"])
        check(not any(m.get("Type") == "bind" for m in sidecar.get("Mounts", [])),
              f"{label}: no host folder is mounted into the sidecar", sidecar.get("Mounts"))
    text, gateway = run_probe(api, names, probe_image)
    lines = text.splitlines()
    check(f"shim {os.path.getsize(shim)}" in lines, f"{label}: the shim is in the volume", text)
    check(f"shell {os.path.getsize(shell)}" in lines, f"{label}: corral-shell is in the volume",
          text)
    check("sh-link corral-shell" in lines, f"{label}: the shell names link to corral-shell", text)
    check(any(l.startswith("deny ") and l != "deny 0" for l in lines),
          f"{label}: the deny list's copy is in the volume", text)
    check("relay-owner 65534" in lines, f"{label}: relay/ belongs to the sidecar's user", text)
    check("volume-read-only" in lines, f"{label}: the agent cannot write the session volume", text)
    # Whether the agent's network is cut off is the engine's doing: Docker enforces
    # Internal with iptables rules (the test dockerd runs --iptables=false) and gives
    # the container a default route to the bridge, i.e. to the engine's host.
    routes = [l for l in lines if l.startswith("route ")]
    default = any(l.split()[2] == "00000000" for l in routes)
    direct = [l for l in lines if l.startswith("direct: ")]
    reached = any("refused" in l for l in direct) or "direct: exit 0" in direct
    gap_or_check(not default, f"{label}: the agent's network has no default route", text)
    check("proxy: 403" in lines,
          f"{label}: the sidecar answers at {names['proxy']} (403 for an unlisted host)", text)
    alias = next((l for l in lines if l.startswith("alias: ")), "alias: none")
    print(f"INFO {label}: the sidecar by its alias {names['proxy_by_alias']}: {alias[7:]} "
          "(000: the engine's network resolves no names)", flush=True)
    gap_or_check(bool(gateway) and direct and not reached and "probe-done" in lines,
                 f"{label}: the outside network's gateway {gateway} cannot be reached from the "
                 "agent's network", text)
    variant(label, api, names, probe_image)
    relay(label, api, names, probe_image, corral)
    r = subprocess.run([corral, "network-mode", "down", session, *corral_args],
                       capture_output=True, text=True, env=env, timeout=120)
    check(r.returncode == 0, f"{label}: network-mode down", r.stdout + r.stderr)
    gone = [api.call("GET", p)[0] for p in (f"/networks/{names['inside_network']}",
                                            f"/networks/{names['outside_network']}",
                                            f"/volumes/{names['session_volume']}",
                                            f"/containers/{names['sidecar']}/json")]
    check(gone == [404] * 4, f"{label}: down removed the networks, the volume and the sidecar", gone)
    # A failing up (no such image) says so in one line, exit 125, and leaves nothing.
    session = secrets.token_hex(6)
    r = subprocess.run([corral, "network-mode", "up", session, *corral_args, "--image",
                        "corral-no-such-image:0", "--shim", shim, "--shell", shell],
                       capture_output=True, text=True, env=env, timeout=120)
    errors = [l for l in r.stderr.splitlines() if l.strip()]
    check(r.returncode == 125 and len(errors) == 1, f"{label}: a failing up exits 125 in one line",
          r.stderr)
    left = [api.call("GET", p)[0] for p in (f"/networks/corral-{session}-inside",
                                            f"/networks/corral-{session}-outside",
                                            f"/volumes/corral-{session}-session")]
    check(left == [404] * 3, f"{label}: a failing up leaves nothing behind", left)
    reaped(label, api, corral, corral_args, env, shim, shell, corral_image)


def variant(label, api, names, image):
    """The variant in docs/network-mode.md: a second `corral proxy` in the sidecar on a unix
    socket in relay/, reached from a box with NO network through the shared volume. The
    proxy makes its socket 0600, so the probe runs as the sidecar's uid (65534) here."""
    status, data = api.call("POST", f"/containers/{names['sidecar']}/exec",
                            {"Cmd": ["/usr/bin/corral", "proxy", "--listen",
                                     "unix:/run/corral/relay/proxy.sock", "--allow", "origin.test",
                                     "--log", "none"]})
    if status == 201:
        api.call("POST", f"/exec/{json.loads(data)['Id']}/start", {"Detach": True, "Tty": False})
    script = ("for i in $(seq 50); do [ -S /run/corral/relay/proxy.sock ] && break; sleep 0.1; done; "
              "ip -o link 2>/dev/null | wc -l | sed 's/^/links: /'; "
              "curl -s -m 5 -o /dev/null -w 'unix-proxy: %{http_code}\\n' "
              "--unix-socket /run/corral/relay/proxy.sock --request-target http://unlisted.test/ "
              "http://unlisted.test/")
    body = {"Image": image, "Cmd": ["bash", "-c", script], "User": "65534:65534",
            "NetworkDisabled": True,
            "HostConfig": {"NetworkMode": "none", "CapDrop": ["ALL"],
                           "Mounts": [{"Type": "volume", "Source": names["session_volume"],
                                       "Target": "/run/corral", "ReadOnly": True}]}}
    status, data = api.call("POST", "/containers/create", body)
    text = f"create: {status} {data[:200]!r}"
    if status == 201:
        probe = json.loads(data)["Id"]
        api.call("POST", f"/containers/{probe}/start")
        api.call("POST", f"/containers/{probe}/wait")
        text = api.logs(probe)
        api.call("DELETE", f"/containers/{probe}?force=1")
    check("unix-proxy: 403" in text.splitlines(),
          f"{label}: variant: a box with no network reaches a proxy in the sidecar through a "
          "unix socket in the session volume (403 for an unlisted host)", text)


def run_box(api, names, image, script, user="1000:1000"):
    """A box with no network and the session volume read-only at /run/corral: its output."""
    body = {"Image": image, "Cmd": ["/run/corral/bin/sh", "-c", script], "User": user,
            "Env": ["PATH=/run/corral/bin:/usr/local/bin:/usr/bin:/bin"],
            "NetworkDisabled": True, "WorkingDir": "/tmp",
            "HostConfig": {"NetworkMode": "none", "CapDrop": ["ALL"],
                           "Mounts": [{"Type": "volume", "Source": names["session_volume"],
                                       "Target": "/run/corral", "ReadOnly": True}]}}
    status, data = api.call("POST", "/containers/create", body)
    if status != 201:
        return f"create: {status} {data[:200]!r}", None
    box = json.loads(data)["Id"]
    api.call("POST", f"/containers/{box}/start")
    _, waited = api.call("POST", f"/containers/{box}/wait")
    text = api.logs(box)
    api.call("DELETE", f"/containers/{box}?force=1")
    return text, json.loads(waited).get("StatusCode")


def this_corral_in_sidecar(api, names, corral):
    """The image's corral may be older than this build (corral:VERSION is reused as it is),
    so the test puts this build's corral into the sidecar's relay/ folder and runs that."""
    import io
    import tarfile
    data = io.BytesIO()
    # The image may also lack a library this build links (libtomlplusplus): it goes too.
    libraries = subprocess.run(["ldd", corral], capture_output=True, text=True).stdout
    with tarfile.open(fileobj=data, mode="w") as tar:
        tar.add(corral, arcname="corral-under-test")
        for line in libraries.splitlines():
            if "tomlplusplus" in line and "=> /" in line:
                path = line.split("=> ")[1].split()[0]
                tar.add(os.path.realpath(path), arcname=os.path.basename(path))
    status, out = api.call("PUT", f"/containers/{names['sidecar']}/archive?path=/run/corral/relay",
                           raw=data.getvalue(), content_type="application/x-tar")
    return "/run/corral/relay/corral-under-test" if status == 200 else None


def relay(label, api, names, image, corral):
    """The oracle channel's sidecar half, corral's half played by this test: `corral relay`
    exec'd in the sidecar with stdin and stdout attached (a hijacked exec stream, as corral
    would hold it); corral-shell in a box with no network asks through oracle.sock in the
    volume, the question arrives on the stream, the answer goes back. When the stream is
    gone, the socket goes, and the shell's fallback refuses a listed command by itself."""
    if not api.url.startswith("unix://"):
        return
    program = this_corral_in_sidecar(api, names, corral)
    check(program is not None, f"{label}: relay: this build's corral copied into the sidecar")
    status, data = api.call("POST", f"/containers/{names['sidecar']}/exec",
                            {"AttachStdin": True, "AttachStdout": True, "AttachStderr": True,
                             "Tty": False, "Env": ["LD_LIBRARY_PATH=/run/corral/relay"],
                             "Cmd": [program or "/usr/bin/corral", "relay"]})
    check(status == 201, f"{label}: relay: exec corral relay in the sidecar", data[:200])
    if status != 201:
        return
    stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stream.connect(api.url[len("unix://"):])
    body = b'{"Detach":false,"Tty":false}'
    stream.sendall(b"POST /v1.41/exec/" + json.loads(data)["Id"].encode() + b"/start HTTP/1.1\r\n"
                   b"Host: localhost\r\nContent-Type: application/json\r\n"
                   b"Connection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: " +
                   str(len(body)).encode() + b"\r\n\r\n" + body)
    head = b""
    while b"\r\n\r\n" not in head:
        head += stream.recv(1)
    asked, errors = [], []

    def answer():
        buffer, lines = b"", b""
        while True:
            try:
                chunk = stream.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while len(buffer) >= 8 and len(buffer) >= 8 + int.from_bytes(buffer[4:8], "big"):
                size = int.from_bytes(buffer[4:8], "big")
                if buffer[0] == 1:
                    lines += buffer[8:8 + size]
                else:
                    errors.append(buffer[8:8 + size].decode(errors="replace"))
                buffer = buffer[8 + size:]
            while b"\n" in lines:
                line, lines = lines.split(b"\n", 1)
                question = json.loads(line)
                asked.append(question["request"].get("command"))
                decision = {"v": 1, "decision": "deny",
                            "message": "corral blocked this: asked over the relay"}
                if question["request"].get("command") == "echo fine":
                    decision = {"v": 1, "decision": "allow"}
                stream.sendall(json.dumps({"id": question["id"], "answer": decision}).encode() +
                               b"\n")

    import threading
    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    time.sleep(0.5)  # the relay binds its socket
    text, code = run_box(api, names, image, "aws s3 ls")
    check(code == 1 and "asked over the relay" in text and "aws s3 ls" in asked,
          f"{label}: relay: corral-shell in the box asks through the volume's oracle.sock, the "
          "question reaches this end of the stream, and the refusal comes back",
          (code, text, asked, errors))
    text, code = run_box(api, names, image, "echo fine")
    check(code == 0 and "fine" in text, f"{label}: relay: an allowed command runs", (code, text))
    stream.shutdown(socket.SHUT_WR)  # the stream is gone: corral killed, ssh lost
    stream.close()
    thread.join(5)
    time.sleep(0.5)
    text, code = run_box(api, names, image, "aws s3 ls")
    check(code != 0 and "asked over the relay" not in text and "aws" in text,
          f"{label}: relay: with the stream gone the shell's fallback refuses a listed command "
          "(the deny list's copy in the volume)", (code, text))
    text, code = run_box(api, names, image, "echo fine")
    check(code == 0 and "fine" in text, f"{label}: relay: and runs an unlisted one", (code, text))


def reaped(label, api, corral, corral_args, env, shim, shell, corral_image):
    """up --hold, then SIGKILL: the reaper removes the sidecar, networks and volume."""
    session = secrets.token_hex(6)
    p = subprocess.Popen([corral, "network-mode", "up", session, *corral_args, "--image",
                          corral_image, "--shim", shim, "--shell", shell, "--hold"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    line = p.stdout.readline()
    up = line.startswith("{")
    check(up, f"{label}: up --hold is up", line + (p.stderr.read() if not up else ""))
    if not up:
        p.kill()
        return
    names = json.loads(line)
    paths = (f"/networks/{names['inside_network']}", f"/networks/{names['outside_network']}",
             f"/volumes/{names['session_volume']}", f"/containers/{names['sidecar']}/json")
    p.kill()
    p.wait()
    started, statuses = time.monotonic(), []
    while time.monotonic() - started < 30:
        statuses = [api.call("GET", path)[0] for path in paths]
        if statuses == [404] * 4:
            break
        time.sleep(0.2)
    check(statuses == [404] * 4, f"{label}: after SIGKILL the reaper removed the sidecar, the "
          f"networks and the volume ({time.monotonic() - started:.1f} s)", statuses)


def corral_version(corral):
    return subprocess.run([corral, "--version"], capture_output=True, text=True).stdout.split()[-1]


def main():
    engine, corral, shim, shell = sys.argv[1:5]
    import started
    started.start_engine(engine)
    url = f"unix:///run/corral-test/{engine}.sock"
    api = Api(url)
    env = dict(os.environ, CORRAL_ENGINE=url)
    image = "corral:" + corral_version(corral)
    status, _ = api.call("GET", f"/images/{image}/json")
    if status != 200:
        r = subprocess.run([corral, "image", "build", "corral"], capture_output=True, text=True,
                           env=env, timeout=1200)
        check(r.returncode == 0, f"{engine}: corral image build corral", r.stderr)
    prove(engine, api, corral, ["--engine", url], env, shim, shell, "corral-tools:2", image)
    print(f"{RESULTS['pass']} passed, {RESULTS['fail']} failed, {RESULTS.get('gap', 0)} gaps")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
