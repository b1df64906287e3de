"""Checks for notebook 04's exercises (the scratchpad loop). See `reactlab.exercises`.

Each `check_N(answer)` reads what the learner's code returned — a `RunResult` or a function —
and never calls the model. A run's outcome is the model's luck, so the run checks verify what
the learner's code controls (the question, the layout, the tools offered) and print the run's
verdict for the learner to read; they do not require a ✔ verdict.
Example: check_3(same_call_twice) -> "✔ exercise 3: …"
"""

from __future__ import annotations

from typing import Any

from reactlab.exercises import passed, pending, require
from reactlab.grader import Expected, grade
from reactlab.runlog import RunResult

__all__ = ["check_1", "check_2", "check_3", "check_4"]

SIX_TOOLS = ("get_weather", "get_closing_price", "get_today", "days_between", "calculator",
             "search_docs")


def _run(number: int, value: Any, what: str) -> RunResult:
    require(number, isinstance(value, RunResult),
            f"{what} should be a RunResult (what react_scratchpad, react_chat and run_react "
            f"return), not {type(value).__name__}")
    require(number, value.steps, f"{what} has no steps: did the loop send any request?")
    return value


def _system(run: RunResult) -> str:
    first = (run.messages or [{}])[0]
    return first.get("content") or "" if first.get("role") == "system" else ""


def _calls(run: RunResult) -> list[str]:
    return [f"{c.name}({c.arguments})" for s in run.steps for c in s.tool_calls]


def check_1(answer: Any) -> bool | None:
    """answer: (stock run in the scratchpad layout, weather run in the chat layout)."""
    if answer is None:
        return pending(1, "set answer_1 = (react_scratchpad(stock_q, …), react_chat(weather_q, …))")
    require(1, isinstance(answer, tuple) and len(answer) == 2,
            "answer_1 should be a pair: (the stock run, the weather run)")
    stock, weather = (_run(1, a, w) for a, w in zip(answer, ("the stock run", "the weather run")))
    require(1, "青岛啤酒" in stock.question and "贵州茅台" in stock.question,
            "the first run should ask the stock question (青岛啤酒 and 贵州茅台)")
    require(1, "北京" in weather.question and "广州" in weather.question,
            "the second run should ask the weather question (北京 and 广州)")
    require(1, len(stock.messages) == 2,
            "the stock run should use react_scratchpad: its requests have exactly two messages "
            f"(system + one user message), but its last request had {len(stock.messages)}")
    roles = [m.get("role") for m in weather.messages]
    chat = roles[:2] == ["system", "user"] and all(
        r == ("assistant" if i % 2 == 0 else "user") for i, r in enumerate(roles[2:]))
    require(1, chat and len(roles) == 2 * len(weather.steps),
            "the weather run should use react_chat: system, question, then one assistant reply "
            "and one Observation message per earlier step")
    stock_v = grade(stock, Expected(winner="贵州茅台"))
    weather_v = grade(weather, Expected(parts=("北京", "广州")))
    return passed(1, f"layouts swapped. stocks: {_calls(stock)} → {stock_v}; "
                     f"weather: {_calls(weather)} → {weather_v}")


def check_2(answer: Any) -> bool | None:
    """answer: the run that asked 今天是几号？ with get_today among its tools."""
    if answer is None:
        return pending(2, "set answer_2 to the run that asked 今天是几号？ with get_today")
    run = _run(2, answer, "answer_2")
    require(2, "几号" in run.question or "date" in run.question.lower(),
            f"the run should ask 今天是几号？, but it asked {run.question!r}")
    require(2, "get_today" in _system(run),
            "the model was never offered get_today: its system prompt does not list it. "
            "Build the registry with ToolRegistry([get_today]) (or add it to one)")
    used = any(c.name == "get_today" for s in run.steps for c in s.tool_calls)
    verdict = grade(run, Expected(figures=("2026-03-01",)))
    return passed(2, f"{len(run.steps)} step(s); the model {'called' if used else 'did not call'} "
                     f"get_today → {verdict}")


def check_3(answer: Any) -> bool | None:
    """answer: same_call_twice(calls) -> bool, True when the last two calls are identical."""
    if answer is None:
        return pending(3, "write same_call_twice(calls) and set answer_3 = same_call_twice")
    require(3, callable(answer), "answer_3 should be the function itself (no parentheses)")
    beijing, guangzhou = ("get_weather", {"location": "北京"}), ("get_weather", {"location": "广州"})
    cases = [([], False), ([beijing], False), ([beijing, guangzhou], False),
             ([beijing, beijing], True), ([beijing, guangzhou, guangzhou], True),
             ([beijing, guangzhou, beijing], False),
             ([("get_weather", {"location": "北京"}), ("get_weather", {"location": "北京"})], True)]
    for calls, want in cases:
        try:
            got = answer(list(calls))
        except Exception as exc:  # noqa: BLE001 - the learner's code: report, do not crash
            require(3, False, f"same_call_twice({calls}) raised {type(exc).__name__}: {exc}")
        require(3, bool(got) == want and isinstance(got, bool),
                f"same_call_twice({calls}) should be {want}, got {got!r}")
    return passed(3, "same_call_twice is True exactly when the last two calls are identical "
                     "(same tool, same arguments)")


def check_4(answer: Any) -> bool | None:
    """answer: run_react on the weather question with all six course tools."""
    if answer is None:
        return pending(4, "set answer_4 = run_react(weather_q, tools=default_registry(), …)")
    run = _run(4, answer, "answer_4")
    system = _system(run)
    missing = [name for name in SIX_TOOLS if name not in system]
    require(4, not missing, f"the model was not offered all six tools: its system prompt lacks "
                            f"{', '.join(missing)}. Pass tools=default_registry()")
    tokens = run.steps[0].prompt_tokens
    verdict = grade(run, Expected(parts=("北京", "广州")))
    return passed(4, f"step 1 cost {tokens} prompt tokens with six tool descriptions in the "
                     f"system prompt → {verdict}")
