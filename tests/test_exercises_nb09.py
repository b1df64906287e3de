"""Notebook 09's exercise checks: None is pending, a right result passes, a wrong one raises.
No model: the run, the debug view and the tool are hand-made."""

from __future__ import annotations

import pytest

from reactlab.exercises import ExerciseNotDone
from reactlab.exercises.nb09 import check_1, check_2, check_3
from reactlab.recorder import ToolRecorder
from reactlab.runlog import RunResult
from reactlab.tools.weather import get_weather

TWO = "北京和广州现在哪里更热？"


def test_none_is_not_attempted_yet(capsys):
    for check in (check_1, check_2, check_3):
        assert check(None) is None
    assert capsys.readouterr().out.count("not attempted yet") == 3


def test_check_1_wants_a_recorded_langchain_run(capsys):
    rec = ToolRecorder()
    weather = rec.wrap(get_weather)
    weather("北京"), weather("广州")
    assert check_1(rec.result(TWO, "广州更热：24.2°C，北京 23.4°C。", framework="langchain"))
    out = capsys.readouterr().out
    assert "verdict: ✔" in out and "✔ exercise 1" in out
    with pytest.raises(ExerciseNotDone, match="RunResult"):
        check_1("广州更热")
    with pytest.raises(ExerciseNotDone, match="framework"):
        check_1(rec.result(TWO, "广州更热", framework="smolagents"))
    with pytest.raises(ExerciseNotDone, match="both"):
        check_1(rec.result("广州现在多少度？", "24.2", framework="langchain"))
    with pytest.raises(ExerciseNotDone, match="no tool call"):
        check_1(RunResult(TWO, "广州更热", "final", protocol="langchain"))


def test_check_1_passes_a_wrong_answer_and_shows_its_verdict(capsys):
    rec = ToolRecorder()
    rec.wrap(get_weather)("北京")
    assert check_1(rec.result(TWO, "", framework="langchain"))
    assert "verdict: ✘" in capsys.readouterr().out


def help_report(debug):
    return [f"{i['rule']}: the model wrote {i['model_wrote']!r:.60} -> {i['action']}"
            for i in (debug.get("help") or {}).get("interventions", [])]


def test_check_2_tries_the_function_on_a_debug_view(capsys):
    assert check_2(help_report)
    assert "✔ exercise 2" in capsys.readouterr().out
    with pytest.raises(ExerciseNotDone, match="function itself"):
        check_2(help_report({}))
    with pytest.raises(ExerciseNotDone, match="2 interventions"):
        check_2(lambda d: ["repeat_call get_weather"])
    with pytest.raises(ExerciseNotDone, match="rule"):
        check_2(lambda d: [i["action"] for i in d.get("help", {}).get("interventions", [])])
    with pytest.raises(ExerciseNotDone, match="older server"):
        check_2(lambda d: help_report(d) if "help" in d else ["nothing"])


def no_repeat(tool):
    seen = {}

    def wrapped(*args, **kwargs):
        key = repr((args, sorted(kwargs.items())))
        if key in seen:
            return f"You already called this and got: {seen[key]}. Do not call it again."
        seen[key] = tool(*args, **kwargs)
        return seen[key]

    return wrapped


def test_check_3_tries_the_wrapper_on_a_counting_tool(capsys):
    assert check_3(no_repeat)
    assert "✔ exercise 3" in capsys.readouterr().out
    with pytest.raises(ExerciseNotDone, match="ran the tool again"):
        check_3(lambda tool: tool)
    with pytest.raises(ExerciseNotDone, match="should return a function"):
        check_3(lambda tool: None)

    def forgetful(tool):
        def wrapped(**kw):
            if wrapped.done:
                return "repeat"
            wrapped.done = True
            return tool(**kw)
        wrapped.done = False
        return wrapped

    with pytest.raises(ExerciseNotDone, match="earlier"):
        check_3(forgetful)
