#!/usr/bin/env python3
"""corral's .deb in a clean Debian box: `cpack` makes it from this build; its
fields and files are checked; then, in a box of corral's own base image
(debian:bookworm-slim where the engine has it, else corral-debian:bookworm,
made with mmdebstrap by `corral image build corral` when missing), without a
network, `dpkg -i` installs it, and the installed corral runs: --version,
doctor (no engine there: exit 1, and the shim and the shell found in
/usr/lib/corral), check (aws s3 ls refused, ls allowed), and its bash
completion.

The base image is minimal: what the package depends on and the image lacks
(libcurl4, whose libraries corral opens at run time) is named, `dpkg -i` of the
package alone must refuse for those, and they are fetched on this host with
apt-get (resolved against the image's own dpkg status, kept in
~/.cache/corral-tests) and installed beside it, as `apt install ./corral_*.deb`
would.

Usage: deb_install_test.py docker|podman CORRAL BUILD_DIR
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "engines"))
import started  # noqa: E402  (tests/engines/started.py)
from engine_api import Api  # noqa: E402  (tests/engines/engine_api.py)

ENGINE, CORRAL, BUILD = sys.argv[1], sys.argv[2], sys.argv[3]
SOCK = f"/run/corral-test/{ENGINE}.sock"
CACHE = pathlib.Path.home() / ".cache/corral-tests" / f"deb-deps-{ENGINE}"
RESULTS = {"pass": 0, "fail": 0}


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + f"{ENGINE}: {what}" + ("" if ok else f"  [{detail}]"),
          flush=True)
    return ok


def timed(what, start):
    print(f"TIME {ENGINE} {what} {time.monotonic() - start:.1f}s", flush=True)


API = Api(f"unix://{SOCK}")


def api(method, path, body=None, timeout=60):
    return API.call(method, path, body, timeout=timeout)


def box(image, script, binds=()):
    """Runs `sh -c script` as root in a box of `image` with no network; returns
    (exit status, output)."""
    status, data = api("POST", "/containers/create", {
        "Image": image, "Cmd": ["sh", "-c", script], "User": "0",
        "HostConfig": {"NetworkMode": "none", "Binds": list(binds)}})
    if status != 201:
        return None, f"create failed: {status} {data[:300]!r}"
    container = json.loads(data)["Id"]
    try:
        api("POST", f"/containers/{container}/start")
        _, waited = api("POST", f"/containers/{container}/wait", timeout=120)
        return json.loads(waited).get("StatusCode"), API.logs(container)
    finally:
        api("DELETE", f"/containers/{container}?force=1")


def base_image():
    """The image corral builds its own on (agents/agent_image_build.cc's order)."""
    release = dict(line.split("=", 1) for line in
                   pathlib.Path("/etc/os-release").read_text().splitlines() if "=" in line)
    made = f"corral-{release['ID'].strip(chr(34))}:{release['VERSION_CODENAME'].strip(chr(34))}"
    for tag in ("debian:bookworm-slim", made):
        if api("GET", f"/images/{tag}/json")[0] == 200:
            return tag
    start = time.monotonic()
    r = subprocess.run([CORRAL, "image", "build", "corral"], capture_output=True, text=True,
                       env=dict(os.environ, CORRAL_ENGINE=f"unix://{SOCK}"), timeout=1500)
    timed("corral image build corral (for its base image)", start)
    for tag in ("debian:bookworm-slim", made):
        if api("GET", f"/images/{tag}/json")[0] == 200:
            return tag
    print(f"FAIL {ENGINE}: no base image, and `corral image build corral` made none:\n"
          + r.stderr[-2000:])
    return None


def make_package(out):
    start = time.monotonic()
    r = subprocess.run(["cpack", "--config", f"{BUILD}/CPackConfig.cmake", "-G", "DEB", "-B", out],
                       capture_output=True, text=True, timeout=600)
    timed("cpack", start)
    debs = list(pathlib.Path(out).glob("corral_*.deb"))
    if not check(r.returncode == 0 and len(debs) == 1, "cpack makes corral_VERSION_ARCH.deb",
                 r.stdout[-1500:] + r.stderr[-1500:]):
        return None
    return debs[0]


def check_package(deb):
    fields = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True).stdout
    depends = re.search(r"^Depends: (.*)$", fields, re.M)
    depends = depends.group(1) if depends else ""
    names = {d.split()[0] for d in depends.split(", ") if d}
    # What corral's programs link (dpkg-shlibdeps) and what corral opens with dlopen.
    linked = subprocess.run(["objdump", "-p", CORRAL], capture_output=True, text=True).stdout
    wanted = {"libc6", "libcurl4"} | ({"libidn2-0"} if "libidn2.so" in linked else set())
    check(wanted <= names, f"Depends names {', '.join(sorted(wanted))}", depends)
    recommends = re.search(r"^Recommends: (.*)$", fields, re.M)
    recommends = recommends.group(1) if recommends else ""
    check(all(p in recommends for p in ("podman", "mmdebstrap", "ca-certificates")),
          "Recommends podman, mmdebstrap, ca-certificates", recommends)
    files = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True).stdout
    for path in ("./usr/bin/corral", "./usr/lib/corral/corral-shim",
                 "./usr/lib/corral/corral-shell", "./usr/share/man/man1/corral.1.gz",
                 "./usr/share/man/man1/corral-run.1.gz", "./usr/share/man/man1/corral-check.1.gz",
                 "./usr/share/bash-completion/completions/corral",
                 "./usr/share/zsh/vendor-completions/_corral",
                 "./usr/share/fish/vendor_completions.d/corral.fish"):
        check(re.search(rf" {re.escape(path)}$", files, re.M) is not None, f"the .deb holds {path}")
    return names


def fetch_missing(deb, image, work):
    """The packages the image lacks for `deb`, fetched with this host's apt-get into CACHE."""
    status, out = box(image, "cat /var/lib/dpkg/status")
    if status != 0:
        check(False, "read the base image's dpkg status", out[-500:])
        return None
    pathlib.Path(work, "status").write_text(out)
    (CACHE / "partial").mkdir(parents=True, exist_ok=True)
    apt = ["apt-get", "install", "-y", "-qq", "--no-install-recommends",
           f"-o=Dir::State::status={work}/status", "-o=Debug::NoLocking=1", str(deb)]
    # Every package it needs ('URI' FILE SIZE HASH), from an empty archive
    # folder: apt leaves out what its archive folder holds already.
    (pathlib.Path(work) / "archives/partial").mkdir(parents=True)
    r = subprocess.run(apt + [f"-o=Dir::Cache::archives={work}/archives", "--print-uris"],
                       capture_output=True, text=True, timeout=120)
    needed = sorted(n for n in re.findall(r"^'[^']+' (\S+\.deb) ", r.stdout, re.M)
                    if not n.startswith("corral_"))
    if r.returncode == 0:  # what an earlier run fetched is not fetched again
        r = subprocess.run(apt + [f"-o=Dir::Cache::archives={CACHE}", "--download-only"],
                           capture_output=True, text=True, timeout=300)
    if not check(r.returncode == 0 and all((CACHE / n).is_file() for n in needed),
                 "apt-get resolves the package against the base image and fetches what it lacks",
                 r.stdout[-1500:] + r.stderr[-1500:]):
        return None
    return needed


INSTALLED = r"""
echo "@@ dpkg"; dpkg -i $(sed 's|^|/debs/|' /pkg/deps.txt) /pkg/corral.deb >/tmp/dpkg.log 2>&1; rc=$?
tail -20 /tmp/dpkg.log; echo "@@ rc=$rc"
echo "@@ version"; corral --version; echo "@@ rc=$?"
echo "@@ doctor"; corral doctor 2>&1; echo "@@ rc=$?"
echo "@@ refused"; corral check 'aws s3 ls'; echo "@@ rc=$?"
echo "@@ allowed"; corral check 'ls'; echo "@@ rc=$?"
echo "@@ completion"
bash -c '. /usr/share/bash-completion/completions/corral
  COMP_WORDS=(corral ru); COMP_CWORD=1; _corral; echo "${COMPREPLY[*]}"'; echo "@@ rc=$?"
"""


def sections(text):
    """{name: (exit status, output)} from the @@ markers of INSTALLED."""
    found = {}
    for part in text.split("@@ ")[1:]:
        head, _, body = part.partition("\n")
        if head.startswith("rc="):
            name, out = found.pop("_open")
            found[name] = (int(head[3:]), out)
        else:
            found["_open"] = (head, body)
    return found


def main():
    started.start_engine(ENGINE)
    work = tempfile.mkdtemp(prefix=f"corral-deb-{ENGINE}-")
    try:
        deb = make_package(work)
        if deb is None:
            return 1
        depends = check_package(deb)
        image = base_image()
        if image is None:
            return 1
        status, out = box(image, "dpkg-query -W -f '${Package}\\n'")
        present = set(out.split())
        missing = sorted(depends - present)
        print(f"INFO {ENGINE}: base image {image}; of the Depends ({', '.join(sorted(depends))}) "
              f"it lacks: {', '.join(missing) or 'none'}", flush=True)
        pkg = pathlib.Path(work, "pkg")
        pkg.mkdir()
        shutil.copy(deb, pkg / "corral.deb")
        if missing:
            # dpkg must refuse the package alone, for exactly those.
            status, out = box(image, "dpkg -i /pkg/corral.deb", [f"{pkg}:/pkg:ro"])
            named = set(re.findall(r"corral depends on ([^\s;]+)", out))
            check(status != 0 and named == set(missing),
                  f"dpkg -i of the .deb alone refuses, naming {', '.join(missing)}", out[-800:])
        fetched = fetch_missing(deb, image, work)
        if fetched is None:
            print(f"FAIL {ENGINE}: the base image lacks {', '.join(missing)}, which this host's "
                  "apt-get could not fetch", flush=True)
            return 1
        print(f"INFO {ENGINE}: installed beside it: {' '.join(fetched) or 'nothing'}", flush=True)
        (pkg / "deps.txt").write_text("".join(name + "\n" for name in fetched))
        start = time.monotonic()
        status, out = box(image, INSTALLED, [f"{pkg}:/pkg:ro", f"{CACHE}:/debs:ro"])
        timed("install and run in the box", start)
        got = sections(out)
        rc, text = got.get("dpkg", (None, out[-1500:]))
        check(rc == 0, "dpkg -i installs it in the box, without a network", text[-1500:])
        rc, text = got.get("version", (None, ""))
        version = subprocess.run([CORRAL, "--version"], capture_output=True, text=True).stdout
        check(rc == 0 and text.strip() == version.strip() != "", "corral --version",
              f"{rc} {text!r}")
        # docs/doctor.md: exit 1 when a check failed; no engine answers in the box.
        rc, text = got.get("doctor", (None, ""))
        print(f"INFO {ENGINE}: corral doctor in the box (exit {rc}):\n{text}", flush=True)
        check(rc == 1 and re.search(r"^fail +engine: ", text, re.M) is not None,
              "corral doctor runs, says no engine answers, exits 1", f"{rc} {text[-1500:]}")
        check(re.search(r"^ok +shim: /usr/lib/corral/corral-shim \(runs\)", text, re.M)
              is not None and re.search(r"^ok +shell: ", text, re.M) is not None,
              "corral doctor finds the installed shim and shell in /usr/lib/corral", text[-1500:])
        check("A boxed session cannot start here" in text, "corral doctor ends with its verdict",
              text[-300:])
        rc, text = got.get("refused", (None, ""))
        check(rc == 1, "corral check 'aws s3 ls' is refused (exit 1)", f"{rc} {text!r}")
        rc, text = got.get("allowed", (None, ""))
        check(rc == 0, "corral check 'ls' is allowed (exit 0)", f"{rc} {text!r}")
        rc, text = got.get("completion", (None, ""))
        check(rc == 0 and text.split() == ["run"], "the installed bash completion completes run",
              f"{rc} {text!r}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{ENGINE}: {RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
