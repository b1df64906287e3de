"""The server's OpenAI protocol, driven with the real `openai` SDK against the replay engine.

The replay engine answers with scripted raw texts that go through the same template -> engine
-> parser -> stream path as the real model, so these tests run in milliseconds.
"""

from __future__ import annotations

import json
import threading
import time

import httpx
import openai
import pytest

from reactlab.server.replay import ReplayEngine, serve_replay

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather of a Chinese city.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string",
                                                                 "description": "city, e.g. 北京"}},
                   "required": ["location"]}}}
TODAY = {"type": "function", "function": {"name": "get_today", "description": "Today's date.",
                                          "parameters": {"type": "object", "properties": {}}}}
TOOLS = [WEATHER, TODAY]
ASK = [{"role": "user", "content": "北京今天天气怎么样？"}]
MODEL = "qwen2.5-coder-1.5b-instruct"

FENCED = '```json\n{\n  "name": "get_weather",\n  "arguments": {\n    "location": "北京"\n  }\n}\n```'
TAGS = ('我来查一下。\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}}\n'
        '</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "广州"}}\n'
        '</tool_call>')
BARE = '{"name": "get_weather", "arguments": {"location": "北京"}}'


# One HTTP client for raw requests: building a client costs ~0.1 s (TLS set-up) on 2 cores.
http = httpx.Client(timeout=20)


@pytest.fixture(scope="module")
def shared():
    """One replay server (and SDK client) for the whole module; each test gives a new script.
    Without the help's more calls (tests/test_server_more_calls.py): each would take a scripted
    text of its own after every reply with a call."""
    engine = ReplayEngine([])
    with serve_replay(engine, more_calls=False) as url:
        yield engine, url, openai.OpenAI(base_url=url, api_key="unused", max_retries=0,
                                         timeout=20)


@pytest.fixture
def serve(shared):
    """serve(texts, delay=0, api_key=None, own=False) -> (client, engine, base_url)."""
    stack = []

    def start(texts, delay=0.0, api_key=None, own=False):
        if not (api_key or own):
            engine, url, client = shared
            return client, engine.reset(texts, delay), url
        engine = ReplayEngine(texts, delay=delay)  # a server of its own
        ctx = serve_replay(engine, api_key=api_key, more_calls=False)
        url = ctx.__enter__()
        stack.append(ctx)
        client = openai.OpenAI(base_url=url, api_key=api_key or "unused", max_retries=0,
                               timeout=20)
        return client, engine, url

    yield start
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)


def healthy(url: str) -> bool:
    return http.get(url.removesuffix("/v1") + "/health").json()["status"] == "ok"


# --- plain answers --------------------------------------------------------------------------

def test_plain_answer(serve):
    client, engine, _ = serve(["北京今天晴，25°C。", "再见。"])
    r = client.chat.completions.create(model=MODEL, messages=ASK, temperature=0, seed=7)
    assert r.id.startswith("chatcmpl-") and r.model == MODEL
    assert r.choices[0].message.content == "北京今天晴，25°C。"
    assert r.choices[0].finish_reason == "stop"
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens > 0
    assert r.usage.prompt_tokens_details.cached_tokens == 0
    assert (engine.calls[0]["temperature"], engine.calls[0]["seed"]) == (0, 7)
    r2 = client.chat.completions.create(model="1.5b", messages=ASK)
    assert r2.usage.prompt_tokens_details.cached_tokens > 0  # same prompt prefix as before


def test_stream_with_usage(serve):
    client, _, _ = serve(["Hello there, 北京!"])
    chunks = list(client.chat.completions.create(model=MODEL, messages=ASK, stream=True,
                                                 stream_options={"include_usage": True}))
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Hello there, 北京!"
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 3
    finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finish == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0
    assert all(c.usage is None for c in chunks[:-1])


def test_stop_string_list_and_max_tokens(serve):
    client, _, _ = serve(["one two three. four", "one two three. four", "a b c d e f g h"])
    assert client.chat.completions.create(model=MODEL, messages=ASK, stop=".").choices[
        0].message.content == "one two three"
    assert client.chat.completions.create(model=MODEL, messages=ASK, stop=["x", " three"]).choices[
        0].message.content == "one two"
    r = client.chat.completions.create(model=MODEL, messages=ASK, max_tokens=3)
    assert (r.choices[0].message.content, r.choices[0].finish_reason) == ("a b c", "length")


# --- tool calls -------------------------------------------------------------------------------

@pytest.mark.parametrize("text,locations,content", [
    (FENCED, ["北京"], None), (BARE, ["北京"], None), (TAGS, ["北京", "广州"], "我来查一下。"),
    ("[" + BARE + ", " + BARE.replace("北京", "广州") + "]", ["北京", "广州"], None),
], ids=["fenced", "bare", "tags-parallel", "list"])
def test_tool_calls(serve, text, locations, content):
    client, _, _ = serve([text])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == content
    calls = choice.message.tool_calls
    assert [json.loads(c.function.arguments)["location"] for c in calls] == locations
    assert all(c.id.startswith("call_") and c.type == "function" for c in calls)
    assert len({c.id for c in calls}) == len(calls)


def test_streamed_tool_call_deltas(serve):
    _, _, url = serve([TAGS])
    body = {"model": MODEL, "messages": ASK, "tools": TOOLS, "stream": True}
    with http.stream("POST", url + "/chat/completions", json=body) as resp:
        assert resp.headers["content-type"].startswith("text/event-stream")
        lines = [ln for ln in resp.iter_lines() if ln]
    assert lines[-1] == "data: [DONE]"
    deltas = [json.loads(ln[6:])["choices"][0] for ln in lines[:-1]]
    content = "".join(d["delta"].get("content") or "" for d in deltas)
    assert content.strip() == "我来查一下。" and "<tool_call>" not in content
    calls = [tc for d in deltas for tc in d["delta"].get("tool_calls", [])]
    for index, city in enumerate(["北京", "广州"]):
        mine = [tc for tc in calls if tc["index"] == index]
        assert mine[0]["id"].startswith("call_") and mine[0]["function"]["name"] == "get_weather"
        assert all("id" not in tc and "name" not in tc["function"] for tc in mine[1:])
        assert len(mine) > 2  # arguments arrive in fragments
        assert json.loads("".join(tc["function"]["arguments"] for tc in mine)) == {"location": city}
    assert deltas[-1]["finish_reason"] == "tool_calls"


def test_tool_choice_none_hides_tools_and_parses_nothing(serve):
    client, engine, _ = serve([BARE])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS, tool_choice="none")
    assert r.choices[0].message.content == BARE and not r.choices[0].message.tool_calls
    assert "<tools>" not in engine.calls[0]["prompt"]


def test_tool_choice_required_and_named_use_a_schema(serve):
    one = '{"name": "get_weather", "arguments": {"location": "北京"}}'
    client, engine, _ = serve(["[" + one + "]", one, one + "\n" + one.replace("北京", "上海")])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS,
                                       tool_choice="required")
    assert r.choices[0].finish_reason == "tool_calls"
    assert engine.calls[0]["json_schema"]["type"] == "array"
    named = {"type": "function", "function": {"name": "get_weather"}}
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS, tool_choice=named)
    assert r.choices[0].message.tool_calls[0].function.name == "get_weather"
    assert engine.calls[1]["json_schema"]["properties"]["name"] == {"const": "get_weather"}
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS,
                                       tool_choice="required", parallel_tool_calls=False)
    assert "anyOf" in engine.calls[2]["json_schema"]
    assert len(r.choices[0].message.tool_calls) == 1  # parallel calls off: the first one only


PARALLEL_ASK = [{"role": "user", "content": "北京和广州今天天气怎么样？"}]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_choice_option_constrains_auto_to_an_answer_or_valid_calls(serve, stream):
    """"reactlab_choice": true under tool_choice="auto": the model writes an answer object or a
    list of calls (it decides how many); the client sees content or tool_calls as usual."""
    two = ('[{"name": "get_weather", "arguments": {"location": "北京"}}, '
           '{"name": "get_weather", "arguments": {"location": "广州"}}]')
    client, engine, _ = serve([two, '{"answer": "我只能查天气。"}'])

    def ask(messages):
        kw = {"model": MODEL, "messages": messages, "tools": TOOLS, "temperature": 0,
              "extra_body": {"reactlab_choice": True}}
        if not stream:
            return client.chat.completions.create(**kw).choices[0].message
        from reactlab.streaming import ToolCallAccumulator
        acc = ToolCallAccumulator()
        for chunk in client.chat.completions.create(stream=True, **kw):
            acc.add(chunk)
        return acc

    calls = ask(PARALLEL_ASK).tool_calls
    names = [(c["function"] if isinstance(c, dict) else c.function) for c in calls]
    args = [json.loads(f["arguments"] if isinstance(f, dict) else f.arguments) for f in names]
    assert args == [{"location": "北京"}, {"location": "广州"}]
    answer, one, many = engine.calls[0]["json_schema"]["anyOf"]
    assert answer["required"] == ["answer"]
    # one call (to either tool) starts with "{" too, like the answer
    assert [c["properties"]["name"]["const"] for c in one["anyOf"]] == ["get_weather", "get_today"]
    assert many["type"] == "array" and many["minItems"] == 1 and many["items"] == one
    answer = ask([{"role": "user", "content": "你好"}])
    content = answer.content
    assert content == "我只能查天气。" and not answer.tool_calls  # the answer, not its JSON


def test_the_choice_option_is_one_call_without_parallel_calls_and_off_by_default(serve):
    one = '{"name": "get_weather", "arguments": {"location": "北京"}}'
    client, engine, _ = serve([one, FENCED])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS,
                                       parallel_tool_calls=False,
                                       extra_body={"reactlab_choice": True})
    shapes = engine.calls[0]["json_schema"]["anyOf"]
    assert len(shapes) == 2 and "anyOf" in shapes[1]  # one call to either tool, no list
    assert len(r.choices[0].message.tool_calls) == 1
    client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)
    assert engine.calls[1]["json_schema"] is None  # off unless asked for


def test_the_choice_option_must_be_a_boolean(serve):
    _, _, url = serve(["x"])
    r = http.post(url + "/chat/completions", json={"model": MODEL, "messages": ASK,
                                                   "tools": TOOLS, "reactlab_choice": "yes"})
    assert r.status_code == 400 and r.json()["error"]["param"] == "reactlab_choice"


def test_auto_sends_no_schema_and_stops_at_an_invented_tool_response(serve):
    client, engine, _ = serve([FENCED + "\n<tool_response>\n晴\n</tool_response>"])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)
    assert engine.calls[0]["json_schema"] is None and "<tool_response>" in engine.calls[0]["stop"]
    assert r.choices[0].message.content is None and len(r.choices[0].message.tool_calls) == 1


def test_round_trip_prompt_shows_call_and_result(serve):
    client, engine, _ = serve([FENCED, "北京今天晴，25°C。"])
    first = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)
    call = first.choices[0].message.tool_calls[0]
    messages = ASK + [first.choices[0].message.model_dump(exclude_none=True),
                      {"role": "tool", "tool_call_id": call.id, "content": "晴, 25°C"}]
    r = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
    assert r.choices[0].message.content == "北京今天晴，25°C。"
    prompt = engine.calls[1]["prompt"]
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}}\n</tool_call>' in prompt
    assert "<|im_start|>user\n<tool_response>\n晴, 25°C\n</tool_response><|im_end|>" in prompt
    assert r.usage.prompt_tokens_details.cached_tokens > 0


# --- only trusted text reaches the client ------------------------------------------------------

INVENTED = "北京今天晴，25°C，适合出门。"  # written before any tool ran
AFTER_CALL = "我来查一下。\n" + FENCED + "\n" + INVENTED
REPEATED = TAGS.replace("广州", "北京") + "\n然后查广州。\n" + TAGS.split("</tool_call>\n")[1]


def streamed(client, **kw):
    """(content, [(name, arguments)], final chunk) of a streamed completion, via the SDK."""
    chunks = list(client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS,
                                                 stream=True, **kw))
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    calls: dict[int, list[str]] = {}
    for c in chunks:
        for tc in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            name_args = calls.setdefault(tc.index, ["", ""])
            name_args[0] += tc.function.name or ""
            name_args[1] += tc.function.arguments or ""
    final = next(c for c in chunks if c.choices and c.choices[0].finish_reason)
    return content, [(n, json.loads(a)) for _, (n, a) in sorted(calls.items())], final


def as_text(response) -> str:
    return json.dumps(response.model_dump(), ensure_ascii=False)


def test_headline_text_invented_after_a_call_does_not_reach_the_client(serve):
    client, _, url = serve([AFTER_CALL, AFTER_CALL, AFTER_CALL])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)
    message = r.choices[0].message
    assert message.content == "我来查一下。"  # the preamble stays
    assert [json.loads(c.function.arguments) for c in message.tool_calls] == [{"location": "北京"}]
    assert "晴" not in as_text(r) and "我来查一下" in as_text(r)
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS,
                                       extra_body={"reactlab_debug": True})
    assert r.model_extra["reactlab"]["dropped_text"] == INVENTED
    assert r.model_extra["reactlab"]["raw_text"] == AFTER_CALL  # the debug view shows it all
    content, calls, final = streamed(client, extra_body={"reactlab_debug": True})
    assert content.strip() == "我来查一下。" and "晴" not in content
    assert calls == [("get_weather", {"location": "北京"})]
    assert final.choices[0].finish_reason == "tool_calls"
    assert final.model_extra["reactlab"]["dropped_text"] == INVENTED
    assert http.get(url + "/debug/last").json()["dropped_text"] == INVENTED


def test_repeated_identical_calls_reach_the_client_once(serve):
    client, _, url = serve([REPEATED, REPEATED])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)
    cities = [json.loads(c.function.arguments)["location"] for c in r.choices[0].message.tool_calls]
    assert cities == ["北京", "广州"] and r.choices[0].message.content == "我来查一下。"
    last = http.get(url + "/debug/last").json()
    assert (last["duplicate_calls_dropped"], last["dropped_text"]) == (1, "然后查广州。")
    content, calls, _ = streamed(client)
    assert [args["location"] for _, args in calls] == ["北京", "广州"]
    assert content.strip() == "我来查一下。"
    assert http.get(url + "/debug/last").json()["duplicate_calls_dropped"] == 1


@pytest.mark.parametrize("text", [
    AFTER_CALL, REPEATED, TAGS, FENCED + "\n" + BARE.replace("北京", "广州") + "\n都查好了。",
    "北京今天晴。", "<tools></tools>", "Answer:\n{\"x\": 1}\nthen\n" + FENCED + "\n晴",
], ids=["after-call", "repeated", "tags", "fence+bare", "no-call", "markup", "json-then-call"])
def test_streamed_and_non_streamed_replies_agree(serve, text):
    client, _, _ = serve([text, text])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)
    message = r.choices[0].message
    content, calls, final = streamed(client)
    assert content.strip() == (message.content or "")
    assert calls == [(c.function.name, json.loads(c.function.arguments))
                     for c in message.tool_calls or []]
    assert final.choices[0].finish_reason == r.choices[0].finish_reason


def test_a_call_the_hold_back_misses_still_arrives_when_streamed(serve):
    # `{ "name"` in mid-line is no hold-back marker: its text streams as content before the
    # server knows it is a call, and sent text cannot be taken back. The call still arrives.
    text = 'Calling: { "name": "get_weather", "arguments": {"location": "北京"}} ' + INVENTED
    client, _, url = serve([text, text])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS)
    assert r.choices[0].message.content == "Calling:" and INVENTED not in as_text(r)
    content, calls, _ = streamed(client)
    assert calls == [("get_weather", {"location": "北京"})]
    assert content == text  # the documented leak: debug's `content` says what was sent
    assert http.get(url + "/debug/last").json()["content"] == text


# --- seeing under the hood --------------------------------------------------------------------

def test_debug_flag_and_last(serve):
    client, engine, url = serve([FENCED, FENCED, "hi"])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS,
                                       extra_body={"reactlab_debug": True})
    debug = r.model_extra["reactlab"]
    assert debug["prompt"] == engine.calls[0]["prompt"] and "<tools>" in debug["prompt"]
    assert debug["raw_text"] == FENCED
    assert debug["parsed_tool_calls"][0]["source"] == "fence"
    assert debug["parsed_tool_calls"][0]["id"] == r.choices[0].message.tool_calls[0].id
    assert http.get(url + "/debug/last").json()["raw_text"] == FENCED
    chunks = list(client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS,
                                                 stream=True, extra_body={"reactlab_debug": True}))
    final = next(c for c in chunks if c.choices and c.choices[0].finish_reason)
    assert final.model_extra["reactlab"]["raw_text"] == FENCED
    plain = client.chat.completions.create(model=MODEL, messages=ASK)
    assert "reactlab" not in (plain.model_extra or {})
    assert http.get(url + "/debug/last").json()["raw_text"] == "hi"


# --- bad input ----------------------------------------------------------------------------------

CALLED = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_a", "type": "function", "function": {"name": "get_weather",
                                                       "arguments": '{"location": "北京"}'}}]}
SEED_003 = [{"role": "user", "content": "今天的天气怎么样？我想出去露营，需要准备什么"},
            {"role": "tool", "tool_call_id": "call_xyz789",
             "content": '{"temp": 32, "humidity": 75, "condition": "雷阵雨"}'}]
BAD = [
    (b"this is not json", "invalid_json", None),
    (b"[1, 2]", "invalid_json", None),
    ({"model": MODEL}, "missing_messages", "messages"),
    ({"model": MODEL, "messages": []}, "missing_messages", "messages"),
    ({"messages": [{"role": "bot", "content": "hi"}]}, "invalid_role", "messages[0].role"),
    ({"messages": SEED_003, "tools": TOOLS}, "tool_without_call", "messages[1].role"),
    ({"messages": ASK + [CALLED, {"role": "tool", "tool_call_id": "call_b", "content": "x"}]},
     "unknown_tool_call_id", "messages[2].tool_call_id"),
    ({"messages": ASK + [CALLED] + ASK}, "unanswered_tool_calls", "messages"),
    ({"messages": ASK + [CALLED]}, "unanswered_tool_calls", "messages"),
    ({"messages": ASK, "temperature": "hot"}, "invalid_type", "temperature"),
    ({"messages": ASK, "temperature": 7}, "invalid_value", "temperature"),
    ({"messages": ASK, "max_tokens": 0}, "invalid_value", "max_tokens"),
    ({"messages": ASK, "stream": "yes"}, "invalid_type", "stream"),
    ({"messages": ASK, "stop": [1]}, None, "stop"),
    ({"messages": ASK, "tools": [{"type": "function", "function": {
        "name": "f", "parameters": {"type": "string"}}}]}, "invalid_tool_schema",
     "tools[0].function.parameters"),
    ({"messages": ASK, "tools": [{"type": "function", "function": {"name": "bad name!"}}]},
     "invalid_tool_name", "tools[0].function.name"),
    ({"messages": ASK, "tools": TOOLS, "tool_choice": {"type": "function",
                                                        "function": {"name": "nope"}}},
     "unknown_tool", "tool_choice"),
    ({"messages": ASK, "tool_choice": "required"}, None, "tool_choice"),
    ({"messages": ASK, "n": 2}, "unsupported_value", "n"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {
        "url": "http://x/y.png"}}]}]}, "unsupported_content", "messages[0].content"),
]


@pytest.mark.parametrize("body,code,param", BAD, ids=[b[1] or b[2] for b in BAD])
def test_bad_requests_get_openai_shaped_400s_and_the_server_stays_up(serve, body, code, param):
    client, engine, url = serve(["still here"])
    if isinstance(body, bytes):
        resp = http.post(url + "/chat/completions", content=body)
    else:
        resp = http.post(url + "/chat/completions", json={"model": MODEL, **body})
    assert resp.status_code == 400, resp.text
    error = resp.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error" and error["message"].endswith(".")
    assert (error["code"], error["param"]) == (code, param)
    assert engine.calls == []  # refused before the engine saw anything
    assert healthy(url)
    assert client.chat.completions.create(model=MODEL, messages=ASK).choices[
        0].message.content == "still here"


def test_seed_003_mistake_explains_the_fix(serve):
    client, _, _ = serve([])
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(model=MODEL, messages=SEED_003, tools=TOOLS)
    message = err.value.body["message"]
    assert "messages[1] is a 'tool' message" in message
    assert "append the assistant message" in message and "tool_calls" in message


def test_unknown_model_and_path_are_404(serve):
    client, _, url = serve([])
    with pytest.raises(openai.NotFoundError) as err:
        client.chat.completions.create(model="gpt-9", messages=ASK)
    assert err.value.body["code"] == "model_not_found" and "1.5b" in err.value.body["message"]
    resp = http.get(url + "/nowhere")
    assert resp.status_code == 404 and "/v1/chat/completions" in resp.json()["error"]["message"]
    assert healthy(url)


def test_engine_failure_is_500_and_server_survives(serve):
    client, _, url = serve([RuntimeError("llama.cpp exploded"), RuntimeError("again"), "ok"])
    with pytest.raises(openai.InternalServerError) as err:
        client.chat.completions.create(model=MODEL, messages=ASK)
    assert "exploded" in err.value.body["message"] and err.value.body["type"] == "server_error"
    with pytest.raises(openai.APIError):
        list(client.chat.completions.create(model=MODEL, messages=ASK, stream=True))
    assert healthy(url)
    assert client.chat.completions.create(model=MODEL, messages=ASK).choices[
        0].message.content == "ok"


def test_api_key_when_configured(serve):
    client, _, url = serve(["hi"], api_key="sekrit")
    assert http.post(url + "/chat/completions", json={"messages": ASK},
                      headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert healthy(url)  # /health stays open: connect() uses it
    assert client.chat.completions.create(model=MODEL, messages=ASK).choices[
        0].message.content == "hi"


# --- one engine, many clients -------------------------------------------------------------

def test_concurrent_clients_are_all_served_one_at_a_time(serve):
    texts = [f"answer {i}" for i in range(6)]
    client, engine, _ = serve(texts, delay=0.005)
    results = []

    def ask(stream: bool):
        if stream:
            chunks = client.chat.completions.create(model=MODEL, messages=ASK, stream=True)
            results.append("".join(c.choices[0].delta.content or "" for c in chunks if c.choices))
        else:
            results.append(client.chat.completions.create(model=MODEL, messages=ASK).choices[
                0].message.content)

    threads = [threading.Thread(target=ask, args=(i % 2 == 0,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(results) == texts
    assert engine.max_active == 1


def test_a_client_leaving_mid_stream_frees_the_engine(serve):
    long_text = " ".join(f"word{i}" for i in range(400))
    client, engine, url = serve([long_text, "next"], delay=0.01)
    body = {"model": MODEL, "messages": ASK, "stream": True}
    with http.stream("POST", url + "/chat/completions", json=body) as resp:
        lines = resp.iter_lines()
        for _ in range(4):
            next(lines)
    # the client closed the connection after a few chunks: generation must stop soon
    deadline = time.monotonic() + 5
    while engine.cancelled == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert engine.cancelled == 1
    r = client.chat.completions.create(model=MODEL, messages=ASK)
    assert r.choices[0].message.content == "next"


def test_health_models_and_lazy_models(serve):
    client, _, url = serve(["a", "b"], own=True)
    health = http.get(url.removesuffix("/v1") + "/health").json()
    assert health["server"] == "reactlab" and health["model"] == MODEL
    assert isinstance(health["pid"], int) and health["models_loaded"] == [MODEL]
    from reactlab.server import source

    assert health["source"] == source.digest()  # which code this server was started from
    ids = [m.id for m in client.models.list().data]
    assert ids == ["qwen2.5-coder-1.5b-instruct", "qwen2.5-coder-0.5b-instruct"]
    client.chat.completions.create(model="0.5b", messages=ASK)
    health = http.get(url.removesuffix("/v1") + "/health").json()
    assert "qwen2.5-coder-0.5b-instruct" in health["models_loaded"]


def test_a_client_giving_up_on_a_non_stream_request_frees_the_engine(serve):
    long_text = " ".join(f"word{i}" for i in range(400))
    client, engine, url = serve([long_text, "next"], delay=0.01)
    with pytest.raises(httpx.ReadTimeout):
        http.post(url + "/chat/completions", json={"model": MODEL, "messages": ASK}, timeout=0.5)
    deadline = time.monotonic() + 5
    while engine.cancelled == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert engine.cancelled == 1
    assert client.chat.completions.create(model=MODEL, messages=ASK).choices[
        0].message.content == "next"


def test_a_reply_cut_by_max_tokens_says_length_even_with_complete_calls(serve):
    # The model wrote one whole call and was cut inside a second one (seen on the real 1.5B):
    # the client must learn the reply is incomplete, as OpenAI reports it.
    cut = TAGS + '\n<tool_call>\n{"name": "get_weather", "arguments": {"loc'
    client, _, _ = serve([cut])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS, max_tokens=10_000)
    assert r.choices[0].finish_reason == "tool_calls"  # not cut: the whole text fit
    client, _, _ = serve([cut])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS, max_tokens=60)
    assert r.choices[0].finish_reason == "length"
