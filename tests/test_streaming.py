"""ToolCallAccumulator on recorded chunk sequences in each provider's style.

Every sequence runs twice: as dicts (what reactlab.http.stream_chat yields) and as the
openai SDK's ChatCompletionChunk objects (what client.chat.completions.create(stream=True)
yields).
"""

from __future__ import annotations

import json

import pytest
from openai.types.chat import ChatCompletionChunk

from reactlab.streaming import ToolCallAccumulator


def chunk(delta: dict | None = None, finish: str | None = None, *, choices: bool = True,
          usage: dict | None = None, cid: str = "chatcmpl-1") -> dict:
    """A chat.completion.chunk as a provider sends it."""
    return {"id": cid, "object": "chat.completion.chunk", "created": 1785218854, "model": "m",
            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish,
                         "logprobs": None}] if choices else [],
            "usage": usage}


def tc(index=None, id=None, name=None, arguments=None, type=None) -> dict:
    frag: dict = {}
    if index is not None:
        frag["index"] = index
    if id is not None:
        frag["id"] = id
    if type is not None:
        frag["type"] = type
    fn = {k: v for k, v in (("name", name), ("arguments", arguments)) if v is not None}
    if fn:
        frag["function"] = fn
    return frag


# The exact chunk from seed 003 (DashScope, qwen-plus): a later fragment carries "id": "".
SEED_003_CHUNK = json.loads("""
{
    "id": "chatcmpl-7ed551c3-8360-9710-b4c6-5191d3c4db2a",
    "object": "chat.completion.chunk",
    "created": 1785218854,
    "model": "qwen-plus",
    "choices": [
        {
            "delta": {
                "tool_calls": [
                    {
                        "function": {
                            "arguments": " \\"北京\\"}"
                        },
                        "index": 0,
                        "id": "",
                        "type": "function"
                    }
                ],
                "content": null
            },
            "index": 0,
            "finish_reason": null,
            "logprobs": null
        }
    ],
    "usage": null
}
""")
SEED_003_FINISH = json.loads("""
{
    "id": "chatcmpl-7ed551c3-8360-9710-b4c6-5191d3c4db2a",
    "object": "chat.completion.chunk",
    "created": 1785218854,
    "model": "qwen-plus",
    "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls", "logprobs": null}],
    "usage": null
}
""")

USAGE = {"prompt_tokens": 120, "completion_tokens": 18, "total_tokens": 138}


def _feed(chunks: list[dict], as_sdk: bool) -> ToolCallAccumulator:
    acc = ToolCallAccumulator()
    for c in chunks:
        acc.add(ChatCompletionChunk.model_validate(c) if as_sdk else c)
    return acc


def _calls(acc: ToolCallAccumulator) -> list[tuple[str, str, dict]]:
    return [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in acc.tool_calls]


both = pytest.mark.parametrize("as_sdk", [False, True], ids=["dict", "sdk"])


@both
def test_openai_style(as_sdk):
    acc = _feed([
        chunk({"role": "assistant", "content": None, "tool_calls": [
            tc(0, "call_abc", "get_weather", "", "function")]}),
        chunk({"tool_calls": [tc(0, arguments='{"loc')]}),
        chunk({"tool_calls": [tc(0, arguments='ation": "北京"}')]}),
        chunk(finish="tool_calls"),
        chunk(choices=False, usage=USAGE),
    ], as_sdk)
    assert _calls(acc) == [("call_abc", "get_weather", {"location": "北京"})]
    assert acc.finish_reason == "tool_calls"
    assert acc.usage["total_tokens"] == 138
    assert acc.content == ""
    assert acc.message() == {"role": "assistant", "content": None, "tool_calls": acc.tool_calls}


@both
def test_dashscope_empty_ids_seed_003(as_sdk):
    first = chunk({"content": None, "tool_calls": [
        tc(0, "call_7e1d", "get_current_weather", '{"location":', "function")]})
    acc = _feed([first, SEED_003_CHUNK, SEED_003_FINISH], as_sdk)
    # "id": "" did not start a second call, and did not wipe the real id
    assert _calls(acc) == [("call_7e1d", "get_current_weather", {"location": "北京"})]
    assert acc.finish_reason == "tool_calls"


@both
def test_dashscope_every_id_empty_gets_generated_id(as_sdk):
    first = chunk({"tool_calls": [tc(0, "", "get_current_weather", '{"location":', "function")]})
    acc = _feed([first, SEED_003_CHUNK, SEED_003_FINISH], as_sdk)
    assert _calls(acc) == [("call_0", "get_current_weather", {"location": "北京"})]


@both
def test_repeated_ids_and_names_are_taken_once(as_sdk):
    acc = _feed([
        chunk({"tool_calls": [tc(0, "call_1", "get_weather", '{"location"', "function")]}),
        chunk({"tool_calls": [tc(0, "call_1", "get_weather", ': "广州"', "function")]}),
        chunk({"tool_calls": [tc(0, "call_1", "get_weather", "}", "function")]}),
        chunk(finish="tool_calls"),
    ], as_sdk)
    assert _calls(acc) == [("call_1", "get_weather", {"location": "广州"})]


@both
def test_whole_call_in_one_chunk(as_sdk):
    acc = _feed([chunk({"role": "assistant", "tool_calls": [
        tc(0, "call_x", "get_today", "{}", "function")]}, finish="tool_calls")], as_sdk)
    assert _calls(acc) == [("call_x", "get_today", {})]
    assert acc.finish_reason == "tool_calls"


@both
def test_parallel_calls_interleaved_by_index(as_sdk):
    acc = _feed([
        chunk({"tool_calls": [tc(0, "call_a", "get_weather", "", "function")]}),
        chunk({"tool_calls": [tc(1, "call_b", "get_weather", "", "function")]}),
        chunk({"tool_calls": [tc(1, arguments='{"location": "广州"}')]}),
        chunk({"tool_calls": [tc(0, arguments='{"location": "北京"}')]}),
        chunk(finish="tool_calls"),
    ], as_sdk)
    assert _calls(acc) == [("call_a", "get_weather", {"location": "北京"}),
                           ("call_b", "get_weather", {"location": "广州"})]


@both
def test_parallel_calls_arriving_out_of_index_order_are_sorted(as_sdk):
    acc = _feed([
        chunk({"tool_calls": [tc(1, "call_b", "get_closing_price", '{"name": "贵州茅台"}')]}),
        chunk({"tool_calls": [tc(0, "call_a", "get_closing_price", '{"name": "青岛啤酒"}')]}),
    ], as_sdk)
    assert [c[0] for c in _calls(acc)] == ["call_a", "call_b"]


@both
def test_new_id_at_same_index_starts_a_new_call(as_sdk):
    acc = _feed([
        chunk({"tool_calls": [tc(0, "call_a", "get_weather", '{"location": "北京"}')]}),
        chunk({"tool_calls": [tc(0, "call_b", "get_weather", '{"location": ')]}),
        chunk({"tool_calls": [tc(0, "", None, '"广州"}')]}),
    ], as_sdk)
    assert _calls(acc) == [("call_a", "get_weather", {"location": "北京"}),
                           ("call_b", "get_weather", {"location": "广州"})]


def test_no_index_falls_back_to_id():
    # Not representable as SDK chunks (index is required there): dicts only.
    acc = _feed([
        chunk({"tool_calls": [tc(None, "call_a", "get_weather", '{"location": ')]}),
        chunk({"tool_calls": [tc(None, "call_b", "get_weather", '{"location": "广州"}')]}),
        chunk({"tool_calls": [tc(None, "call_a", None, '"北')]}),
        # neither index nor id: continues the most recent call (call_a here)
        chunk({"tool_calls": [tc(None, None, None, '京"}')]}),
    ], as_sdk=False)
    assert _calls(acc) == [("call_a", "get_weather", {"location": "北京"}),
                           ("call_b", "get_weather", {"location": "广州"})]


@both
def test_content_reasoning_and_usage_in_the_same_chunk(as_sdk):
    acc = _feed([
        chunk({"role": "assistant", "reasoning_content": "用户问天气，"}),
        chunk({"reasoning_content": "先查北京。"}),
        chunk({"content": "北京今天"}),
        chunk({"content": "晴。"}, finish="stop", usage=USAGE),
    ], as_sdk)
    assert acc.content == "北京今天晴。"
    assert acc.reasoning_content == "用户问天气，先查北京。"
    assert acc.tool_calls == []
    assert acc.finish_reason == "stop"
    assert acc.usage["prompt_tokens"] == 120
    assert acc.message() == {"role": "assistant", "content": "北京今天晴。",
                             "reasoning_content": "用户问天气，先查北京。"}


def test_add_returns_new_text_and_rejects_junk():
    acc = ToolCallAccumulator()
    assert acc.add(chunk({"content": "你"})) == "你"
    assert acc.add(chunk(choices=False, usage=USAGE)) == ""
    assert acc.chunks == 2
    with pytest.raises(TypeError, match="dict or an SDK chunk"):
        acc.add("data: {}")


def test_generated_ids_never_collide_with_real_ones():
    acc = _feed([
        chunk({"tool_calls": [tc(0, "", "get_today", "{}")]}),
        chunk({"tool_calls": [tc(1, "call_0", "get_today", "{}")]}),
    ], as_sdk=False)
    ids = [c["id"] for c in acc.tool_calls]
    assert len(set(ids)) == 2 and "call_0" in ids
