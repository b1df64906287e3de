"""A reply that writes its calls round and round is stopped at the second repeat
(`reactlab.server.repeat_stop`), through the real `openai` SDK on the replay engine."""

from __future__ import annotations

import json

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.server.repeat_stop import REPEATS, RepeatStop
from reactlab.server.replay import ReplayEngine, pieces, serve_replay
from reactlab.server.toolcalls import parse_tool_calls

MODEL = "qwen2.5-coder-1.5b-instruct"
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather of one city.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"]}}}
ASK = [{"role": "user", "content": "北京和上海现在哪个更冷？"}]


def call(city: str) -> str:
    return json.dumps({"name": "get_weather", "arguments": {"location": city}},
                      ensure_ascii=False) + "\n"


# what the 1.5B did in notebook 07: its two calls, then the same two again until max_tokens
LOOPING = call("北京") + call("上海") + (call("北京") + call("上海")) * 20
ONCE_AGAIN = call("北京") + call("北京") + call("广州")  # one repeat, then a new call


@pytest.fixture(scope="module")
def served():
    engine = ReplayEngine([])
    with serve_replay(engine, more_calls=False) as url:
        yield engine, url, openai.OpenAI(base_url=url, api_key="unused", max_retries=0,
                                         timeout=20)


def cities(message) -> list[str]:
    return [json.loads(c.function.arguments)["location"] for c in message.tool_calls or []]


def test_a_looping_reply_stops_at_the_second_repeat_with_its_calls_whole(served):
    engine, _, client = served
    engine.reset([LOOPING])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=[WEATHER],
                                       max_tokens=2000, extra_body={"reactlab_debug": True})
    assert cities(r.choices[0].message) == ["北京", "上海"]
    assert r.choices[0].finish_reason == "tool_calls"  # it ended; nothing is missing
    debug = r.model_extra["reactlab"]
    assert debug["repeat_stop"] is True and debug["engine_finish_reason"] == "stop"
    # generation stopped where the second repeat closed: the text holds 4 calls, not 42
    assert debug["raw_text"].count('"get_weather"') == 2 + REPEATS
    assert r.usage.completion_tokens == len(pieces(debug["raw_text"])) < len(pieces(LOOPING))


def test_the_streamed_reply_stops_the_same_way(served):
    engine, _, client = served
    engine.reset([LOOPING])
    chunks = list(client.chat.completions.create(model=MODEL, messages=ASK, tools=[WEATHER],
                                                 max_tokens=2000, stream=True))
    calls = {}
    for c in chunks:
        for tc in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            calls[tc.index] = calls.get(tc.index, "") + (tc.function.arguments or "")
    assert [json.loads(a)["location"] for a in calls.values()] == ["北京", "上海"]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"


def test_one_repeat_is_let_through_so_a_later_new_call_still_counts(served):
    engine, _, client = served
    engine.reset([ONCE_AGAIN])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=[WEATHER],
                                       extra_body={"reactlab_debug": True})
    assert cities(r.choices[0].message) == ["北京", "广州"]
    assert r.model_extra["reactlab"]["repeat_stop"] is False


def test_without_tools_repeated_json_is_just_text_and_runs_to_the_end(served):
    engine, _, client = served
    engine.reset([LOOPING])
    r = client.chat.completions.create(model=MODEL, messages=ASK, max_tokens=2000,
                                       extra_body={"reactlab_debug": True})
    assert r.choices[0].message.content.strip() == LOOPING.strip()
    assert r.model_extra["reactlab"]["repeat_stop"] is False


def test_with_the_help_off_as_the_agents_ask_the_loop_is_still_cut(served):
    engine, _, client = served
    engine.reset([LOOPING])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=[WEATHER],
                                       max_tokens=2000, extra_body={"reactlab_debug": True,
                                                                    "reactlab_help": False})
    assert cities(r.choices[0].message) == ["北京", "上海"]
    assert r.choices[0].finish_reason == "tool_calls"
    assert r.model_extra["reactlab"]["repeat_stop"] is True
    assert r.model_extra["reactlab"]["help"]["on"] is False


def test_a_forced_call_is_not_watched(served):
    """A reply constrained by a JSON schema (tool_choice required) is the engine's business."""
    engine, _, client = served
    engine.reset([LOOPING])
    r = client.chat.completions.create(model=MODEL, messages=ASK, tools=[WEATHER],
                                       tool_choice="required", max_tokens=2000,
                                       extra_body={"reactlab_debug": True})
    assert r.model_extra["reactlab"]["repeat_stop"] is False


def test_a_client_going_away_still_cancels_and_is_not_taken_for_a_repeat():
    watch = RepeatStop({"get_weather"})
    watched = watch.wrap(lambda piece: True)
    assert watched(call("北京")) is True and watch.stopped is False


def test_without_a_client_callback_it_only_watches():
    watch = RepeatStop({"get_weather"})
    watched = watch.wrap(None)
    assert [watched(p) for p in (call("北京"), call("北京"), call("北京"))] == [False, False, True]


def test_calls_with_different_arguments_never_stop_it():
    watch = RepeatStop({"get_weather"})
    assert not any(watch.feed(call(city)) for city in ("北京", "上海", "广州", "深圳", "成都"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([call("北京"), call("上海"), "<tool_call>", "</tool_call>",
                                 "```json\n", "```\n", "[", "]", ",", "好的。", "}", "{"]),
                max_size=24),
       st.integers(min_value=1, max_value=7))
def test_it_stops_only_on_a_text_that_repeats_calls(parts, size):
    """Any text, cut into pieces of any size: never raises; stops only when the text so far
    holds REPEATS repeated calls; what it saw is exactly what it was fed."""
    text = "".join(parts)
    cut = [text[i:i + size] for i in range(0, len(text), size)]
    watch, fed = RepeatStop({"get_weather"}), []
    for piece in cut:
        fed.append(piece)
        if watch.feed(piece):
            break
    assert watch.text == "".join(fed)
    if watch.stopped:
        assert parse_tool_calls(watch.text, {"get_weather"}).duplicates_dropped >= REPEATS
