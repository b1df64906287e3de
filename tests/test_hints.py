"""reactlab.hints: once get_today has answered, a date call that failed for want of it is named
with today's date in it, and the next request requires that tool; once per run, never a guess.
The scripted runs are the benchmark's real native failures (t16, t24 of the 72 tasks)."""

from __future__ import annotations

import pytest
from fakes import Reply, ScriptedConn, tool_call
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.fc_agent import run_function_calling
from reactlab.guards import Guards
from reactlab.hints import date_hint, today_from, with_today
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
