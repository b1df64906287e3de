"""reactlab.guards: the decisions — budgets, the loop verdict on a step, fold points."""

from __future__ import annotations

import pytest

from reactlab.guards import Guards, budget_event, budget_status, count_parse_errors
from reactlab.loop_detector import LoopDetector
from reactlab.prompts import load_template
from reactlab.runlog import Step, ToolCallRecord

# --- Guards -------------------------------------------------------------------------------


def test_on_and_off():
    on, off = Guards.on(max_steps=8), Guards.off(max_steps=4)
    assert (on.max_steps, on.max_parse_errors, on.observation_chars) == (8, 3, 2000)
    assert isinstance(on.loop, LoopDetector) and on.final_request == load_template("final_request")
    assert (off.max_steps, off.max_parse_errors, off.observation_chars, off.loop,
            off.max_total_tokens, off.compress_after) == (4, 4, None, None, None, None)


def test_fresh_gives_each_run_its_own_loop_detector():
    g = Guards(loop=LoopDetector(repeat=4, message="m"))
    for _ in range(4):
        g.check_call("f", {})
    assert g.loop.triggers == 1
    f = g.fresh()
    assert f.loop is not g.loop and f.loop.triggers == 0 and f.loop.history == []
    assert (f.loop.repeat, f.loop.message, f.max_steps) == (4, "m", 6)
    assert g.fresh(max_steps=9).max_steps == 9
    assert Guards.off().fresh().loop is None
    assert Guards.off().check_call("f", {}) is None


def test_loop_exhausted_after_two_triggers():
    g = Guards.on().fresh()
    for _ in range(3):
        g.check_call("f", {"x": 1})
    assert not g.loop_exhausted
    g.check_call("f", {"x": 1})
    assert g.loop_exhausted
    assert budget_status(g, steps=2) == "loop"


@pytest.mark.parametrize("steps,parse_errors,tokens,expected", [
    (0, 0, 0, None),
    (5, 3, 10**9, None),           # no token budget, 3 parse errors are still allowed
    (6, 0, 0, "max_steps"),
    (2, 4, 0, "parse_errors"),
    (6, 4, 0, "parse_errors"),     # the more specific cause wins
])
def test_budget_status(steps, parse_errors, tokens, expected):
    assert budget_status(Guards(), steps, parse_errors, tokens) == expected


def test_token_budget():
    g = Guards(max_total_tokens=1000)
    assert budget_status(g, 1, 0, 1000) is None
    assert budget_status(g, 1, 0, 1001) == "max_tokens"
    assert budget_status(g, 6, 0, 1001) == "max_tokens"


@pytest.mark.parametrize("status,expected", [
    ("max_steps", "budget: max_steps (6 steps, max_steps=6)"),
    ("parse_errors", "budget: parse_errors (4 parse errors > max_parse_errors=3)"),
    ("max_tokens", "budget: max_tokens (1530 tokens > max_total_tokens=1500)"),
    ("loop", "budget: loop (the loop detector fired twice)"),
])
def test_budget_event_names_the_budget(status, expected):
    assert budget_event(Guards(max_total_tokens=1500), status, 6, 4, 1530) == expected




@pytest.mark.parametrize("kinds,bad_json,expected", [
    ([], 0, 0),
    (["empty"], 0, 0),                       # one silence is a hiccup
    (["empty", "empty"], 0, 1),              # two in a row count
    (["empty", "action", "empty"], 0, 0),
    (["empty", "empty", "parse_error"], 0, 2),
    (["action"], 2, 2),                      # arguments that were not JSON count too
])
def test_count_parse_errors(kinds, bad_json, expected):
    steps = [Step(i + 1, k) for i, k in enumerate(kinds)]
    if bad_json:
        steps[0].tool_calls = [ToolCallRecord("f", "{", bad_json=True)] * bad_json
    assert count_parse_errors(steps) == expected
    assert Guards().budget(steps) == (None if expected <= 3 else "parse_errors")


def test_check_step_sends_the_intervention_once_then_the_budget_says_loop():
    g = Guards.on().fresh()
    call = ToolCallRecord("get_weather", {"location": "北京"}, "晴")
    steps = [Step(n, "action", tool_calls=[call]) for n in (1, 2, 3, 4)]
    for step in steps:
        g.check_step(step)
    assert steps[1].feedback is None and steps[1].events == []
    assert steps[2].events and steps[2].feedback == load_template("loop_intervention")
    assert steps[3].events and steps[3].feedback is None  # exhausted: no second intervention
    assert g.budget(steps) == "loop"
    off = Guards.off().fresh()
    off.check_step(steps[0])
    assert off.loop is None


@pytest.mark.parametrize("compress_after,keep_last,expected", [
    (None, 2, [0, 0, 0, 0, 0, 0, 0, 0]),
    (3, 1, [0, 0, 0, 0, 3, 3, 3, 6]),    # bursts: the prompt is stable between folds
    (4, 2, [0, 0, 0, 0, 0, 3, 3, 3]),
    (2, 0, [0, 0, 0, 3, 3, 3, 6, 6]),
])
def test_fold_point(compress_after, keep_last, expected):
    g = Guards(compress_after=compress_after, keep_last=keep_last)
    assert [g.fold_point(n) for n in range(8)] == expected


def test_narrated_names_whole_tool_names_only():
    names = ["get_today", "days_between"]
    assert Guards().narrated("I'll call `get_today` first.", names) == ["get_today"]
    assert Guards().narrated("days_between(…) then get_today", names) == names
    assert Guards().narrated("my_get_today_helper", names) == []
    assert Guards().narrated("", names) == []
    assert Guards.off().narrated("I'll call get_today.", names) == []


# --- the closing reply (Guards.closing) ------------------------------------------------------

def _fetched(*pairs):
    return [Step(i, "action", tool_calls=[ToolCallRecord(name="get_weather", arguments={
        "location": city}, observation=obs)]) for i, (city, obs) in enumerate(pairs, 1)]


BJ = "北京: 23.4°C (feels like 23.1°C), humidity 43%"
GZ = "广州: 24.2°C (feels like 25.0°C), humidity 81%"


def test_the_closing_docstring_example():
    assert Guards().closing("上海多少度？", "上海多少度？", [])[0] == (
        "the closing reply repeats the question instead of answering")


@pytest.mark.parametrize("reply, error", [
    ("", "the closing reply was empty"),
    (None, "the closing reply was empty"),
    (('Thought: I need 广州.\nAction:\n```\n{"action": "get_weather", "action_input": '
      '{"location": "广州"}}\n```'), "the closing reply asks for a tool call, but no tool runs now"),
    ('{"name": "get_weather", "arguments": {"location": "广州"}}',
     "the closing reply asks for a tool call, but no tool runs now"),
    ("北京和广州哪个更暖和？", "the closing reply repeats the question instead of answering"),
])
def test_an_unusable_closing_reply_is_named(reply, error):
    got = Guards().closing("北京和广州哪个更暖和？", reply, _fetched(("北京", BJ), ("广州", GZ)))
    assert got is not None and got[0] == error and got[1]


def test_a_wrong_fact_in_the_closing_reply_gets_the_checked_fact():
    error, say = Guards().closing("北京和广州哪个更暖和？", "北京更暖和，23.4°C，广州24.2°C。",
                                  _fetched(("北京", BJ), ("广州", GZ)))
    assert error.startswith("the closing reply: ") and "广州" in say and "24.2" in say


@pytest.mark.parametrize("reply, fetched", [
    ("广州更暖和：广州24.2°C，北京23.4°C。", (("北京", BJ), ("广州", GZ))),  # right
    ("北京23.4°C。", (("北京", BJ),)),  # 广州 was never fetched: a call, and no tool runs now
])
def test_a_closing_reply_the_guard_cannot_help_with_is_taken(reply, fetched):
    assert Guards().closing("北京和广州哪个更暖和？", reply, _fetched(*fetched)) is None


def test_a_fetched_name_left_out_of_the_closing_reply_is_given_its_reading():
    error, say = Guards().closing("北京和广州哪个更暖和？", "北京23.4°C。",
                                  _fetched(("北京", BJ), ("广州", GZ)))
    assert "no figure for 广州" in error and "24.2" in say


def test_nothing_fetched_means_nothing_to_check_the_closing_reply_against():
    assert Guards().closing("北京和广州哪个更暖和？", "广州更暖和。", []) is None


@pytest.mark.parametrize("guards", [Guards.off(), Guards.basic()])
def test_off_and_basic_take_any_closing_reply(guards):
    assert guards.closing("北京和广州哪个更暖和？", "", []) is None



def test_a_tool_name_passed_as_an_argument_is_no_failed_lookup_to_tell():
    # the tenth round's ReAct t56: days_between(date2="get_today") failed, and the closing
    # check told the model "the lookup for get_today failed … give it no figure"
    q = "今天距离2027年2月17日还有多少天？如果每天存8元，再加上已有的200元，到那天一共有多少钱？"
    bad = ToolCallRecord(name="days_between", arguments={"date1": "2027-02-17", "date2": "get_today"},
                         observation="Error: days_between got date2='get_today', which is the name "
                                     "of a tool, not a value.", error=True)
    steps = [Step(1, "action", tool_calls=[bad]),
             Step(2, "action", tool_calls=[ToolCallRecord(name="get_today", arguments={},
                                                          observation="2026-03-01 (Sunday)")]),
             Step(3, "action", tool_calls=[ToolCallRecord(
                 name="days_between", arguments={"date1": "2027-02-17", "date2": "2026-03-01"},
                 observation="353")])]
    from reactlab import claims
    from reactlab.runlog import RunResult
    r = RunResult(q, "353天后，你将有3024元。", "final", steps=steps)
    assert claims.lookup_errors(r, claims.subjects(r)) == {}
    # 3024 was worked out in the head: that needs the calculator, and no tool runs now
    assert Guards().closing(q, "353天后，你将有3024元。", steps) is None
