"""ToolCallAccumulator on recorded chunk sequences in each provider's style.

Every sequence runs twice: as dicts (what reactlab.http.stream_chat yields) and as the
openai SDK's ChatCompletionChunk objects (what client.chat.completions.create(stream=True)
yields).
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
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


# A chunk as DashScope (qwen-plus) sends it, verbatim: a later fragment carries "id": "".
DASHSCOPE_CHUNK = json.loads("""
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
DASHSCOPE_FINISH = json.loads("""
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
def test_dashscope_empty_ids(as_sdk):
    first = chunk({"content": None, "tool_calls": [
        tc(0, "call_7e1d", "get_current_weather", '{"location":', "function")]})
    acc = _feed([first, DASHSCOPE_CHUNK, DASHSCOPE_FINISH], as_sdk)
    # "id": "" did not start a second call, and did not wipe the real id
    assert _calls(acc) == [("call_7e1d", "get_current_weather", {"location": "北京"})]
    assert acc.finish_reason == "tool_calls"


@both
def test_dashscope_every_id_empty_gets_generated_id(as_sdk):
    first = chunk({"tool_calls": [tc(0, "", "get_current_weather", '{"location":', "function")]})
    acc = _feed([first, DASHSCOPE_CHUNK, DASHSCOPE_FINISH], as_sdk)
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


# --- text split inside characters, garbage fields, cut streams -------------------------------

@both
def test_a_surrogate_pair_split_across_chunks_is_joined(as_sdk):
    # A server that escapes non-ASCII (\ud83d\ude00) may cut between the two halves.
    acc = _feed([
        chunk({"content": "晴 \ud83d"}),
        chunk({"content": "\ude00!", "tool_calls": [tc(0, "call_1", "f", '{"s": "\ud83c')]}),
        chunk({"tool_calls": [tc(0, "", None, '\udf1e"}')]}, finish="tool_calls"),
    ], as_sdk)
    assert acc.content == "晴 😀!"
    assert json.loads(acc.tool_calls[0]["function"]["arguments"]) == {"s": "🌞"}
    json.dumps(acc.message(), ensure_ascii=False).encode("utf-8")  # the echo can be sent


def test_add_returns_only_complete_text():
    acc = ToolCallAccumulator()
    assert acc.add(chunk({"content": "a\ud83d"})) == "a"  # the half waits for its partner
    assert acc.content == "a\ufffd"  # read now, the unfinished half shows as U+FFFD
    assert acc.add(chunk({"content": "\ude00"})) == "😀"
    assert acc.content == "a😀"


def test_lone_surrogates_become_replacement_characters():
    acc = _feed([chunk({"content": "\ude00x\ud83dy"}), chunk({"reasoning_content": "\ud83d"}),
                 chunk({"tool_calls": [tc(0, "c", "f", "\udfff")]})], as_sdk=False)
    assert acc.content == "\ufffdx\ufffdy"
    assert acc.reasoning_content == "\ufffd"
    assert acc.tool_calls[0]["function"]["arguments"] == "\ufffd"
    json.dumps(acc.message(), ensure_ascii=False).encode("utf-8")


def test_garbage_fields_never_raise_and_are_documented():
    acc = _feed([
        {"choices": "not a list", "usage": "nope", "model": 5},
        {"choices": [None, 3, "x", {"index": 0, "delta": "not a dict"}]},
        {"choices": [{"index": "0", "delta": {"content": ["a", {"type": "text", "text": "b"},
                                                          {"type": "image_url"}, 7]}}]},
        {"choices": [{"delta": {"content": 42, "reasoning_content": {"x": 1},
                                "tool_calls": "not a list"}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [
            None, "junk", {"index": "zero", "id": 7, "type": 1, "function": "not a dict"},
            {"id": 7, "function": {"name": ["f"], "arguments": {"a": 1}}},
            {"index": True, "id": ["x"], "function": {"name": "g", "arguments": 12}},
        ]}, "finish_reason": 3}]},
        {"choices": [{"index": 1, "delta": {"content": "other choice"}}]},
    ], as_sdk=False)
    assert acc.content == "b"  # text parts of a list; numbers and other choices ignored
    assert acc.reasoning_content == "" and acc.usage is None and acc.model is None
    # id 7 (an int) names the call; the fragment with neither a usable index nor id continues
    # it; arguments that are not a string are JSON-encoded.
    assert acc.tool_calls == [
        {"id": "7", "type": "function", "function": {"name": "g", "arguments": '{"a": 1}12'}}]
    assert acc.finish_reason is None and not acc.finished  # 3 is not a finish reason


def test_finished_tells_a_complete_stream_from_a_cut_one():
    acc = ToolCallAccumulator()
    acc.add(chunk({"content": "北京"}))
    assert not acc.finished
    acc.add(chunk(finish="stop"))
    assert acc.finished and acc.finish_reason == "stop"


# --- Hypothesis: any split of a stream gives the same result --------------------------------

def _utf16_pieces(text: str, cuts: list[int]) -> list[str]:
    """Cut `text` at UTF-16 code-unit positions: halves of a pair become lone surrogates."""
    units = text.encode("utf-16-le", "surrogatepass")
    n = len(units) // 2
    points = sorted({0, n, *(c % (n + 1) for c in cuts)})
    return [units[2 * a:2 * b].decode("utf-16-le", "surrogatepass")
            for a, b in itertools.pairwise(points)]


texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=20)  # astral, Chinese, ASCII
cut_lists = st.lists(st.integers(0, 60), max_size=6)


@st.composite
def split_streams(draw):
    """(the unsplit chunks, the same reply cut into many chunks at random places)."""
    content, reasoning = draw(texts), draw(texts)
    calls = draw(st.lists(st.tuples(st.from_regex(r"[a-z_]{1,10}", fullmatch=True), texts),
                          max_size=3))
    whole = [chunk({"role": "assistant", "content": content, "reasoning_content": reasoning})]
    whole += [chunk({"tool_calls": [tc(i, f"call_{i}", name, args, "function")]})
              for i, (name, args) in enumerate(calls)]
    whole.append(chunk(finish="tool_calls" if calls else "stop"))
    split = [chunk({"role": "assistant"})]
    split += [chunk({"reasoning_content": p}) for p in _utf16_pieces(reasoning, draw(cut_lists))]
    split += [chunk({"content": p}) for p in _utf16_pieces(content, draw(cut_lists))]
    dashscope = draw(st.booleans())  # later fragments carry "id": "" or no id at all
    for i, (name, args) in enumerate(calls):
        pieces = _utf16_pieces(args, draw(cut_lists)) or [""]
        split.append(chunk({"tool_calls": [tc(i, f"call_{i}", name, pieces[0], "function")]}))
        split += [chunk({"tool_calls": [tc(i, "" if dashscope else None, None, p)]})
                  for p in pieces[1:]]
    split.append(chunk(finish="tool_calls" if calls else "stop"))
    return whole, split


@settings(max_examples=200, deadline=None)
@given(split_streams(), st.booleans())
def test_any_split_of_a_stream_gives_the_same_message(streams, as_sdk):
    whole, split = streams
    expected, got = _feed(whole, as_sdk=False), _feed(split, as_sdk)
    assert got.message() == expected.message()
    assert (got.content, got.reasoning_content) == (expected.content, expected.reasoning_content)
    assert got.finished and got.finish_reason == expected.finish_reason
    fresh = ToolCallAccumulator()
    printed = "".join(fresh.add(c) for c in split)
    assert printed == expected.content  # add() hands out text that can always be printed
    json.dumps(got.message(), ensure_ascii=False).encode("utf-8")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["index", "id", "type", "function", "name", "arguments", "content",
                         "delta", "choices", "tool_calls", "finish_reason", "usage",
                         "reasoning_content", "model", "text"]), inner, max_size=4),
    max_leaves=15)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["choices", "usage", "model", "id"]),
                                json_values, max_size=3), max_size=5))
def test_garbage_chunks_never_raise(chunks):
    acc = _feed(chunks, as_sdk=False)
    msg = acc.message()
    json.dumps(msg, ensure_ascii=False).encode("utf-8")
    assert all(isinstance(c["function"]["arguments"], str) for c in acc.tool_calls)
