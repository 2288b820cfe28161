#!/usr/bin/env python3
"""corral run --publish on a real engine: a web server and an echo server the
agent started inside the box (busybox httpd and nc, on the box's 127.0.0.1)
reached from this machine through the published host ports with real curl
and sockets; a 3 MB file comes out whole, 300 KB go in and come back whole
(both directions, and the end of the input passed on); `corral ps` names the
ports; a host port that is taken stops the session before the box starts
(125, and why); a malformed --publish is a usage error (2). With `network`
as a fourth argument, the session runs in the network mode with its project
copied into a volume.

Usage: publish_e2e.py docker|podman CORRAL SHIM [network]
"""
import hashlib
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import session_e2e as e2e  # noqa: E402  (same arguments: ENGINE CORRAL SHIM)

ENGINE, CORRAL, check, run = e2e.ENGINE, e2e.CORRAL, e2e.check, e2e.run
NETWORK = len(sys.argv) > 4 and sys.argv[4] == "network"


def echo_through(port, data):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)  # the end of the input reaches the box's cat
        back = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return back
            back += chunk


def main():
    e2e.start_engine()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-publish-{ENGINE}-"))
    os.chmod(work, 0o755)
    proj = work / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".git" / "config").write_text("")
    (proj / "index.html").write_text("hello from the box\n")
    big = os.urandom(3 << 20)
    (proj / "big.bin").write_bytes(big)
    env = dict(os.environ)
    env.update({
        "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "config"),
        "XDG_STATE_HOME": str(work / "state"), "XDG_RUNTIME_DIR": str(work / "run"),
        "CORRAL_ENGINE": f"unix://{e2e.SOCKET}", "CORRAL_SHIM": e2e.SHIM,
        "CORRAL_HOLD_UNKNOWN_FOLDERS": "off", "CORRAL_IMAGE": "corral-tools:2",
    })
    for name in ("CORRAL_CONFIG", "CORRAL_LEVEL", "DOCKER_HOST"):
        env.pop(name, None)
    (work / "home").mkdir()
    (work / "run").mkdir(mode=0o700)
    session_env = dict(env)
    if NETWORK:
        session_env.update({"CORRAL_ENGINE_MODE": "network", "CORRAL_PROJECT_SHARED": "0"})
    web, echo = e2e.free_port(), e2e.free_port()
    agent = (f"busybox httpd -f -p 127.0.0.1:3000 -h {proj} & busybox nc -ll -p 3001 -e /bin/cat & "
             f"while [ ! -e {proj}/stop ]; do sleep 0.2; done; kill %1 %2")
    box = subprocess.Popen([CORRAL, "run", "--headless", "--publish", f"{web}:3000",
                            "--publish", f"127.0.0.1:{echo}:3001", "--", "/bin/busybox", "sh",
                            "-c", agent], cwd=proj, env=session_env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sid = None
    try:
        page = None
        for _ in range(300):
            if box.poll() is not None:
                break
            r = run(["curl", "-s", "--max-time", "5", f"http://127.0.0.1:{web}/index.html"])
            if r.returncode == 0 and r.stdout:
                page = r.stdout
                break
            time.sleep(0.2)
        check(page == "hello from the box\n",
              "a page the box serves on its 127.0.0.1:3000 is reached at the published port",
              repr(page) + (box.communicate()[1][-600:] if box.poll() is not None else ""))
        r = subprocess.run(["curl", "-s", "--max-time", "60", f"http://127.0.0.1:{web}/big.bin"],
                           capture_output=True)
        check(hashlib.sha256(r.stdout).digest() == hashlib.sha256(big).digest(),
              "a 3 MB file comes out of the box whole", f"{len(r.stdout)} bytes")
        sent = os.urandom(300 << 10)
        back = echo_through(echo, sent)
        check(back == sent, "300 KB sent into the box come back whole (both ways, end of input)",
              f"{len(back)} bytes back")
        ps = run([CORRAL, "ps"], env=env).stdout
        lines = [line for line in ps.splitlines() if line.endswith(str(proj)) or str(web) in line]
        sid = lines[0].split()[0] if lines else None
        check(f"127.0.0.1:{web} -> 3000" in ps and f"127.0.0.1:{echo} -> 3001" in ps,
              "corral ps names the published ports", ps)
    finally:
        if sid:
            run([CORRAL, "exec", sid, "--", f"touch {proj}/stop"], env=env,
                stdin=subprocess.DEVNULL)
        (proj / "stop").touch()
        try:
            _, err = box.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            box.kill()
            _, err = box.communicate()
    check(f"published: 127.0.0.1:{web} -> 3000, 127.0.0.1:{echo} -> 3001" in err,
          "the start lines name the published ports", err[-600:])

    # A host port that is taken: nothing starts, and the line says which.
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    r = run([CORRAL, "run", "--headless", "--publish", f"{port}:3000", "--", "/bin/busybox",
             "touch", str(proj / "started")], cwd=proj, env=session_env,
            stdin=subprocess.DEVNULL, timeout=300)
    check(r.returncode == 125 and f"127.0.0.1:{port}" in r.stderr and "in use" in r.stderr
          and not (proj / "started").exists(),
          "a taken host port stops the session before the box starts (125, and which port)",
          f"{r.returncode} {r.stderr[-400:]}")
    taken.close()
    r = run([CORRAL, "run", "--headless", "--publish", "3000", "--", "true"], cwd=proj, env=env,
            stdin=subprocess.DEVNULL)
    check(r.returncode == 2 and "HOST_PORT:BOX_PORT" in r.stderr,
          "a malformed --publish is a usage error naming the form", r.stderr[-300:])
    subprocess.run(["rm", "-rf", str(work)])
    print(f"{ENGINE}{' network mode' if NETWORK else ''}: {e2e.RESULTS['pass']} passed, "
          f"{e2e.RESULTS['fail']} failed")
    sys.exit(1 if e2e.RESULTS["fail"] else 0)


if __name__ == "__main__":
    main()
