#!/usr/bin/env python3
"""The base image from nothing, as on a machine that never ran corral: an
engine with no image at all (a Podman service of the test's own, with its own
storage), an empty cache folder (XDG_CACHE_HOME), no registry. `corral image
build corral` makes Debian from this host's package sources with mmdebstrap,
keeps the tarball in the cache, imports it, builds corral's image on it, and
a box runs on the base.

mmdebstrap is started through a stand-in (tests/fds/fd_report.c) that writes
down the descriptors corral handed it and runs the real one: corral holds its
engine connection then, and mmdebstrap must get 0, 1 and 2 only (with more,
apt's downloads fail: issue 27).

Usage: base_image_cold.py CORRAL SHIM FD_REPORT
"""
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CORRAL, SHIM, FD_REPORT = sys.argv[1], sys.argv[2], sys.argv[3]
TOP = pathlib.Path(__file__).resolve().parent.parent.parent
RESULTS = {"pass": 0, "fail": 0}


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + what + ("" if ok else f"  [{detail}]"), flush=True)


def os_release():
    values = {}
    for line in pathlib.Path("/etc/os-release").read_text().splitlines():
        key, _, value = line.partition("=")
        values[key] = value.strip('"')
    return values.get("ID", ""), values.get("VERSION_CODENAME", "")


def start_podman(work):
    """A Podman service with storage of its own: it holds no image."""
    sock = work / "podman.sock"
    storage = ["--root", str(work / "storage"), "--runroot", str(work / "run")]
    env = dict(os.environ, CONTAINERS_CONF=str(TOP / "tests/engines/containers.conf"))
    log = open(work / "podman.log", "w")
    service = subprocess.Popen(["podman", *storage, "system", "service", "--time=0",
                                f"unix://{sock}"], stdout=log, stderr=log, env=env,
                               start_new_session=True, cwd="/")
    for _ in range(300):
        if sock.exists():
            return service, storage, sock
        time.sleep(0.1)
    raise SystemExit(f"the test's podman service did not start: {(work / 'podman.log').read_text()}")


def stop_podman(service, storage, work):
    env = dict(os.environ, CONTAINERS_CONF=str(TOP / "tests/engines/containers.conf"))
    subprocess.run(["podman", *storage, "rm", "-a", "-f"], capture_output=True, env=env)
    subprocess.run(["podman", *storage, "rmi", "-a", "-f"], capture_output=True, env=env)
    os.killpg(service.pid, signal.SIGTERM)
    service.wait(timeout=30)
    subprocess.run(["podman", *storage, "system", "reset", "--force"], capture_output=True,
                   env=env)


def main():
    if shutil.which("mmdebstrap") is None or shutil.which("podman") is None:
        print("FAIL mmdebstrap and podman are needed (scripts/setup installs them)")
        return 1
    distro, codename = os_release()
    work = pathlib.Path(tempfile.mkdtemp(prefix="corral-cold-"))
    os.chmod(work, 0o755)
    spy = work / "spy"
    spy.mkdir()
    os.symlink(FD_REPORT, spy / "mmdebstrap")
    report, cache = work / "report", work / "cache"
    service, storage, sock = start_podman(work)
    env = dict(os.environ, PATH=f"{spy}:{os.environ['PATH']}", XDG_CACHE_HOME=str(cache),
               HOME=str(work / "home"), XDG_CONFIG_HOME=str(work / "home/.config"),
               XDG_STATE_HOME=str(work / "home/.local/state"), CORRAL_TEST_FD_REPORT=str(report),
               CORRAL_ENGINE=f"unix://{sock}", CORRAL_SHIM=SHIM, CORRAL_LEVEL="always",
               CORRAL_HOLD_UNKNOWN_FOLDERS="off")
    try:
        start = time.monotonic()
        built = subprocess.run([CORRAL, "image", "build", "corral"], capture_output=True,
                               text=True, env=env, stdin=subprocess.DEVNULL, timeout=1500)
        seconds = time.monotonic() - start
        print(built.stderr, end="")
        base = f"corral-{distro}:{codename}"
        check(built.returncode == 0, f"corral image build corral from nothing, {seconds:.0f} s",
              built.stderr[-2000:])
        check(f"making {base} from this host's package sources" in built.stderr,
              "the base image was made with mmdebstrap, not found", built.stderr[-2000:])
        check("trying again" not in built.stderr, "mmdebstrap's first run made it",
              built.stderr[-2000:])
        tarball = cache / "corral" / f"corral-{distro}-{codename}.tar"
        check(tarball.is_file() and tarball.stat().st_size > 10 << 20,
              f"the base tarball is kept in the empty cache folder ({tarball})")
        lines = report.read_text().splitlines() if report.exists() else []
        # "mmdebstrap: 0 1(pipe:[...]) 2(pipe:[...])": the numbers alone.
        started = [[fd.split("(")[0] for fd in line.split(":", 1)[1].split()]
                   for line in lines if line.startswith("mmdebstrap:")]
        check(started == [["0", "1", "2"]],
              "mmdebstrap was started once, with 0, 1 and 2 only", str(lines))
        proj = work / "proj"
        proj.mkdir()
        ran = subprocess.run([CORRAL, "run", "--headless", "--image", base, "--",
                              "cat", "/etc/os-release"], capture_output=True, text=True, env=env,
                             cwd=proj, stdin=subprocess.DEVNULL, timeout=300)
        check(ran.returncode == 0 and f"VERSION_CODENAME={codename}" in ran.stdout,
              f"a box runs on {base}", ran.stdout + ran.stderr)
    finally:
        stop_podman(service, storage, work)
        shutil.rmtree(work, ignore_errors=True)
    print(f"{RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
