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
