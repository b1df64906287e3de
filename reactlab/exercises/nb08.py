"""Checks for notebook 08's exercises (observability and memory). `check_N(None)` says "not
attempted yet".

check_1(runs): two runs of the stock question, one per guard setting, to compare.
check_2(slowest_step): your function, tried on a hand-made run of three steps.
check_3(chat): a Conversation with keep_turns=1 after three turns: turn 3 got a summary.
check_4(get_air_quality): the fixed tool gives every city its own AQI.
None of them calls the model.
"""

from __future__ import annotations

from typing import Any

from reactlab.exercises import passed, pending, require
from reactlab.memory import SUMMARY_PREFIX
from reactlab.runlog import RunResult, Step

__all__ = ["AQI", "check_1", "check_2", "check_3", "check_4"]

AQI = {"北京": 82, "广州": 35, "上海": 57}  # the notebook's made-up teaching values


def check_1(runs: Any) -> bool | None:
    """A dict of two (or more) RunResults of the stock question."""
    if runs is None:
        return pending(1, 'set `answer_1` to {"on": run_with_guards, "off": run_without}')
    require(1, isinstance(runs, dict) and len(runs) >= 2,
            "`answer_1` should be a dict of two runs, e.g. {'on': …, 'off': …}")
    for label, run in runs.items():
        require(1, isinstance(run, RunResult), f"runs[{label!r}] is not a RunResult")
        require(1, "青岛啤酒" in run.question and "贵州茅台" in run.question,
                f"runs[{label!r}] asked {run.question!r}; use the stock question")
    said = ", ".join(f"{k}: {r.status}, {len(r.steps)} steps" for k, r in runs.items())
    return passed(1, f"two runs to compare ({said}); compare_table shows where they differ")


def _three_steps() -> RunResult:
    steps = [Step(1, "action", latency_ms=100), Step(2, "action", latency_ms=700),
             Step(3, "final", text="done", latency_ms=200)]
    return RunResult("q", "done", "final", steps)


def check_2(slowest_step: Any) -> bool | None:
    """slowest_step(run) on steps of 100, 700 and 200 ms -> (2, 0.7)."""
    if slowest_step is None:
        return pending(2, "set `answer_2` to your function slowest_step")
    require(2, callable(slowest_step), "`answer_2` should be the function itself")
    got = slowest_step(_three_steps())
    require(2, isinstance(got, tuple) and len(got) == 2,
            f"slowest_step should return (step number, share); it returned {got!r}")
    number, share = got
    require(2, number == 2, f"steps took 100, 700 and 200 ms: the slowest is step 2, not {number}")
    require(2, isinstance(share, (int, float)) and 0 <= share <= 1,
            f"the share should be a fraction between 0 and 1 (0.7 for 700 of 1000 ms), not {share!r}")
    require(2, abs(share - 0.7) < 1e-6, f"700 of 1000 ms is a share of 0.7, not {share!r}")
    return passed(2, "on steps of 100, 700 and 200 ms it gives (2, 0.7)")


def check_3(chat: Any) -> bool | None:
    """A Conversation(keep_turns=1) after three turns: turn 3 began with the summary."""
    if chat is None:
        return pending(3, "set `answer_3` to your Conversation(…, keep_turns=1) after its "
                          "three turns")
    require(3, hasattr(chat, "turns") and hasattr(chat, "keep_turns"),
            "`answer_3` should be the reactlab.memory.Conversation you asked the questions with")
    require(3, chat.keep_turns == 1, f"the Conversation has keep_turns={chat.keep_turns!r}; "
            "make it Conversation(…, keep_turns=1)")
    require(3, len(chat.turns) >= 3, f"the chat has {len(chat.turns)} turn(s); ask all three "
            "questions of section 4")
    sent = chat.turns[2].history_sent
    require(3, sent and str(sent[0].get("content", "")).startswith(SUMMARY_PREFIX),
            "turn 3 should have received a summary of turn 1 first")
    return passed(3, f"turn 3 received {len(sent)} messages: a summary of turn 1, then turn 2 "
                     "verbatim; read the summary to see what survived")


def check_4(get_air_quality: Any) -> bool | None:
    """The fixed get_air_quality gives 北京 82, 广州 35, 上海 57."""
    if get_air_quality is None:
        return pending(4, "set `answer_4` to your fixed get_air_quality tool")
    require(4, callable(get_air_quality), "`answer_4` should be the tool itself")
    for city, aqi in AQI.items():
        try:
            text = str(get_air_quality(city=city))
        except Exception as e:  # noqa: BLE001 - any failure is what the learner must fix
            require(4, False, f"get_air_quality(city={city!r}) raised {type(e).__name__}: {e}")
        wrong = [str(v) for v in AQI.values() if v != aqi and str(v) in text]
        require(4, str(aqi) in text and not wrong,
                f"get_air_quality(city={city!r}) gave {text!r}; the data says AQI {aqi}")
    return passed(4, "every city gets its own AQI (广州 35, not 上海's 57); the log will now "
                     "match the data")
