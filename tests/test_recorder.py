"""The recorder: a framework's run, witnessed through the tools it called, graded."""

from __future__ import annotations

import inspect
import threading

import pytest

from reactlab.grader import Expected, grade
from reactlab.recorder import ToolRecorder
from reactlab.tools.weather import get_weather

Q = "广州现在多少度？"


def test_the_wrapper_looks_like_the_tool_and_records_each_call():
    rec = ToolRecorder()
    weather = rec.wrap(get_weather)
    assert weather.__name__ == "get_weather" and "ONE Chinese city" in weather.__doc__
    assert list(inspect.signature(weather).parameters) == ["location"]
    assert not hasattr(weather, "__wrapped__")
    assert weather("广州").startswith("广州: 24.2°C")
    assert weather(location="北京").startswith("北京:")
    assert [(c.name, c.arguments, c.id) for c in rec.calls] == [
        ("get_weather", {"location": "广州"}, "call_0"), ("get_weather", {"location": "北京"}, "call_1")]


def test_a_plain_function_can_be_wrapped_too():
    def add(a: int, b: int = 2) -> int:
        """Add."""
        return a + b

    rec = ToolRecorder()
    assert rec.wrap(add)(1) == 3
    assert rec.calls[0].arguments == {"a": 1} and rec.calls[0].observation == "3"


def test_a_tool_error_is_recorded_then_raised():
    rec = ToolRecorder()
    with pytest.raises(ValueError, match="unknown city"):
        rec.wrap(get_weather)("亚特兰蒂斯")
    assert rec.calls[0].error and "unknown city" in rec.calls[0].observation


def test_a_right_answer_grades_ok_and_an_empty_one_does_not():
    rec = ToolRecorder()
    rec.wrap(get_weather)("广州")
    good = rec.result(Q, "广州现在 24.2°C。", framework="langchain")
    assert good.status == "final" and good.protocol == "langchain"
    assert [s.kind for s in good.steps] == ["action", "final"]
    assert grade(good, Expected(figures=("24.2",))).ok
    empty = grade(rec.result(Q, ""))
    assert not empty.ok and "no answer" in str(empty)


def test_an_invented_figure_is_caught():
    rec = ToolRecorder()
    rec.wrap(get_weather)("广州")
    verdict = grade(rec.result(Q, "广州现在 31°C。"))
    assert not verdict.ok and "31" in str(verdict)


def test_no_call_at_all_is_not_supported():
    verdict = grade(ToolRecorder().result(Q, "广州现在 24.2°C。"))
    assert not verdict.ok


def test_repeats_are_counted_and_noted():
    rec = ToolRecorder()
    weather = rec.wrap(get_weather)
    for _ in range(3):
        weather("广州")
    weather("北京")
    assert rec.repeats() == {'get_weather({"location":"广州"})': 3}
    final = rec.result(Q, "").steps[-1]
    assert final.events == ['the same call ran 3 times: get_weather({"location":"广州"})']
    rec.clear()
    assert rec.calls == [] and rec.repeats() == {}


def test_a_framework_that_raised():
    r = ToolRecorder().result(Q, None, status="max_steps", error="MaxTurnsExceeded")
    assert r.status == "max_steps" and r.error == "MaxTurnsExceeded"
    assert ToolRecorder().result(Q, None).status == "provider_error"
    assert not grade(r).ok


def test_calls_from_threads_all_arrive():
    rec = ToolRecorder()
    weather = rec.wrap(get_weather)
    threads = [threading.Thread(target=weather, args=("广州",)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(c.id for c in rec.calls) == sorted(f"call_{i}" for i in range(8))
