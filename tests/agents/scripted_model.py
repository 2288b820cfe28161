#!/usr/bin/env python3
"""A scripted model: a local HTTP server that stands in for an agent's API and
answers, in the API's real wire format, with a fixed list of tool calls.

It speaks the Anthropic Messages API as Claude Code uses it (POST /v1/messages,
streamed as server-sent events, tool_use blocks sent as input_json_delta) and
the OpenAI Responses API as Codex uses it (POST /v1/responses, streamed
response.* events, function_call items for its shell tool; with a ChatGPT
login Codex posts the same format to /backend-api/codex/responses, its body
compressed with zstd). Each request's body is recorded, so a test can read the
tool results the agent sent back. A test that serves more than the model on
the same port (another host name, by the Host header) gives `answer`.

Which step to answer is worked out from the request itself: the number of this
script's tool calls whose results are already in the conversation. A retried
request gets the same answer, and the agent's side requests (titles, topic
checks, quota probes: they carry no tools) get a short text.

Over HTTPS too: give ScriptedModel an ssl.SSLContext (server side), or the
program --cert and --key; each connection's handshake runs in its own thread.

Usage as a program (the demo, or trying an agent by hand):
    scripted_model.py [--port N] [--steps FILE.json] [--log FILE] [--transcript FILE]
                      [--cert FILE --key FILE]
prints `listening on http://127.0.0.1:PORT` (https with a certificate) and serves
until killed.
"""
import argparse
import http.server
import json
import re
import shlex
import signal
import ssl
import subprocess
import sys
import threading
import time
import uuid

TOOL_ID_PREFIX = "corral"
FINAL_TEXT = "Done: every step of the script ran."


def write_step(path, content):
    """Write `content` to `path`, relative to the agent's working folder."""
    return {"write": path, "content": content}


def shell_step(command, timeout_ms=None):
    """Run `command` (one shell line) with the agent's shell tool; `timeout_ms`
    raises the tool's own limit (Claude Code's 2 minutes, Codex's 10 s)."""
    step = {"shell": command}
    if timeout_ms:
        step["timeout_ms"] = timeout_ms
    return step


def demo_steps(forbidden_url="http://other.test/"):
    """The four steps of issue 13: write a file, `aws s3 ls`, fetch a host that
    is not allowed, `git push --force`."""
    return [
        write_step("NOTES.md", "Written by the agent inside its box.\n"),
        shell_step("aws s3 ls"),
        shell_step("curl -sS --max-time 20 -o /dev/null -w 'HTTP %{http_code}\\n' "
                   + shlex.quote(forbidden_url)),
        shell_step("git push --force origin HEAD"),
    ]


class Recorder:
    """Every request the server got, in order, thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self._requests = []

    def add(self, method, path, headers, body, login=None):
        """`login`: the login headers the request carried (x-api-key,
        authorization), kept apart from `headers` so no transcript has them."""
        with self._lock:
            self._requests.append({"method": method, "path": path, "headers": headers,
                                   "body": body, "login": login or {}, "time": time.time()})

    def logins(self, header):
        """Each distinct value of a login header the server received."""
        with self._lock:
            return {r["login"][header] for r in self._requests if header in r["login"]}

    def all(self):
        with self._lock:
            return list(self._requests)


# ---------------------------------------------------------------- Anthropic

def anthropic_tool_results(body):
    """{tool_use_id: (text, is_error)} for this script's tool calls in a request."""
    found = {}
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") != "tool_result":
                continue
            tool_id = block.get("tool_use_id", "")
            if tool_id.startswith("toolu_" + TOOL_ID_PREFIX):
                found[tool_id] = (_text_of(block.get("content")), bool(block.get("is_error")))
    return found


def _text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def anthropic_working_folder(body):
    """The working folder Claude Code names in its system prompt (or its first
    message), for the Write tool, which wants an absolute path."""
    texts = [_text_of(body.get("system"))]
    for message in body.get("messages", [])[:1]:
        texts.append(_text_of(message.get("content")))
    for text in texts:
        for line in text.splitlines():
            line = line.strip().lstrip("-* ").strip()
            for label in ("Primary working directory:", "Working directory:"):
                if line.startswith(label):
                    return line[len(label):].strip()
    return None


def anthropic_tool_call(step, number, body):
    names = {tool.get("name") for tool in body.get("tools", [])}
    if "write" in step:
        folder = anthropic_working_folder(body)
        if "Write" in names and folder:
            return "Write", {"file_path": folder.rstrip("/") + "/" + step["write"],
                             "content": step["content"]}
        command = f"printf %s {shlex.quote(step['content'])} > {shlex.quote(step['write'])}"
        return "Bash", {"command": command, "description": f"Write {step['write']}"}
    tool_input = {"command": step["shell"], "description": f"Step {number + 1}"}
    if "timeout_ms" in step:
        tool_input["timeout"] = step["timeout_ms"]
    return "Bash", tool_input


def anthropic_events(body, steps):
    """The SSE events answering one Messages request."""
    tools = {tool.get("name") for tool in body.get("tools", [])}
    done = len(anthropic_tool_results(body))
    model = body.get("model", "scripted")
    message_id = "msg_" + uuid.uuid4().hex[:24]
    events = [("message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    if "Bash" in tools and done < len(steps):
        name, tool_input = anthropic_tool_call(steps[done], done, body)
        tool_id = f"toolu_{TOOL_ID_PREFIX}_{done}"
        encoded = json.dumps(tool_input)
        half = len(encoded) // 2  # two deltas: the client must join partial JSON
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": tool_id, "name": name, "input": {}}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                "type": "input_json_delta", "partial_json": encoded[:half]}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                "type": "input_json_delta", "partial_json": encoded[half:]}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ]
        stop = "tool_use"
    else:
        text = FINAL_TEXT if "Bash" in tools else "Scripted"
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": text}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ]
        stop = "end_turn"
    events += [
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 20}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


def anthropic_message(events):
    """The same answer as one JSON message, for a request that does not stream."""
    message = dict(events[0][1]["message"])
    block, partial = None, ""
    for name, data in events[1:]:
        if name == "content_block_start":
            block = dict(data["content_block"])
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            else:
                partial += delta["partial_json"]
        elif name == "content_block_stop":
            if block.get("type") == "tool_use":
                block["input"] = json.loads(partial)
            message["content"] = [block]
        elif name == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
    return message


# ------------------------------------------------------------ OpenAI (Codex)

SHELL_TOOLS = ("shell", "container.exec", "local_shell", "exec_command", "shell_command")


def responses_tool_results(body, prefix="call_" + TOOL_ID_PREFIX + "_"):
    """{call_id: output text} for this script's function calls in a request
    (the steps' own; with `prefix` WAIT_PREFIX, the polls of one still
    running)."""
    found = {}
    for item in body.get("input", []):
        if not isinstance(item, dict):
            continue
        if item.get("type") not in ("function_call_output", "custom_tool_call_output"):
            continue
        call_id = item.get("call_id", "")
        if call_id.startswith(prefix):
            output = item.get("output")
            if isinstance(output, dict):
                output = output.get("content", json.dumps(output))
            elif isinstance(output, list):
                output = _text_of(output)
            found[call_id] = output if isinstance(output, str) else json.dumps(output)
    return found


# Codex's exec_command answers after at most 30 s; a step still running then
# is waited for with write_stdin polls: call ids WAIT_PREFIX + "STEP_POLL".
WAIT_PREFIX = "call_wait_" + TOOL_ID_PREFIX + "_"
RUNNING = re.compile(r"Process running with session ID (\d+)")


def responses_step_outputs(body):
    """{step number: its output, its polls' outputs joined}, and the session
    id of a step whose last output says it is still running (or None)."""
    outputs = {int(k.rsplit("_", 1)[1]): v for k, v in responses_tool_results(body).items()}
    polls = sorted((tuple(int(n) for n in k[len(WAIT_PREFIX):].split("_")), v)
                   for k, v in responses_tool_results(body, WAIT_PREFIX).items())
    last = {}
    for (step, _), text in polls:
        if step in outputs:
            # A poll's own head (chunk id, wall time, status) stays out of
            # the output it continues.
            outputs[step] += text.split("\nOutput:\n", 1)[-1]
            last[step] = text
    running = None
    if outputs:
        step = max(outputs)
        found = RUNNING.search(last.get(step, outputs[step]))
        if found:
            running = (step, sum(1 for (s, _), _ in polls if s == step), int(found.group(1)))
    return outputs, running


def responses_tool_names(body):
    names = []
    for tool in body.get("tools", []):
        names.append(tool.get("name") or tool.get("type"))
    return names


def responses_shell_call(step, tools):
    """A function call for Codex's shell tool, in whichever spelling it offers."""
    if "write" in step:
        line = f"printf %s {shlex.quote(step['content'])} > {shlex.quote(step['write'])}"
    else:
        line = step["shell"]
    limit = {"timeout_ms": step["timeout_ms"]} if "timeout_ms" in step else {}
    if "shell" in tools:
        return "shell", {"command": ["bash", "-lc", line], **limit}
    if "shell_command" in tools:
        return "shell_command", {"command": line, **limit}
    if "exec_command" in tools:
        # Its output comes back after yield_time_ms (10 s by default), the
        # rest only to a write_stdin poll: a step's limit is its wait too.
        wait = {"yield_time_ms": step["timeout_ms"]} if "timeout_ms" in step else {}
        return "exec_command", {"cmd": line, **wait}
    return None


def responses_events(body, steps):
    tools = responses_tool_names(body)
    outputs, running = responses_step_outputs(body)
    done = len(outputs)
    response_id = "resp_" + uuid.uuid4().hex[:24]
    model = body.get("model", "scripted")
    base = {"id": response_id, "object": "response", "model": model, "status": "in_progress",
            "output": []}
    events = [("response.created", {"type": "response.created", "response": base})]
    call = responses_shell_call(steps[done], tools) if done < len(steps) else None
    call_id = f"call_{TOOL_ID_PREFIX}_{done}"
    if running and "write_stdin" in tools:
        step, polled, session = running
        call = "write_stdin", {"session_id": session, "chars": "", "yield_time_ms": 30000}
        call_id = f"{WAIT_PREFIX}{step}_{polled}"
    if call:
        name, arguments = call
        item = {"type": "function_call", "id": "fc_" + call_id[len("call_"):],
                "call_id": call_id, "name": name,
                "arguments": json.dumps(arguments), "status": "completed"}
    else:
        text = FINAL_TEXT if tools else "Scripted"
        item = {"type": "message", "id": f"msg_{TOOL_ID_PREFIX}_{done}", "role": "assistant",
                "status": "completed", "content": [{"type": "output_text", "text": text,
                                                    "annotations": []}]}
    added = dict(item)
    if call:
        added["arguments"] = ""
        added["status"] = "in_progress"
    else:
        added["content"] = []
        added["status"] = "in_progress"
    events.append(("response.output_item.added",
                   {"type": "response.output_item.added", "output_index": 0, "item": added}))
    if call:
        events.append(("response.function_call_arguments.delta", {
            "type": "response.function_call_arguments.delta", "item_id": item["id"],
            "output_index": 0, "delta": item["arguments"]}))
        events.append(("response.function_call_arguments.done", {
            "type": "response.function_call_arguments.done", "item_id": item["id"],
            "output_index": 0, "arguments": item["arguments"]}))
    else:
        text = item["content"][0]["text"]
        events.append(("response.output_text.delta", {
            "type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
            "content_index": 0, "delta": text}))
        events.append(("response.output_text.done", {
            "type": "response.output_text.done", "item_id": item["id"], "output_index": 0,
            "content_index": 0, "text": text}))
    events.append(("response.output_item.done",
                   {"type": "response.output_item.done", "output_index": 0, "item": item}))
    completed = dict(base, status="completed", output=[item], usage={
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 30})
    events.append(("response.completed", {"type": "response.completed", "response": completed}))
    return events


def is_responses_path(path):
    """The Responses API's path: /v1/responses with an API key, the ChatGPT
    backend's /backend-api/codex/responses with a ChatGPT login."""
    return path in ("/v1/responses", "/responses") or path.endswith("/codex/responses")


def unzstd(raw):
    """A zstd body as bytes (Codex compresses its requests to the ChatGPT
    backend): the zstandard module when Python has it, else the zstd program."""
    try:
        import zstandard
        return zstandard.ZstdDecompressor().decompressobj().decompress(raw)
    except ImportError:
        return subprocess.run(["zstd", "-dcq"], input=raw, capture_output=True,
                              check=True).stdout


# ------------------------------------------------------------------ server

def sse_body(events):
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n"
                   for name, data in events).encode()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    tls = None  # an ssl.SSLContext: HTTPS, the handshake in the connection's thread

    def finish_request(self, request, client_address):
        if not self.tls:
            return super().finish_request(request, client_address)
        request.settimeout(30)
        with self.tls.wrap_socket(request, server_side=True) as wrapped:
            wrapped.settimeout(None)
            super().finish_request(wrapped, client_address)

    def handle_error(self, request, client_address):
        # An agent that exits drops its kept-alive connections, and a client
        # that does not trust the certificate ends the handshake: not errors.
        if not isinstance(sys.exc_info()[1], (ConnectionError, ssl.SSLError)):
            super().handle_error(request, client_address)


class ScriptedModel:
    """The server. `steps` as made by write_step/shell_step; `log` a file
    object that gets one line per request (or None)."""

    def __init__(self, steps, host="127.0.0.1", port=0, log=None, transcript=None, tls=None,
                 answer=None):
        """`answer(host, method, path, headers, body)`: called first for each
        request (headers: the request's, read without regard to case; body:
        parsed JSON, or text); a (status, JSON value) it
        returns is the answer, None leaves the request to the model."""
        self.steps = steps
        self.answer = answer
        self.requests = Recorder()
        self.log = log
        self.transcript = transcript
        self._told = set()
        self._told_lock = threading.Lock()
        self.server = _Server((host, port), self._handler())
        self.server.tls = tls
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def url(self, host="127.0.0.1"):
        return f"{'https' if self.server.tls else 'http'}://{host}:{self.port}"

    def bodies(self, path_prefix):
        return [r["body"] for r in self.requests.all()
                if r["path"].split("?")[0] == path_prefix and isinstance(r["body"], dict)]

    def claude_results(self):
        """{step number: (text, is_error)}: the tool results Claude Code sent back."""
        results = {}
        for body in self.bodies("/v1/messages"):
            for tool_id, value in anthropic_tool_results(body).items():
                results[int(tool_id.rsplit("_", 1)[1])] = value
        return results

    def codex_results(self):
        """{step number: output}: the tool results Codex sent back."""
        results = {}
        bodies = [r["body"] for r in self.requests.all()
                  if is_responses_path(r["path"].split("?")[0]) and isinstance(r["body"], dict)]
        for body in bodies:
            results.update(responses_step_outputs(body)[0])
        return results

    def _tell(self, results):
        """Writes each step with the result the agent sent back, once, to the
        transcript: what a person watching the demo reads."""
        if not self.transcript:
            return
        with self._told_lock:
            for number in sorted(set(results) - self._told):
                self._told.add(number)
                step = self.steps[number]
                doing = f"writes {step['write']}" if "write" in step else f"runs: {step['shell']}"
                text = results[number]
                text = text[0] if isinstance(text, tuple) else text
                lines = [line for line in text.splitlines() if line.strip()][:4]
                print(f"  {number + 1}. the agent {doing}", file=self.transcript)
                for line in lines:
                    print(f"       {line}", file=self.transcript)
                self.transcript.flush()

    def _handler(self):
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, code, content_type, body):
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("request-id", "req_" + uuid.uuid4().hex[:16])
                self.end_headers()
                self.wfile.write(body)

            def _json(self, code, value):
                self._send(code, "application/json", json.dumps(value).encode())

            def _read_body(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.headers.get("Content-Encoding") == "zstd":
                    try:
                        raw = unzstd(raw)
                    except (OSError, subprocess.CalledProcessError):
                        return {"undecoded": "zstd", "bytes": len(raw)}
                try:
                    return json.loads(raw) if raw else None
                except ValueError:
                    return raw.decode("utf-8", "replace")

            def _record(self, body):
                login_headers = ("authorization", "x-api-key")
                keep = {k: v for k, v in self.headers.items() if k.lower() not in login_headers}
                login = {k.lower(): v for k, v in self.headers.items()
                         if k.lower() in login_headers}
                model.requests.add(self.command, self.path, keep, body, login)
                if model.log:
                    summary = ""
                    if isinstance(body, dict):
                        summary = f" model={body.get('model')} stream={body.get('stream')} " \
                                  f"tools={len(body.get('tools') or [])}"
                    print(f"{self.command} {self.path}{summary}", file=model.log, flush=True)

            def _answered(self, body):
                """True when the test's `answer` answered this request."""
                if not model.answer:
                    return False
                host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
                got = model.answer(host, self.command, self.path, self.headers, body)
                if got is None:
                    return False
                self._json(*got)
                return True

            def do_GET(self):
                self._record(None)
                path = self.path.split("?")[0]
                if self._answered(None):
                    return
                if path.rstrip("/").endswith("/models"):
                    self._json(200, {"data": [], "models": [], "has_more": False,
                                     "object": "list"})
                else:
                    self._json(404, {"type": "error", "error": {
                        "type": "not_found_error", "message": f"no {path} here"}})

            def do_HEAD(self):
                self._record(None)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                body = self._read_body()
                self._record(body)
                path = self.path.split("?")[0]
                if self._answered(body):
                    return
                if not isinstance(body, dict):
                    self._json(400, {"type": "error", "error": {
                        "type": "invalid_request_error", "message": "expected a JSON body"}})
                elif path == "/v1/messages/count_tokens":
                    self._json(200, {"input_tokens": 100})
                elif path == "/v1/messages":
                    model._tell({int(k.rsplit("_", 1)[1]): v
                                 for k, v in anthropic_tool_results(body).items()})
                    events = anthropic_events(body, model.steps)
                    if body.get("stream"):
                        self._send(200, "text/event-stream", sse_body(events))
                    else:
                        self._json(200, anthropic_message(events))
                elif is_responses_path(path):
                    model._tell({int(k.rsplit("_", 1)[1]): v
                                 for k, v in responses_tool_results(body).items()})
                    self._send(200, "text/event-stream",
                               sse_body(responses_events(body, model.steps)))
                else:
                    self._json(404, {"type": "error", "error": {
                        "type": "not_found_error", "message": f"no {path} here"}})

        return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--steps", help="a JSON list of steps; the demo's four steps if absent")
    parser.add_argument("--forbidden-url", default="http://other.test/")
    parser.add_argument("--log", help="append one line per request to this file")
    parser.add_argument("--transcript",
                        help="write each step and the result the agent sent back to this file")
    parser.add_argument("--cert", help="serve HTTPS with this certificate (PEM)")
    parser.add_argument("--key", help="the certificate's private key (PEM)")
    args = parser.parse_args()
    tls = None
    if args.cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
    steps = json.load(open(args.steps)) if args.steps else demo_steps(args.forbidden_url)
    log = open(args.log, "a") if args.log else None
    transcript = open(args.transcript, "w") if args.transcript else None
    server = ScriptedModel(steps, args.host, args.port, log, transcript, tls)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"listening on {server.url(args.host)}", flush=True)
    server.server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
