"""Notebook 08's exercise checks: None is pending, a right result passes, a wrong one raises.
No model: the runs and the chat are hand-made."""

from __future__ import annotations

import pytest

from reactlab.exercises import ExerciseNotDone
from reactlab.exercises.nb08 import AQI, check_1, check_2, check_3, check_4
from reactlab.memory import Conversation
from reactlab.runlog import RunResult, Step

STOCKS = "青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高，高多少？"


def test_none_is_not_attempted_yet(capsys):
    for check in (check_1, check_2, check_3, check_4):
        assert check(None) is None
    assert capsys.readouterr().out.count("not attempted yet") == 4


def test_check_1_wants_two_runs_of_the_stock_question(capsys):
    run = RunResult(STOCKS, "贵州茅台更高", "final", [Step(1, "final")])
    assert check_1({"on": run, "off": run})
    assert "✔ exercise 1" in capsys.readouterr().out
    with pytest.raises(ExerciseNotDone, match="two runs"):
        check_1({"on": run})
    with pytest.raises(ExerciseNotDone, match="stock question"):
        check_1({"on": run, "off": RunResult("北京天气？", "晴", "final")})


def test_check_2_tries_the_function_on_known_latencies(capsys):
    def slowest(run):
        total = sum(s.latency_ms for s in run.steps)
        worst = max(run.steps, key=lambda s: s.latency_ms)
        return worst.number, worst.latency_ms / total

    assert check_2(slowest)
    assert "(2, 0.7)" in capsys.readouterr().out
    with pytest.raises(ExerciseNotDone, match="fraction"):
        check_2(lambda run: (2, 70.0))
    with pytest.raises(ExerciseNotDone, match="slowest is step 2"):
        check_2(lambda run: (1, 0.1))
    with pytest.raises(ExerciseNotDone, match="return"):
        check_2(lambda run: 2)


def scripted(question, history=(), **kwargs):
    """A stand-in agent: answers at once, no tools."""
    return RunResult(question, f"answer to {question}", "final", [Step(1, "final")])


def test_check_3_wants_a_summary_before_turn_three(capsys):
    chat = Conversation(scripted, keep_turns=1)
    for q in ["北京今天天气怎么样？", "那广州呢？", "哪个城市更暖和？"]:
        chat.ask(q)
    assert check_3(chat)
    assert "✔ exercise 3" in capsys.readouterr().out
    full = Conversation(scripted)
    for q in ["a", "b", "c"]:
        full.ask(q)
    with pytest.raises(ExerciseNotDone, match="keep_turns=1"):
        check_3(full)
    short = Conversation(scripted, keep_turns=1)
    short.ask("a")
    with pytest.raises(ExerciseNotDone, match="1 turn"):
        check_3(short)


def test_check_4_wants_each_city_its_own_aqi(capsys):
    assert check_4(lambda city: f"{city}: AQI {AQI[city]}")
    assert "✔ exercise 4" in capsys.readouterr().out
    buggy = {**AQI, "广州": 57}
    with pytest.raises(ExerciseNotDone, match="广州"):
        check_4(lambda city: f"{city}: AQI {buggy[city]}")
    with pytest.raises(ExerciseNotDone, match="raised KeyError"):
        check_4(lambda city: "AQI " + str({}[city]))
