"""A call with a made-up number or name (`reactlab.server.invented`), and the server's help acting
on it.

The pure pieces first, then requests through the real `openai` SDK to a replay server whose
script is what the model "wrote" for each attempt.
"""

from __future__ import annotations

import json

import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactlab.server import invented
from reactlab.server.replay import ReplayEngine, serve_replay

TOSS = {"type": "function", "function": {
    "name": "probability_coin_toss_heads", "description": "Probability of heads in coin tosses.",
    "parameters": {"type": "object", "properties": {
        "coin_tosses": {"type": "integer"}, "heads_needed": {"type": "integer"},
        "coin_type": {"type": "string"}, "precision": {"type": "integer"}},
        "required": ["coin_tosses", "heads_needed"]}}}
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather of a city.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"]}}}
TOOLS = [TOSS, WEATHER]
FACE = [{"role": "user", "content": "What is the probability of getting a face card in a standard deck?"}]


def call(name, args):
    return f'<tool_call>\n{{"name": "{name}", "arguments": {json.dumps(args)}}}\n</tool_call>'


MADE_UP = call("probability_coin_toss_heads", {"coin_tosses": 52, "heads_needed": 1})


# --- the pure pieces --------------------------------------------------------------------------

def test_written_numbers_reads_digits_words_percent_and_chinese():
    got = invented.written_numbers([
        {"role": "system", "content": "Round to 2 places."},
        {"role": "user", "content": [{"type": "text", "text": "two tickets at 1,500 yuan, 5% off"}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"n": 7}'}}]},
        {"role": "tool", "tool_call_id": "c", "content": "今天 -3.5 °C，两个人"},
    ])
    assert {2.0, 1500.0, 5.0, 0.05, 7.0, 3.5}.issubset(got)
    assert 52.0 not in got


def test_magnitudes_and_periods_write_their_values_too():
    # BFCL's own answers: "$1.2M" is year2_revenue=1200000, "the next week" is timeframe=7,
    # "over the past decade" is duration=10
    got = invented.written_numbers([{"role": "user", "content":
                                     "revenues of $1M in 2019 and $1.2M in 2020, 5k users, "
                                     "next week, over the past decade"}])
    assert {1e6, 1.2e6, 5000.0, 7.0, 10.0, 2019.0}.issubset(got)
    assert 12.0 not in got and 365.0 not in got  # no "year" written


def test_written_numbers_has_a_bound():
    text = "x " * invented.MAX_TEXT + " 424242"
    assert 424242.0 not in invented.written_numbers([{"role": "user", "content": text}])
    assert invented.written_numbers([{"role": "user", "content": "see 424242"}]) == {424242.0}


def test_made_up_names_only_required_numbers_missing_from_the_text():
    written = invented.written_numbers(FACE)
    required = invented.required_of(TOOLS, "probability_coin_toss_heads")
    assert required == ["coin_tosses", "heads_needed"]
    assert invented.made_up('{"coin_tosses": 52, "heads_needed": 1, "precision": 9}',
                            required, written) == [("coin_tosses", 52), ("heads_needed", 1)]
    # an optional argument, a string and a boolean are never judged
    assert invented.made_up('{"coin_tosses": 52}', [], written) == []
    assert invented.made_up('{"x": "52", "y": true}', ["x", "y"], written) == []
    # written in the question: not made up, by value ("2.50" grounds 2.5, "-3" grounds 3)
    assert invented.made_up('{"a": 2.5, "b": -3, "c": [0.5]}', ["a", "b", "c"],
                            invented.written_numbers([{"role": "user", "content": "2.50, 3 and half"}])) == []


def test_made_up_leaves_unparsable_arguments_to_the_parser():
    assert invented.made_up("{broken", ["x"], set()) == []
    assert invented.made_up("[1, 2]", ["x"], set()) == []
    assert invented.made_up("", ["x"], set()) == []


def test_required_of_an_unknown_or_odd_tool_is_empty():
    assert invented.required_of(TOOLS, "nope") == []
    assert invented.required_of([{"type": "function", "function": {"name": "f"}}], "f") == []
    odd = {"type": "function", "function": {"name": "f", "parameters": {"required": ["a", 3]}}}
    assert invented.required_of([odd], "f") == ["a"]  # no schema for "a": it may hold a number


def test_required_of_leaves_string_arguments_to_made_up_names():
    assert invented.required_of(TOOLS, "get_weather") == []
    both = {"type": "function", "function": {"name": "f", "parameters": {
        "properties": {"a": {"type": ["string", "null"]}, "b": {"type": ["string", "number"]},
                       "c": {"type": "array"}, "d": {"type": "boolean"}},
        "required": ["a", "b", "c", "d"]}}}
    assert invented.required_of([both], "f") == ["b", "c"]


def test_no_course_tool_takes_a_number_so_the_rule_never_touches_their_calls():
    from reactlab.tools import default_registry

    tools = default_registry().openai_tools()
    assert tools and all(invented.required_of(tools, t["function"]["name"]) == [] for t in tools)


def test_note_names_the_call_and_the_value():
    text = invented.note([("f", '{"x": 52}', [("x", 52)])])["content"]
    assert 'f({"x": 52})' in text and "x = 52" in text and "without calling a tool" in text


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda kids: st.lists(kids, max_size=3)
                    | st.dictionaries(st.text(max_size=3), kids, max_size=3), max_leaves=12),
       st.text(max_size=60))
def test_made_up_never_raises_and_returns_only_unwritten_numbers(value, question):
    written = invented.written_numbers([{"role": "user", "content": question}])
    try:
        text = json.dumps({"v": value})
    except ValueError:  # NaN / infinity: not JSON the server would parse either
        return
    for arg, n in invented.made_up(text, ["v"], written):
        assert arg == "v" and isinstance(n, (int, float)) and not isinstance(n, bool)


# --- made-up names: the same rule for required strings ----------------------------------------

GROCERY = {"type": "function", "function": {
    "name": "grocery_store_item_details", "description": "Details of a grocery item.",
    "parameters": {"type": "object", "properties": {
        "item_name": {"type": "string"}, "store_location": {"type": "string"},
        "details_level": {"type": "string", "enum": ["simple", "detailed"]},
        "tags": {"type": "array", "items": {"type": "string"}}, "n": {"type": "integer"}},
        "required": ["item_name", "store_location", "details_level", "tags", "n"]}}}
TOMATO = "How many calories are in a tomato?"


def names(arguments, question, tools=(GROCERY,), name="grocery_store_item_details"):
    messages = [{"role": "user", "content": question}]
    return invented.made_up_names(arguments, invented.text_required_of(list(tools), name),
                                  invented.written_text(messages),
                                  invented.written_numbers(messages))


def test_text_required_of_takes_strings_and_lists_of_strings_with_their_enums():
    assert invented.text_required_of([GROCERY], "grocery_store_item_details") == {
        "item_name": frozenset(), "store_location": frozenset(),
        "details_level": frozenset({"simple", "detailed"}), "tags": frozenset()}
    assert invented.text_required_of([GROCERY], "nope") == {}
    odd = {"type": "function", "function": {"name": "f", "parameters": {
        "properties": {"a": "x", "b": {"type": ["string", "null"]}}, "required": ["a", "b", 3]}}}
    assert invented.text_required_of([odd, "junk"], "f") == {"b": frozenset()}


def test_a_required_name_nobody_wrote_is_made_up():
    # BFCL irrelevance_222: the tomato is in the question, the store's city is not
    assert names('{"item_name": "tomato", "store_location": "New York", "details_level": '
                 '"simple"}', TOMATO) == [("store_location", "New York")]
    assert names('{"item_name": "tomatoes", "store_location": "the local store"}',
                 TOMATO + " At the local store.") == []  # a word of it starts a written word
    assert names('{"item_name": "tomato", "store_location": "x", "tags": ["red", "fruit"]}',
                 TOMATO) == [("store_location", "x"), ("tags", "red"), ("tags", "fruit")]


def test_words_like_the_and_of_write_no_name():
    # BFCL irrelevance_151 and _177: only "The" of these names was in the question
    assert names('{"item_name": "The Old Man with the Garden"}',
                 "Find the year of a Picasso's painting.") == [
        ("item_name", "The Old Man with the Garden")]
    assert names('{"item_name": "The Weeknd"}', "Who won the Grammy Award for Best Album?") == [
        ("item_name", "The Weeknd")]
    assert names('{"item_name": "The Old Man"}', "Is the old man here?") == []
    assert names('{"item_name": "The Who"}', TOMATO) == []  # nothing left to judge


def test_a_description_is_made_up_when_most_of_its_words_are_new():
    # BFCL irrelevance_197: a game state for "Who won the game of Monopoly last night?"
    state = ("The game is currently in progress, and the player is on the Go square. The "
             "player has 100 dollars and 3 pieces of property on the board.")
    question = "Who won the game of Monopoly last night?"
    assert names(json.dumps({"item_name": state}), question) == [("item_name", state)]
    told = question + " The player is on Go with 100 dollars and 3 properties on the board."
    assert names(json.dumps({"item_name": state}), told) == []  # its words are the user's
    # shorter text with digits or symbols is an expression or a code: not judged
    assert names('{"item_name": "x**2 + 3*x - 7, from 0 to 5"}', TOMATO) == []


def test_a_date_counts_as_written_when_its_year_is():
    # irrelevance_102: "2023-04-15" for "What is the time now in New York City?"
    assert names('{"item_name": "2023-04-15"}', "What is the time now?") == [
        ("item_name", "2023-04-15")]
    assert names('{"item_name": "2026-12-31"}', "today is 2026-03-01; days to the year's end?") == []


def test_enums_translations_expressions_and_cjk_conversations_are_not_judged():
    assert names('{"details_level": "detailed"}', TOMATO) == []  # an enum's value
    assert names('{"item_name": "北京"}', "What's the weather in Beijing?") == []
    assert names('{"item_name": "5 * 365", "store_location": "x+y"}', TOMATO) == []
    assert names('{"item_name": "Beijing"}', "北京今天天气怎么样？") == []
    assert names("{broken", TOMATO) == [] and names("[1]", TOMATO) == []


def test_the_course_tools_take_the_names_their_questions_write():
    from reactlab.tools import default_registry

    tools = default_registry().openai_tools()
    assert names('{"location": "北京"}', "What's the weather in Beijing?", tools, "get_weather") == []
    assert names('{"location": "Beijing"}', "What's the weather in Beijing?", tools,
                 "get_weather") == []


@given(st.dictionaries(st.sampled_from(["item_name", "store_location", "tags", "x"]),
                       st.text(max_size=12) | st.lists(st.text(max_size=6), max_size=3),
                       max_size=4), st.text(max_size=60))
def test_made_up_names_never_raises_and_names_only_required_strings(args, question):
    for arg, value in names(json.dumps(args), question):
        assert arg in ("item_name", "store_location", "tags") and isinstance(value, str)


# --- the rule, through the server -------------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    engine = ReplayEngine([])
    with serve_replay(engine, more_calls=False) as url:
        yield engine, url


def ask(server, texts, messages=FACE, help=True, stream=False, **kw):
    engine, url = server
    engine.reset(texts)
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=20)
    extra = {"reactlab_debug": True, **({} if help else {"reactlab_help": False})}
    kw = {"tools": TOOLS, "tool_choice": "auto", **kw}
    resp = client.chat.completions.create(model=engine.model, messages=messages, temperature=0,
                                          extra_body=extra, stream=stream, **kw)
    if not stream:
        return resp.choices[0].message.content, resp.choices[0].message.tool_calls, \
            resp.model_extra["reactlab"], engine
    content, calls, debug = "", [], None
    for chunk in resp:
        debug = (chunk.model_extra or {}).get("reactlab") or debug
        for choice in chunk.choices:
            content += choice.delta.content or ""
            calls += choice.delta.tool_calls or []
    return content, calls, debug, engine


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_call_with_a_made_up_number_is_asked_again_without_tools(server, stream):
    answer = "A standard deck has 12 face cards out of 52: 12/52 ≈ 0.23."
    content, calls, debug, engine = ask(server, [MADE_UP, answer], stream=stream)
    assert content == answer and not calls
    assert len(engine.calls) == 2
    assert "<tools>" in engine.calls[0]["prompt"] and "<tools>" not in engine.calls[1]["prompt"]
    assert "coin_tosses = 52" in engine.calls[1]["prompt"]  # the note
    (step,) = debug["help"]["interventions"]
    assert step["rule"] == "made_up_value" and step["model_wrote"] == MADE_UP
    assert "coin_tosses = 52" in step["why"] and "heads_needed = 1" in step["why"]
    assert debug["finish_reason"] == "stop"


def test_a_written_number_passes(server):
    messages = [{"role": "user", "content": "Probability of 1 head in 52 tosses?"}]
    _content, calls, debug, engine = ask(server, [MADE_UP], messages=messages)
    assert [c.function.name for c in calls] == ["probability_coin_toss_heads"]
    assert len(engine.calls) == 1 and debug["help"]["interventions"] == []


def test_a_number_from_a_tool_result_passes(server):
    messages = [{"role": "user", "content": "Toss a coin as many times as the count says."},
                {"role": "assistant", "content": None, "tool_calls": [{
                    "id": "c1", "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"location": "x"}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "count: 52, needed: 1"}]
    _content, calls, _debug, engine = ask(server, [MADE_UP], messages=messages)
    assert len(calls) == 1 and len(engine.calls) == 1


def test_only_the_made_up_call_of_several_is_dropped(server):
    city = call("get_weather", {"location": "Boston"})
    both = [{"role": "user", "content": FACE[0]["content"] + " And the weather in Boston?"}]
    _content, calls, debug, engine = ask(server, [city + "\n" + MADE_UP], messages=both)
    assert [c.function.name for c in calls] == ["get_weather"]
    assert len(engine.calls) == 1
    assert [c["name"] for c in debug["help"]["made_up_calls_dropped"]] == [
        "probability_coin_toss_heads"]


def test_no_help_when_off_or_when_the_client_forces_a_call(server):
    _, calls, _debug, engine = ask(server, [MADE_UP], help=False)
    assert len(calls) == 1 and len(engine.calls) == 1
    forced = {"type": "function", "function": {"name": "probability_coin_toss_heads"}}
    bare = '{"name": "probability_coin_toss_heads", "arguments": {"coin_tosses": 52, "heads_needed": 1}}'
    _, calls, _debug, engine = ask(server, [bare], tool_choice=forced)
    assert len(calls) == 1 and len(engine.calls) == 1


def test_a_call_with_a_made_up_name_is_asked_again_without_tools(server):
    made_up = call("grocery_store_item_details", {"item_name": "tomato", "store_location": "New York"})
    answer = "A medium tomato has about 22 calories."
    content, calls, debug, engine = ask(server, [made_up, answer], tools=[GROCERY],
                                        messages=[{"role": "user", "content": TOMATO}])
    assert content == answer and not calls and len(engine.calls) == 2
    assert "store_location = New York" in engine.calls[1]["prompt"]  # the note
    (step,) = debug["help"]["interventions"]
    assert step["rule"] == "made_up_value" and "store_location = New York" in step["why"]
