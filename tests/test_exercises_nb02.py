"""Notebook 02's exercise checks, without a model."""

from __future__ import annotations

import re

import pytest

from reactlab.exercises import ExerciseNotDone
from reactlab.exercises.nb02 import check_1, check_2, check_3, check_4
from reactlab.parsing import cut_at_stop

INVENTED = 'Action: get_closing_price\nAction Input: {"name": "青岛啤酒"}\nObservation: 30.5\nFinal Answer: 贵州茅台'


def test_none_is_pending(capsys):
    for check in (check_1, check_2, check_3, check_4):
        assert check(None) is None
    assert capsys.readouterr().out.count("not attempted yet") == 4


def test_check_1_compares_the_reading_with_the_text():
    assert check_1((INVENTED, True))
    assert check_1(("Action: get_closing_price", False))
    with pytest.raises(ExerciseNotDone, match="look again"):
        check_1((INVENTED, False))


def test_check_2():
    assert check_2({"Observation": "Action: get_weather\n", "\nObservation": "Action: x"})
    with pytest.raises(ExerciseNotDone):
        check_2({"Observation": "Action: x\nObservation: 晴", "\nObservation": "Action: x"})
    with pytest.raises(ExerciseNotDone):
        check_2({"Observation": "x"})


def test_check_3():
    last = "Thought: 我已经获取了天气。\n\nFinal Answer: 北京的天气温度为23.4°C"
    assert check_3(cut_at_stop(last, ["Final Answer:"]))
    with pytest.raises(ExerciseNotDone):
        check_3(last)


def test_check_4_runs_the_function_on_fixed_strings():
    pattern = re.compile(r"^[ \t>*]*(?:Observation\b|观察\s*[:：])", re.MULTILINE)

    def good(text):
        m = pattern.search(text)
        return m.start() if m else None

    old = re.compile(r"^[ \t>*]*Observation\b", re.MULTILINE)

    def english_only(text):
        m = old.search(text)
        return m.start() if m else None

    assert check_4(good)
    with pytest.raises(ExerciseNotDone, match="观察"):
        check_4(english_only)
