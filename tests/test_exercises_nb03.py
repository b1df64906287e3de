"""Notebook 03's exercise checks, without a model: they call a parser on fixed inputs."""

from __future__ import annotations

import ast

import pytest

from reactlab.exercises import ExerciseNotDone
from reactlab.exercises.nb03 import check_1, check_2, check_3, check_4
from reactlab.parsing import FinalAnswer, parse_react
from reactlab.tools import ToolRegistry, get_weather


def package_step(text):
    """parse_react as ('final', answer) / ('action', tool, args); ValueError otherwise."""
    parsed = parse_react(text)
    if isinstance(parsed, FinalAnswer):
        return ("final", parsed.answer)
    return ("action", parsed.tool, parsed.args)


def test_none_is_pending(capsys):
    for check in (check_1, check_2, check_3, check_4):
        assert check(None) is None
    assert capsys.readouterr().out.count("not attempted yet") == 4


def test_check_1():
    assert check_1(package_step)  # parse_react knows the call syntax

    def json_only(text):
        if "(" in text:
            raise ValueError("no '{' found")
        return package_step(text)

    with pytest.raises(ExerciseNotDone, match="raised ValueError"):
        check_1(json_only)


def test_check_2_fuzzes_the_function():
    assert check_2(package_step)

    def fragile(text):
        if "{" in text:
            return ast.literal_eval(text)  # SyntaxError escapes
        raise ValueError("nothing")

    with pytest.raises(ExerciseNotDone, match="SyntaxError"):
        check_2(fragile)


def test_check_3():
    bold = '**Action:** get_weather\n**Action Input:** {"location": "北京"}'
    assert check_3({"reply": bold, "ours": ("action", " get_weather", '** {"location": "北京"}')})
    with pytest.raises(ExerciseNotDone, match="the same"):
        check_3({"reply": bold, "ours": package_step(bold)})


def test_check_4():
    assert check_4(ToolRegistry([get_weather]).run("get_wether", {"location": "北京"}))
    with pytest.raises(ExerciseNotDone):
        check_4("北京: 晴")
