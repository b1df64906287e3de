"""`python -m reactlab.server` start-up: a working replay server, and one clear line + exit 2
for each start-up problem (no traceback wall). No model is loaded here."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import openai
import pytest

from reactlab.server.engines import free_port


def run(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "reactlab.server", *args], check=False,
                          capture_output=True, text=True, timeout=timeout)


def one_sentence(proc) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_replay_server_serves_then_stops_on_sigterm(tmp_path):
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(['{"name": "get_today", "arguments": {}}']))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "reactlab.server", "--port", str(port),
                             "--engine", "replay", "--replay-file", str(script),
                             "--no-more-calls"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).json()
                break
            except httpx.HTTPError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
                time.sleep(0.2)
        assert health["server"] == "reactlab" and health["pid"] == proc.pid
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)
        tools = [{"type": "function", "function": {"name": "get_today", "parameters": {
            "type": "object", "properties": {}}}}]
        r = client.chat.completions.create(model="1.5b", tools=tools,
                                           messages=[{"role": "user", "content": "几号？"}])
        assert r.choices[0].message.tool_calls[0].function.name == "get_today"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
    assert ", more calls off)" in proc.stderr.read()  # one call was scripted: none opened


def test_port_in_use(tmp_path):
    (tmp_path / "r.json").write_text("[]")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_sentence(run("--port", str(port), "--engine", "replay",
                                "--replay-file", str(tmp_path / "r.json")))
    assert f"Port {port} on 127.0.0.1 is already in use" in line and "--port" in line


@pytest.mark.parametrize("content,words", [
    (b"not a model at all", "not a GGUF model file"),
    (b"GGUF\x03\x00\x00\x00" + b"\x00" * 8 + b"\x05", "truncated or corrupt"),
])
def test_corrupt_model_file(tmp_path, content, words):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(content)
    line = one_sentence(run("--port", str(free_port()), "--gguf", str(bad)))
    assert words in line and "Cannot load the model" in line


@pytest.mark.parametrize("args,words", [
    (["--model", "gpt-9"], "Unknown local model 'gpt-9'"),
    (["--host", "0.0.0.0"], "without an API key"),
    (["--engine", "replay"], "needs --replay-file"),
    (["--engine", "replay", "--replay-file", "/nonexistent/r.json"], "Cannot read the replay file"),
])
def test_bad_start_up_arguments(args, words):
    assert words in one_sentence(run("--port", str(free_port()), *args))


def test_main_is_callable_for_reactlab_serve():
    from reactlab.server.__main__ import main

    assert main(["--port", str(free_port()), "--model", "nope"]) == 2


def test_listening_socket_is_tcp_so_connections_get_nodelay():
    """asyncio sets TCP_NODELAY only on IPPROTO_TCP sockets; without it each response waited
    40 ms for the client's delayed ACK (measured: 44 ms -> 2 ms per request)."""
    from reactlab.server.__main__ import _bind

    sock = _bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()


def test_limit_flags_override_the_environment(monkeypatch):
    from reactlab.server.__main__ import _limits, _parser
    from reactlab.server.limits import Limits

    monkeypatch.setenv("REACTLAB_MAX_TOOL_CALLS", "3")
    monkeypatch.setenv("REACTLAB_UPLOAD_TIMEOUT", "9")
    args = _parser().parse_args(["--max-tool-calls", "5", "--max-body-bytes", "1000"])
    assert _limits(args) == Limits(max_body_bytes=1000, upload_timeout=9.0, max_tool_calls=5)


@pytest.mark.parametrize("args,words", [
    (["--max-tool-calls", "0"], "max_tool_calls must be positive"),
    (["--upload-timeout", "-1"], "upload_timeout must be positive"),
])
def test_bad_limits_are_one_sentence(args, words):
    line = one_sentence(run("--port", str(free_port()), "--engine", "replay", *args))
    assert words in line and "Bad limit" in line


def test_a_bad_limit_in_the_environment_is_one_sentence():
    proc = subprocess.run([sys.executable, "-m", "reactlab.server", "--port", str(free_port())],
                          check=False, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "REACTLAB_MAX_BODY_BYTES": "lots"})
    assert "REACTLAB_MAX_BODY_BYTES='lots' is not a number" in one_sentence(proc)


# --- a class on one server: the teacher's key, the students' classroom preset -----------------

def start_replay_server(tmp_path, texts, env=None):
    """`python -m reactlab.server --engine replay` on a free loopback port; (proc, port)."""
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(texts))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "reactlab.server", "--port", str(port),
                             "--engine", "replay", "--replay-file", str(script)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
            return proc, port
        except httpx.HTTPError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(proc.stderr.read()) from None
            time.sleep(0.2)


def test_a_keyed_server_refuses_keyless_students_and_serves_the_classroom_preset(
        tmp_path, monkeypatch):
    """The teacher starts the server with REACTLAB_SERVER_KEY; a keyless request is refused
    with OpenAI's 401, a student whose .env holds the classroom block is served."""
    import reactlab
    from reactlab.fc_agent import run_function_calling
    from reactlab.tools import default_registry

    key = "class-key-0123456789"
    proc, port = start_replay_server(
        tmp_path, ['{"name": "get_today", "arguments": {}}', "今天是 2026-03-01。", "hi"],
        env={"REACTLAB_SERVER_KEY": key})
    base = f"http://127.0.0.1:{port}"
    try:
        # the teacher's view: /health needs no key, /v1/models does
        health = httpx.get(f"{base}/health", timeout=5).json()
        assert health["server"] == "reactlab" and health["queued"] == 0
        refused = httpx.get(f"{base}/v1/models", timeout=5)
        assert refused.status_code == 401
        assert refused.json() == {"error": {
            "message": refused.json()["error"]["message"], "type": "invalid_request_error",
            "param": None, "code": "invalid_api_key"}}
        assert "Authorization: Bearer" in refused.json()["error"]["message"]
        models = httpx.get(f"{base}/v1/models", headers={"Authorization": f"Bearer {key}"},
                           timeout=5).json()
        assert [m["id"] for m in models["data"] if m["default"]] == ["qwen2.5-coder-1.5b-instruct"]

        # a student without the key (or with a wrong one): the SDK's AuthenticationError
        for wrong in ("not-needed", "class-key-wrong"):
            client = openai.OpenAI(base_url=f"{base}/v1", api_key=wrong, max_retries=0)
            with pytest.raises(openai.AuthenticationError) as err:
                client.chat.completions.create(model="qwen2.5-coder-1.5b-instruct",
                                               messages=[{"role": "user", "content": "几号？"}])
            assert err.value.status_code == 401 and err.value.code == "invalid_api_key"

        # a student with the classroom block in .env: connect() and an agent run
        (tmp_path / ".env").write_text(f"REACTLAB_PROVIDER=classroom\n"
                                       f"OPENAI_BASE_URL=http://127.0.0.1:{port}\n"
                                       f"OPENAI_API_KEY={key}\n")
        for name in ("REACTLAB_PROVIDER", "OPENAI_BASE_URL", "OPENAI_API_KEY", "REACTLAB_MODEL"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("REACTLAB_TODAY", "2026-03-01")
        monkeypatch.chdir(tmp_path)
        conn = reactlab.connect(quiet=True)
        assert (conn.provider, conn.base_url) == ("classroom", f"{base}/v1")
        run = run_function_calling("今天几号？", tools=default_registry(), conn=conn)
        assert run.status == "final" and "2026-03-01" in run.answer
        assert run.steps[0].tool_calls[0].name == "get_today"
        assert conn.client.chat.completions.create(
            model=conn.model, messages=[{"role": "user", "content": "hello"}]).choices[
            0].message.content == "hi"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
    # on loopback the server does not print the class line (only a --host beyond it does)
    assert "students set" not in proc.stderr.read()


def test_class_address_is_what_students_type():
    from reactlab.server.__main__ import class_address

    assert class_address("192.168.1.20") == "192.168.1.20"
    assert class_address("fe80::1") == "[fe80::1]"
    wildcard = class_address("0.0.0.0")
    assert wildcard != "0.0.0.0" and wildcard  # an address of this machine, or the placeholder


# --- parallel slots ---------------------------------------------------------------------------

def test_parallel_comes_from_the_flag_then_the_environment_then_one(monkeypatch):
    from reactlab.server.__main__ import _parallel, _parser

    monkeypatch.delenv("REACTLAB_PARALLEL", raising=False)
    assert _parallel(_parser().parse_args([])) == 1
    monkeypatch.setenv("REACTLAB_PARALLEL", "6")
    assert _parallel(_parser().parse_args([])) == 6
    assert _parallel(_parser().parse_args(["--parallel", "2"])) == 2


@pytest.mark.parametrize("args,env,words", [
    (["--parallel", "0"], {}, "Bad --parallel '0'"),
    (["--parallel", "four"], {}, "Bad --parallel 'four'"),
    ([], {"REACTLAB_PARALLEL": "-3"}, "Bad REACTLAB_PARALLEL '-3'"),
    (["--replay-delay", "-1"], {}, "Bad --replay-delay -1"),
])
def test_a_bad_slot_count_or_delay_is_one_sentence(args, env, words):
    proc = subprocess.run([sys.executable, "-m", "reactlab.server", "--port", str(free_port()),
                           "--engine", "replay", *args], check=False, capture_output=True,
                          text=True, timeout=60, env={**os.environ, **env})
    line = one_sentence(proc)
    assert words in line and ("at least 1" in line or "0 or more" in line)


def test_a_replay_server_with_slots_reports_them(tmp_path):
    proc, port = start_replay_server(tmp_path, ["a", "b"], env={"REACTLAB_PARALLEL": "3"})
    try:
        health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).json()
        assert (health["slots"], health["running"], health["queued"], health["busy"]) == (
            3, 0, 0, False)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
    assert "3 slots" in proc.stderr.read()
