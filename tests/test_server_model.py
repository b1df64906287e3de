"""End to end on the real local model (qwen2.5-coder-1.5b-instruct through the local server).

Marked `model`: tens of seconds on 2 cores; skipped with REACTLAB_SKIP_MODEL=1. The assertions
are about the protocol, never about what the model chose to say.
"""

from __future__ import annotations

import json

import httpx
import pytest

pytestmark = pytest.mark.model

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather of a Chinese city.",
    "parameters": {"type": "object", "properties": {"location": {
        "type": "string", "description": "city name, e.g. 北京"}}, "required": ["location"]}}}
ASK = [{"role": "user", "content": "北京今天天气怎么样？"}]


@pytest.fixture(scope="module")
def conn(local_conn):
    info = httpx.get(local_conn.base_url.removesuffix("/v1") + "/health", timeout=10).json()
    if info.get("engine") != "xllamacpp":
        pytest.skip(f"the local server runs the {info.get('engine')!r} engine, not the model")
    return local_conn


def required_call(conn):
    r = conn.client.chat.completions.create(
        model=conn.model, messages=ASK, tools=[WEATHER], tool_choice="required", temperature=0,
        max_tokens=48, extra_body={"reactlab_debug": True})
    return r


def test_required_tool_call_is_valid_by_construction(conn):
    r = required_call(conn)
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls"
    call = choice.message.tool_calls[0]
    assert call.id.startswith("call_") and call.function.name == "get_weather"
    assert isinstance(json.loads(call.function.arguments)["location"], str)
    debug = r.model_extra["reactlab"]
    assert debug["json_schema"] is not None and "<tools>" in debug["prompt"]
    assert r.usage.prompt_tokens > 100 and r.usage.completion_tokens > 0


def test_full_tool_round_trip_streamed(conn):
    first = required_call(conn)
    call = first.choices[0].message.tool_calls[0]
    messages = ASK + [first.choices[0].message.model_dump(exclude_none=True),
                      {"role": "tool", "tool_call_id": call.id, "content": "北京: 晴, 25°C"}]
    chunks = list(conn.client.chat.completions.create(
        model=conn.model, messages=messages, tools=[WEATHER], temperature=0, max_tokens=48,
        stream=True, stream_options={"include_usage": True}, extra_body={"reactlab_debug": True}))
    final = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert len(final) == 1 and final[0].choices[0].finish_reason in ("stop", "length", "tool_calls")
    debug = final[0].model_extra["reactlab"]
    assert "<tool_response>\n北京: 晴, 25°C\n</tool_response>" in debug["prompt"]
    assert f'"arguments": {call.function.arguments}' in debug["prompt"]  # the call, echoed
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == (debug["content"] or "")  # what streamed is what the parser kept as content
    usage = chunks[-1].usage
    assert chunks[-1].choices == [] and usage.prompt_tokens > first.usage.prompt_tokens
    assert usage.prompt_tokens_details.cached_tokens >= 0
