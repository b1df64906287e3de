"""reactlab.http against a tiny loopback http.server serving canned responses and streams."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from reactlab.http import ProviderError, chat_url, iter_sse_data, post_chat, stream_chat, to_curl


def _chunk(**delta) -> str:
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                       "model": "m", "choices": [{"index": 0, "delta": delta,
                                                  "finish_reason": None}]}, ensure_ascii=False)


# path -> (status, content type, list of raw byte pieces written one after another)
ROUTES: dict[str, tuple[int, str, list[bytes]]] = {
    "/ok/chat/completions": (200, "text/event-stream", [
        b": keep-alive comment\n\n",
        f"data: {_chunk(role='assistant', content='')}\n\n".encode(),
        # "data:" without a space, and a UTF-8 character split across two writes
        "data:{}\n\n".format(_chunk(content="北京今天")).encode()[:-6],
        "data:{}\n\n".format(_chunk(content="北京今天")).encode()[-6:],
        f"data: {_chunk(content='晴，3°C')}\r\n\r\n".encode(),
        b"event: ping\n\n",
        b"data: [DONE]\n\n",
        b"data: this is after DONE and must never be read\n\n",
    ]),
    "/midError/chat/completions": (200, "text/event-stream", [
        f"data: {_chunk(content='部分')}\n\n".encode(),
        b'data: {"error": {"message": "upstream model overloaded", "type": "server_error"}}\n\n',
        f"data: {_chunk(content='never')}\n\n".encode(),
    ]),
    "/badkey/chat/completions": (401, "application/json", [
        (b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",'
         b' "param": null, "code": "invalid_api_key"}}')]),
    "/plain/chat/completions": (502, "text/html", [b"<html>Bad Gateway</html>"]),
    "/json/chat/completions": (200, "application/json", [json.dumps(
        {"id": "c1", "object": "chat.completion", "choices": [{"index": 0, "message": {
            "role": "assistant", "content": "你好！"}, "finish_reason": "stop"}]},
        ensure_ascii=False).encode()]),
}


class _Handler(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict]] = []

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        _Handler.seen.append({"path": self.path, "headers": dict(self.headers),
                              "body": json.loads(raw) if raw else None})
        status, ctype, pieces = ROUTES.get(self.path, (404, "application/json",
                                                       [b'{"error": {"message": "no route"}}']))
        self.send_response(status)
        self.send_header("Content-Type", ctype)  # no charset: requests would guess ISO-8859-1
        self.end_headers()
        for piece in pieces:
            self.wfile.write(piece)
            self.wfile.flush()

    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


HEADERS = {"Authorization": "Bearer sk-test-secret-123456", "Content-Type": "application/json"}
BODY = {"model": "m", "messages": [{"role": "user", "content": "北京天气？"}]}


def test_stream_decodes_utf8_skips_comments_and_stops_at_done(server):
    chunks = list(stream_chat(server + "/ok", HEADERS, BODY))
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == "北京今天晴，3°C"
    assert len(chunks) == 3
    assert _Handler.seen[-1]["body"]["stream"] is True  # stream_chat sets it


def test_stream_mid_stream_error_raises_with_message(server):
    got = []
    with pytest.raises(ProviderError) as info:
        got.extend(stream_chat(server + "/midError", HEADERS, BODY))
    assert len(got) == 1
    assert info.value.status is None
    assert "upstream model overloaded" in str(info.value)


def test_http_error_carries_status_and_provider_message(server):
    with pytest.raises(ProviderError) as info:
        post_chat(server + "/badkey", HEADERS, BODY)
    assert info.value.status == 401
    assert info.value.message == "Incorrect API key provided"
    assert info.value.body["error"]["code"] == "invalid_api_key"
    with pytest.raises(ProviderError) as info:
        list(stream_chat(server + "/badkey", HEADERS, BODY))
    assert info.value.status == 401


def test_http_error_without_json_body(server):
    with pytest.raises(ProviderError) as info:
        post_chat(server + "/plain", HEADERS, BODY)
    assert info.value.status == 502 and "Bad Gateway" in info.value.message


def test_post_chat_returns_parsed_json_utf8(server):
    data = post_chat(server + "/json/", HEADERS, BODY)
    assert data["choices"][0]["message"]["content"] == "你好！"
    assert _Handler.seen[-1]["path"] == "/json/chat/completions"


def test_connection_refused_is_a_provider_error():
    with pytest.raises(ProviderError) as info:
        post_chat("http://127.0.0.1:9", HEADERS, BODY, timeout=2)
    assert "could not connect" in str(info.value)


def test_chat_url():
    assert chat_url("http://h/v1/") == "http://h/v1/chat/completions"
    assert chat_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"


def test_iter_sse_data_edge_cases():
    lines = [": hi", "data: {\"a\": 1}", "", "data: {\"b\":", "data: 2}", "", "id: 7",
             "retry: 100", "data: {\"c\": 3}", "data: {\"d\": 4}", "data:[DONE]", "data: {\"e\": 5}"]
    assert [json.loads(d) for d in iter_sse_data(lines)] == [{"a": 1}, {"b": 2}, {"c": 3},
                                                             {"d": 4}]
    # A stream cut off without [DONE] still yields what arrived.
    assert list(iter_sse_data([b"data: {}"])) == ["{}"]


# --- to_curl ------------------------------------------------------------------------------

def test_to_curl_never_shows_the_key():
    headers = {"Authorization": "Bearer sk-live-abcdef123456", "api-key": "azure-secret-999",
               "X-Trace": "sk-hidden-in-a-plain-header-1", "Content-Type": "application/json"}
    cmd = to_curl("https://api.example.com/v1/chat/completions", headers, BODY)
    for secret in ("sk-live-abcdef123456", "azure-secret-999", "sk-hidden-in-a-plain-header-1"):
        assert secret not in cmd
    assert '-H "Authorization: Bearer $OPENAI_API_KEY"' in cmd
    assert '"content": "北京天气？"' in cmd  # Chinese stays Chinese, pretty printed
    assert cmd.startswith("curl https://api.example.com/v1/chat/completions \\\n")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to check shell quoting")
def test_to_curl_is_valid_shell_with_single_quotes():
    """Run the command in bash with `curl` shadowed by a function that prints its argv."""
    body = {"model": "m", "messages": [{"role": "user", "content": "It's 北京's \"weather\" $HOME `x` \\n"}]}
    cmd = to_curl("http://127.0.0.1:1/v1/chat/completions", HEADERS, body)
    script = ('curl() { python3 -c \'import json,sys; print(json.dumps(sys.argv[1:]))\' "$@"; }\n'
              + cmd)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True,
                         env={**os.environ, "OPENAI_API_KEY": "the-env-key"}).stdout
    argv = json.loads(out)
    assert argv[0] == "http://127.0.0.1:1/v1/chat/completions"
    assert "Authorization: Bearer the-env-key" in argv  # the shell filled in the variable
    assert json.loads(argv[argv.index("-d") + 1]) == body  # the body survives quoting exactly


def test_to_curl_runs_for_real_against_the_loopback_server(server):
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    cmd = to_curl(server + "/json/chat/completions", HEADERS, BODY)
    out = subprocess.run(["bash", "-c", cmd + " -s"], capture_output=True, text=True, timeout=10,
                         check=True, env={**os.environ, "OPENAI_API_KEY": "k-from-env"}).stdout
    assert json.loads(out)["choices"][0]["message"]["content"] == "你好！"
    seen = _Handler.seen[-1]
    assert seen["headers"]["Authorization"] == "Bearer k-from-env"
    assert seen["body"] == BODY
