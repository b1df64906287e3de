"""reactlab.hints: once get_today has answered, a date call that failed for want of it is named
with today's date in it, and the next request requires that tool; once per run, never a guess.
The scripted runs are the benchmark's real native failures (t16, t24 of the 72 tasks)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from fakes import Reply, ScriptedConn, tool_call
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.fc_agent import run_function_calling
from reactlab.guards import Guards
from reactlab.hints import date_hint, done_note, today_from, with_today
from reactlab.react_agent import run_react
from reactlab.runlog import Step, ToolCallRecord
from reactlab.tools import default_registry

TODAY = ToolCallRecord("get_today", {}, "2026-03-01 (Sunday, 星期日)")
SAME = ToolCallRecord("days_between", {"date1": "2026-10-01", "date2": "2026-10-01"},
                      "Error: days_between failed: ValueError: date1 and date2 are both "
                      "2026-10-01: …", error=True)


@pytest.fixture(autouse=True)
def _pinned_today(monkeypatch):
    monkeypatch.setenv("REACTLAB_TODAY", "2026-03-01")  # the seeds' date, as in the notebooks


def test_the_target_date_twice_gets_today_first():
    assert with_today({"date1": "2026-10-01", "date2": "2026-10-01"}, "2026-03-01",
                      "今天距离2026年10月1日还有多少天？", []) == {"date1": "2026-03-01",
                                                          "date2": "2026-10-01"}


def test_an_imagined_today_is_replaced_and_the_real_date_kept():
    assert with_today({"date1": "2025-10-01", "date2": "2026-06-18"}, "2026-03-01",
                      "今天到2026年6月18日还有多少天？", []) == {"date1": "2026-03-01",
                                                        "date2": "2026-06-18"}
    assert with_today({"date1": "today", "date2": "2026-08-08"}, "2026-03-01",
                      "from today until 2026-08-08", [])["date1"] == "2026-03-01"


def test_no_hint_when_the_fix_is_ambiguous_or_not_about_dates():
    q = "上海和哈尔滨现在的气温相差多少度？"
    assert with_today({"date1": "2023-04-15", "date2": "2023-04-16"}, "2026-03-01", q, []) is None
    assert with_today({"date1": "2025-10-01", "date2": "2026-03-01"}, "2026-03-01",
                      "今天到2026年6月18日还有多少天？", []) is None  # would leave today twice
    assert with_today({"location": "北京", "date": "2026-03-01"}, "2026-03-01", "北京", []) is None
    assert with_today("2026-10-01", "2026-03-01", "", []) is None


def test_the_hint_waits_for_get_today_and_is_given_once():
    q = "今天距离2026年10月1日还有多少天？"
    first = Step(1, "action", tool_calls=[SAME])
    assert date_hint(q, [first]) is None  # today is not known yet
    second = Step(2, "action", tool_calls=[TODAY])
    feedback, tool = date_hint(q, [first, second])
    assert tool == "days_between" and feedback == (
        "Today is 2026-03-01 (get_today's result). The call that did not run, with today's date "
        'in it: days_between({"date1": "2026-03-01", "date2": "2026-10-01"}). Make that call now.')
    second.events.append("date hint: days_between with today's date required")
    assert date_hint(q, [first, second]) is None  # once per run
    ran = Step(3, "action", tool_calls=[ToolCallRecord("days_between", {}, "214")])
    assert date_hint(q, [first, Step(2, "action", tool_calls=[TODAY]), ran]) is None


def test_native_t16_gets_the_call_with_todays_date_required():
    conn = ScriptedConn(
        Reply(None, [tool_call("c1", "days_between", '{"date1": "2026-10-01", "date2": "2026-10-01"}')]),
        Reply(None, [tool_call("c2", "get_today", "{}")]),
        Reply(None, [tool_call("c3", "days_between", '{"date1": "2026-03-01", "date2": "2026-10-01"}')]),
        "还有214天。")
    r = run_function_calling("今天距离2026年10月1日还有多少天？", conn=conn, tools=default_registry())
    assert [s.kind for s in r.steps] == ["action", "action", "action", "final"]
    assert r.steps[1].events == ["date hint: days_between with today's date required"]
    assert r.steps[1].require_call == "days_between"
    assert conn.requests[2]["tool_choice"] == {"type": "function", "function": {"name": "days_between"}}
    assert conn.requests[2]["messages"][-1]["content"].startswith("Today is 2026-03-01")
    assert conn.requests[3]["tool_choice"] == "auto" and r.status == "final"


def test_a_held_back_date_beside_get_today_gets_the_hint_in_the_same_step():
    # t24: get_today and days_between with an imagined "today" in one reply
    conn = ScriptedConn(
        Reply(None, [tool_call("c1", "get_today", "{}"),
                     tool_call("c2", "days_between", '{"date1": "2025-10-01", "date2": "2026-06-18"}')]),
        "109天。")
    run_function_calling("今天到2026年6月18日还有多少天？", conn=conn, tools=default_registry())
    assert "days_between({\"date1\": \"2026-03-01\", \"date2\": \"2026-06-18\"})" in (
        conn.requests[1]["messages"][-1]["content"])


def test_react_gets_the_hint_and_guards_off_or_basic_do_not():
    same = ('Action: {"action": "days_between", "action_input": {"date1": "2026-10-01", '
            '"date2": "2026-10-01"}}')
    script = (same, 'Action: {"action": "get_today", "action_input": {}}', "Final Answer: 还有214天。")
    r = run_react("今天距离2026年10月1日还有多少天？", conn=ScriptedConn(*script),
                  tools=default_registry())
    assert "date hint: days_between with today's date required" in r.steps[1].events
    for guards in (Guards.off(), Guards.basic()):
        r = run_react("今天距离2026年10月1日还有多少天？", conn=ScriptedConn(*script),
                      tools=default_registry(), guards=guards)
        assert not any(e.startswith("date hint") for s in r.steps for e in s.events)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["date1", "date2", "date", "x"]),
                       st.one_of(st.text(max_size=12), st.sampled_from(
                           ["2026-10-01", "2025-10-01", "2026-03-01", "today"])), max_size=3),
       st.text(max_size=30))
def test_with_today_never_raises_and_never_leaves_equal_dates(arguments, question):
    fixed = with_today(arguments, "2026-03-01", question, [])
    if fixed is not None:
        dates = [v for k, v in fixed.items() if "date" in k]
        assert "2026-03-01" in fixed.values() and len(set(dates)) == len(dates)


def test_today_from_reads_only_a_successful_get_today():
    assert today_from([Step(1, "action", tool_calls=[SAME])]) is None
    assert today_from([Step(1, "action", tool_calls=[TODAY])]) == "2026-03-01"


# --- the fetch hint: a name the question asks about, still unfetched after a failed call ------

AVG4 = "深圳、杭州、成都、南京四地现在的平均气温是多少？"
HELD = ToolCallRecord("calculator", {"expression": "(32 + 29 + 26 + 22) / 4"},
                      "Not run: calculator was given 32, 29, 26, 22, …", error=True)


def test_unfetched_lists_the_asked_names_in_the_question_order():
    from reactlab.hints import unfetched
    sz = ToolCallRecord("get_weather", {"location": "深圳"}, "深圳: 24.1°C (feels like 25°C), …")
    assert unfetched(AVG4, []) == ["深圳", "杭州", "成都", "南京"]
    assert unfetched(AVG4, [Step(1, "action", tool_calls=[sz])]) == ["杭州", "成都", "南京"]
    assert unfetched("中国的首都是哪座城市？", []) == []  # no course name asked about
    assert unfetched("比亚迪的收盘价是多少？", []) == []  # unknown to the course data: not hinted


def test_a_held_back_calculator_gets_the_first_unfetched_city_once():
    from reactlab.hints import fetch_hint
    tools = default_registry().names()
    first = Step(1, "action", tool_calls=[HELD])
    feedback, tool, name = fetch_hint(AVG4, [first], tools)
    assert (tool, name) == ("get_weather", "深圳")
    assert feedback == ("No tool result has covered 深圳, 杭州, 成都, 南京 yet, and every figure "
                        "in the answer must come from one. Call get_weather for 深圳 now, one "
                        "name per call.")
    first.events.append("fetch hint: get_weather for 深圳")
    again = Step(2, "action", tool_calls=[HELD])
    assert fetch_hint(AVG4, [first, again], tools)[2] == "杭州"  # 深圳 was hinted once already
    assert fetch_hint(AVG4, [first], ["calculator"]) is None  # no tool fetches it here


def test_no_fetch_hint_after_a_step_whose_calls_all_ran():
    from reactlab.hints import fetch_hint
    ok = Step(1, "action", tool_calls=[ToolCallRecord("calculator", {"expression": "1+1"}, "2")])
    assert fetch_hint(AVG4, [ok], default_registry().names()) is None
    assert fetch_hint(AVG4, [], default_registry().names()) is None


def test_native_t47_is_told_to_fetch_instead_of_repeating_the_made_up_average():
    """The real native run of t47 repeated calculator("(32 + 29 + 26 + 22) / 4") three times,
    held back each time, then answered 25.5℃ from nowhere."""
    calc = '{"expression": "(32 + 29 + 26 + 22) / 4"}'
    conn = ScriptedConn(Reply(None, [tool_call("c1", "calculator", calc)]),
                        Reply(None, [tool_call("c2", "get_weather", '{"location": "深圳"}')]),
                        "深圳现在的气温是……")
    r = run_function_calling(AVG4, conn=conn, tools=default_registry())
    assert r.steps[0].events[-1] == "fetch hint: get_weather for 深圳"
    assert conn.requests[1]["tool_choice"] == {"type": "function",
                                               "function": {"name": "get_weather"}}
    assert conn.requests[1]["messages"][-1]["content"].startswith("No tool result has covered 深圳")
    assert r.steps[1].tool_calls[0].name == "get_weather" and not r.steps[1].tool_calls[0].error


def test_a_timeout_gets_the_retry_required_in_react_too():
    """t28 (native gave up after one timeout): the city is named again with its tool required."""
    from reactlab.hints import fetch_hint
    timeout = ToolCallRecord("get_weather", {"location": "广州"},
                             "Error: get_weather failed: TimeoutError: …", error=True)
    hint = fetch_hint("广州现在多少度？", [Step(1, "action", tool_calls=[timeout])],
                      default_registry().names())
    assert hint[1:] == ("get_weather", "广州")


def test_the_fetch_hint_is_off_in_basic_and_off_guards():
    assert Guards.on().fetch_hints and not Guards.basic().fetch_hints
    assert not Guards.off().fetch_hints


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["深圳", "杭州", "北京", "Beijing", "茅台", "比亚迪", "和", "、",
                                 "？", "the", "7"]), max_size=8))
def test_fetch_hint_never_names_a_name_twice(words):
    from reactlab.hints import fetch_hint
    q, steps, seen = "".join(words), [], []
    for n in range(8):
        steps.append(Step(n + 1, "action", tool_calls=[HELD]))
        hint = fetch_hint(q, steps, default_registry().names())
        if hint is None:
            break
        assert hint[2] not in seen  # each name at most once: the hints end
        seen.append(hint[2])
        steps[-1].events.append(f"fetch hint: {hint[1]} for {hint[2]}")
    assert set(seen) <= {"深圳", "杭州", "北京", "贵州茅台"}


# --- the inside hint: the calculator's expression with the figures of the tools it called ----

MOUTAI = ToolCallRecord("get_closing_price", {"name": "Kweichow Moutai"},
                        "贵州茅台 (600519.SH) closing price: 1488.21 CNY [example figure]")
TSINGTAO = ToolCallRecord("get_closing_price", {"name": "Tsingtao Brewery"},
                          "青岛啤酒 (600600.SH) closing price: 67.92 CNY [example figure]")
XIAMEN = ToolCallRecord("get_weather", {"location": "厦门"},
                        "厦门: 23.5°C (feels like 25.0°C), humidity 74%, wind 东南风 3.2 m/s (3级), "
                        "precipitation 0.0 mm, pressure 1008 hPa [snapshot]")
RATIO = "get_closing_price('Kweichow Moutai') / get_closing_price('Tsingtao Brewery')"


def test_with_figures_puts_each_result_where_its_call_was():
    from reactlab.hints import with_figures
    both = [Step(1, "action", tool_calls=[MOUTAI]), Step(2, "action", tool_calls=[TSINGTAO])]
    assert with_figures(RATIO, both) == "1488.21 / 67.92"
    xm = [Step(1, "action", tool_calls=[XIAMEN])]
    assert with_figures("(get_weather('Xiamen')['humidity'] + get_weather(\"厦门\").temperature) / 2",
                        xm) == "(74 + 23.5) / 2"
    assert with_figures("get_weather('长沙')['humidity']", xm) is None  # no result for 长沙 yet
    assert with_figures("74 - 69", xm) is None  # nothing to put in


def test_native_t45_gets_the_ratio_with_figures_once_both_prices_are_in():
    """The real ReAct run of t45 wrote the same expression with two tool calls inside three
    times, fetching the prices in between, until the step budget ran out."""
    from reactlab.hints import inside_hint
    refused = ToolCallRecord("calculator", {"expression": RATIO}, "Error: calculator got …",
                             error=True)
    first = Step(1, "action", tool_calls=[refused])
    assert inside_hint([first]) is None  # no price fetched yet (the fetch hint's turn)
    steps = [first, Step(2, "action", tool_calls=[MOUTAI]), Step(3, "action", tool_calls=[TSINGTAO]),
             Step(4, "action", tool_calls=[refused])]
    feedback, tool = inside_hint(steps)
    assert tool == "calculator" and feedback == (
        "A tool cannot run inside the calculator, but the results it needs are in. The same "
        'expression with their figures in place: calculator({"expression": "1488.21 / 67.92"}). '
        "Make that call now.")
    steps[-1].events.append("inside hint: calculator with the results' figures required")
    assert inside_hint([*steps, Step(5, "action", tool_calls=[refused])]) is None  # once per run


def test_the_inside_hint_reaches_the_model_with_the_calculator_required():
    calc = json.dumps({"expression": RATIO})
    conn = ScriptedConn(
        Reply(None, [tool_call("c1", "get_closing_price", '{"name": "Kweichow Moutai"}'),
                     tool_call("c2", "get_closing_price", '{"name": "Tsingtao Brewery"}')]),
        Reply(None, [tool_call("c3", "calculator", calc)]),
        Reply(None, [tool_call("c4", "calculator", '{"expression": "1488.21 / 67.92"}')]),
        "贵州茅台的收盘价是青岛啤酒的21.9倍。")
    r = run_function_calling("What is the ratio of Kweichow Moutai's closing price to "
                             "Tsingtao Brewery's?", conn=conn, tools=default_registry())
    assert r.steps[1].events[-1] == "inside hint: calculator with the results' figures required"
    assert conn.requests[2]["tool_choice"] == {"type": "function",
                                               "function": {"name": "calculator"}}
    assert r.steps[2].tool_calls[0].observation.startswith("21.91")


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("get_weather('厦门')[humidity].+-*/ 0123\"长沙")),
               max_size=80))
def test_with_figures_never_raises_and_leaves_no_tool_call_behind(expression):
    from reactlab.hints import _INSIDE, with_figures
    fixed = with_figures(expression, [Step(1, "action", tool_calls=[XIAMEN])])
    assert fixed is None or not _INSIDE.search(fixed)


# --- the today hint: a date call failed before get_today answered ---------------------------

def test_a_failed_date_call_before_get_today_asks_for_get_today_once():
    from reactlab.hints import today_hint
    tools = default_registry().names()
    first = Step(1, "action", tool_calls=[SAME])
    assert today_hint([first], tools) == (
        ("days_between needs today's date, and only get_today gives it: call get_today now, "
         "then call days_between again with that date."), "get_today")
    assert today_hint([first], ["days_between"]) is None  # no get_today among the tools
    assert today_hint([Step(1, "action", tool_calls=[TODAY]), first], tools) is None  # answered
    first.events.append("today hint: get_today required")
    assert today_hint([first, Step(2, "action", tool_calls=[SAME])], tools) is None  # once
    weather = ToolCallRecord("get_weather", {"location": "x"}, "Error: …", error=True)
    assert today_hint([Step(1, "action", tool_calls=[weather])], tools) is None  # no date in it


def test_native_t52_is_asked_for_get_today_then_gets_the_date_hint():
    """The real native run of t52 passed 2026-12-25 twice, narrated days_between twice and
    answered "0 days"; now get_today is required, then the call with today's date."""
    twice = '{"date1": "2026-12-25", "date2": "2026-12-25"}'
    conn = ScriptedConn(
        Reply(None, [tool_call("c1", "days_between", twice)]),
        Reply(None, [tool_call("c2", "get_today", "{}")]),
        Reply(None, [tool_call("c3", "days_between", '{"date1": "2026-03-01", "date2": "2026-12-25"}')]),
        "还有299天。")
    r = run_function_calling("How many days are left from today until 2026-12-25?", conn=conn,
                             tools=default_registry())
    assert r.steps[0].events[-1] == "today hint: get_today required"
    assert conn.requests[1]["tool_choice"] == {"type": "function", "function": {"name": "get_today"}}
    assert r.steps[1].events[-1] == "date hint: days_between with today's date required"
    assert r.answer == "还有299天。"


def test_a_calculator_with_a_dash_sum_is_not_a_date_call():
    from reactlab.hints import today_hint
    held = ToolCallRecord("calculator", {"expression": "5 * (2027-2026-11-30)"}, "Not run: …",
                          error=True)
    assert today_hint([Step(1, "action", tool_calls=[held])], default_registry().names()) is None


def test_a_held_back_calculator_gets_no_inside_hint():
    """Notebook 06's native stock run: the mean of the two prices, written beside both fetches
    and held back; the hint put the figures into the mean, and the model answered "the average
    is 778.065" to "哪个更高？高多少？". A held-back call is left for the model to rewrite."""
    from reactlab.hints import inside_hint
    held = ToolCallRecord("calculator", {"expression": "(get_closing_price('青岛啤酒') + "
                                         "get_closing_price('贵州茅台')) / 2"},
                          "Not run: calculator was called in the same reply as a call whose "
                          "result it may need …", error=True)
    qd = ToolCallRecord("get_closing_price", {"name": "青岛啤酒"},
                        "青岛啤酒 (600600.SH) closing price: 67.92 CNY [example figure]")
    mt = ToolCallRecord("get_closing_price", {"name": "贵州茅台"},
                        "贵州茅台 (600519.SH) closing price: 1488.21 CNY [example figure]")
    assert inside_hint([Step(1, "action", tool_calls=[qd, mt, held])]) is None


def test_after_the_hinted_call_has_run_the_question_is_the_last_word():
    """The real native run of t54: after the date hint's days_between -> 193, the hint ("Make
    that call now") was still the last user message, and the model made the call three more
    times. Now the step that ran it ends with a note that sends the model back to the question."""
    question = "今天到2026年9月10日还有多少天？如果每天存10元，一共能存多少钱？"
    conn = ScriptedConn(
        Reply(None, [tool_call("c1", "days_between", '{"date1": "2026-09-10", "date2": "2026-09-10"}')]),
        Reply(None, [tool_call("c2", "get_today", "{}")]),
        Reply(None, [tool_call("c3", "days_between", '{"date1": "2026-03-01", "date2": "2026-09-10"}')]),
        Reply(None, [tool_call("c4", "calculator", '{"expression": "193 * 10"}')]),
        "还有193天，一共能存1930元。")
    r = run_function_calling(question, conn=conn, tools=default_registry())
    assert r.steps[2].events == ["hint done: days_between ran; back to the question"]
    last = conn.requests[3]["messages"][-1]
    assert last["role"] == "user" and last["content"].startswith('days_between({"date1": "2026-03-01"')
    assert last["content"].endswith(question) and conn.requests[3]["tool_choice"] == "auto"
    assert r.steps[3].events == [] and r.steps[3].feedback is None  # once: the next step is plain
    assert r.answer == "还有193天，一共能存1930元。"


def test_no_note_when_the_hinted_call_failed_again_or_without_hints():
    hinted = Step(1, "action", tool_calls=[TODAY], events=["date hint: days_between …"])
    hinted.require_call = "days_between"
    failed = Step(2, "action", tool_calls=[SAME])
    ok = Step(2, "action", tool_calls=[ToolCallRecord(
        "days_between", {"date1": "2026-03-01", "date2": "2026-10-01"}, "214")])
    assert done_note("q", [hinted, failed]) is None
    assert done_note("q", [hinted, ok]).endswith("Go on with the question: q")
    plain = Step(1, "action", tool_calls=[TODAY])  # no hint before: nothing to undo
    assert done_note("q", [plain, ok]) is None
    assert done_note("q", [ok]) is None


# --- the chained fetch hint, and the hinted fetches the step budget does not count ----------

def _weather(city: str, reading: str = "20.0°C (feels like 20°C), humidity 50%") -> ToolCallRecord:
    return ToolCallRecord("get_weather", {"location": city}, f"{city}: {reading}")


def _hinted_run() -> list[Step]:
    """The real round-10 start of t47: a held-back guess, then the hinted fetch of 深圳."""
    first = Step(1, "action", tool_calls=[HELD], require_call="get_weather",
                 events=["fetch hint: get_weather for 深圳"])
    return [first, Step(2, "action", tool_calls=[_weather("深圳")])]


def test_the_chain_hints_the_next_missing_city_right_after_the_hinted_fetch():
    from reactlab.hints import chained, fetch_hint
    steps, tools = _hinted_run(), default_registry().names()
    assert chained(steps)
    assert fetch_hint(AVG4, steps, tools) is None  # without the chain: the model is free again
    feedback, tool, name = fetch_hint(AVG4, steps, tools, chain=True)
    assert (tool, name) == ("get_weather", "杭州")
    assert feedback.startswith("No tool result has covered 杭州, 成都, 南京 yet")


def test_no_chain_after_a_fetch_nobody_hinted_or_one_that_failed():
    from reactlab.hints import chained, fetch_hint
    free = [Step(1, "action", tool_calls=[_weather("深圳")])]
    assert not chained(free)
    assert fetch_hint(AVG4, free, default_registry().names(), chain=True) is None
    steps = _hinted_run()
    steps[1].tool_calls = [ToolCallRecord("calculator", {"expression": "1+1"}, "2")]
    assert not chained(steps)  # the hint asked for get_weather; a calculator call is no answer


def test_the_chain_ends_when_every_asked_name_has_a_result():
    from reactlab.hints import fetch_hint
    steps = _hinted_run()
    for n, city in enumerate(["杭州", "成都", "南京"], start=2):
        steps[-1].require_call = "get_weather"
        steps[-1].events.append(f"fetch hint: get_weather for {city}")
        steps.append(Step(n + 1, "action", tool_calls=[_weather(city)]))
    assert fetch_hint(AVG4, steps, default_registry().names(), chain=True) is None


def test_hinted_fetches_are_not_counted_up_to_free_fetches():
    steps = _hinted_run()
    assert Guards.basic().counted(steps) == 2  # without the lever every step counts
    assert Guards.on().counted(steps) == 1 and Guards(free_fetches=4).counted(steps) == 1
    assert Guards(free_fetches=0).counted(steps) == 2
    many = _hinted_run()
    for n in range(6):  # more hinted fetches than the allowance: only 4 go free
        many[-1].require_call = "get_weather"
        many[-1].events.append("fetch hint: get_weather for 杭州")
        many.append(Step(n + 3, "action", tool_calls=[_weather("杭州")]))
    assert Guards(free_fetches=4).counted(many) == len(many) - 4


def test_a_run_with_the_chain_fetches_four_cities_and_still_answers():
    """Scripted on round 10's native t47: the guess held back, then four fetches; with the chain
    and the free fetches, the calculator and the answer fit in the budget (seven steps, three counted)."""
    calc = '{"expression": "(32 + 29 + 26 + 22) / 4"}'
    good = '{"expression": "(26.1 + 21.5 + 20.3 + 20.9) / 4"}'
    replies = [Reply(None, [tool_call("c0", "calculator", calc)])]
    replies += [Reply(None, [tool_call(f"w{i}", "get_weather", json.dumps({"location": c}))])
                for i, c in enumerate(["深圳", "杭州", "成都", "南京"])]
    replies += [Reply(None, [tool_call("c1", "calculator", good)]), "四地的平均气温是22.2°C。"]
    conn = ScriptedConn(*replies)
    guards = Guards(fetch_chain=True, free_fetches=4)
    r = run_function_calling(AVG4, conn=conn, tools=default_registry(), guards=guards)
    assert [e for s in r.steps for e in s.events if e.startswith("fetch hint")] == [
        f"fetch hint: get_weather for {c}" for c in ["深圳", "杭州", "成都", "南京"]]
    assert r.status == "final" and r.answer == "四地的平均气温是22.2°C。"
    assert len(r.steps) == 7 and guards.counted(r.steps) == 3  # the four fetches go free


# --- the aggregate hint: the expression over the readings, once every one is in -------------

def _four_fetched() -> list[Step]:
    readings = {"深圳": "26.1", "杭州": "21.5", "成都": "20.3", "南京": "20.9"}
    return [Step(i + 1, "action", tool_calls=[_weather(c, f"{t}°C (feels like 20°C), humidity 50%")])
            for i, (c, t) in enumerate(readings.items())]


def test_a_held_back_calculator_after_every_reading_gets_the_mean_expression():
    """Round 11, ReAct t47: all four cities in, then "(32 + 24 + 26 + 22) / 4" three more times."""
    from reactlab.hints import aggregate_hint
    steps = [*_four_fetched(), Step(5, "action", tool_calls=[HELD])]
    feedback, tool = aggregate_hint(AVG4, steps)
    assert tool == "calculator"
    assert feedback == ("Every reading the question asks about is in: 深圳 26.1, 杭州 21.5, 成都 20.3 "
                        "and 南京 20.9. The mean is calculator({\"expression\": \"(26.1 + 21.5 + "
                        "20.3 + 20.9) / 4\"}). Make that call now.")
    steps[-1].events.append("aggregate hint: calculator over the readings required")
    assert aggregate_hint(AVG4, [*steps, Step(6, "action", tool_calls=[HELD])]) is None  # once


def test_no_aggregate_hint_before_every_reading_or_for_other_questions():
    from reactlab.hints import aggregate_hint
    held = Step(9, "action", tool_calls=[HELD])
    assert aggregate_hint(AVG4, [*_four_fetched()[:3], held]) is None  # 南京 not in yet
    assert aggregate_hint(AVG4, _four_fetched()) is None  # no failed calculator call
    assert aggregate_hint("深圳和杭州哪个更热？", [*_four_fetched(), held]) is None  # no mean asked
    total = "深圳、杭州三地现在的气温加起来是多少？"
    assert aggregate_hint(total, [*_four_fetched(), held])[0].startswith(
        "Every reading the question asks about is in: 深圳 26.1 and 杭州 21.5. The total is "
        "calculator({\"expression\": \"26.1 + 21.5\"})")


def test_a_run_with_the_aggregate_hint_computes_the_mean_and_is_sent_back_to_the_question():
    calc = '{"expression": "(32 + 29 + 26 + 22) / 4"}'
    good = '{"expression": "(26.1 + 21.5 + 20.3 + 20.9) / 4"}'
    replies = [Reply(None, [tool_call(f"w{i}", "get_weather", json.dumps({"location": c}))])
               for i, c in enumerate(["深圳", "杭州", "成都", "南京"])]
    replies += [Reply(None, [tool_call("c0", "calculator", calc)]),
                Reply(None, [tool_call("c1", "calculator", good)]), "四地的平均气温是22.2°C。"]
    conn = ScriptedConn(*replies)
    r = run_function_calling(AVG4, conn=conn, tools=default_registry(), max_steps=8,
                             guards=Guards(aggregate_hints=True))
    assert r.steps[4].events[-1] == "aggregate hint: calculator over the readings required"
    assert conn.requests[5]["tool_choice"] == {"type": "function", "function": {"name": "calculator"}}
    assert r.steps[5].tool_calls[0].observation == "22.2"
    assert r.steps[5].events[-1].startswith("hint done")
    assert r.status == "final" and Guards.on().aggregate_hints is True
    assert Guards.basic().aggregate_hints is False and Guards.off().aggregate_hints is False


# --- the per-day hint: the calculator over the days, once days_between has given them --------

SAVINGS = "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？"
DAYS = ToolCallRecord("days_between", {"date1": "2026-03-01", "date2": "2027-01-01"}, "306")
GUESS = ToolCallRecord("calculator", {"expression": "5 * (2027-2026-03+1)"},
                       "Not run: calculator was called in the same reply as a call whose result "
                       "it may need, before that result came back.", error=True)


def test_a_held_back_guess_beside_the_days_gets_the_total_expression():
    """Notebook 05, seed 001: days_between and a guessed calculator call in one reply."""
    from reactlab.hints import per_day_hint
    steps = [Step(1, "action", tool_calls=[TODAY]), Step(2, "action", tool_calls=[DAYS, GUESS])]
    assert per_day_hint(SAVINGS, steps) == (
        ('days_between gave 306 days, and the question counts 5 a day. The total is '
        'calculator({"expression": "306 * 5"}). Make that call now.'), "calculator")
    steps[-1].events.append("per-day hint: calculator over the days required")
    assert per_day_hint(SAVINGS, [*steps, Step(3, "action", tool_calls=[GUESS])]) is None  # once


def test_the_per_day_hint_adds_what_is_already_there():
    from reactlab.hints import per_day_hint
    q = "今天到2026年6月18日还有多少天？如果每天存 20 元，再加上已有的 500 元，到那天一共有多少钱？"
    days = ToolCallRecord("days_between", {"date1": "2026-03-01", "date2": "2026-06-18"}, "109")
    feedback, _ = per_day_hint(q, [Step(1, "action", tool_calls=[days, GUESS])])
    assert feedback == ('days_between gave 109 days, and the question counts 20 a day, plus 500 '
                        'already there. The total is calculator({"expression": "109 * 20 + '
                        '500"}). Make that call now.')


def test_no_per_day_hint_without_the_days_a_failed_calculator_or_an_amount_a_day():
    from reactlab.hints import per_day_hint
    failed_days = ToolCallRecord("days_between", {"date1": "2025-10-01", "date2": "2027-01-01"},
                                 "Not run: days_between was given 2025, …", error=True)
    ran = ToolCallRecord("calculator", {"expression": "306 * 5"}, "1530")
    assert per_day_hint(SAVINGS, [Step(1, "action", tool_calls=[failed_days, GUESS])]) is None
    assert per_day_hint(SAVINGS, [Step(1, "action", tool_calls=[DAYS, ran])]) is None
    assert per_day_hint("到 2027-01-01 还有多少天？", [Step(1, "action", tool_calls=[DAYS, GUESS])]) is None
    assert per_day_hint(SAVINGS, []) is None


def test_a_run_with_the_per_day_hint_computes_the_total_and_goes_back_to_the_question():
    """The four rounds of seed 001: get_today, days_between (with a guess held back), the
    calculator the hint asked for, the answer; both protocols share the hook in `run_tools`."""
    replies = [Reply(None, [tool_call("t", "get_today", "{}")]),
               Reply(None, [tool_call("d", "days_between",
                                      '{"date1": "2026-03-01", "date2": "2027-01-01"}'),
                            tool_call("g", "calculator", '{"expression": "5 * (2027-2026)"}')]),
               Reply(None, [tool_call("c", "calculator", '{"expression": "306 * 5"}')]),
               "今天是 2026-03-01，到 2027-01-01 还有 306 天，一共能存 1530 元。"]
    conn = ScriptedConn(*replies)
    r = run_function_calling(SAVINGS, conn=conn, tools=default_registry(),
                             guards=Guards(per_day_hints=True))
    assert r.steps[1].tool_calls[1].error  # the guess was held back
    assert r.steps[1].events[-1] == "per-day hint: calculator over the days required"
    assert conn.requests[2]["tool_choice"] == {"type": "function", "function": {"name": "calculator"}}
    assert r.steps[2].tool_calls[0].observation == "1530"
    assert r.steps[2].events[-1].startswith("hint done")  # not "Make that call now" again
    assert r.status == "final" and r.answer.endswith("1530 元。")
    assert Guards.on().per_day_hints is True
    assert Guards.basic().per_day_hints is False and Guards.off().per_day_hints is False


# --- the days correction: a day count from nowhere, days_between never run -------------------

def test_days_call_names_days_between_with_today_and_the_questions_date():
    from reactlab.hints import days_call
    today = [Step(1, "action", tool_calls=[TODAY])]
    assert days_call(SAVINGS, today) == (
        'days_between({"date1": "2026-03-01", "date2": "2027-01-01"})')
    assert days_call("今天到2026年6月18日还有多少天？", today) == (
        'days_between({"date1": "2026-03-01", "date2": "2026-06-18"})')
    assert days_call(SAVINGS, []) is None  # today not known yet
    assert days_call(SAVINGS, [*today, Step(2, "action", tool_calls=[DAYS])]) is None  # it ran
    assert days_call("How many days are there between 2026-01-15 and 2026-12-25?", today) is None
    assert days_call("北京现在多少度？", today) is None  # no day count asked
    assert days_call("今天是 2026-03-01，还有多少天？", today) is None  # the only date is today


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_days_call_never_raises_and_names_days_between(question):
    from reactlab.hints import days_call
    call = days_call(question, [Step(1, "action", tool_calls=[TODAY])])
    assert call is None or call.startswith('days_between({"date1": "2026-03-01", "date2": "')


def test_the_days_correction_asks_for_days_between_not_any_call():
    """ReAct t19 of the sixteenth round: get_today, a made-up calculator call, "还有 365 天"."""
    from dataclasses import replace

    replies = [
        'Thought: today first.\nAction:\n```\n{"action": "get_today", "action_input": {}}\n```',
        ('Thought: x\nAction:\n```\n{"action": "calculator", "action_input": '
        '{"expression": "5 * (2027-2026-1) / 3"}}\n```'),
        "Final Answer: 今天是 2026-03-01，到 2027-01-01 还有 365 天，一共能存 0 元。",
        '{"action": "days_between", "action_input": {"date1": "2026-03-01", "date2": "2027-01-01"}}',
        "Final Answer: 今天是 2026-03-01，还有 306 天，一共能存 1530 元。"]
    conn = ScriptedConn(*replies)
    r = run_react(SAVINGS, conn=conn, tools=default_registry(), style="json",
                  guards=replace(Guards.on(), days_correction=True))
    assert r.steps[2].kind == "ungrounded" and r.steps[2].require_call == "days_between"
    assert 'days_between({"date1": "2026-03-01", "date2": "2027-01-01"})' in r.steps[2].feedback
    assert r.steps[3].tool_calls[0].observation == "306"
    assert Guards.on().days_correction is True and Guards.basic().days_correction is False


def test_a_call_a_correction_named_and_got_is_not_counted_as_a_step():
    """ReAct t19 replayed: the days correction's days_between and the calculator on 306 * 5
    would otherwise take the last two of six steps."""
    calc = ToolCallRecord("calculator", {"expression": "306 * 5"}, "1530")
    named = [Step(1, "action", tool_calls=[TODAY]),
             Step(2, "ungrounded", require_call="days_between"),
             Step(3, "action", tool_calls=[DAYS]),
             Step(4, "ungrounded", require_call="calculator"),
             Step(5, "action", tool_calls=[calc])]
    assert Guards.on().counted(named) == 3 and Guards(free_fetches=0).counted(named) == 5
    # a correction that asked for any call (`missing`: ReAct t25's fetch for 广州) and got
    # one that ran: not counted either
    anyone = [Step(1, "ungrounded", require_call="any"), Step(2, "action", tool_calls=[calc])]
    assert Guards.on().counted(anyone) == 1
    # a failed call, another tool than the one named, or an answer-only correction: counted
    other = [Step(1, "ungrounded", require_call="days_between"), Step(2, "action", tool_calls=[calc])]
    failed = [Step(1, "ungrounded", require_call="any"),
              Step(2, "action", tool_calls=[replace(calc, error=True)])]
    told = [Step(1, "ungrounded"), Step(2, "action", tool_calls=[calc])]
    assert [Guards.on().counted(s) for s in (other, failed, told)] == [2, 2, 2]


def test_the_days_correction_also_catches_a_count_every_figure_of_which_a_calculation_gave():
    """ReAct t19, the twelfth and sixteenth rounds: "还有 0 天 … 0 元" after the calculator gave
    0. Every figure is a calculation's, so only the day count the question settles shows it."""
    from dataclasses import replace

    def replies():
        return [
            'Thought: today first.\nAction:\n```\n{"action": "get_today", "action_input": {}}\n```',
            ('Thought: x\nAction:\n```\n{"action": "calculator", "action_input": '
             '{"expression": "5 * (2027-2026-1) / 3"}}\n```'),
            "Final Answer: 今天是 2026-03-01，到 2027-01-01 还有 0 天，一共能存 0 元。",
            '{"action": "days_between", "action_input": {"date1": "2026-03-01", "date2": "2027-01-01"}}',
            "Final Answer: 今天是 2026-03-01，还有 306 天，一共能存 1530 元。"]
    on = run_react(SAVINGS, conn=ScriptedConn(*replies()), tools=default_registry(), style="json",
                   guards=replace(Guards.on(), days_correction=True))
    assert on.steps[2].kind == "ungrounded" and on.steps[2].require_call == "days_between"
    assert on.steps[3].tool_calls[0].observation == "306"
    off = run_react(SAVINGS, conn=ScriptedConn(*replies()), tools=default_registry(), style="json",
                    guards=replace(Guards.on(), days_correction=False))
    assert off.status == "final" and "0 天" in off.answer  # accepted as it is
