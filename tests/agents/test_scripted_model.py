#!/usr/bin/env python3
"""The scripted model against the real agents, on the host, without a box.

First the server's wire format is checked by hand (what a client would join
and parse). Then Claude Code (`claude -p`) and Codex (`codex exec`) each run
the four steps against it in a throwaway project: write a file, run `aws s3
ls` (a stand-in on PATH), fetch a URL that answers 404, `git push --force` to
a local bare repository. The test reads the tool results the agent sent back.

An agent that is not installed is skipped with a line; with
CORRAL_REQUIRE_AGENTS=1 that is a failure.
"""
import http.client
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scripted_model as sm  # noqa: E402
import agent_env  # noqa: E402

RESULTS = {"pass": 0, "fail": 0}


def check(ok, what, detail=""):
    RESULTS["pass" if ok else "fail"] += 1
    print(("PASS " if ok else "FAIL ") + what + ("" if ok else f"  [{str(detail)[:1500]}]"),
          flush=True)


def post(port, path, body):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read().decode()


def parse_sse(text):
    events = []
    for record in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in record.splitlines())
        data = json.loads(lines["data"])
        assert data["type"] == lines["event"], record
        events.append(data)
    return events


def joined_tool_input(events):
    """What an Anthropic client builds from one streamed tool_use block."""
    start = next(e for e in events if e["type"] == "content_block_start")
    partial = "".join(e["delta"]["partial_json"] for e in events
                      if e["type"] == "content_block_delta")
    return start["content_block"], json.loads(partial)


def wire_format():
    steps = [sm.shell_step("echo one"), sm.shell_step("echo two")]
    transcript = io.StringIO()
    server = sm.ScriptedModel(steps, transcript=transcript).start()
    try:
        bash = {"name": "Bash", "input_schema": {}}
        request = {"model": "m", "stream": True, "tools": [bash],
                   "messages": [{"role": "user", "content": "go"}]}
        status, text = post(server.port, "/v1/messages?beta=true", request)
        events = parse_sse(text)
        block, tool_input = joined_tool_input(events)
        check(status == 200 and block["name"] == "Bash" and tool_input["command"] == "echo one",
              "messages: the first answer is the first step, as a streamed tool_use", text)
        check([e["type"] for e in events][0] == "message_start"
              and events[-1]["type"] == "message_stop"
              and events[-2]["delta"]["stop_reason"] == "tool_use",
              "messages: the stream opens with message_start and stops for tool_use", text)
        request["messages"] += [
            {"role": "assistant", "content": [dict(block, input=tool_input)]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": block["id"],
                                          "content": "one"}]}]
        _, text = post(server.port, "/v1/messages", request)
        check(joined_tool_input(parse_sse(text))[1]["command"] == "echo two",
              "messages: with the first result sent back, the second step comes", text)
        _, again = post(server.port, "/v1/messages", request)
        check(joined_tool_input(parse_sse(again))[1]["command"] == "echo two",
              "messages: a retried request gets the same step", again)
        check(transcript.getvalue() == "  1. the agent runs: echo one\n       one\n",
              "the transcript tells the first step and its result, once", transcript.getvalue())
        status, text = post(server.port, "/v1/messages",
                            {"model": "m", "messages": [{"role": "user", "content": "title?"}]})
        check(status == 200 and json.loads(text)["content"][0]["type"] == "text",
              "messages: a side request without tools, not streamed, gets one text message", text)
        status, text = post(server.port, "/v1/messages/count_tokens", {"messages": []})
        check(status == 200 and "input_tokens" in json.loads(text), "count_tokens answers", text)

        tools = [{"type": "function", "name": "exec_command"}]
        request = {"model": "m", "stream": True, "tools": tools, "input": []}
        status, text = post(server.port, "/v1/responses", request)
        events = parse_sse(text)
        done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
        check(status == 200 and events[0]["type"] == "response.created"
              and events[-1]["type"] == "response.completed" and len(done) == 1
              and done[0]["name"] == "exec_command"
              and json.loads(done[0]["arguments"]) == {"cmd": "echo one"},
              "responses: the first step is a function_call for Codex's exec_command", text)
        request["input"] = [done[0], {"type": "function_call_output",
                                      "call_id": done[0]["call_id"], "output": "one"}]
        _, text = post(server.port, "/v1/responses", request)
        done = [e["item"] for e in parse_sse(text) if e["type"] == "response.output_item.done"]
        check(json.loads(done[0]["arguments"]) == {"cmd": "echo two"},
              "responses: with the first output sent back, the second step comes", text)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/v1/nothing")
        check(conn.getresponse().status == 404, "an unknown path gets 404")
        check(len(server.requests.all()) == 8, "every request was recorded",
              len(server.requests.all()))
    finally:
        server.stop()


def post_raw(port, path, body, headers):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path, body, headers)
    response = conn.getresponse()
    return response.status, response.read().decode()


def chatgpt_path_and_polls():
    """Codex with a ChatGPT login: zstd bodies at /backend-api/codex/responses,
    a step longer than exec_command's wait polled with write_stdin, and the
    test's own answer for another host on the same port."""
    def answer(host, method, path, headers, body):
        if host == "auth.example":
            return 200, {"seen": body.get("refresh_token"), "encoding": headers.get("accept-encoding")}
        return None
    steps = [sm.shell_step("sleep 60; echo one", 90_000), sm.shell_step("echo two")]
    server = sm.ScriptedModel(steps, answer=answer).start()
    path = "/backend-api/codex/responses"

    def responses(items):
        body = json.dumps({"model": "m", "stream": True, "input": items, "tools": [
            {"type": "function", "name": "exec_command"}, {"type": "function", "name": "write_stdin"}]})
        packed = subprocess.run(["zstd", "-cq"], input=body.encode(), capture_output=True,
                                check=True).stdout
        status, text = post_raw(server.port, path, packed, {
            "Content-Type": "application/json", "Content-Encoding": "zstd"})
        done = [e["item"] for e in parse_sse(text) if e["type"] == "response.output_item.done"]
        return status, done[0], text

    try:
        status, first, text = responses([])
        check(status == 200 and first["name"] == "exec_command"
              and json.loads(first["arguments"]) == {"cmd": "sleep 60; echo one",
                                                     "yield_time_ms": 90_000},
              "chatgpt path: a zstd request gets the first step; its limit is exec_command's wait",
              text)
        running = {"type": "function_call_output", "call_id": first["call_id"],
                   "output": "Chunk ID: a\nWall time: 30.0 seconds\nProcess running with session "
                             "ID 7\nOriginal token count: 0\nOutput:\nhalf "}
        _, poll, text = responses([first, running])
        check(poll["name"] == "write_stdin"
              and json.loads(poll["arguments"])["session_id"] == 7
              and poll["call_id"].startswith(sm.WAIT_PREFIX),
              "chatgpt path: a step still running is polled with write_stdin", text)
        rest = {"type": "function_call_output", "call_id": poll["call_id"],
                "output": "Chunk ID: b\nWall time: 29.0 seconds\nProcess exited with code 0\n"
                          "Original token count: 1\nOutput:\none\n"}
        _, second, text = responses([first, running, poll, rest])
        check(second["name"] == "exec_command"
              and json.loads(second["arguments"])["cmd"] == "echo two",
              "chatgpt path: once the poll says it exited, the second step comes", text)
        got = server.codex_results().get(0, "")
        check(got.endswith("Output:\nhalf one\n") and "exited" not in got,
              "chatgpt path: the step's result is its output joined with the poll's, "
              "without the poll's head", got)
        status, text = post_raw(server.port, "/oauth/token", json.dumps({"refresh_token": "r"}),
                                {"Host": "auth.example", "Accept-Encoding": "gzip"})
        check(status == 200 and json.loads(text) == {"seen": "r", "encoding": "gzip"},
              "answer: a request to another host is the test's to answer (headers read "
              "without regard to case)", text)
    finally:
        server.stop()


def make_project(work):
    """A git project whose origin is a local bare repository, and a stand-in aws."""
    bare = work / "origin.git"
    proj = work / "proj"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    subprocess.run([*git, "init", "-q", "-b", "main", str(proj)], check=True)
    (proj / "README").write_text("a sample project\n")
    subprocess.run([*git, "add", "README"], cwd=proj, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "seed"], cwd=proj, check=True)
    subprocess.run([*git, "remote", "add", "origin", str(bare)], cwd=proj, check=True)
    bin_dir = work / "bin"
    bin_dir.mkdir()
    (bin_dir / "aws").write_text('#!/bin/sh\necho "aws stand-in ran: $*"\n')
    (bin_dir / "aws").chmod(0o755)
    return proj, bare, bin_dir


def run_agent(name, work):
    proj, bare, bin_dir = make_project(work)
    server = sm.ScriptedModel(sm.demo_steps("http://127.0.0.1:{port}/not-here")).start()
    # The fetch step needs the server's own port, known only now.
    server.steps[2] = sm.demo_steps(f"http://127.0.0.1:{server.port}/not-here")[2]
    env = agent_env.clean(os.environ)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env["HOME"] = str(work / "home")
    os.makedirs(env["HOME"])
    # Codex runs commands in a login shell, whose /etc/profile resets PATH.
    (work / "home" / ".profile").write_text(f'PATH="{bin_dir}:$PATH"\n')
    command, extra_env = agent_env.command(name, server.url(), work / "agent-home",
                                           "Do the task.")
    env.update(extra_env)
    started = time.monotonic()
    try:
        agent = subprocess.run(command, cwd=proj, env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as e:
        check(False, f"{name}: finished within 300 s", e)
        server.stop()
        return
    seconds = time.monotonic() - started
    server.stop()
    results = server.claude_results() if name == "claude" else server.codex_results()
    text = {step: value[0] if isinstance(value, tuple) else value
            for step, value in results.items()}
    output = agent.stdout + agent.stderr
    check(agent.returncode == 0 and sm.FINAL_TEXT in agent.stdout,
          f"{name}: exits 0 with the script's final answer ({seconds:.1f} s)", output[-2000:])
    check(sorted(text) == [0, 1, 2, 3], f"{name}: sent back a result for each of the four steps",
          f"{sorted(text)}; " + output[-800:])
    notes = proj / "NOTES.md"
    check(notes.exists() and notes.read_text() == sm.demo_steps()[0]["content"],
          f"{name}: wrote NOTES.md in the project", text.get(0))
    check("aws stand-in ran: s3 ls" in text.get(1, ""), f"{name}: `aws s3 ls` ran, its output came back",
          text.get(1))
    check("HTTP 404" in text.get(2, ""), f"{name}: the fetch's status came back", text.get(2))
    pushed = subprocess.run(["git", "--git-dir", str(bare), "branch", "--list"],
                            capture_output=True, text=True).stdout
    check("main" in pushed and "main" in text.get(3, ""),
          f"{name}: `git push --force` ran and its output came back", f"{pushed!r} {text.get(3)!r}")


def main():
    wire_format()
    chatgpt_path_and_polls()
    for name in ("claude", "codex"):
        if not shutil.which(name):
            if os.environ.get("CORRAL_REQUIRE_AGENTS") == "1":
                check(False, f"{name} is installed (CORRAL_REQUIRE_AGENTS=1)")
            else:
                print(f"SKIP {name}: not installed (npm install -g {agent_env.PACKAGES[name]})")
            continue
        work = pathlib.Path(tempfile.mkdtemp(prefix=f"corral-scripted-{name}-"))
        try:
            run_agent(name, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{RESULTS['pass']} passed, {RESULTS['fail']} failed")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
