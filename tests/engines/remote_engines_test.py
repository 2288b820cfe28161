#!/usr/bin/env python3
"""Engines reached over tcp:// with TLS and over ssh://, and the faults of each.

- TLS: a dockerd started for this test in its own mount and UTS namespaces
  (host name corral-remote, a private /tmp) listens on a loopback port with
  --tlsverify and certificates the test makes with openssl. corral ps works
  with --engine-tls-* and with DOCKER_TLS_VERIFY/DOCKER_CERT_PATH; a wrong CA,
  an expired server certificate, no client certificate and a plain-HTTP
  answer each exit 125 with one line naming the endpoint and the cause.
  That engine is recognised as remote (and the test proves it cannot see
  this machine's /tmp); a boxed run on it is refused and creates nothing.
- ssh: a local sshd with test-made keys; `ssh` on PATH is a wrapper that adds
  the test's ssh_config (the user's own ssh, with their config). ssh://HOST
  runs `docker system dial-stdio` there, ssh://HOST/run/corral-test/podman.sock
  forwards Podman's socket. ps, run --print and a boxed run (attach and wait
  through the tunnel) work; a refused key, an unknown host key and a host that
  refuses connections exit 125 with ssh's own line; nothing is left behind,
  also after corral is killed with SIGKILL.
- a Podman service in its own mount, UTS and network namespaces (only lo; the test
  proves it cannot see this machine's /tmp), reached over ssh:// as a socket path
  through the same sshd: images imported, a whole network-mode session there
  (tests/network_mode's checks: the probe, `aws` refused by this machine's oracle
  through the channel, the project copied in and back, the reaper after SIGKILL),
  and review mode there (tests/session/review_remote.py: the box's commit and its
  uncommitted work arrive as a branch, the tree untouched, and after SIGKILL
  `corral stop` makes the branch from the volume).

Usage: remote_engines_test.py CORRAL SHIM
"""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import http.server

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import started  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "session"))
import review_remote  # noqa: E402  (tests/session/review_remote.py)

CORRAL = SHIM = ""  # set by main's caller (bench/launch_network imports the helpers)
STATE = pathlib.Path("/var/lib/corral-test/remote")
RUN = pathlib.Path("/run/corral-test")
failed = 0


def check(ok, what, output=""):
    global failed
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failed += 1
        print(str(output)[-1500:])


def run(args, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run(args, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, seconds):
    end = time.time() + seconds
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def openssl(*args):
    r = run(["openssl", *args])
    if r.returncode != 0:
        raise SystemExit("FAIL openssl " + " ".join(args) + ": " + r.stderr)


def make_certs(d):
    """A CA, a server certificate for 127.0.0.1, a client certificate, another
    CA nobody trusts, and a server certificate that expired in 2020."""
    def ca(name):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                f"/CN={name}", "-keyout", str(d / f"{name}-key.pem"), "-out", str(d / f"{name}.pem"))

    def signed(name, ca_name, ext, dates=None):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
                "-keyout", str(d / f"{name}-key.pem"), "-out", str(d / f"{name}.csr"))
        (d / f"{name}.ext").write_text(ext)
        if dates is None:
            openssl("x509", "-req", "-in", str(d / f"{name}.csr"), "-CA", str(d / f"{ca_name}.pem"),
                    "-CAkey", str(d / f"{ca_name}-key.pem"), "-CAcreateserial", "-days", "2",
                    "-extfile", str(d / f"{name}.ext"), "-out", str(d / f"{name}.pem"))
            return
        # openssl ca sets any start and end dates (x509 -req cannot, in 3.0).
        (d / "db").mkdir(exist_ok=True)
        (d / "db/index.txt").write_text("")
        (d / "ca.cnf").write_text(
            f"[ca]\ndefault_ca=c\n[c]\ndatabase={d}/db/index.txt\nnew_certs_dir={d}/db\n"
            f"serial={d}/db/serial\ndefault_md=sha256\npolicy=p\ncopy_extensions=copy\n"
            "[p]\ncommonName=supplied\n")
        (d / "db/serial").write_text("1000\n")
        openssl("ca", "-batch", "-config", str(d / "ca.cnf"), "-cert", str(d / f"{ca_name}.pem"),
                "-keyfile", str(d / f"{ca_name}-key.pem"), "-startdate", dates[0], "-enddate",
                dates[1], "-extfile", str(d / f"{name}.ext"), "-in", str(d / f"{name}.csr"),
                "-out", str(d / f"{name}.pem"), "-notext")

    server_ext = "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
    ca("ca")
    ca("other-ca")
    signed("server", "ca", server_ext)
    signed("client", "ca", "extendedKeyUsage=clientAuth\n")
    signed("expired", "ca", server_ext, ("20200101000000Z", "20200102000000Z"))
    client = d / "client-dir"
    client.mkdir()
    for src, dst in (("ca.pem", "ca.pem"), ("client.pem", "cert.pem"), ("client-key.pem", "key.pem")):
        shutil.copy(d / src, client / dst)


def clear_leftover(pid_file, name):
    """A run killed midway (a CI time limit) leaves its daemon's pid file: the
    daemon it names, if alive, is stopped, and the file goes. dockerd refuses
    a pid file whose number is alive, and after a kill that number can be any
    process's (tests/engines/start says more)."""
    try:
        pid = int(pid_file.read_text().strip())
        if pathlib.Path(f"/proc/{pid}/comm").read_text().strip() == name:
            os.kill(pid, signal.SIGKILL)
            for _ in range(50):
                os.kill(pid, 0)  # raises once it is gone
                time.sleep(0.1)
    except (OSError, ValueError):
        pass
    pid_file.unlink(missing_ok=True)


def start_tls_dockerd(certs, port):
    """dockerd with TLS in its own mount and UTS namespaces: another host name
    and a private /tmp, so its view of the files is not corral's."""
    data = STATE / "docker"
    clear_leftover(RUN / "remote-docker.pid", "dockerd")
    clear_leftover(RUN / "remote-exec/containerd/containerd.pid", "containerd")
    script = (
        "hostname corral-remote && mount -t tmpfs tmpfs /tmp && exec dockerd "
        f"--tlsverify --tlscacert {certs}/ca.pem --tlscert {certs}/server.pem "
        f"--tlskey {certs}/server-key.pem -H tcp://127.0.0.1:{port} --data-root {data} "
        f"--exec-root {RUN}/remote-exec --pidfile {RUN}/remote-docker.pid --bridge none "
        "--iptables=false --ip6tables=false --ip-masq=false --userland-proxy=false "
        "--exec-opt native.cgroupdriver=cgroupfs --containerd-namespace corral-remote "
        "--containerd-plugins-namespace corral-remote-plugins")
    log = open(STATE / "dockerd.log", "w")
    proc = subprocess.Popen(["unshare", "--mount", "--uts", "--propagation", "private",
                             "sh", "-c", script], stdout=log, stderr=log,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    if not wait_port(port, 60):
        proc.kill()
        raise SystemExit("FAIL the TLS dockerd did not listen: " + (STATE / "dockerd.log").read_text()[-2000:])
    return proc


def one_line_failure(r, seconds, endpoint, cause, what):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    check(r.returncode == 125 and len(lines) == 1 and endpoint in lines[0] and cause in lines[0]
          and seconds < 6, f"{what}: exit 125 in {seconds:.2f} s, one line naming {endpoint} "
          f"and '{cause}'", f"exit {r.returncode}: {r.stderr}")


def timed(args, env):
    start = time.monotonic()
    r = run(args, env=env, timeout=60)
    return r, time.monotonic() - start


class PlainHttp(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"OK")

    def log_message(self, *args):
        pass


def tls_checks(work, base_env):
    certs = STATE / "certs"
    shutil.rmtree(STATE, ignore_errors=True)
    certs.mkdir(parents=True)
    make_certs(certs)
    port = free_port()
    started_at = time.monotonic()
    dockerd = start_tls_dockerd(certs, port)
    print(f"TLS dockerd listening after {time.monotonic() - started_at:.1f} s")
    url = f"tcp://127.0.0.1:{port}"
    try:
        flags = ["--engine", url, "--engine-tls-ca", str(certs / "ca.pem"), "--engine-tls-cert",
                 str(certs / "client.pem"), "--engine-tls-key", str(certs / "client-key.pem")]
        r, seconds = timed([CORRAL, "ps", *flags], base_env)
        check(r.returncode == 0, f"corral ps over tcp:// with TLS (--engine-tls-*) in {seconds:.2f} s",
              r.stdout + r.stderr)
        env = dict(base_env, DOCKER_HOST=url, DOCKER_TLS_VERIFY="1",
                   DOCKER_CERT_PATH=str(certs / "client-dir"))
        r = run([CORRAL, "ps"], env=env)
        check(r.returncode == 0, "corral ps with DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH",
              r.stderr)

        wrong = ["--engine", url, "--engine-tls-ca", str(certs / "other-ca.pem"), "--engine-tls-cert",
                 str(certs / "client.pem"), "--engine-tls-key", str(certs / "client-key.pem")]
        one_line_failure(*timed([CORRAL, "ps", *wrong], base_env), url, "certificate",
                         "a CA that did not sign the engine's certificate")
        no_client = ["--engine", url, "--engine-tls-ca", str(certs / "ca.pem")]
        r, seconds = timed([CORRAL, "ps", *no_client], base_env)
        one_line_failure(r, seconds, url, "certificate", "no client certificate")

        # An expired server certificate and a plain-HTTP answer, each on a port of its own.
        expired_port = free_port()
        s_server = subprocess.Popen(
            ["openssl", "s_server", "-quiet", "-accept", f"127.0.0.1:{expired_port}", "-cert",
             str(certs / "expired.pem"), "-key", str(certs / "expired-key.pem"), "-www"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), PlainHttp)
        threading.Thread(target=plain.serve_forever, daemon=True).start()
        try:
            wait_port(expired_port, 10)
            expired_url = f"tcp://127.0.0.1:{expired_port}"
            one_line_failure(*timed([CORRAL, "ps", "--engine", expired_url, "--engine-tls-ca",
                                     str(certs / "ca.pem")], base_env),
                             expired_url, "expired", "an expired engine certificate")
            plain_url = f"tcp://127.0.0.1:{plain.server_address[1]}"
            one_line_failure(*timed([CORRAL, "ps", "--engine", plain_url, "--engine-tls-ca",
                                     str(certs / "ca.pem")], base_env),
                             plain_url, "does not speak TLS", "a plain-HTTP answer to TLS")
        finally:
            s_server.kill()
            plain.shutdown()

        # Remote: its host name differs, and it cannot see this machine's /tmp.
        marker = pathlib.Path(tempfile.mkdtemp(prefix="corral-remote-proof-"))
        pid = (RUN / "remote-docker.pid").read_text().strip()
        seen = run(["nsenter", "-t", pid, "-m", "ls", str(marker)])
        check(seen.returncode != 0, f"the namespaced dockerd cannot see {marker} (this machine's /tmp)",
              seen.stdout + seen.stderr)
        marker.rmdir()
        proj = work / "proj"
        proj.mkdir(exist_ok=True)
        r = run([CORRAL, "run", "--print", *flags, "--image", "corral-test:latest", "--", "true"],
                env=base_env, cwd=proj, timeout=60)
        mode = next((l for l in r.stdout.splitlines() if l.startswith("mode: ")), "")
        check(r.returncode == 0 and mode.startswith("mode: network (engine " + url) and
              "host 'corral-remote'" in mode,
              "run --print says the session would use the network mode and why", mode or r.stdout + r.stderr)
        network_mode_checks(url, certs, flags, base_env)
    finally:
        os.killpg(dockerd.pid, signal.SIGTERM)
        try:
            dockerd.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(dockerd.pid, signal.SIGKILL)


def prove_network_mode(label, api, flags, env, engine):
    """The network-mode checks (tests/network_mode) on a remote engine, the project
    copied; their failures count as this test's."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "network_mode"))
    import network_mode_test as nm
    work = tempfile.mkdtemp(prefix="corral-nm-remote-")
    os.chmod(work, 0o755)
    try:
        nm.prove(label, api, CORRAL, flags, dict(env), work, copied=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    global failed
    failed += nm.RESULTS["fail"]
    print(f"network mode on {engine}: {nm.RESULTS['pass']} passed, {nm.RESULTS['fail']} failed"
          " (counts include earlier parts)")


def network_mode_checks(url, certs, flags, base_env):
    """Boxed sessions in the network mode (tests/network_mode) on this engine, which
    cannot see this machine's folders: the project is copied in and back. The box's
    image and the Debian base are loaded into it from the local test dockerd through
    the API, as a user would pull them; corral builds its own sidecar image there."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "network_mode"))
    import network_mode_test as nm
    local = nm.Api("unix:///run/corral-test/docker.sock")
    remote = nm.Api(url, str(certs / "client-dir"))
    for image in ("corral-test:latest", "corral-debian:bookworm"):
        status, tar = local.call("GET", f"/images/get?names={image}")
        if status != 200:
            print(f"INFO {image} is not on the local docker: the remote engine does without it")
            continue
        status, out = remote.call("POST", "/images/load?quiet=1", raw=tar,
                                  content_type="application/x-tar")
        check(status == 200, f"{image} loaded into the remote engine", out[:300])
    prove_network_mode("remote tcp+TLS", remote, flags, base_env, "the remote engine")
    review_remote.checks(CORRAL, "remote tcp+TLS", flags, base_env, check, remote.session_objects)


PODMAN_STATE = pathlib.Path("/var/lib/corral-test/remote-podman")
ENGINES = pathlib.Path(__file__).resolve().parent


def start_namespaced_podman():
    """podman system service in its own mount, UTS and network namespaces: host name
    corral-remote-podman, only a loopback interface, a private /tmp and /run, and
    storage, network configs and CNI state of its own. Its socket is in PODMAN_STATE,
    which the sshd (this machine's namespaces, standing for the remote's ssh server)
    forwards, as Podman's ssh:// does."""
    shutil.rmtree(PODMAN_STATE, ignore_errors=True)
    (PODMAN_STATE / "networks").mkdir(parents=True)
    # Copied: its /tmp is its own, and the source tree may be under this machine's.
    shutil.copy(ENGINES / "containers.conf", PODMAN_STATE / "containers.conf")
    sock = PODMAN_STATE / "podman.sock"
    script = (
        "hostname corral-remote-podman && ip link set lo up && mount -t tmpfs tmpfs /tmp && "
        "mount -t tmpfs tmpfs /run && mkdir -p /var/lib/cni && mount -t tmpfs tmpfs /var/lib/cni "
        f"&& exec podman --root {PODMAN_STATE}/root --runroot /run/containers/storage "
        f"--tmpdir /run/libpod --network-config-dir {PODMAN_STATE}/networks "
        f"system service --time=0 unix://{sock}")
    log = open(PODMAN_STATE / "podman.log", "w")
    # Started in /: conmon keeps the service's folder (tests/engines/start says why).
    proc = subprocess.Popen(["unshare", "--mount", "--uts", "--net", "--propagation", "private",
                             "sh", "-c", script], stdout=log, stderr=log, cwd="/",
                            stdin=subprocess.DEVNULL, start_new_session=True,
                            env=dict(os.environ, CONTAINERS_CONF=str(PODMAN_STATE / "containers.conf")))
    deadline = time.time() + 60
    while time.time() < deadline:
        if run(["curl", "-sf", "--max-time", "3", "--unix-socket", str(sock),
                "http://d/_ping"]).stdout == "OK":
            return proc, sock
        time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGKILL)
    raise SystemExit("FAIL the namespaced podman did not answer: " +
                     (PODMAN_STATE / "podman.log").read_text()[-2000:])


def namespaced_podman_checks(work, env):
    """A network-mode session on a Podman that cannot see this machine, over ssh://
    (a socket path on the engine's host, through the test's sshd). Its images are
    imported: the test image, and the corral image of this build from the local
    test Podman (built there when missing), as no registry is reachable."""
    sys.path.insert(0, str(ENGINES.parent / "network_mode"))
    import network_mode_test as nm
    begun = time.monotonic()
    podman, sock = start_namespaced_podman()
    print(f"namespaced podman answering after {time.monotonic() - begun:.1f} s")
    try:
        pid = str(podman.pid)  # unshare and sh exec: this is podman itself
        check(run(["readlink", f"/proc/{pid}/ns/net"]).stdout !=
              run(["readlink", "/proc/self/ns/net"]).stdout,
              "the namespaced podman has a network namespace of its own")
        links = run(["nsenter", "-t", pid, "-n", "ip", "-o", "link"]).stdout
        check([l.split(":")[1].strip() for l in links.splitlines()] == ["lo"],
              "its network namespace has only lo before any session", links)
        marker = pathlib.Path(tempfile.mkdtemp(prefix="corral-remote-proof-"))
        seen = run(["nsenter", "-t", pid, "-m", "ls", str(marker)])
        check(seen.returncode != 0,
              f"the namespaced podman cannot see {marker} (this machine's /tmp)",
              seen.stdout + seen.stderr)
        marker.rmdir()
        r = run([str(ENGINES / "test_image"), "podman", str(sock)])
        check(r.returncode == 0, "corral-test:latest imported into it", r.stderr)
        local = nm.Api(f"unix://{RUN}/podman.sock")
        remote = nm.Api(f"unix://{sock}")
        r = run([CORRAL, "image", "build", "corral", "--engine", f"unix://{RUN}/podman.sock"],
                env=env, timeout=600)
        tag = r.stdout.strip()
        status, tar = local.call("GET", f"/images/get?names={tag}") if tag else (0, b"")
        if status == 200:
            status, out = remote.call("POST", "/images/load?quiet=1", raw=tar,
                                      content_type="application/x-tar")
        check(status == 200, f"this build's corral image ({tag}) loaded into it",
              r.stderr + str(status))
        url = f"ssh://engine-host{sock}"
        r = run([CORRAL, "run", "--print", "--engine", url, "--image", "corral-test:latest",
                 "--", "true"], env=env, cwd=work / "proj", timeout=60)
        mode = next((l for l in r.stdout.splitlines() if l.startswith("mode: ")), "")
        check(r.returncode == 0 and mode.startswith("mode: network") and
              "corral-remote-podman" in mode,
              f"run --print over {url}: the network mode, as another machine", mode or r.stderr)
        prove_network_mode("remote podman over ssh", remote, ["--engine", url], env,
                           "the namespaced podman")
        review_remote.checks(CORRAL, "remote podman over ssh", ["--engine", url], env, check,
                             remote.session_objects)
    finally:
        stop_namespaced_podman(podman)


def stop_namespaced_podman(podman):
    """The service, then what it started that outlives it in its mount namespace (exec
    sessions' conmon waits 300 s for a reader), each by its pid."""
    namespace = os.readlink(f"/proc/{podman.pid}/ns/mnt")
    os.killpg(podman.pid, signal.SIGTERM)
    try:
        podman.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(podman.pid, signal.SIGKILL)
        podman.wait()
    for entry in pathlib.Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "ns" / "mnt") == namespace:
                os.kill(int(entry.name), signal.SIGKILL)
        except OSError:
            pass
    # Its images and containers (the log stays, for a failure's reader).
    shutil.rmtree(PODMAN_STATE / "root", ignore_errors=True)


def start_sshd(work):
    port = free_port()
    for name in ("host-key", "client-key", "stranger-key"):
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(work / name)])
    shutil.copy(work / "client-key.pub", work / "authorized_keys")
    os.chmod(work / "authorized_keys", 0o600)
    # dial-stdio's docker finds the test engine as a remote shell would find its own.
    (work / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {work}/host-key\n"
        f"AuthorizedKeysFile {work}/authorized_keys\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
        "StrictModes no\nUsePAM no\nPidFile none\nMaxStartups 100\nMaxSessions 100\n"
        f"SetEnv DOCKER_HOST=unix://{RUN}/docker.sock\n")
    os.makedirs("/run/sshd", exist_ok=True)
    proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(work / "sshd_config")],
                            stdout=subprocess.DEVNULL, stderr=open(work / "sshd.log", "w"))
    if not wait_port(port, 10):
        raise SystemExit("FAIL sshd did not start: " + (work / "sshd.log").read_text())
    host_key = (work / "host-key.pub").read_text().split()
    (work / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    (work / "empty_known_hosts").write_text("")
    common = f"  HostName 127.0.0.1\n  Port {port}\n  User root\n  IdentitiesOnly yes\n"
    (work / "ssh_config").write_text(
        f"Host engine-host\n{common}  IdentityFile {work}/client-key\n"
        f"  UserKnownHostsFile {work}/known_hosts\n  StrictHostKeyChecking yes\n"
        f"Host stranger\n{common}  IdentityFile {work}/stranger-key\n"
        f"  UserKnownHostsFile {work}/known_hosts\n"
        f"Host unknown-host-key\n{common}  IdentityFile {work}/client-key\n"
        f"  UserKnownHostsFile {work}/empty_known_hosts\n  GlobalKnownHostsFile /dev/null\n"
        f"Host nobody-home\n  HostName 127.0.0.1\n  Port {free_port()}\n")
    wrapper = work / "bin" / "ssh"
    wrapper.parent.mkdir()
    wrapper.write_text(f"#!/bin/sh\nexec /usr/bin/ssh -F {work}/ssh_config \"$@\"\n")
    wrapper.chmod(0o755)
    return proc


def ssh_processes(runtime):
    """ssh processes that use a tunnel folder under `runtime`."""
    r = run(["pgrep", "-a", "-f", f"{runtime}/corral/ssh-"])
    return [l for l in r.stdout.splitlines() if "pgrep" not in l]


def ssh_checks(work, base_env):
    sshd = start_sshd(work)
    runtime = work / "run"
    env = dict(base_env, PATH=f"{work}/bin:" + base_env["PATH"])
    try:
        for engine, url in (("docker", "ssh://engine-host"),
                            ("podman", f"ssh://engine-host{RUN}/podman.sock")):
            r, seconds = timed([CORRAL, "ps", "--engine", url], env)
            check(r.returncode == 0, f"corral ps over {url} ({engine}) in {seconds:.2f} s",
                  r.stdout + r.stderr)
            r = run([CORRAL, "run", "--print", "--engine", url, "--image", "corral-test:latest",
                     "--", "true"], env=env, cwd=work / "proj", timeout=60)
            mode = next((l for l in r.stdout.splitlines() if l.startswith("mode: ")), "")
            rendering = [l for l in r.stdout.splitlines()
                         if l.startswith(engine + " ") and l.endswith(" rendering:")]
            check(r.returncode == 0 and rendering and
                  mode.startswith("mode: local box") and "runs on this host" in mode,
                  f"run --print over {url}: the {engine} engine, recognised as this machine",
                  mode or r.stdout + r.stderr)
            start = time.monotonic()
            r = run([CORRAL, "run", "--headless", "--engine", url, "--image", "corral-test:latest",
                     "--", "sh", "-c", "read line; echo got $line; exit 3"], env=env,
                    cwd=work / "proj", input="over-ssh\n", stdin=None, timeout=120)
            check(r.returncode == 3 and "got over-ssh" in r.stdout,
                  f"a boxed run over {url}: stdin, output (attach) and exit status (wait) "
                  f"through the tunnel, {time.monotonic() - start:.1f} s", f"exit {r.returncode}: "
                  + r.stdout + r.stderr)
            # The network mode through the tunnel: the oracle relay's exec stream is
            # hijacked over ssh (dial-stdio for docker, the forwarded socket for podman).
            r = run([CORRAL, "run", "--headless", "--engine", url, "--image", "corral-test:latest",
                     "--", "busybox", "sh", "-c",
                     '/run/corral/bin/sh -c "aws s3 ls"; echo "aws-exit $?"'],
                    env=dict(env, CORRAL_ENGINE_MODE="network", CORRAL_PROJECT_SHARED="0"),
                    cwd=work / "proj", timeout=300)
            check(r.returncode == 0 and "corral blocked this: `aws`" in r.stderr + r.stdout and
                  "aws-exit 1" in r.stdout and "blocked while you were away" in r.stderr,
                  f"a network-mode session over {url}: aws refused by this machine's oracle "
                  "through the relay's stream in the tunnel", f"exit {r.returncode}: "
                  + r.stdout + r.stderr)
            check(not ssh_processes(runtime) and not list((runtime / "corral").glob("ssh-*")),
                  f"after {engine}: no ssh process and no tunnel folder left",
                  ssh_processes(runtime))

        for host, cause, what in (("stranger", "Permission denied", "a refused key"),
                                  ("unknown-host-key", "Host key verification failed",
                                   "an unknown host key (never accepted)"),
                                  ("nobody-home", "Connection refused", "a host that refuses")):
            url = f"ssh://{host}"
            one_line_failure(*timed([CORRAL, "ps", "--engine", url], env), url, cause, what)
            check(not ssh_processes(runtime) and not list((runtime / "corral").glob("ssh-*")),
                  f"{what}: no ssh process and no tunnel folder left", ssh_processes(runtime))

        # SIGKILL: the box goes (the reaper, through the tunnel), then every ssh.
        # Only this run's box counts: what other runs left on the engine is theirs.
        def session_boxes():
            listing = run(["curl", "-s", "--unix-socket", f"{RUN}/docker.sock",
                           "http://d/containers/json?all=1&filters=%7B%22label%22%3A%5B%22corral.session%22%5D%7D"]).stdout
            return {c["Id"] for c in json.loads(listing or "[]")}
        before = session_boxes()
        proc = subprocess.Popen([CORRAL, "run", "--headless", "--engine", "ssh://engine-host",
                                 "--image", "corral-test:latest", "--", "sleep", "300"],
                                env=env, cwd=work / "proj", stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline and not session_boxes() - before:
            time.sleep(0.2)
        running = ssh_processes(runtime)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed = time.monotonic()
        while time.monotonic() - killed < 30 and ssh_processes(runtime):
            time.sleep(0.1)
        left = ssh_processes(runtime)
        new = session_boxes() - before
        check(not new, "and the reaper removed the box through the tunnel first", new)
        check(running and not left, f"corral killed with SIGKILL: its ssh processes ({len(running)}) "
              f"are gone {time.monotonic() - killed:.1f} s later", left)

        begun = time.monotonic()
        namespaced_podman_checks(work, env)
        print(f"namespaced podman part: {time.monotonic() - begun:.1f} s")
    finally:
        sshd.terminate()


def main():
    started.start_engine("docker")
    started.start_engine("podman")
    work = pathlib.Path(tempfile.mkdtemp(prefix="corral-remote-"))
    os.chmod(work, 0o755)
    try:
        (work / "run").mkdir(mode=0o700)
        (work / "proj").mkdir()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DOCKER_", "CONTAINER_")) and k not in ("CORRAL_ENGINE", "CORRAL_CONFIG")}
        env.update({"HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
                    "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
                    "CORRAL_SHIM": SHIM, "CORRAL_HOLD_UNKNOWN_FOLDERS": "off",
                    # Nobody watching, whatever terminal another test uses
                    # meanwhile (the tty source reads root's last input on any).
                    "CORRAL_PRESENCE_SOURCES": "",
                    "CONTAINERS_CONF": str(work / "no-containers.conf")})
        begun = time.monotonic()
        tls_checks(work, env)
        print(f"TLS part: {time.monotonic() - begun:.1f} s")
        begun = time.monotonic()
        ssh_checks(work, env)
        print(f"ssh part: {time.monotonic() - begun:.1f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"remote engines: {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    CORRAL, SHIM = sys.argv[1:3]
    main()
