"""Notebook 07's exercise checks: None is pending, a right result passes, a wrong one raises.
No model: the runs are hand-made."""

from __future__ import annotations

import pytest

from reactlab.exercises import ExerciseNotDone
from reactlab.exercises.nb07 import check_1, check_2, check_3, check_4
from reactlab.runlog import RunResult, Step, ToolCallRecord
from reactlab.tools import ToolRegistry, tool


def test_none_is_not_attempted_yet(capsys):
    for check in (check_1, check_2, check_3, check_4):
        assert check(None) is None
    assert capsys.readouterr().out.count("not attempted yet") == 4


def search_run(shown: str, full: str | None) -> RunResult:
    call = ToolCallRecord("search_docs", {"query": "早茶"}, shown, full)
    return RunResult("q", "a", "max_steps", [Step(1, "action", tool_calls=[call])])


def test_check_1_wants_a_cut_search_result(capsys):
    full = "x" * 5000
    assert check_1(search_run("x" * 150 + "\n[… 4,700 characters cut …]\n" + "x" * 150, full))
    assert "✔ exercise 1" in capsys.readouterr().out
    with pytest.raises(ExerciseNotDone, match="not cut"):
        check_1(search_run(full, None))
    with pytest.raises(ExerciseNotDone, match="about 300"):
        check_1(search_run("x" * 2028, full))
    with pytest.raises(ExerciseNotDone, match="RunResult"):
        check_1("an answer")


@tool
def ask_sales(question: str) -> str:
    """Ask the sales team.

    Args:
        question: the question
    """
    return "Sales: please ask the support team."


@tool
def ask_support(question: str) -> str:
    """Ask the support team.

    Args:
        question: the question
    """
    return "Support: please ask the sales team."


@tool
def ask_support_helpful(question: str) -> str:
    """Ask the support team.

    Args:
        question: the question
    """
    return "Support: yes, refunded."


def test_check_2_wants_two_teams_sending_you_to_each_other(capsys):
    teams = ToolRegistry([ask_sales, ask_support])
    looped = RunResult("q", None, "loop", [Step(1, "action", events=["loop: ping-pong between …"])])
    assert check_2(teams, looped)
    assert "ping-pong" in capsys.readouterr().out
    assert check_2(teams, RunResult("q", "ok", "final", [Step(1, "final")]))
    assert "no detector fired" in capsys.readouterr().out
    helpful = ToolRegistry([ask_sales, ask_support_helpful])
    with pytest.raises(ExerciseNotDone, match="needs ask_sales and ask_support"):
        check_2(helpful)
    renamed = ask_support_helpful.__class__("ask_support", ask_support_helpful.description,
                                            ask_support_helpful.parameters,
                                            ask_support_helpful.func)
    with pytest.raises(ExerciseNotDone, match="other team"):
        check_2(ToolRegistry([ask_sales, renamed]))


RATES = {"USD": 7.1, "EUR": 7.7, "JPY": 0.047}


@tool
def convert_to_cny(amount: float, currency: str) -> str:
    """Convert to CNY.

    Args:
        amount: how much
        currency: a 3-letter code
    """
    if currency not in RATES:
        raise ValueError(f"unknown currency {currency!r}")
    return f"{amount * RATES[currency]:.2f} CNY"


@tool
def convert_to_cny_soft(amount: float, currency: str) -> dict:
    """Convert to CNY, returning errors.

    Args:
        amount: how much
        currency: a 3-letter code
    """
    if currency not in RATES:
        return {"error": f"unknown currency {currency!r}"}
    return {"amount_cny": round(amount * RATES[currency], 2)}


def test_check_3_wants_one_raising_and_one_returning_version(capsys):
    assert check_3(ToolRegistry([convert_to_cny, convert_to_cny_soft]))
    assert "✔ exercise 3" in capsys.readouterr().out
    with pytest.raises(ExerciseNotDone, match="convert_to_cny_soft"):
        check_3(ToolRegistry([convert_to_cny]))
    swapped = ToolRegistry([convert_to_cny.__class__("convert_to_cny", "d", convert_to_cny_soft.parameters,
                                                     convert_to_cny_soft.func),
                            convert_to_cny_soft])
    with pytest.raises(ExerciseNotDone, match="should raise"):
        check_3(swapped)


def test_check_4_wants_only_the_invented_number_marked(capsys):
    def flag(run):
        import re
        seen = " ".join(c.observation for s in run.steps for c in s.tool_calls)
        return re.sub(r"\d+(?:\.\d+)?", lambda m: m[0] if m[0] in seen else "[?]" + m[0],
                      run.answer)

    assert check_4(flag)
    assert "[?]150.2" in capsys.readouterr().out
    with pytest.raises(ExerciseNotDone, match="not marked"):
        check_4(lambda run: run.answer)
    with pytest.raises(ExerciseNotDone, match="only 150.2"):
        check_4(lambda run: run.answer.replace("1488.21", "[?]1488.21").replace("150.2", "[?]150.2"))
    with pytest.raises(ExerciseNotDone, match="the function itself"):
        check_4("an answer")
