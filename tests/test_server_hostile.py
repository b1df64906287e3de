"""Nothing a client sends breaks the server: a catalogue of hostile requests over real HTTP.

Every request below is wrong in one way (a field of the wrong type, nesting past the limit, a
lone surrogate, NaN, a body too large or too slow …). Each must get a 4xx in OpenAI's error
shape, leave the server healthy, and leave the *same keep-alive connection* usable: the next,
valid request on it, through the `openai` SDK with `max_retries=0`, is served. The replay
engine stands in for the model, so the whole catalogue runs in seconds.
"""

from __future__ import annotations

import json
import socket
import threading

import httpx
import openai
import pytest

from reactlab.server.limits import Limits
from reactlab.server.replay import ReplayEngine, serve_replay

MODEL = "qwen2.5-coder-1.5b-instruct"
ASK = [{"role": "user", "content": "北京今天天气怎么样？"}]
TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather.",
                                         "parameters": {"type": "object", "properties": {
                                             "location": {"type": "string"}}}}}
CALLED = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_a", "type": "function", "function": {"name": "get_weather",
                                                       "arguments": '{"location": "北京"}'}}]}


def nested(depth: int) -> dict:
    """A tool schema nested `depth` objects deep."""
    schema = {"type": "object", "properties": {}}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def tool(**function) -> dict:
    return {"type": "function", "function": {"name": "f", **function}}


def raw(text: str) -> bytes:
    return text.encode()


BASE = '{"model": "1.5b", "messages": [{"role": "user", "content": "hi"}]'
# (id, body): a dict is merged over a valid request; bytes are sent as they are.
CATALOGUE = [
    # --- the body itself -------------------------------------------------------------------
    ("empty-body", b""),
    ("not-json", b"this is not json"),
    ("json-list", b"[1, 2]"),
    ("json-string", b'"hello"'),
    ("json-null", b"null"),
    ("trailing-garbage", raw(BASE + "} and more")),
    ("invalid-utf8", b'{"messages": "\xff\xfe"}'),
    ("deep-100k", b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    ("deep-past-limit", raw('{"messages": ' + "[" * 70 + "]" * 70 + "}")),
    ("deep-objects", raw('{"messages": ' + '{"a": ' * 80 + "1" + "}" * 80 + "}")),
    ("nan", raw(BASE + ', "temperature": NaN}')),
    ("infinity", raw(BASE + ', "temperature": Infinity}')),
    ("minus-infinity", raw(BASE + ', "top_p": -Infinity}')),
    ("overflow-1e999", raw(BASE + ', "temperature": 1e999}')),
    ("huge-integer", raw(BASE + ', "max_tokens": 1' + "0" * 5000 + "}")),
    ("surrogate-content", raw('{"messages": [{"role": "user", "content": "\\ud800"}]}')),
    ("surrogate-low", raw('{"messages": [{"role": "user", "content": "a\\udc00b"}]}')),
    ("surrogate-debug", raw('{"messages": [{"role": "user", "content": "\\ud800"}], '
                            '"reactlab_debug": true}')),
    ("surrogate-debug-stream", raw('{"messages": [{"role": "user", "content": "\\ud800"}], '
                                   '"reactlab_debug": true, "stream": true}')),
    ("surrogate-key", raw(BASE + ', "tools": [{"type": "function", "function": {"name": "f", '
                          '"parameters": {"type": "object", "properties": {"\\udbff": {}}}}}]}')),
    ("surrogate-model", raw('{"model": "\\ud83d", "messages": [{"role": "user", "content": "x"}]}')),
    ("nan-in-schema-required", raw(
        BASE + ', "tools": [{"type": "function", "function": {"name": "f", "parameters": '
        '{"type": "object", "properties": {"a": {"type": "number", "maximum": NaN}}}}}], '
        '"tool_choice": "required"}')),
    ("schema-450-deep", {"tools": [tool(parameters=nested(450))]}),
    ("schema-450-deep-required", {"tools": [tool(parameters=nested(450))],
                                  "tool_choice": "required"}),
    ("schema-40-deep-stream", {"tools": [tool(parameters=nested(40))], "stream": True}),
    # --- model, n --------------------------------------------------------------------------
    ("model-int", {"model": 3}),
    ("model-list", {"model": ["1.5b"]}),
    ("model-unknown", {"model": "gpt-9"}),
    ("n-2", {"n": 2}),
    ("n-string", {"n": "one"}),
    # --- messages --------------------------------------------------------------------------
    ("messages-missing", {"messages": None}),
    ("messages-empty", {"messages": []}),
    ("messages-string", {"messages": "hi"}),
    ("messages-object", {"messages": {"role": "user", "content": "hi"}}),
    ("message-int", {"messages": [1]}),
    ("message-no-content", {"messages": [{"role": "user"}]}),
    ("role-int", {"messages": [{"role": 3, "content": "x"}]}),
    ("role-unknown", {"messages": [{"role": "bot", "content": "x"}]}),
    ("content-int", {"messages": [{"role": "user", "content": 5}]}),
    ("content-object", {"messages": [{"role": "user", "content": {"text": "x"}}]}),
    ("content-image-part", {"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "http://x/y.png"}}]}]}),
    ("content-part-text-int", {"messages": [{"role": "user", "content": [
        {"type": "text", "text": 5}]}]}),
    ("tool-calls-string", {"messages": ASK + [{"role": "assistant", "tool_calls": "f()"}]}),
    ("tool-calls-int-item", {"messages": ASK + [{"role": "assistant", "tool_calls": [1]}]}),
    ("tool-call-function-string", {"messages": ASK + [
        {"role": "assistant", "tool_calls": [{"id": "a", "function": "f"}]}]}),
    ("tool-call-arguments-int", {"messages": ASK + [{"role": "assistant", "tool_calls": [
        {"id": "a", "function": {"name": "f", "arguments": 5}}]}]}),
    ("tool-call-no-id", {"messages": ASK + [{"role": "assistant", "tool_calls": [
        {"function": {"name": "f", "arguments": "{}"}}]}]}),
    ("tool-without-call", {"messages": ASK + [{"role": "tool", "tool_call_id": "x",
                                               "content": "晴"}]}),
    ("tool-call-id-int", {"messages": ASK + [CALLED, {"role": "tool", "tool_call_id": 5,
                                                      "content": "晴"}]}),
    ("tool-result-missing", {"messages": ASK + [CALLED]}),
    # --- tools -----------------------------------------------------------------------------
    ("tools-object", {"tools": {"name": "f"}}),
    ("tools-string", {"tools": "get_weather"}),
    ("tools-int-item", {"tools": [1]}),
    ("tool-no-function", {"tools": [{"type": "function"}]}),
    ("tool-bad-name", {"tools": [tool(name="bad name!")]}),
    ("tool-name-int", {"tools": [{"type": "function", "function": {"name": 5}}]}),
    ("tool-duplicate-names", {"tools": [TOOL, TOOL]}),
    ("tool-description-int", {"tools": [tool(description=5)]}),
    ("parameters-string", {"tools": [tool(parameters="{}")]}),
    ("parameters-list", {"tools": [tool(parameters=[])]}),
    ("parameters-type-string", {"tools": [tool(parameters={"type": "string"})]}),
    ("properties-list", {"tools": [tool(parameters={"type": "object", "properties": []})]}),
    ("property-int", {"tools": [tool(parameters={"type": "object", "properties": {"x": 3}})]}),
    ("property-type-unknown", {"tools": [tool(parameters={
        "type": "object", "properties": {"x": {"type": "strng"}}})]}),
    ("required-string", {"tools": [tool(parameters={"type": "object", "properties": {},
                                                     "required": "x"})]}),
    ("items-int", {"tools": [tool(parameters={"type": "object", "properties": {
        "x": {"type": "array", "items": 5}}})]}),
    ("anyof-object", {"tools": [tool(parameters={"type": "object", "properties": {
        "x": {"anyOf": {"type": "string"}}}})]}),
    ("enum-string", {"tools": [tool(parameters={"type": "object", "properties": {
        "x": {"enum": "ab"}}})], "stream": True}),
    # --- tool_choice, parallel_tool_calls --------------------------------------------------
    ("tool-choice-int", {"tools": [TOOL], "tool_choice": 5}),
    ("tool-choice-unknown-word", {"tools": [TOOL], "tool_choice": "sometimes"}),
    ("tool-choice-list", {"tools": [TOOL], "tool_choice": ["auto"]}),
    ("tool-choice-function-string", {"tools": [TOOL], "tool_choice": {"function": "f"}}),
    ("tool-choice-name-int", {"tools": [TOOL], "tool_choice": {"type": "function",
                                                              "function": {"name": 5}}}),
    ("tool-choice-unknown-tool", {"tools": [TOOL], "tool_choice": {
        "type": "function", "function": {"name": "nope"}}, "stream": True}),
    ("required-without-tools", {"tool_choice": "required"}),
    ("parallel-string", {"tools": [TOOL], "parallel_tool_calls": "yes"}),
    ("parallel-int", {"tools": [TOOL], "parallel_tool_calls": 1}),
    # --- stream, stream_options ------------------------------------------------------------
    ("stream-string", {"stream": "yes"}),
    ("stream-int", {"stream": 1}),
    ("stream-options-string", {"stream": True, "stream_options": "usage"}),
    ("stream-options-zero", {"stream": True, "stream_options": 0}),
    ("stream-options-list", {"stream": True, "stream_options": []}),
    ("include-usage-string", {"stream": True, "stream_options": {"include_usage": "yes"}}),
    # --- sampling --------------------------------------------------------------------------
    ("max-tokens-string", {"max_tokens": "10"}),
    ("max-tokens-zero", {"max_tokens": 0}),
    ("max-tokens-negative", {"max_tokens": -1, "stream": True}),
    ("max-tokens-float", {"max_tokens": 1.5}),
    ("max-tokens-huge", {"max_tokens": 1 << 40}),
    ("max-tokens-bool", {"max_tokens": True}),
    ("max-completion-tokens-string", {"max_completion_tokens": "x"}),
    ("temperature-string", {"temperature": "hot"}),
    ("temperature-negative", {"temperature": -1}),
    ("temperature-high", {"temperature": 7, "stream": True}),
    ("temperature-bool", {"temperature": True}),
    ("top-p-high", {"top_p": 2}),
    ("top-p-string", {"top_p": "all"}),
    ("seed-float", {"seed": 1.5}),
    ("seed-string", {"seed": "42"}),
    ("seed-huge", {"seed": 1 << 70}),
    # --- stop ------------------------------------------------------------------------------
    ("stop-int", {"stop": 5}),
    ("stop-int-item", {"stop": [1]}),
    ("stop-empty-string", {"stop": ""}),
    ("stop-empty-item", {"stop": ["x", ""], "stream": True}),
    ("stop-object", {"stop": {"x": 1}}),
    ("stop-too-many", {"stop": [f"s{i}" for i in range(17)]}),
    # --- response_format -------------------------------------------------------------------
    ("response-format-string", {"response_format": "json"}),
    ("response-format-unknown", {"response_format": {"type": "xml"}}),
    ("json-schema-string", {"response_format": {"type": "json_schema", "json_schema": "x"}}),
    ("json-schema-list", {"response_format": {"type": "json_schema", "json_schema": [1]}}),
    ("json-schema-list-stream", {"response_format": {"type": "json_schema", "json_schema": [1]},
                                 "stream": True}),
    ("json-schema-schema-string", {"response_format": {"type": "json_schema",
                                                       "json_schema": {"schema": "x"}}}),
    ("json-schema-bad-type", {"response_format": {"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": 5}}}}),
    ("json-schema-too-deep", {"response_format": {"type": "json_schema", "json_schema": {
        "name": "x", "schema": nested(40)}}}),
    # --- extensions ------------------------------------------------------------------------
    ("debug-string", {"reactlab_debug": "yes"}),
    ("cache-prompt-string", {"cache_prompt": "no"}),
]


@pytest.fixture(scope="module")
def served():
    engine = ReplayEngine([])
    with serve_replay(engine) as url:
        yield engine, url


@pytest.fixture
def conn(served):
    """(engine, url, raw httpx client, SDK client): both share ONE keep-alive connection."""
    engine, url = served
    engine.reset(["ok"])
    pool = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    with httpx.Client(limits=pool, timeout=30) as http:
        yield engine, url, http, openai.OpenAI(base_url=url, api_key="unused", max_retries=0,
                                               http_client=http)


def port(response: httpx.Response) -> int:
    """The client-side port of the connection a response came on."""
    return response.extensions["network_stream"].get_extra_info("client_addr")[1]


def send(http: httpx.Client, url: str, body) -> httpx.Response:
    if isinstance(body, bytes):
        return http.post(url + "/chat/completions", content=body,
                         headers={"content-type": "application/json"})
    return http.post(url + "/chat/completions", json={"model": MODEL, "messages": ASK, **body})


def assert_openai_error(resp: httpx.Response, status: tuple[int, int] = (400, 500)) -> dict:
    assert status[0] <= resp.status_code < status[1], resp.text
    error = resp.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}, error
    assert error["type"] == "invalid_request_error"
    assert isinstance(error["message"], str) and error["message"].endswith("."), error
    return error


def assert_still_serving(engine, url, http, client, after: httpx.Response,
                         same_connection: bool = True) -> None:
    health = http.get(url.removesuffix("/v1") + "/health")
    assert health.json()["status"] == "ok"
    reply = client.chat.completions.with_raw_response.create(model=MODEL, messages=ASK)
    assert reply.parse().choices[0].message.content == "ok"
    if same_connection:
        assert port(after) == port(health) == port(reply.http_response)


@pytest.mark.parametrize("body", [b for _, b in CATALOGUE], ids=[i for i, _ in CATALOGUE])
def test_hostile_request_gets_a_4xx_and_the_connection_stays_usable(conn, body):
    engine, url, http, client = conn
    resp = send(http, url, body)
    assert_openai_error(resp)
    assert engine.calls == []  # refused before the engine saw anything
    assert_still_serving(engine, url, http, client, after=resp)


STREAMED = [(i, {**b, "stream": True}) for i, b in CATALOGUE
            if isinstance(b, dict) and "stream" not in b]


@pytest.mark.parametrize("body", [b for _, b in STREAMED], ids=[i for i, _ in STREAMED])
def test_the_same_requests_streamed_get_a_4xx_before_any_event(conn, body):
    engine, url, http, client = conn
    resp = send(http, url, body)
    assert not resp.headers["content-type"].startswith("text/event-stream")
    assert_openai_error(resp)
    assert engine.calls == []
    assert_still_serving(engine, url, http, client, after=resp)


def test_the_catalogue_is_big_enough():
    assert len(CATALOGUE) >= 60 and len({i for i, _ in CATALOGUE}) == len(CATALOGUE)
    assert sum(isinstance(b, dict) and b.get("stream") is True for _, b in CATALOGUE) >= 10


def test_errors_name_the_field(conn):
    _, url, http, _ = conn
    cases = {"surrogate-content": "messages", "schema-450-deep": "tools",
             "json-schema-string": "response_format", "stop-too-many": "stop",
             "property-int": "tools[0].function.parameters"}
    bodies = dict(CATALOGUE)
    for name, param in cases.items():
        assert send(http, url, bodies[name]).json()["error"]["param"] == param, name
    codes = {"nan": "invalid_number", "deep-100k": "too_deep", "surrogate-debug": "invalid_text"}
    for name, code in codes.items():
        assert send(http, url, bodies[name]).json()["error"]["code"] == code, name


def test_a_user_message_with_stray_tool_calls_is_tolerated(conn):
    # Only assistant messages carry calls; the template ignores them elsewhere, and so do we.
    _, url, http, _ = conn
    body = {"messages": [{"role": "user", "content": "hi", "tool_calls": "f()"}]}
    assert send(http, url, body).json()["choices"][0]["message"]["content"] == "ok"


# --- size and time ---------------------------------------------------------------------------

@pytest.fixture
def small():
    """A server of its own with tight limits: 20 kB bodies, 0.3 s uploads, 2 calls a reply."""
    engine = ReplayEngine([])
    with serve_replay(engine, limits=Limits(max_body_bytes=20_000, upload_timeout=0.3,
                                            max_tool_calls=2)) as url:
        yield engine, url


def test_a_body_over_the_limit_is_413_and_the_connection_stays_usable(small):
    engine, url = small
    engine.reset(["ok", "ok"])
    pool = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    with httpx.Client(limits=pool, timeout=30) as http:
        client = openai.OpenAI(base_url=url, api_key="x", max_retries=0, http_client=http)
        big = [{"role": "user", "content": "长" * 30_000}]
        resp = http.post(url + "/chat/completions", json={"messages": big})
        error = assert_openai_error(resp, (413, 414))
        assert error["code"] == "request_too_large" and "--max-body-bytes" in error["message"]
        assert_still_serving(engine, url, http, client, after=resp)

        def chunks():  # no Content-Length: the limit is counted while reading
            yield b'{"messages": [{"role": "user", "content": "'
            for _ in range(100):
                yield b"x" * 1000
            yield b'"}]}'

        resp = http.post(url + "/chat/completions", content=chunks())
        assert_openai_error(resp, (413, 414))
        assert_still_serving(engine, url, http, client, after=resp)
    assert [c["prompt"].count("长") for c in engine.calls] == [0, 0]


def test_a_20_mb_body_is_refused_by_the_default_limit(conn):
    engine, url, http, client = conn
    resp = http.post(url + "/chat/completions", content=b"[" + b"0," * 10_000_000 + b"0]")
    assert_openai_error(resp, (413, 414))
    assert_still_serving(engine, url, http, client, after=resp)


def stalled(url: str) -> socket.socket:
    """A connection that promised 1000 bytes of body and sent 10."""
    host, port_ = url.removeprefix("http://").removesuffix("/v1").split(":")
    sock = socket.create_connection((host, int(port_)), timeout=30)
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                 b"application/json\r\nContent-Length: 1000\r\n\r\n{\"messages\"")
    return sock


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_stalled_uploads_time_out_with_408_and_the_server_keeps_serving(small):
    engine, url = small
    engine.reset(["ok"])
    socks = [stalled(url) for _ in range(50)]
    answers: list[bytes] = []
    threads = [threading.Thread(target=lambda s=s: answers.append(read_all(s))) for s in socks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for sock in socks:
        sock.close()
    assert len(answers) == 50
    for answer in answers:  # read_all returned: the server closed each connection
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower()
        assert json.loads(body)["error"]["code"] == "upload_timeout"
    client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
    assert client.chat.completions.create(model=MODEL, messages=ASK).choices[
        0].message.content == "ok"


# --- what the model sends back -------------------------------------------------------------

CALLS = "".join(f'<tool_call>\n{{"name": "get_weather", "arguments": {{"location": "城{i}"}}}}\n'
                f"</tool_call>\n" for i in range(20))


def cities(message) -> list[str]:
    return [json.loads(c.function.arguments)["location"] for c in message.tool_calls]


def test_tool_calls_per_reply_are_capped_and_the_rest_shown_in_debug(conn):
    engine, url, http, client = conn
    engine.reset([CALLS, CALLS, CALLS])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=[TOOL],
                                       extra_body={"reactlab_debug": True})
    assert cities(r.choices[0].message) == [f"城{i}" for i in range(8)]
    debug = r.model_extra["reactlab"]
    assert debug["max_tool_calls"] == 8 and len(debug["calls_dropped"]) == 12
    assert debug["calls_dropped"][0] == {"name": "get_weather", "arguments": '{"location": "城8"}',
                                         "source": "tag"}
    chunks = list(client.chat.completions.create(model=MODEL, messages=ASK, tools=[TOOL],
                                                 stream=True))
    indexes = {tc.index for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []}
    assert indexes == set(range(8))
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=[TOOL],
                                       parallel_tool_calls=False)
    assert cities(r.choices[0].message) == ["城0"]
    assert len(http.get(url + "/debug/last").json()["calls_dropped"]) == 19


def test_the_tool_call_cap_is_configurable(small):
    engine, url = small
    engine.reset([CALLS])
    client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=[TOOL])
    assert cities(r.choices[0].message) == ["城0", "城1"]


@pytest.mark.parametrize("text", ["<tool_call>" + "[" * 5000, "{" * 30_000, "[{" * 15_000,
                                  "<tool_call>{'name': 'get_weather', 'arguments': {1, 2}}",
                                  '{"name": "get_weather", "arguments": {"x": NaN}}'],
                         ids=["tag-deep", "braces", "list-of-braces", "python-set", "nan"])
def test_hostile_model_output_is_served_not_a_500(conn, text):
    engine, _, _, client = conn
    engine.reset([text, text, "ok"])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=[TOOL],
                                       max_tokens=200_000)
    assert r.choices[0].finish_reason in ("stop", "tool_calls")
    chunks = list(client.chat.completions.create(model=MODEL, messages=ASK, tools=[TOOL],
                                                 max_tokens=200_000, stream=True))
    assert chunks[-1].choices[0].finish_reason in ("stop", "tool_calls")
    assert client.chat.completions.create(model=MODEL, messages=ASK).choices[
        0].message.content == "ok"


def test_a_lone_surrogate_from_the_engine_never_breaks_the_debug_view(conn):
    engine, url, http, client = conn
    engine.reset(["bad \ud800 text", "bad \ud800 text", "ok"])
    r = client.chat.completions.create(model=MODEL, messages=ASK,
                                       extra_body={"reactlab_debug": True})
    assert r.model_extra["reactlab"]["raw_text"] == "bad \ud800 text"  # escaped, not dropped
    chunks = list(client.chat.completions.create(model=MODEL, messages=ASK, stream=True,
                                                 extra_body={"reactlab_debug": True}))
    assert chunks[-1].choices[0].finish_reason == "stop"
    last = http.get(url + "/debug/last")
    assert last.status_code == 200 and last.json()["raw_text"] == "bad \ud800 text"
    assert_still_serving(engine, url, http, client, after=last)


def test_an_engine_failure_is_500_and_the_connection_stays_usable(conn):
    engine, url, http, client = conn
    engine.reset([RuntimeError("llama.cpp exploded"), "ok"])
    resp = send(http, url, {})
    assert resp.status_code == 500
    error = resp.json()["error"]
    assert error["type"] == "server_error" and error["code"] == "engine_error"
    assert error["message"] == "The engine failed: RuntimeError: llama.cpp exploded"
    assert_still_serving(engine, url, http, client, after=resp)


class BrokenTemplate:
    origin = "a test's broken template"

    def render(self, messages, tools=None):
        raise KeyError("a bug in the server")


def test_a_server_bug_is_a_500_that_says_so_and_the_connection_stays_usable(served):
    engine, url = served
    engine.reset(["ok"])
    template, engine.template = engine.template, BrokenTemplate()
    try:
        pool = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        with httpx.Client(limits=pool, timeout=30) as http:
            resp = send(http, url, {})
            assert resp.status_code == 500
            error = resp.json()["error"]
            assert error["code"] == "server_error" and "bug in reactlab" in error["message"]
            engine.template = template
            client = openai.OpenAI(base_url=url, api_key="x", max_retries=0, http_client=http)
            assert_still_serving(engine, url, http, client, after=resp)
    finally:
        engine.template = template


# --- who may read the debug view --------------------------------------------------------------

def test_the_debug_view_needs_the_key_when_the_server_has_one():
    engine = ReplayEngine(["secret prompt answer", "again"])
    with serve_replay(engine, api_key="sekrit") as url, httpx.Client(timeout=30) as http:
        key = {"Authorization": "Bearer sekrit"}
        body = {"model": MODEL, "messages": ASK, "reactlab_debug": True}
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            assert http.post(url + "/chat/completions", json=body,
                             headers=headers).status_code == 401
        assert engine.calls == []
        r = http.post(url + "/chat/completions", json=body, headers=key)
        assert "北京" in r.json()["reactlab"]["prompt"]
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            denied = http.get(url + "/debug/last", headers=headers)
            assert denied.status_code == 401
            assert denied.json()["error"]["code"] == "invalid_api_key"
        last = http.get(url + "/debug/last", headers=key).json()
        assert last["raw_text"] == "secret prompt answer"


def test_without_a_key_any_local_client_reads_the_last_prompt(conn):
    # Documented (app module docstring, tests/README.md): no key, no secrets.
    _, url, _, client = conn
    client.chat.completions.create(model=MODEL, messages=ASK)
    with httpx.Client(timeout=30) as stranger:
        assert "北京" in stranger.get(url + "/debug/last").json()["prompt"]


def test_a_client_that_leaves_mid_reply_stops_the_engine_without_a_server_error(served, caplog):
    """A non-streamed request whose client gives up: the server used to read the state of the
    task it had just asked to cancel (asyncio's InvalidStateError, logged as a server bug)."""
    engine, url = served
    engine.reset([" ".join(["词"] * 400), "ok"], delay=0.01)  # about 4 s of reply
    caplog.set_level("ERROR", logger="reactlab.server")
    with httpx.Client(timeout=0.5) as impatient, pytest.raises(httpx.ReadTimeout):
        send(impatient, url, {})
    with httpx.Client(timeout=30) as http:
        for _ in range(100):  # the cancellation lands within a piece or two
            if http.get(url.removesuffix("/v1") + "/health").json().get("running", 0) == 0:
                break
            threading.Event().wait(0.05)
        engine.reset(["ok"])
        assert send(http, url, {}).json()["choices"][0]["message"]["content"] == "ok"
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text
