#!/usr/bin/env python3
"""Logins over HTTPS (issue 29, "Tests (real parts)"): the real Claude Code and
Codex in a box reach the scripted model at https://model.test:PORT, whose
certificate comes from a CA this test makes with openssl and corral is told to
trust upstream (network.upstream_ca_file). The proxy ends TLS for model.test
alone and adds the real key; the box holds a stand-in.

Usage: logins_real_agent.py docker|podman CORRAL SHIM [AGENT...]

The session's steps:
 1. a search of the box for the real key: every file under / the agent's user
    can read (grep -r, without /proc and /sys: the kernel's files, which no
    session writes and some of which block a reader), every readable
    /proc/*/environ and /proc/*/cmdline, and the agent's login files. Two
    controls show the search works: a marker file in the project is found, and
    a marker variable of a process the step starts.
 2. a plain request to other.test:PORT2 (allowed), which reaches it;
 3. the same with the stand-in in a header: 403, and other.test gets nothing.
Then: the model saw the real key, the record has the refusal, `corral inbox`
has it; git ls-remote in the box, with GH_ENTERPRISE_TOKEN a stand-in (GH_HOST names it), reaches a git host
over HTTPS (lighttpd, git http-backend) that takes only the real token. Next, a
model whose certificate comes from another CA: the proxy refuses it (502) and
nothing reaches the model. Claude's first session runs again in the network mode
(CORRAL_ENGINE_MODE=network): the proxy sidecar holds the key and GH_ENTERPRISE_TOKEN, and
the same search finds no real byte of them in the box.

Last, for Claude Code, a subscription login: ~/.claude/.credentials.json with
an expired access token. Claude Code refreshes at platform.claude.com (a TLS
server on 127.0.0.1:443 here, named in the proxy's hosts file); the token
server must get the real refresh token, the model the new real access token,
the host's file the new tokens, and a search of the box finds none of the four
tokens.

For Codex, its ChatGPT login: ~/.codex/auth.json whose access token (a JWT,
as OpenAI's are) has expired, so Codex 0.171 refreshes before its first
request. Codex runs with no API key and no provider of its own: it goes where
its recipe's hosts are, chatgpt.com (/backend-api/codex/responses, zstd
bodies, after its workspace check at /backend-api/wham/accounts/check) and
auth.openai.com/oauth/token, both named on 127.0.0.1 in the proxy's hosts file
and served by one TLS server on 127.0.0.1:443 (a certificate for both names,
told apart by Host). The token endpoint must get the real refresh token once,
every request to chatgpt.com that carries a login the new real access token,
the host's auth.json the three new tokens and a new last_refresh, the record a
login_tokens_kept event and no token; a search of the box finds none of the
six tokens, nor any JWT's real signature alone (a stand-in keeps a JWT's
header and claims).

The search runs with the real key written as octal escapes: the proxy puts the
stand-in in place of the real value in what the box receives, and the
command's text must not hold the value it looks for.
"""
import base64
import datetime
import http.server
import json
import secrets
import ssl
import subprocess
import sys
import threading
import time

import session_real_agent as base  # the same arguments; its Session and check
import scripted_model as sm

sys.path.insert(0, str(base.TOP / "tests" / "proxy"))
import origins  # noqa: E402  (git http-backend behind lighttpd)

check, run, ENGINE = base.check, base.run, base.ENGINE
LOGIN_HEADERS = {"claude": "x-api-key: ${VAR}", "codex": "Authorization: Bearer ${VAR}"}
# Real keys of the shape the agents expect, new for each run.
KEY_PREFIXES = {"claude": "sk-ant-api03-", "codex": "sk-proj-"}
SEARCH_TIMEOUT_MS = 540_000


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(folder, name):
    """A CA (EC P-256) in `folder`: (certificate, key) paths."""
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", key, "-out", cert, "-days", "2", "-subj", f"/CN=corral test {name}",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=folder)
    return cert, key


def make_leaf(folder, ca, host, name):
    """A server certificate for `host` (a name, or a list of names) signed by
    `ca`: an ssl.SSLContext serving it."""
    hosts = [host] if isinstance(host, str) else list(host)
    cert, key, csr = folder / f"{name}.crt", folder / f"{name}.key", folder / f"{name}.csr"
    ext = folder / f"{name}.ext"
    names = ",".join(f"DNS:{h}" for h in hosts)
    ext.write_text(f"subjectAltName={names}\nextendedKeyUsage=serverAuth\n"
                   "basicConstraints=CA:FALSE\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", key, "-out", csr, "-subj", f"/CN={hosts[0]}", cwd=folder)
    openssl("x509", "-req", "-in", csr, "-CA", ca[0], "-CAkey", ca[1], "-CAcreateserial",
            "-out", cert, "-days", "2", "-extfile", ext, cwd=folder)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


class Origin:
    """other.test: a plain HTTP server that records each request it gets."""

    def __init__(self):
        self.requests = []
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                origin.requests.append({"path": self.path, "headers": dict(self.headers)})
                body = b"other.test answered\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def escaped(text):
    """`text` as printf %b octal escapes: bash's and dash's printf read them
    alike (dash has no \\x)."""
    return "".join(f"\\0{b:03o}" for b in text.encode())


def in_proc(pattern, names="-name environ"):
    """A shell line printing each /proc/PID file (of `names`) that holds
    `pattern` (printf %b's argument: shell text). find and xargs, no glob: an
    agent's shell tool may not expand one."""
    return ("find /proc -mindepth 2 -maxdepth 2 -path '/proc/[0-9]*' \\( " + names + " \\) "
            "-print0 2>/dev/null | xargs -0 sh -c 'printf \"%b\" \"$0\" | grep -lsF -f - \"$@\"' "
            + pattern)


def search_step(key, marker, variable, more_keys=(), controls=()):
    """One shell line: where the real key (or any of `more_keys`) is found,
    and as controls the marker (a file, then a variable), the stand-in and
    any `controls` (text that is no secret, looked for in files with the
    marker). Prints `file LENGTH` per match under /, then the /proc entries
    and counts, then the login files that exist; sections as sections()
    reads them."""
    keys = [key, *more_keys]
    real = "\\n".join(escaped(k) for k in keys)
    looked = "\\n".join(escaped(c) for c in (marker, *controls))
    real_or_marker = f"printf '%b\\n%b' '{real}' '{looked}'"
    return (
        f"echo FILES; {real_or_marker} | grep -rsoZF -D skip -f - / --exclude-dir=proc "
        "--exclude-dir=sys 2>/dev/null | tr '\\0' ' ' | "
        "awk '{print substr($0, 1, length($0) - length($NF) - 1), length($NF)}' | sort -u; "
        "echo PROC-REAL; " + in_proc(f"'{real}'", "-name environ -o -name cmdline") + "; "
        f"echo PROC-MARKER; export CORRAL_MARKER=\"$(printf '%b' '{escaped(marker)}')\"; "
        "(sleep 30 &); " + in_proc('"$CORRAL_MARKER"') + " | wc -l; "
        "echo PROC-STAND-IN; " + in_proc(f'"${variable}"') + " | wc -l; "
        f"echo STAND-IN-LENGTH; printf '%s' \"${variable}\" | wc -c; "
        "echo LOGIN-FILES; for f in ~/.claude/.credentials.json ~/.claude.json ~/.codex/auth.json; "
        "do [ -r \"$f\" ] && echo \"$f\"; done; echo END")


def sections(text):
    """{section: [lines]} of the search step's output."""
    found, name = {}, None
    for line in (text or "").splitlines():
        line = line.strip()
        if line in ("FILES", "PROC-REAL", "PROC-MARKER", "PROC-STAND-IN", "STAND-IN-LENGTH",
                    "LOGIN-FILES", "END"):
            name = line
            found[name] = []
        elif name and line:
            found[name].append(line)
    return found


def events(session):
    found = []
    for path in sorted((session.work / "state").rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
    return found


def https_session(session, test_ca, model_tls, label=None):
    """`label`: the checks' name for the session (the agent's by default)."""
    agent = session.agent
    label = label or agent
    variable = base.LOGIN_VARIABLES[agent]
    key = KEY_PREFIXES[agent] + secrets.token_urlsafe(30).replace("-", "x").replace("_", "y")
    marker = "corral-search-marker-" + secrets.token_hex(6)  # not the key's length
    (session.proj / "marker.txt").write_text(marker + "\n")
    other = Origin()
    # A git host over HTTPS (GH_HOST, GitHub Enterprise's way) that takes only
    # the real enterprise token as the password of Basic credentials. As gh
    # reads them, GH_ENTERPRISE_TOKEN belongs to $GH_HOST (GH_TOKEN to
    # github.com alone: docs/forge.md, "Which token goes where").
    gh_token = "ghp_" + secrets.token_urlsafe(27).replace("-", "x").replace("_", "y")
    make_leaf(session.work, (test_ca, test_ca.with_suffix(".key")), "git.test", "git")
    git_pem = session.work / "git.pem"
    git_pem.write_text((session.work / "git.crt").read_text() + (session.work / "git.key").read_text())
    git_dir = session.work / "git-host"
    git_dir.mkdir()
    lighttpd, git_port = origins.start_git(str(git_dir), "127.0.0.1", str(git_pem),
                                           {"x-access-token": gh_token})
    hosts = session.hosts.read_text()
    session.hosts.write_text(hosts.rstrip("\n") + " git.test\n")
    header = LOGIN_HEADERS[agent].replace("VAR", variable)
    curl = "curl -sS --max-time 20 -o /dev/null -w 'HTTP %{http_code}\\n' "
    steps = [sm.shell_step(search_step(key, marker, variable, (gh_token,)), SEARCH_TIMEOUT_MS),
             sm.shell_step(curl + f"http://other.test:{other.port}/plain"),
             sm.shell_step(curl + f"-H \"{header}\" http://other.test:{other.port}/stand-in"),
             sm.shell_step(f"GIT_TERMINAL_PROMPT=0 git ls-remote https://git.test:{git_port}/git/repo.git "
                           "2>&1 | tail -3; echo GIT-DONE")]
    network = {"allowed_domains": [f"other.test:{other.port}", f"git.test:{git_port}"],
               "upstream_ca_file": str(test_ca)}
    try:
        model, r, seconds = session.run_agent(steps, timeout=1800, tls=model_tls,
                                              network=network, key=key,
                                              passed={"GH_ENTERPRISE_TOKEN": gh_token,
                                                      "GH_HOST": f"git.test:{git_port}"})
    finally:
        other.stop()
        lighttpd.kill()
        lighttpd.wait()
        session.hosts.write_text(hosts)
    print(f"  {label} stderr: " + r.stderr[-2000:].replace("\n", "\n  "), flush=True)
    check(r.returncode == 0 and sm.FINAL_TEXT in r.stdout,
          f"{label} over https: the session ran to its final answer and exited 0 "
          f"({seconds:.1f} s)", f"exit {r.returncode}: {r.stdout[-800:]}")
    if not model.requests.all():
        check(False, f"{label} over https: the agent reached the scripted model", r.stderr[-1500:])
        return
    name, prefix = base.LOGIN_HEADERS[agent]
    got = model.requests.logins(name)
    check(got == {prefix + key},
          f"{label} over https: the model received the real key in {name} on every request "
          f"({len(model.requests.all())} requests, through the proxy's TLS)",
          sorted(v[:len(prefix) + 4] + "..." for v in got))
    logins = [e for e in events(session) if e.get("event") == "network" and e.get("login")]
    model_logins = [e for e in logins if e.get("host") == "model.test"]
    check(model_logins and all(e.get("login") == variable for e in model_logins),
          f"{label} over https: the record shows the proxy added {variable} for model.test",
          json.dumps(model_logins[-1:]))
    check(sorted({(e.get("host"), e.get("login")) for e in logins})
          == [("git.test", "GH_ENTERPRISE_TOKEN"), ("model.test", variable)],
          f"{label} over https: the proxy added logins only there, and GH_ENTERPRISE_TOKEN for git.test",
          sorted({(e.get("host"), e.get("login")) for e in logins}))
    results = session.results(model)
    check(sorted(results) == [0, 1, 2, 3], f"{label} over https: sent back a result for each step",
          sorted(results))
    git = results.get(3, "")
    check("refs/heads/main" in git,
          f"{label}: git over HTTPS in the box reached a git host that takes only the real "
          "enterprise token (the box held a stand-in in GH_ENTERPRISE_TOKEN; the proxy added the token)",
          git[-600:])
    found = sections(results.get(0, ""))
    files = found.get("FILES", [])
    check("END" in found and any(line.endswith(f"/marker.txt {len(marker)}") for line in files),
          f"{label}: the search of / reached the project (its marker file was found)",
          results.get(0, "")[-1500:])
    check("END" in found and not [f for f in files if f.endswith(f" {len(key)}")],
          f"{label}: no file in the box the agent's user can read holds the real key",
          files)
    check("END" in found and found.get("PROC-REAL") == [],  # each with what the process runs
          f"{label}: no process's environment or command line in the box holds the real key",
          found.get("PROC-REAL"))
    marked = (found.get("PROC-MARKER") or ["0"])[0]
    check(marked.isdigit() and int(marked) > 0,
          f"{label}: the same search of /proc finds a marker variable in {marked} processes' "
          "environments (the search works)", found)
    print(f"  {label}: the stand-in ({(found.get('STAND-IN-LENGTH') or ['?'])[0]} bytes in the "
          f"tool's shell) is in {(found.get('PROC-STAND-IN') or ['?'])[0]} readable environments",
          flush=True)
    print(f"  {label}: the agent's login files in the box: {found.get('LOGIN-FILES')} "
          "(searched with the rest of /)", flush=True)
    plain, refused = results.get(1, ""), results.get(2, "")
    check("HTTP 200" in plain, f"{label}: other.test is allowed: a plain request reaches it",
          plain)
    check("HTTP 403" in refused, f"{label}: the stand-in sent to other.test got 403", refused)
    paths = [req["path"] for req in other.requests]
    check(paths == ["/plain"], f"{label}: other.test received the plain request and nothing else",
          paths)
    strays = [e for e in events(session) if e.get("event") == "network"
              and e.get("credential") == "credential-to-wrong-host"]
    check(len(strays) == 1 and strays[0].get("host") == "other.test"
          and strays[0].get("status") == 403 and key not in json.dumps(strays),
          f"{label}: the record has a network event with credential-to-wrong-host for other.test",
          json.dumps(strays))
    items = session.inbox()
    credential = [i for i in items if i.get("kind") == "credential"]
    check(len(credential) == 1 and credential[0].get("command") == "other.test"
          and variable in (credential[0].get("entry") or "")
          and key not in json.dumps(items),
          f"{label}: `corral inbox` has the refused stand-in (other.test, {variable})",
          json.dumps(items)[:1200])
    check(not [i for i in items if i.get("kind") == "host" and i.get("command") == "other.test"],
          f"{label}: other.test is not listed as a refused host (it is allowed)",
          json.dumps(items)[:1200])


class TokenServer:
    """platform.claude.com at 127.0.0.1:443 over TLS (a test CA's
    certificate): Claude Code's token endpoint. A refresh with `refresh`
    gets `answer`; anything else a 400."""

    def __init__(self, tls, refresh, answer):
        self.bodies = []
        server_self = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                server_self.bodies.append({"path": self.path, "body": body,
                                           "encoding": self.headers.get("Accept-Encoding")})
                try:
                    grant = json.loads(body)
                except ValueError:
                    grant = {}
                ok = self.path == "/v1/oauth/token" and grant.get("refresh_token") == refresh
                reply = json.dumps(answer if ok else {"error": "invalid_grant"}).encode()
                self.send_response(200 if ok else 400)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 443), Handler)
        self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def token(prefix):
    return prefix + secrets.token_urlsafe(60).replace("-", "x").replace("_", "y")


def subscription_session(session, test_ca, model_tls, token_tls):
    """Claude Code logged in by subscription (/login's .credentials.json,
    its access token expired): it refreshes through the proxy, which sends
    the real refresh token, keeps the new tokens on the host and gives the
    box stand-ins; the model then gets the new real access token."""
    access, refresh = token("sk-ant-oat01-"), token("sk-ant-ort01-")
    new_access, new_refresh = token("sk-ant-oat01-"), token("sk-ant-ort01-")
    credentials = session.work / "home" / ".claude" / ".credentials.json"
    credentials.parent.mkdir(parents=True, exist_ok=True)
    credentials.write_text(json.dumps({"claudeAiOauth": {
        "accessToken": access, "refreshToken": refresh,
        "expiresAt": int(time.time() * 1000) - 3_600_000,
        "scopes": ["user:inference", "user:profile"], "subscriptionType": "max"}}))
    credentials.chmod(0o600)
    tokens = TokenServer(token_tls, refresh, {
        "token_type": "Bearer", "access_token": new_access, "refresh_token": new_refresh,
        "expires_in": 28800, "scope": "user:inference user:profile"})
    marker = "corral-search-marker-" + secrets.token_hex(6)
    (session.proj / "marker.txt").write_text(marker + "\n")
    hosts = session.hosts.read_text()
    session.hosts.write_text(hosts + "127.0.0.1 platform.claude.com\n")
    steps = [sm.shell_step(search_step(access, marker, "HOME", (refresh, new_access, new_refresh)),
                           SEARCH_TIMEOUT_MS)]
    network = {"upstream_ca_file": str(test_ca)}
    try:
        model, r, seconds = session.run_agent(steps, timeout=1800, tls=model_tls, network=network,
                                              key=None)
    finally:
        tokens.stop()
        session.hosts.write_text(hosts)
    print("  claude (subscription) stderr: " + r.stderr[-2000:].replace("\n", "\n  "), flush=True)
    check(r.returncode == 0 and sm.FINAL_TEXT in r.stdout,
          f"claude by subscription: the session ran to its final answer and exited 0 ({seconds:.1f} s)",
          f"exit {r.returncode}: {r.stdout[-800:]}")
    refreshes = [b for b in tokens.bodies if b["path"] == "/v1/oauth/token"]
    sent = [json.loads(b["body"]).get("refresh_token") for b in refreshes]
    check(sent and all(value == refresh for value in sent),
          f"claude by subscription: the token endpoint got the real refresh token "
          f"({len(sent)} refresh(es)), never a stand-in",
          [value[:16] + "..." for value in sent if value])
    check(all(b["encoding"] in (None, "identity") for b in refreshes),
          "claude by subscription: the refresh asked for an answer the proxy can read",
          [b["encoding"] for b in refreshes])
    got = model.requests.logins("authorization")
    check(got == {"Bearer " + new_access},
          f"claude by subscription: the model got the new real access token on every request "
          f"({len(model.requests.all())} requests)", sorted(v[:24] + "..." for v in got))
    kept = json.loads(credentials.read_text()).get("claudeAiOauth", {})
    check(kept.get("accessToken") == new_access and kept.get("refreshToken") == new_refresh
          and kept.get("expiresAt", 0) > time.time() * 1000 + 7 * 3600 * 1000
          and kept.get("subscriptionType") == "max",
          "claude by subscription: the host's .credentials.json has the new tokens and expiry "
          "(the host's own claude stays logged in)",
          {k: (v[:16] + "...") if isinstance(v, str) else v for k, v in kept.items()})
    kept_events = [e for e in events(session) if e.get("event") == "login_tokens_kept"]
    check(kept_events and all(e.get("kept") for e in kept_events)
          and new_access not in json.dumps(events(session)),
          "claude by subscription: the record says the tokens were kept, and holds no token",
          json.dumps(kept_events))
    found = sections(session.results(model).get(0, ""))
    files = found.get("FILES", [])
    check("END" in found and any(line.endswith(f"/marker.txt {len(marker)}") for line in files),
          "claude by subscription: the search of / reached the project (its marker file was found)",
          files)
    check("END" in found and not [f for f in files if not f.endswith(f" {len(marker)}")],
          "claude by subscription: no file in the box holds a real token, old or new "
          f"(the box's login files: {found.get('LOGIN-FILES')})", files)
    check("END" in found and found.get("PROC-REAL") == [],
          "claude by subscription: no process's environment or command line holds a real token",
          found.get("PROC-REAL"))


def jwt(claims):
    """A JWT of the shape OpenAI's tokens have (base64url header, claims and
    an RS256-sized signature, unpadded). Codex reads the claims (the expiry,
    the account, the plan), never the signature."""
    def part(value):
        return base64.urlsafe_b64encode(value).rstrip(b"=").decode()
    header = {"alg": "RS256", "kid": "corral-test", "typ": "JWT"}
    return ".".join([part(json.dumps(header).encode()), part(json.dumps(claims).encode()),
                     part(secrets.token_bytes(256))])


def chatgpt_tokens(account, expires):
    """(id_token, access_token, refresh_token) of a ChatGPT login, each
    JWT's claims as Codex reads them; the access token expires at `expires`."""
    auth = {"chatgpt_account_id": account, "chatgpt_plan_type": "pro",
            "chatgpt_user_id": "user-corral-test"}
    now = int(time.time())
    id_token = jwt({"email": "corral-test@example.com", "exp": expires, "iat": now - 7200,
                    "https://api.openai.com/auth": auth})
    access = jwt({"exp": expires, "iat": now - 7200, "jti": secrets.token_hex(16),
                  "https://api.openai.com/auth": auth})
    return id_token, access, "rt_" + secrets.token_urlsafe(40).replace("-", "x").replace("_", "y")


def signature(token):
    return token.rsplit(".", 1)[1] if token.count(".") == 2 else token


class ChatgptHosts:
    """chatgpt.com and auth.openai.com on the scripted model's port (443),
    told apart by the Host header. auth.openai.com/oauth/token: a refresh
    with `refresh` gets `answer`, anything else a 401 as OpenAI's. The
    ChatGPT backend's workspace discovery (wham/accounts/check) names the
    account; the model's own path is the scripted model's."""

    def __init__(self, account, refresh, answer):
        self.account, self.refresh, self.reply = account, refresh, answer
        self.refreshes = []

    def __call__(self, host, method, path, headers, body):
        path = path.split("?")[0]
        if host == "auth.openai.com":
            grant = body if isinstance(body, dict) else {}
            self.refreshes.append({"path": path, "grant": grant,
                                   "encoding": headers.get("Accept-Encoding")})
            if (method, path) == ("POST", "/oauth/token") \
                    and grant.get("grant_type") == "refresh_token" \
                    and grant.get("refresh_token") == self.refresh:
                return 200, self.reply
            return 401, {"error": {"code": "refresh_token_invalidated", "message": "unknown"}}
        if host == "chatgpt.com" and path == "/backend-api/wham/accounts/check":
            return 200, {"accounts": [{"id": self.account, "name": "corral test",
                                       "structure": "personal",
                                       "workspace_backend_origin": "https://chatgpt.com",
                                       "account_routing_override": "NO_CONSTRAINT"}],
                         "account_ordering": [self.account], "default_account_id": self.account}
        return None


def codex_subscription_session(session, test_ca, tls):
    """Codex logged in with ChatGPT (auth.json, its access token's JWT
    expired): it refreshes at auth.openai.com through the proxy, which sends
    the real refresh token, keeps the new tokens in the host's auth.json and
    gives the box stand-ins; the ChatGPT backend (chatgpt.com, the model at
    /backend-api/codex/responses) then gets the new real access token."""
    account = "acct-" + secrets.token_hex(8)
    id_token, access, refresh = chatgpt_tokens(account, int(time.time()) - 3600)
    new_id, new_access, new_refresh = chatgpt_tokens(account, int(time.time()) + 10 * 86400)
    real = [access, refresh, id_token, new_access, new_refresh, new_id]
    # The JWTs' header and claims are kept in their stand-ins: the search
    # looks for each whole token and each JWT's signature alone.
    searched = real + [signature(t) for t in real if t.count(".") == 2]
    auth_json = session.work / "home" / ".codex" / "auth.json"
    auth_json.parent.mkdir(parents=True, exist_ok=True)
    auth_json.write_text(json.dumps({
        "OPENAI_API_KEY": None,
        "tokens": {"id_token": id_token, "access_token": access, "refresh_token": refresh,
                   "account_id": account},
        "last_refresh": "2026-01-01T00:00:00Z"}, indent=2))
    auth_json.chmod(0o600)
    hosts = ChatgptHosts(account, refresh, {
        "id_token": new_id, "access_token": new_access, "refresh_token": new_refresh,
        "token_type": "Bearer", "expires_in": 864000,
        "scope": "openid profile email offline_access"})
    marker = "corral-search-marker-" + secrets.token_hex(6)
    (session.proj / "marker.txt").write_text(marker + "\n")
    saved_hosts = session.hosts.read_text()
    session.hosts.write_text(saved_hosts + "127.0.0.1 chatgpt.com auth.openai.com\n")
    # A control: the new access token's claims, which its stand-in keeps, are
    # in the box's auth.json once Codex has saved what the refresh gave it.
    claims = new_access.split(".")[1]
    assert len(claims) not in {len(marker), *map(len, searched)}
    steps = [sm.shell_step(search_step(searched[0], marker, "HOME", searched[1:], (claims,)),
                           SEARCH_TIMEOUT_MS)]
    model = sm.ScriptedModel(steps, port=443, tls=tls, answer=hosts).start()
    session.write_config(model.port, {}, {"upstream_ca_file": str(test_ca)})
    # No API key and no provider: Codex's own ChatGPT path, from auth.json.
    args = ["exec", "--skip-git-repo-check", "-c", 'model="scripted"', "Do the task."]
    started = time.time()
    try:
        r = base.run_stopping([base.CORRAL, "run", "--headless", "codex", "--", *args], 1800,
                              cwd=session.proj, env=session.env)
    finally:
        seconds = time.time() - started
        model.stop()
        session.hosts.write_text(saved_hosts)
    label = "codex by ChatGPT login"
    print(f"  {label} stderr: " + r.stderr[-2500:].replace("\n", "\n  "), flush=True)
    check(r.returncode == 0 and sm.FINAL_TEXT in r.stdout,
          f"{label}: the session ran to its final answer and exited 0 ({seconds:.1f} s)",
          f"exit {r.returncode}: {r.stdout[-800:]}")
    sent = [b["grant"].get("refresh_token") for b in hosts.refreshes]
    check(sent == [refresh] and hosts.refreshes[0]["path"] == "/oauth/token",
          f"{label}: auth.openai.com/oauth/token got the real refresh token, in the one "
          f"refresh Codex made ({len(sent)} request(s))",
          [(b["path"], (v or "")[:12] + "...") for b, v in zip(hosts.refreshes, sent)])
    check(hosts.refreshes and all(b["encoding"] in (None, "identity") for b in hosts.refreshes),
          f"{label}: the refresh asked for an answer the proxy can read (Codex asks for zstd)",
          [b["encoding"] for b in hosts.refreshes])
    backend = [q for q in model.requests.all()
               if (q["headers"].get("Host") or q["headers"].get("host") or "").split(":")[0]
               == "chatgpt.com"]
    responses = [q for q in backend if sm.is_responses_path(q["path"].split("?")[0])
                 and q["method"] == "POST"]
    got = {q["login"]["authorization"] for q in backend if "authorization" in q["login"]}
    check(responses and got == {"Bearer " + new_access}
          and all(q["login"].get("authorization") == "Bearer " + new_access for q in responses),
          f"{label}: chatgpt.com got the new real access token on every request "
          f"({len(backend)} requests, {len(responses)} to /backend-api/codex/responses)",
          sorted((v or "none")[:12] + "..." + (v or "")[-6:] for v in got))
    refused = [e for e in events(session) if e.get("event") == "network" and e.get("credential")
               and e.get("host") in ("chatgpt.com", "auth.openai.com")]
    check(not refused, f"{label}: no request to chatgpt.com or auth.openai.com was refused for "
          "carrying another login's stand-in (the id and refresh tokens' go only to "
          "auth.openai.com)", json.dumps(refused)[:800])
    try:
        kept = json.loads(auth_json.read_text())
    except ValueError as error:
        kept = {"unreadable": str(error)}
    tokens = kept.get("tokens") or {}
    refreshed = kept.get("last_refresh") or ""
    try:
        recent = datetime.datetime.fromisoformat(refreshed.replace("Z", "+00:00")) \
            .timestamp() >= started - 5
    except ValueError:
        recent = False
    check(tokens.get("access_token") == new_access and tokens.get("refresh_token") == new_refresh
          and tokens.get("id_token") == new_id and tokens.get("account_id") == account
          and recent,
          f"{label}: the host's auth.json has the new tokens and last_refresh {refreshed} "
          "(the host's own codex stays logged in)",
          {k: (str(v)[:16] + "...") for k, v in tokens.items()} | {"last_refresh": refreshed})
    record = json.dumps(events(session))
    kept_events = [e for e in events(session) if e.get("event") == "login_tokens_kept"]
    check(kept_events and all(e.get("kept") for e in kept_events)
          and not [t for t in searched if t in record],
          f"{label}: the record says the tokens were kept ({len(kept_events)} event(s)), "
          "and holds no token", json.dumps(kept_events))
    found = sections(model.codex_results().get(0, ""))
    files = found.get("FILES", [])
    check("END" in found and any(line.endswith(f"/marker.txt {len(marker)}") for line in files),
          f"{label}: the search of / reached the project (its marker file was found)",
          model.codex_results().get(0, "")[-1500:])
    check("END" in found and any(f.endswith(f"/.codex/auth.json {len(claims)}") for f in files),
          f"{label}: the search read the box's auth.json, where Codex saved the refreshed "
          "access token's stand-in (its claims are found there)", files)
    check("END" in found
          and not [f for f in files if not f.endswith((f" {len(marker)}", f" {len(claims)}"))],
          f"{label}: no file in the box holds a real token or a JWT's real signature, old or "
          f"new (the box's login files: {found.get('LOGIN-FILES')})", files)
    check("END" in found and found.get("PROC-REAL") == [],
          f"{label}: no process's environment or command line holds a real token",
          found.get("PROC-REAL"))
    marked = (found.get("PROC-MARKER") or ["0"])[0]
    check(marked.isdigit() and int(marked) > 0,
          f"{label}: the same search of /proc finds a marker variable in {marked} processes' "
          "environments (the search works)", found)
    check("END" in found
          and any(f.endswith("/.codex/auth.json") for f in found.get("LOGIN-FILES", [])),
          f"{label}: the box has its own ~/.codex/auth.json (searched with the rest of /)",
          found.get("LOGIN-FILES"))


def forged_session(session, test_ca, forged_tls):
    """The model's certificate from another CA: the proxy refuses it."""
    agent = session.agent
    network = {"upstream_ca_file": str(test_ca)}
    # Claude Code retries a failed request ten times with growing waits (one
    # here); Codex 0.171 reconnects for as long as it runs, its retry settings
    # notwithstanding: it is stopped after 90 s (corral gets SIGTERM).
    model, r, seconds = session.run_agent([], timeout=90, tls=forged_tls, network=network,
                                          passed={"CLAUDE_CODE_MAX_RETRIES": "1"})
    refused = [e for e in events(session) if e.get("event") == "network"
               and e.get("host") == "model.test" and e.get("status") == 502]
    check(r.returncode != 0 and sm.FINAL_TEXT not in r.stdout,
          f"{agent}: with a forged model certificate the session fails ({seconds:.1f} s, "
          f"exit {r.returncode}{', stopped by the test' if seconds >= 90 else ''})",
          f"exit {r.returncode}: {r.stdout[-400:]}")
    check(refused, f"{agent}: the proxy refused the forged certificate with 502 "
          f"({len(refused)} times)", r.stderr[-800:])
    check(model.requests.all() == [],
          f"{agent}: nothing reached the model with the forged certificate",
          [req["path"] for req in model.requests.all()])


def network_mode_session(test_ca, model_tls):
    """The same session in the network mode (docs/network-mode.md): the proxy
    sidecar holds the real key, given through the engine API, and the box
    trusts the session CA corral made for it. One agent: the code path is
    corral's, not the agent's."""
    session = base.Session("claude")
    session.env["CORRAL_ENGINE_MODE"] = "network"
    try:
        https_session(session, test_ca, model_tls, label="claude in the network mode")
        started = session.started_event()
        check("ANTHROPIC_API_KEY" in (started.get("logins") or [])
              and not started.get("logins_passed"),
              "claude in the network mode: the session record names ANTHROPIC_API_KEY among the "
              "logins the proxy holds, none passed as it is", json.dumps(started)[:800])
    finally:
        base.shutil.rmtree(session.work, ignore_errors=True)


def main():
    base.start_engine()
    network_done = False
    for agent in base.AGENTS:
        session = base.Session(agent)
        try:
            test_ca = make_ca(session.work, "test-ca")
            forger = make_ca(session.work, "forger-ca")
            https_session(session, test_ca[0], make_leaf(session.work, test_ca, "model.test",
                                                         "model"))
            forged_session(session, test_ca[0],
                           make_leaf(session.work, forger, "model.test", "forged"))
            if agent == "claude":
                subscription_session(session, test_ca[0],
                                     make_leaf(session.work, test_ca, "model.test", "model2"),
                                     make_leaf(session.work, test_ca, "platform.claude.com",
                                               "platform"))
            if agent == "codex":
                codex_subscription_session(session, test_ca[0],
                                           make_leaf(session.work, test_ca,
                                                     ["chatgpt.com", "auth.openai.com"],
                                                     "chatgpt"))
            if agent == "claude" and not network_done:
                network_done = True
                network_mode_session(test_ca[0], make_leaf(session.work, test_ca, "model.test",
                                                           "model-network"))
        finally:
            base.shutil.rmtree(session.work, ignore_errors=True)
    print(f"{ENGINE}: {base.RESULTS['pass']} passed, {base.RESULTS['fail']} failed")
    return 1 if base.RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
