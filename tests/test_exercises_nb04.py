"""Notebook 04's exercise checks, on hand-made runs (no model)."""

from __future__ import annotations

import pytest

from reactlab.exercises import ExerciseNotDone
from reactlab.exercises.nb04 import check_1, check_2, check_3, check_4
from reactlab.prompts import react_system_prompt
from reactlab.runlog import RunResult, Step, ToolCallRecord
from reactlab.tools import ToolRegistry, default_registry, get_closing_price, get_today, get_weather

WEATHER_Q, STOCK_Q = "北京和广州的天气怎么样？", "青岛啤酒和贵州茅台的收盘价哪个贵？"


def run(question, tools, calls, answer, layout="scratchpad"):
    steps = [Step(i, "action", f"Action {i}", tool_calls=[ToolCallRecord(n, a, o)])
             for i, (n, a, o) in enumerate(calls, 1)]
    steps.append(Step(len(steps) + 1, "final", f"Final Answer: {answer}"))
    messages = [{"role": "system", "content": react_system_prompt(tools)},
                {"role": "user", "content": question}]
    if layout == "chat":
        for s in steps[:-1]:
            messages += [{"role": "assistant", "content": s.text},
                         {"role": "user", "content": "Observation: …"}]
    return RunResult(question, answer, "final", steps, messages=messages)


def stock_run(layout="scratchpad"):
    return run(STOCK_Q, ToolRegistry([get_closing_price]),
               [("get_closing_price", {"name": "青岛啤酒"}, "青岛啤酒 (600600.SH) closing price: 67.92 CNY"),
                ("get_closing_price", {"name": "贵州茅台"}, "贵州茅台 (600519.SH) closing price: 1488.21 CNY")],
               "贵州茅台的收盘价贵。", layout)


def weather_run(layout="chat", tools=None):
    return run(WEATHER_Q, tools or ToolRegistry([get_weather]),
               [("get_weather", {"location": "北京"}, "北京: 23.4°C, humidity 43%"),
                ("get_weather", {"location": "广州"}, "广州: 24.2°C, humidity 79%")],
               "北京23.4°C，广州24.2°C。", layout)


def same_call_twice(calls):
    return len(calls) >= 2 and calls[-1] == calls[-2]


@pytest.mark.parametrize("check", [check_1, check_2, check_3, check_4])
def test_none_is_pending(check, capsys):
    assert check(None) is None
    assert "not attempted yet" in capsys.readouterr().out


def test_right_answers_pass(capsys):
    today = run("今天是几号？", ToolRegistry([get_today]),
                [("get_today", {}, "2026-03-01 (Sunday, 星期日)")], "今天是2026-03-01。")
    assert check_1((stock_run(), weather_run()))
    assert check_2(today)
    assert check_3(same_call_twice)
    assert check_4(weather_run("scratchpad", default_registry()))
    out = capsys.readouterr().out
    assert out.count("✔ exercise") == 4 and "verdict: ✔" in out


@pytest.mark.parametrize("check, answer", [
    (check_1, (weather_run(), stock_run())),               # the questions swapped
    (check_1, (stock_run("chat"), weather_run())),         # the stock run in the chat layout
    (check_1, (stock_run(), weather_run("scratchpad"))),  # the weather run not in the chat layout
    (check_1, stock_run()),                                # not a pair
    (check_2, "今天是2026-03-01"),                          # not a run
    (check_2, weather_run("scratchpad")),                  # the wrong question
    (check_2, run("今天是几号？", ToolRegistry([get_weather]), [], "不知道")),  # no get_today offered
    (check_3, lambda calls: True),
    (check_3, lambda calls: calls[-1] == calls[-2]),       # fails on a short list
    (check_3, same_call_twice([])),                        # the result, not the function
    (check_4, weather_run("scratchpad")),                  # only get_weather offered
])
def test_wrong_answers_raise(check, answer):
    with pytest.raises(ExerciseNotDone):
        check(answer)
