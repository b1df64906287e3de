"""reactlab.http against a tiny loopback http.server serving canned responses and streams."""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import shutil
import string
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar
from urllib.parse import quote, quote_plus

import httpx
import openai
import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.http import (
    ProviderError,
    chat_url,
    iter_sse_data,
    post_chat,
    provider_message,
    stream_chat,
    to_curl,
)


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
    "/cut/chat/completions": (200, "text/event-stream", [
        f"data: {_chunk(role='assistant', content='北京')}\n\n".encode(),
        f"data: {_chunk(content='今天')}\n\n".encode(),  # ...and the server dies: no [DONE]
    ]),
    "/notObject/chat/completions": (200, "text/event-stream", [b"data: [1, 2]\n\n",
                                                              b"data: [DONE]\n\n"]),
    "/html200/chat/completions": (200, "text/html", [b"<html>maintenance</html>"]),
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
        if self.path.startswith("/dropped"):  # a chunked stream whose connection dies mid-chunk
            data = f"data: {_chunk(content='部分')}\n\n".encode()
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\n")
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) + b"ff\r\ndata: {\"tru")
            self.wfile.flush()
            self.close_connection = True
            return
        status, ctype, pieces = ROUTES.get(self.path, (404, "application/json",
                                                       [b'{"error": {"message": "no route"}}']))
        self.send_response(status)
        self.send_header("Content-Type", ctype)  # no charset: requests would guess ISO-8859-1
        self.end_headers()
        try:
            for piece in pieces:
                self.wfile.write(piece)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading early (an error event, a bad chunk): expected

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


def test_a_stream_without_done_is_reported_as_cut(server):
    got = []
    with pytest.raises(ProviderError, match=r"before `data: \[DONE\]`.*cut off") as info:
        got.extend(stream_chat(server + "/cut", HEADERS, BODY))
    assert [c["choices"][0]["delta"]["content"] for c in got] == ["北京", "今天"]
    assert info.value.status is None


def test_a_stream_whose_connection_drops_is_reported_as_cut(server):
    got = []
    with pytest.raises(ProviderError, match="broke before") as info:
        got.extend(stream_chat(server + "/dropped", HEADERS, BODY))
    assert len(got) <= 1 and info.value.__cause__ is not None


def test_an_event_that_is_not_an_object_is_a_provider_error(server):
    with pytest.raises(ProviderError, match="not a JSON object"):
        list(stream_chat(server + "/notObject", HEADERS, BODY))


def test_post_chat_reply_that_is_not_json_is_a_provider_error(server):
    with pytest.raises(ProviderError, match="not a JSON object.*maintenance"):
        post_chat(server + "/html200", HEADERS, BODY)


def test_a_request_that_cannot_be_sent_does_not_quote_the_key():
    # requests quotes the bad header value in its own message; ours must not.
    headers = {"Authorization": "Bearer plainletterskey\n"}
    with pytest.raises(ProviderError, match="could not be sent") as info:
        post_chat("http://127.0.0.1:9", headers, BODY, timeout=2)
    assert "plainletterskey" not in str(info.value)


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
    assert info.value.status == 502 and info.value.message == "Bad Gateway"


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


def test_iter_sse_data_reports_a_stream_cut_before_done():
    got = []
    with pytest.raises(ProviderError, match="cut off") as info:
        got.extend(iter_sse_data([b"data: {}", b"", b"data: {\"x\": 1}"]))
    assert got == ["{}", '{"x": 1}']  # what arrived was still yielded first
    assert info.value.status is None
    # Opting out: yields what arrived and stops quietly.
    assert list(iter_sse_data([b"data: {}"], require_done=False)) == ["{}"]
    assert list(iter_sse_data([], require_done=False)) == []
    with pytest.raises(ProviderError):
        list(iter_sse_data([]))


# --- to_curl ------------------------------------------------------------------------------

# The only constructs to_curl may emit: single-quoted text, \' (a quote), the one variable,
# and bare words of characters no shell interprets. Anything else is a bug.
_SEGMENT = re.compile(r"""'([^']*)'|\\(')|"(\$OPENAI_API_KEY)"|([A-Za-z0-9_@%+=:,./-]+)""")


def shell_words(cmd: str) -> list[str]:
    """Split to_curl's output by that grammar (the variable stays `$OPENAI_API_KEY`).

    Fails the test when any character is outside it, i.e. when anything could be live.
    """
    words, pos = [], 0
    while pos < len(cmd):
        if words:
            sep = " \\\n  " if cmd.startswith(" \\\n  ", pos) else " "
            assert cmd.startswith(sep, pos), f"unexpected text at {pos}: {cmd[pos:pos + 30]!r}"
            pos += len(sep)
        word, start = "", pos
        while (m := _SEGMENT.match(cmd, pos)) and m.end() > pos:
            word += next(g for g in m.groups() if g is not None)
            pos = m.end()
        assert pos > start, f"not an inert word at {pos}: {cmd[pos:pos + 30]!r}"
        words.append(word)
    return words


def test_to_curl_never_shows_the_key():
    headers = {"Authorization": "Bearer sk-live-abcdef123456", "api-key": "azure-secret-999",
               "X-Trace": "sk-hidden-in-a-plain-header-1", "Content-Type": "application/json"}
    cmd = to_curl("https://api.example.com/v1/chat/completions", headers, BODY)
    for secret in ("sk-live-abcdef123456", "azure-secret-999", "sk-hidden-in-a-plain-header-1"):
        assert secret not in cmd
    assert "-H 'Authorization: Bearer '\"$OPENAI_API_KEY\"" in cmd
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


def test_to_curl_hides_credentials_under_any_name_and_in_any_place():
    url = ("https://bob:pa55-w0rd-123@api.example.com/v1/chat/completions"
           "?api_key=q-secret-1111&key=q-secret-2222&token=q-secret-3333"
           "&access_token=q-secret-4444&sig=q-secret-5555&max_tokens=200&q=北京")
    headers = {"Ocp-Apim-Subscription-Key": "0123abcd0123abcd0123abcd0123abcd",
               "X-Auth": "plain-x-auth-value", "XAPIKEY": "glued-name-value",
               "Cookie": "session=cookie-value-777", "X-Amz-Signature": "sig-header-value",
               "Authorization": "Basic dXNlcjpwYXNzd29yZA==", "X-Request-Id": "req-42"}
    body = {"model": "m", "api_key": "body-field-secret", "max_tokens": 200,
            "auth": {"client_secret": "nested-secret-val", "keyword": "天气"},
            "messages": [{"role": "user", "content": "My X-Auth is plain-x-auth-value, "
                                                     "and sk-abcdefgh12345678 is my key."}]}
    cmd = to_curl(url, headers, body)
    for secret in ("pa55-w0rd-123", "q-secret-1111", "q-secret-2222", "q-secret-3333",
                   "q-secret-4444", "q-secret-5555", "0123abcd0123abcd0123abcd0123abcd",
                   "plain-x-auth-value", "glued-name-value", "cookie-value-777",
                   "sig-header-value", "dXNlcjpwYXNzd29yZA==", "body-field-secret",
                   "nested-secret-val", "sk-abcdefgh12345678"):
        assert secret not in cmd, secret
    # What is not a credential stays, so the command still says what was sent.
    for kept in ("bob:", "max_tokens=200", "q=北京", "X-Request-Id: req-42", '"max_tokens": 200',
                 '"keyword": "天气"', "Basic '\"$OPENAI_API_KEY\"", "My X-Auth is "):
        assert kept in cmd, kept


def test_to_curl_output_is_inert_in_bash(tmp_path):
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    marker = tmp_path / "pwned"
    payloads = [f"$(touch {marker})", f"`touch {marker}`", f"'; touch {marker}; '",
                f'"; touch {marker}; "', "${HOME}", "$HOME", "\\", "!!", f"\n touch {marker}"]
    headers = {f"X-P{i}": p for i, p in enumerate(payloads)}
    headers["Authorization"] = f"Bearer `touch {marker}`;$(id)"
    url = f"http://127.0.0.1:1/v1/chat/completions?q=$(touch%20{marker})&x=`id`"
    body = {"messages": [{"role": "user", "content": p} for p in payloads]}
    cmd = to_curl(url, headers, body)
    assert subprocess.run(["bash", "-n", "-c", cmd], check=False).returncode == 0
    script = "curl() { printf '%s\\0' \"$@\"; }\n" + cmd
    out = subprocess.run(["bash", "-c", script], capture_output=True, check=True,
                         env={"PATH": os.environ.get("PATH", ""), "HOME": "/home/h",
                              "OPENAI_API_KEY": "KEY"}).stdout.decode().split("\0")[:-1]
    assert not marker.exists()
    assert "Authorization: Bearer KEY" in out  # the only expansion is ours
    assert f"X-P0: $(touch {marker})" in out and "X-P4: ${HOME}" in out
    assert [m["content"] for m in json.loads(out[out.index("-d") + 1])["messages"]] == payloads


def test_to_curl_guards_curl_itself():
    assert to_curl("-o/tmp/x", {}, None).startswith("curl --url ")
    assert to_curl("http://[::1]:8000/v1/chat/completions", {}, None).startswith(
        "curl --globoff ")
    assert "-H '\ufffdfile: x'" in to_curl("http://h/", {"@file": "x"}, None)  # not -H @file
    cmd = to_curl("http://h/\x00", {"X-A": "a\r\nX-Injected: 1", 5: 6}, {"t": "\ud83d", 1: b"b"})
    assert "\x00" not in cmd and "\r" not in cmd and "X-A: a\ufffd\ufffdX-Injected: 1" in cmd
    assert "-H '5: 6'" in cmd
    argv = shell_words(cmd)
    assert json.loads(argv[argv.index("-d") + 1]) == {"t": "\ud83d", "1": "b'b'"}
    cmd.encode("utf-8")  # printable: no lone surrogate left in the text


# --- provider_message and ProviderError.from_exception ---------------------------------------

def _openai_status_error(status: int, body: dict):
    request = httpx.Request("POST", "http://h/v1/chat/completions")
    cls = {401: openai.AuthenticationError, 404: openai.NotFoundError,
           429: openai.RateLimitError}.get(status, openai.APIStatusError)
    return cls(f"Error code: {status} - {body}", response=httpx.Response(status, request=request),
               body=body)


@pytest.mark.parametrize("body, expected", [
    ({"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}},
     "Incorrect API key provided"),
    ({"message": "Model not found", "type": "invalid_request_error"}, "Model not found"),
    ({"error": "rate limited"}, "rate limited"),
    ({"detail": [{"loc": ["body"], "msg": "field required"}]}, "field required"),
    ({"error": {"msg": "quota"}}, "quota"),
    ({"code": "InvalidParameter"}, '{"code": "InvalidParameter"}'),
    ('{"error": {"message": "from text"}}', "from text"),
    (b"<html><body><h1>502 Bad Gateway</h1></body></html>", "502 Bad Gateway"),
    ("line one\n\n  line two", "line one line two"),
    ([{"error": {"message": "a"}}, {"message": "b"}], "a; b"),
    (None, "no error message"),
    ({}, "no error message"),
    (42, "42"),
])
def test_provider_message_from_bodies(body, expected):
    assert provider_message(body) == expected


def test_provider_message_from_sdk_httpx_and_requests_errors():
    request = httpx.Request("POST", "http://h/v1/chat/completions")
    err = _openai_status_error(401, {"message": "Incorrect API key provided: sk-abc***xyz"})
    assert provider_message(err) == "Incorrect API key provided: sk-abc***xyz"
    conn = openai.APIConnectionError(request=request)
    conn.__cause__ = httpx.ConnectError("[Errno 111] Connection refused")
    assert provider_message(conn).startswith("could not reach the server (APIConnectionError: "
                                             "Connection error.; ConnectError: [Errno 111]")
    assert "larger timeout" in provider_message(openai.APITimeoutError(request=request))
    assert "could not reach" in provider_message(httpx.ConnectError("refused"))
    assert "larger timeout" in provider_message(httpx.ReadTimeout("slow"))
    assert "larger timeout" in provider_message(requests.Timeout("slow"))
    assert "could not reach" in provider_message(requests.ConnectionError("refused"))
    status = httpx.HTTPStatusError("boom", request=request, response=httpx.Response(
        503, request=request, json={"error": {"message": "overloaded"}}))
    assert provider_message(status) == "overloaded"
    resp = requests.Response()
    resp.status_code, resp._content = 500, b'{"error": "internal"}'
    assert provider_message(requests.HTTPError("500", response=resp)) == "internal"
    assert provider_message(ValueError("odd")) == "ValueError: odd"  # a client raising anything else
    assert provider_message(ProviderError(400, "bad")) == "bad"


def test_provider_message_hides_keys_and_stays_one_line():
    said = provider_message({"error": {"message": "Invalid key sk-live0123456789abcdef.\n"
                                                  "Bearer abcdef123456789 rejected"}})
    assert "0123456789abcdef" not in said and "abcdef123456789" not in said
    assert "\n" not in said and said.startswith("Invalid key [hidden key]")
    assert len(provider_message("x" * 10_000)) <= 500


def test_provider_error_from_exception():
    err = ProviderError.from_exception(_openai_status_error(
        401, {"message": "Incorrect API key provided"}), "at step 3")
    assert (err.status, err.status_code, err.message) == (401, 401, "Incorrect API key provided")
    assert err.body == {"message": "Incorrect API key provided"}
    assert str(err) == "HTTP 401 from the provider at step 3: Incorrect API key provided"
    net = ProviderError.from_exception(httpx.ConnectError("refused"), "at step 1")
    assert net.status is None and str(net).startswith("The provider failed at step 1: could not")
    again = ProviderError.from_exception(err, "at step 4")
    assert str(again).startswith("HTTP 401 from the provider at step 4")
    assert str(ProviderError.from_exception(err)) == str(err)  # keeps its own `where`
    copy = pickle.loads(pickle.dumps(err))
    assert (str(copy), copy.body) == (str(err), err.body)
    assert isinstance(err, RuntimeError)


# --- to_curl under Hypothesis ---------------------------------------------------------------

# Keys: long enough to be told apart from ordinary text, with every character a shell or a URL
# treats specially. Noise: any text, plus strings a shell would run if they were live.
_KEY_CHARS = string.ascii_letters + string.digits + "-_./+=!#$%&*()[]{}\"'`;<>?~\\ |^@,:北"
keys = st.text(alphabet=_KEY_CHARS, min_size=11, max_size=40).map(lambda s: "k" + s)
noise = st.one_of(st.text(max_size=30), st.sampled_from(
    ["$(id)", "`id`", "${HOME}", "$HOME", "'", '"', "\\", "'; id; '", "\n", "!!", "*", "~"]))
secret_headers = st.sampled_from(
    ["Authorization", "api-key", "X-Api-Key", "Ocp-Apim-Subscription-Key", "X-Auth",
     "x-goog-api-key", "X-DashScope-Token", "Proxy-Authorization", "X-Amz-Signature",
     "Cookie", "X-Secret", "XAPIKEY", "X-Client-Password", "X-Sig"])
secret_params = st.sampled_from(["api_key", "key", "token", "access_token", "sig", "apiKey",
                                 "subscription-key", "client_secret", "X-Amz-Signature"])
secret_fields = st.sampled_from(["api_key", "apiKey", "key", "token", "access_token",
                                 "password", "client_secret", "Authorization", "secret"])
shaped = st.text(alphabet=string.ascii_letters + string.digits, min_size=12, max_size=30).map(
    lambda s: "sk-" + s)


def _json_noise():
    return st.recursive(st.none() | st.booleans() | st.integers() | noise,
                        lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.sampled_from(["role", "content", "model", "n",
                                                           "messages", "tools"]), inner,
                                          max_size=3), max_leaves=8)


@st.composite
def requests_with_secrets(draw):
    """(url, headers, body, secrets): each secret placed where to_curl must recognise it."""
    secrets, headers = [], {}
    body = {"model": draw(noise), "messages": [{"role": "user", "content": draw(noise)}],
            "extra": draw(_json_noise())}
    query = [(draw(st.sampled_from(["q", "n", "model"])), quote(draw(noise), safe=""))]
    userinfo = ""
    for _ in range(draw(st.integers(1, 4))):
        key, place = draw(keys), draw(st.integers(0, 3))
        secrets.append(key)
        if place == 2 and not userinfo:
            userinfo = draw(st.sampled_from(["", "user:"])) + quote(key, safe="") + "@"
        elif place == 1:
            query.append((draw(secret_params), quote(key, safe="")))
        elif place == 3:
            fields = body.setdefault("auth", {})
            fields[f"{draw(secret_fields)}_{len(fields)}"] = key
        else:
            scheme = draw(st.sampled_from(["", "Bearer ", "Basic ", "Token "]))
            headers[f"{draw(secret_headers)}-{len(headers)}"] = scheme + key
        if draw(st.booleans()):  # the same key again, somewhere innocent
            where = draw(st.sampled_from(["content", "header", "path"]))
            if where == "content":
                body["messages"].append({"role": "user", "content": f"{draw(noise)}{key}"})
            elif where == "header":
                headers["X-Note"] = f"{draw(noise)}{key}{draw(noise)}"
            else:
                query.insert(0, ("note", quote(key, safe="")))
    for _ in range(draw(st.integers(0, 2))):  # key-shaped values under innocent names
        key = draw(shaped)
        secrets.append(key)
        headers[f"X-Trace-{len(headers)}"] = f"{draw(noise)} {key} "
        body["messages"].append({"role": "user", "content": f"key: {key}, {draw(noise)}"})
    for _ in range(draw(st.integers(0, 3))):
        headers[f"X-Info-{len(headers)}"] = draw(noise)
    url = (f"https://{userinfo}api.example.com/v1/{quote(draw(noise))}/chat/completions?"
           + "&".join(f"{k}={v}" for k, v in query))
    return url, headers, body, secrets


def _forms(secret: str) -> set[str]:
    return {secret, quote(secret, safe=""), quote_plus(secret)}


@settings(max_examples=300, deadline=None)
@given(requests_with_secrets())
def test_to_curl_never_contains_a_secret_and_is_always_inert(case):
    url, headers, body, secrets = case
    cmd = to_curl(url, headers, body)
    argv = shell_words(cmd)  # fails unless the whole command is inert
    for secret in secrets:
        for form in _forms(secret):
            assert form not in cmd
            assert not any(form in word for word in argv)
    cmd.encode("utf-8")


@settings(max_examples=40, deadline=None)
@given(requests_with_secrets())
def test_to_curl_argv_in_bash_is_what_the_grammar_says(case):
    """bash itself agrees: the words it passes to curl are the inert words, key filled in."""
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    url, headers, body, _ = case
    cmd = to_curl(url, headers, body)
    script = "curl() { printf '%s\\0' \"$@\"; }\n" + cmd
    out = subprocess.run(["bash", "-c", script], capture_output=True, check=True,
                         env={"PATH": os.environ.get("PATH", ""), "OPENAI_API_KEY": "«KEY»"})
    got = out.stdout.decode("utf-8").split("\0")[:-1]
    assert got == [w.replace("$OPENAI_API_KEY", "«KEY»") for w in shell_words(cmd)[1:]]


def test_headers_as_pairs_and_error_urls_without_keys():
    cmd = to_curl("http://h/", [("X-Auth", "pair-secret-1"), ("Accept", "*/*")], None)
    assert "pair-secret-1" not in cmd and "-H 'Accept: */*'" in cmd
    with pytest.raises(ProviderError) as info:
        post_chat("http://127.0.0.1:9/v1?key=url-secret-123", {}, BODY, timeout=2)
    assert "url-secret-123" not in str(info.value) and "key=[hidden key] (" in str(info.value)


@st.composite
def sse_streams(draw):
    """(raw SSE bytes, the payloads a reader must get): comments, CRLF, multi-line events."""
    payloads, raw = [], b""
    for _ in range(draw(st.integers(0, 5))):
        text = draw(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n"),
                            max_size=12))
        payload = json.dumps({"content": text}, ensure_ascii=draw(st.booleans()))
        end = draw(st.sampled_from(["\n", "\r\n"]))
        if draw(st.booleans()):
            raw += f": keep-alive{end}".encode()
        if draw(st.booleans()) and end == "\n":  # one event over two data lines
            head, tail = payload[:1], payload[1:]
            raw += f"data: {head}\ndata:{tail}\n\n".encode()
            payloads.append(f"{head}\n{tail}")
        else:
            raw += f"data: {payload}{end}{end}".encode()
            payloads.append(payload)
    return raw + b"data: [DONE]\n\n", payloads


@settings(max_examples=200, deadline=None)
@given(sse_streams(), st.integers(1, 17))
def test_sse_reading_survives_any_network_split(stream, read_size):
    """Bytes arrive in reads of any size, cutting UTF-8 characters and CRLF pairs apart."""
    raw, payloads = stream
    resp = requests.Response()
    resp.raw = io.BytesIO(raw)
    got = list(iter_sse_data(resp.iter_lines(chunk_size=read_size)))
    assert [json.loads(g) for g in got] == [json.loads(p) for p in payloads]
