"""reactlab.server.more_calls and its request option: the server opens the next <tool_call> after
the model's calls and keeps a new call only when it is not a repeat and every new value in it is
in the question; on with the server's help unless "reactlab_more_calls" says otherwise, off
without parallel calls.
Through the real `openai` SDK against the replay engine."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.server.more_calls import (
    MAX_QUESTION,
    OPEN,
    PREFILL,
    asked_for,
    date_spellings,
    grounded,
    name_words,
    paired,
    question_numbers,
    question_text,
    standard,
)
from reactlab.server.replay import ReplayEngine, serve_replay
from reactlab.streaming import ToolCallAccumulator

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather of a Chinese city.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"]}}}
TOOLS = [WEATHER]
MODEL = "qwen2.5-coder-1.5b-instruct"
TWO = [{"role": "user", "content": "北京和广州今天天气怎么样？"}]
ONE = [{"role": "user", "content": "北京今天天气怎么样？"}]
BJ = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}}\n</tool_call>'
# what the model writes in an opened call, after the server's PREFILL ('{"name": "')
GZ = 'get_weather", "arguments": {"location": "广州"}}\n'
SH = 'get_weather", "arguments": {"location": "上海"}}\n'
BJ_AGAIN = 'get_weather", "arguments": {"location": "北京"}}\n'


@pytest.fixture(scope="module")
def shared():
    engine = ReplayEngine([])
    with serve_replay(engine) as url:
        yield engine, url, openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=20)


def ask(shared, script, messages, stream=False, **extra):
    engine, _, client = shared
    engine.reset(script)
    kw = {"model": MODEL, "messages": messages, "tools": TOOLS, "temperature": 0,
          "extra_body": {"reactlab_more_calls": True, "reactlab_debug": True}, **extra}
    if not stream:
        message = client.chat.completions.create(**kw).choices[0].message
        calls = [json.loads(c.function.arguments)["location"] for c in message.tool_calls or []]
        return calls, engine
    acc = ToolCallAccumulator()
    for chunk in client.chat.completions.create(stream=True, **kw):
        acc.add(chunk)
    return [json.loads(c["function"]["arguments"])["location"] for c in acc.tool_calls], engine


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_second_city_the_question_names_is_called_too(shared, stream):
    # the model's first reply, then what it writes in each opened <tool_call>: 广州, then 北京 again
    calls, engine = ask(shared, [BJ, GZ, BJ_AGAIN], TWO, stream)
    assert calls == ["北京", "广州"]
    assert engine.calls[1]["prompt"].endswith(BJ + "\n" + OPEN + PREFILL)
    assert "</tool_call>" in engine.calls[1]["stop"] and len(engine.calls) == 3  # a repeat ends it


def test_a_value_the_question_does_not_name_is_not_kept(shared):
    engine, url, _ = shared
    engine.reset([BJ, SH])
    r = httpx.post(url + "/chat/completions", timeout=20, json={
        "model": MODEL, "messages": ONE, "tools": TOOLS, "reactlab_more_calls": True,
        "reactlab_debug": True}).json()
    calls = r["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"location": "北京"}]
    (seen,) = r["reactlab"]["more_calls"]["opened"]  # the debug view says what was opened
    assert not seen["kept"] and seen["why"].startswith("a value in it is neither")
    assert r["choices"][0]["finish_reason"] == "tool_calls"


def test_on_with_the_help_unless_the_request_says_otherwise(shared):
    """A request that says nothing gets more calls with the help; "reactlab_help": false (what the
    course's agents send) or "reactlab_more_calls": false leaves the model's one call alone."""
    engine, _, client = shared
    engine.reset([BJ, GZ, BJ_AGAIN])
    message = client.chat.completions.create(model=MODEL, messages=TWO, tools=TOOLS).choices[0].message
    assert [json.loads(c.function.arguments)["location"] for c in message.tool_calls] == ["北京", "广州"]
    for off in ({"reactlab_help": False}, {"reactlab_more_calls": False},
                {"reactlab_help": True, "reactlab_more_calls": False}):
        engine.reset([BJ, GZ])
        message = client.chat.completions.create(model=MODEL, messages=TWO, tools=TOOLS,
                                                 extra_body=off).choices[0].message
        assert len(message.tool_calls) == 1 and len(engine.calls) == 1, off  # nothing opened
    engine.reset([BJ, GZ, BJ_AGAIN])  # asked for with the help off: on, as Guards.more_calls asks
    message = client.chat.completions.create(
        model=MODEL, messages=TWO, tools=TOOLS,
        extra_body={"reactlab_help": False, "reactlab_more_calls": True}).choices[0].message
    assert len(message.tool_calls) == 2


def test_off_on_a_server_without_help():
    engine = ReplayEngine([BJ, GZ])
    with serve_replay(engine, help=False) as url:
        client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=20)
        message = client.chat.completions.create(model=MODEL, messages=TWO, tools=TOOLS).choices[0].message
        assert len(message.tool_calls) == 1 and len(engine.calls) == 1
        engine.reset([BJ, GZ, BJ_AGAIN])  # a request may still ask for it
        message = client.chat.completions.create(
            model=MODEL, messages=TWO, tools=TOOLS,
            extra_body={"reactlab_more_calls": True}).choices[0].message
        assert len(message.tool_calls) == 2


def test_off_without_parallel_calls_and_after_an_answer(shared):
    assert ask(shared, [BJ], TWO, parallel_tool_calls=False)[0] == ["北京"]
    calls, engine = ask(shared, ["我只能查天气。"], TWO)
    assert calls == [] and len(engine.calls) == 1


def test_the_cap_on_calls_bounds_the_opened_calls(shared):
    cities = ["上海", "深圳", "杭州", "成都", "南京", "武汉", "西安", "重庆", "天津", "青岛"]
    question = [{"role": "user", "content": "、".join(["北京", *cities]) + "的天气？"}]
    script = [BJ, *(json.dumps({"name": "get_weather", "arguments": {"location": c}},
                               ensure_ascii=False).removeprefix(PREFILL) for c in cities)]
    calls, engine = ask(shared, script, question)
    assert 1 < len(calls) == len(engine.calls) <= 8  # the server's default cap


def test_the_option_must_be_a_boolean(shared):
    _, url, _ = shared
    r = httpx.post(url + "/chat/completions", timeout=20, json={
        "model": MODEL, "messages": ONE, "tools": TOOLS, "reactlab_more_calls": "yes"})
    assert r.status_code == 400 and r.json()["error"]["param"] == "reactlab_more_calls"


def test_grounded_takes_only_new_values_found_in_the_question():
    q = "What's the weather like in Boston and in San Francisco?"
    boston = '{"city": "Boston, MA", "unit": "fahrenheit"}'
    assert grounded('{"city": "San Francisco, CA", "unit": "fahrenheit"}', [boston], q)
    assert not grounded('{"city": "Boston, MA", "unit": "celsius"}', [boston], q)
    assert not grounded(boston, [boston], q)  # nothing new
    assert not grounded("{not json", [boston], q)
    assert question_text([{"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                          {"role": "assistant", "content": "x"}]) == "Hi"


def test_question_text_is_the_text_the_model_reads():
    """Parts are joined as the chat template joins them: "5" + "0" is 50, not "5 0"."""
    from reactlab.server.template import content_text

    parts = [{"type": "text", "text": "Save 5"}, {"type": "text", "text": "0 yuan a day"}]
    assert question_text([{"role": "user", "content": parts}]) == content_text(parts)
    assert 50.0 in question_numbers(question_text([{"role": "user", "content": parts}]))
    assert question_text([{"role": "user", "content": None}]) == ""
    assert question_text([{"role": "user", "content": "x" * 50_000}]) == "x" * MAX_QUESTION


@settings(max_examples=80, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=12),
       st.text(max_size=40))
def test_grounded_never_raises(value, question):
    assert grounded(json.dumps(value), [json.dumps(value)], question) is False  # nothing new
    assert isinstance(grounded(json.dumps(value), [], question), bool)
    assert isinstance(grounded(json.dumps(value), [], question, ["", "a"]), bool)


def test_numbers_are_grounded_by_value_and_percent():
    q = "A 60% chance, 10 shots; then 50% and 15 shots. Roots of 5x^2 - 7x + 3 = 0 and $1,000,000."
    first = '{"num_trials": 10, "prob_success": 0.6}'
    assert grounded('{"num_trials": 15, "prob_success": 0.5}', [first], q)
    assert grounded('{"a": 5, "b": -7, "c": 3}', [], q)  # "- 7" written with a space
    assert grounded('{"amount": 1000000}', [], q)
    assert not grounded('{"num_trials": 20, "prob_success": 0.5}', [first], q)
    assert question_numbers("(45,60) and 1,000") == {45.0, 60.0, 1000.0}
    assert question_numbers("3.5 percent") == {3.5, 0.035}


# the 1.5B in an opened tag writes the rest of its calls at once, fenced (BFCL parallel_84)
REST = ('get_weather", "arguments": {"location": "广州"}}\n```\n```json\n'
        '{"name": "get_weather", "arguments": {"location": "上海"}}\n```')


def test_every_call_in_one_opened_tag_is_kept_in_order_up_to_the_first_not_kept(shared):
    three = [{"role": "user", "content": "北京、广州和上海的天气？"}]
    calls, engine = ask(shared, [BJ, REST, BJ_AGAIN], three)
    assert calls == ["北京", "广州", "上海"] and len(engine.calls) == 3
    calls, engine = ask(shared, [BJ, REST], TWO)  # 上海 is not in the question: not kept
    assert calls == ["北京", "广州"] and len(engine.calls) == 2


def test_a_cut_off_opened_tag_drops_its_last_parsed_call(shared):
    # max_tokens 50: the first reply (37 pieces) is whole, the opened tag (63) is cut inside
    # its second call; the last call parsed from a cut text may be a repaired cut one, so it
    # goes (here 广州, whole: the rule is blind to that) and nothing more is opened
    engine, url, _ = shared
    engine.reset([BJ, REST])
    r = httpx.post(url + "/chat/completions", timeout=20, json={
        "model": MODEL, "messages": [{"role": "user", "content": "北京、广州和上海的天气？"}],
        "tools": TOOLS, "max_tokens": 50, "reactlab_more_calls": True,
        "reactlab_debug": True}).json()
    calls = [json.loads(c["function"]["arguments"]) for c in r["choices"][0]["message"]["tool_calls"]]
    assert calls == [{"location": "北京"}]
    (seen,) = r["reactlab"]["more_calls"]["opened"]
    assert seen["finish_reason"] == "length" and seen["kept"] == 0


def test_a_number_is_not_grounded_by_digits_inside_another():
    # BFCL multiple_41: "current I is 10 Amperes and r is 0.01 meter"; the opened call
    # electric_field_calculate(Q=1, r=0.01) was kept because "1" is in "10"
    q = "Calculate the magnetic field where current I is 10 Amperes and r is 0.01 meter."
    assert not grounded('{"Q": 1, "r": 0.01}', ['{"I": 10, "r": 0.01}'], q)
    assert grounded('{"I": 10}', [], q)


def test_strings_are_compared_as_bfcls_checker_compares_them():
    # BFCL parallel_multiple_74: the opened tag's first call was refused for "total_points"
    q = ("the current statistics for the Los Angeles Lakers, including their total points, "
         "total assists and win rate")
    assert standard("Total_Points, 2021-01-18") == "totalpoints20210118"
    assert grounded('{"team_name": "Los Angeles Lakers", "stats_fields": ["total_points", '
                    '"win_rate"]}', [], q)
    assert not grounded('{"team_name": "Los Angeles Lakers", "stats_fields": ["turnovers"]}', [], q)
    assert not grounded('{"x": "-_."}', [], q)  # nothing left to compare is not written


def test_an_iso_date_is_grounded_by_the_date_however_the_question_writes_it():
    for q in ("the game on January 18, 2021", "the game on Jan 18th 2021", "on 18 January 2021",
              "on 01/18/2021", "on 1/18/2021", "on 2021-01-18"):
        assert grounded('{"date": "2021-01-18"}', [], q), q
        assert not grounded('{"date": "2021-01-19"}', [], q), q
    assert not grounded('{"date": "2023-04-15"}', [], "What is the time now in New York City?")
    assert date_spellings(2021, 13, 1) == [] and date_spellings(2021, 1, 18)[0] == "January 18 2021"
    assert grounded('{"date": "2021-13-45"}', [], "on 2021-13-45")  # written as it stands


def test_a_currency_code_is_grounded_by_the_currencys_name():
    q = "how much 1000 US dollars would be in Euros"
    assert grounded('{"source_currency": "USD", "target_currency": "EUR", "amount": 1000}', [], q)
    assert not grounded('{"source_currency": "USD", "target_currency": "GBP", "amount": 1000}', [], q)
    assert not grounded('{"target_currency": "JPY"}', [], "a yearly plan")  # "yen" as a word only


def test_judged_arguments_alone_must_be_in_the_question():
    # BFCL parallel_multiple_158: a new function's optional "lang" the question never names
    q = "I'm a big fan of the Beatles and I'd like to know the lyrics of their song 'Hey Jude'."
    call = '{"song_title": "Hey Jude", "artist_name": "The Beatles", "lang": "English"}'
    assert not grounded(call, [], q)
    assert grounded(call, [], q, ["song_title", "artist_name"])
    assert not grounded(call, [], q, ["lang"])
    assert not grounded('{"lang": "English"}', ['{"lang": "English"}'], q, [])  # nothing new
    # BFCL multiple_70: another function with the same required values, padded with an
    # optional one the question does not name, is judged whole
    q = "Who were the kings of France during the 18th century?"
    monarchs = '{"country": "France", "century": 18}'
    assert not grounded('{"country": "France", "century": 18, "aspect": "literature"}',
                        [monarchs], q, ["country", "century"])
    assert grounded('{"country": "France", "century": 18, "aspect": "kings"}', [monarchs], q,
                    ["country", "century"])


def test_another_function_made_of_earlier_values_the_question_writes():
    # BFCL parallel_multiple_6: the Fibonacci count is the primes' upper bound
    q = "Find all prime numbers between 50 and 150. Then get the fibonacci series upto 150."
    primes = '{"start": 50, "end": 150}'
    assert grounded('{"count": 150}', [primes], q, ["count"], asked=True)
    assert not grounded('{"count": 150}', [primes], q, ["count"])  # a function nobody asked for
    assert not grounded('{"count": 150}', [primes], q)  # the same function again: refused
    # an earlier value the question does not write is not enough
    assert not grounded('{"count": 7}', ['{"start": 7}'], q, ["count"], asked=True)
    assert not grounded('{"flag": true}', ['{"flag": true}'], q, ["flag"], asked=True)
    assert not grounded('{"count": 150}', [primes], q, ["n"], asked=True)  # nothing required
    # optional values from earlier calls ride along; required ones decide
    assert grounded('{"count": 150, "start": 50}', [primes], q, ["count"], asked=True)


def test_a_function_is_asked_for_by_a_word_of_its_name_the_others_lack():
    assert name_words("angleToXAxis_calculate") == {"angle", "axis"}
    assert name_words("get_fibonacci_sequence") == {"fibonacci", "sequence"}
    assert name_words("") == set()
    q = "Find all prime numbers between 50 and 150. Then get the fibonacci series upto 150."
    assert asked_for("get_fibonacci_sequence", {"find_prime_numbers"}, q)
    # BFCL parallel_multiple_10: a concert ticket after the musical's, for a question that
    # asks for a musical and a train; "ticket" and "buy" are the called functions' words
    q = ("Buy me a ticket to the Mamma Mia musical for next Friday, June 30th 2023, also get "
         "me a train ticket from New York to Chicago for the same day.")
    assert not asked_for("concert_ticket_buy", {"musical_ticket_buy", "train_ticket_buy"}, q)
    assert asked_for("store_count", {"average_price"}, "how many stores carry it")  # a prefix
    assert not asked_for("get_data", {"x"}, "get the data")  # only shared verbs: nothing asked
    assert not asked_for("lawsuit_fetch", {"lawsuit_judge"}, "the lawsuit")  # a called word


LYRICS = {"type": "function", "function": {
    "name": "get_song_lyrics", "description": "A song's lyrics.",
    "parameters": {"type": "object", "properties": {
        "song_title": {"type": "string"}, "lang": {"type": "string"}},
        "required": ["song_title"]}}}


def test_a_new_function_may_fill_an_optional_argument_the_same_one_may_not(shared):
    engine, _, client = shared
    q = [{"role": "user", "content": "北京的天气，和 'Hey Jude' 的歌词？"}]
    lyrics = 'get_song_lyrics", "arguments": {"song_title": "Hey Jude", "lang": "English"}}\n'
    again = 'get_song_lyrics", "arguments": {"song_title": "Hey Jude", "lang": "French"}}\n'
    engine.reset([BJ, lyrics, again])
    message = client.chat.completions.create(model=MODEL, messages=q, tools=[WEATHER, LYRICS],
                                             ).choices[0].message
    assert [c.function.name for c in message.tool_calls] == ["get_weather", "get_song_lyrics"]
    assert len(engine.calls) == 3  # the same function again with a made-up "French": not kept


def _tool(name, required):
    return {"type": "function", "function": {
        "name": name, "description": name,
        "parameters": {"type": "object", "properties": {k: {"type": "string"} for k in required},
                       "required": required}}}


PRICE, STORES = _tool("average_price", ["city", "product"]), _tool("store_count", ["city", "product"])


def test_a_table_the_question_asks_for_is_filled_through_the_sdk(shared):
    # BFCL parallel_multiple_47's shape: two functions, two cities
    engine, _, client = shared
    q = [{"role": "user", "content": "The average price of a Yamaha guitar in Austin and in "
                                     "New York, and how many stores carry it in each city."}]

    def call(name, city, prefix=""):
        return (prefix + f'{name}", "arguments": {{"city": "{city}", "product": "Yamaha guitar"}}}}\n')

    first = "<tool_call>\n" + call("average_price", "Austin", '{"name": "') + "</tool_call>"
    swapped = 'store_count", "arguments": {"city": "Austin", "product": "New York"}}\n'
    engine.reset([first, call("average_price", "New York"), call("store_count", "Austin"),
                  call("store_count", "New York"), swapped])
    message = client.chat.completions.create(model=MODEL, messages=q, tools=[PRICE, STORES],
                                             ).choices[0].message
    made = [(c.function.name, json.loads(c.function.arguments)["city"]) for c in message.tool_calls]
    # store_count(Austin): a function not called yet, made of earlier values the question
    # writes; store_count(New York): average_price(New York)'s values; the swap: nobody's
    assert made == [("average_price", "Austin"), ("average_price", "New York"),
                    ("store_count", "Austin"), ("store_count", "New York")]
    assert len(engine.calls) == 5


def test_paired_is_the_next_cell_of_a_table_not_a_new_combination():
    # BFCL parallel_multiple_61 (the model's calls): distance and angle for two pairs of points
    q = ("Calculate the Euclidean distance between points A(3,2) and B(7,5), then the angle "
         "with the x-axis; repeat for points C(10,8) and D(14,12). Round to 2 decimals.")
    a = '{"pointA": [3, 2], "pointB": [7, 5], "rounding": 2}'
    c = '{"pointA": [10, 8], "pointB": [14, 12], "rounding": 2}'
    required = ["pointA", "pointB"]
    earlier = [a, a, c]  # distance(A), angle(A), distance(C)
    assert paired(c, earlier, [c], required, q)  # angle(C): distance(C)'s values
    assert not grounded(c, earlier, q)  # which grounded alone refuses
    swapped = '{"pointA": [7, 5], "pointB": [3, 2], "rounding": 2}'
    assert not paired(swapped, earlier, [a, c], required, q)  # padding: no call had these
    padded = '{"pointA": [10, 8], "pointB": [14, 12], "rounding": 2, "unit": "radians"}'
    assert not paired(padded, earlier, [c], required, q)  # an optional value nobody wrote
    assert paired(padded, earlier, [c], required, q + " In radians.")
    assert not paired(c, earlier, [c], [], q)  # nothing required: nothing to pair on
    assert not paired(c, earlier, [c], ["pointA", "end"], q)  # a required value missing
    assert not paired(c, earlier, [c], required, "Repeat for the other points.")  # not written
    assert not paired("{broken", earlier, [c], required, q)
    assert not paired(c, earlier, ["{broken", "[1]"], required, q)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=4), st.none() | st.booleans() | st.integers()
                       | st.text(max_size=6) | st.lists(st.integers(), max_size=3), max_size=4),
       st.lists(st.text(max_size=4), max_size=3), st.text(max_size=40))
def test_paired_never_raises(args, required, question):
    text = json.dumps(args)
    assert isinstance(paired(text, [text], [text, "{"], required, question), bool)
