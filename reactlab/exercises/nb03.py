"""Checks for notebook 03's exercises (parsing ReAct). They call the learner's parser on fixed
inputs — no model, no network.

Example: check_2(parse_step) feeds it 1,000 random strings (a fixed seed) and passes when it
only ever returns or raises ValueError.
"""

from __future__ import annotations

import random
from typing import Any

from reactlab.exercises import passed, pending, require
from reactlab.parsing import FinalAnswer, ReActParseError, parse_react

__all__ = ["check_1", "check_2", "check_3", "check_4"]

CALLS = [
    ('Action: get_weather(location="北京")', ("action", "get_weather", {"location": "北京"})),
    ('Thought: 算一下\nAction: calculator(expression="306*5")',
     ("action", "calculator", {"expression": "306*5"})),
    ('Action: get_weather\nAction Input: {"location": "广州"}',  # the old forms still work
     ("action", "get_weather", {"location": "广州"})),
    ("Thought: done\nFinal Answer: 一共能存 1530 元", ("final", "一共能存 1530 元")),
]


def _tuple(result: Any) -> Any:
    return tuple(result) if isinstance(result, list) else result


def check_1(parse: Any) -> bool | None:
    """`parse`: your parse_step that also reads `Action: tool(arg="value")`."""
    if parse is None:
        return pending(1, "set `answer_1` to your extended parse_step")
    require(1, callable(parse), "answer_1 should be the function itself")
    for text, expected in CALLS:
        try:
            got = _tuple(parse(text))
        except Exception as exc:  # noqa: BLE001
            require(1, False, f"on {text!r} it raised {type(exc).__name__}: {exc}")
        require(1, got == expected, f"on {text!r} it returned {got!r}, expected {expected!r}")
    return passed(1, "reads the call syntax, and the JSON / Action Input forms still work")


PIECES = ["Action:", "Final Answer:", "{", "}", "\n", "北京", '"', "Action Input:", "```", " ",
          "[", "]", "'", "(", ")"]


def check_2(parse: Any, tries: int = 1000) -> bool | None:
    """`parse`: the parse_step to fuzz; it may return anything or raise ValueError, nothing else."""
    if parse is None:
        return pending(2, "set `answer_2 = parse_step` (the check fuzzes it for you)")
    require(2, callable(parse), "answer_2 should be the function itself")
    rng = random.Random(2026)
    for _ in range(tries):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        try:
            parse(text)
        except ValueError:
            pass
        except Exception as exc:  # noqa: BLE001 - exactly what we look for
            require(2, False, f"{type(exc).__name__} on {text!r}: turn it into a ValueError "
                              "with a message for the model")
    return passed(2, f"{tries} random strings: only results and ValueError")


def _package(text: str) -> tuple:
    try:
        parsed = parse_react(text)
    except ReActParseError as exc:
        return ("ERROR", exc.code)
    if isinstance(parsed, FinalAnswer):
        return ("final", parsed.answer)
    return ("action", parsed.tool, parsed.args)


def check_3(answer: Any) -> bool | None:
    """`answer`: {"reply": text, "ours": what parse_step gave (or ("ERROR", message))}."""
    if answer is None:
        return pending(3, 'set `answer_3 = {"reply": text, "ours": attempt_parse_step(text)}`')
    require(3, isinstance(answer, dict) and isinstance(answer.get("reply"), str)
            and "ours" in answer, 'answer_3 should be {"reply": <text>, "ours": <result>}')
    ours, theirs = _tuple(answer["ours"]), _package(answer["reply"])
    both_fail = ours and ours[0] == "ERROR" and theirs[0] == "ERROR"
    require(3, not both_fail and ours != theirs,
            f"parse_react reads this reply as {theirs!r} — the same as yours; pick one where "
            "they differ")
    return passed(3, f"they differ — parse_react: {str(theirs)[:50]}; decide who is right")


def check_4(observation: Any) -> bool | None:
    """`observation`: what ToolRegistry([get_weather]).run("get_wether", …) returned."""
    if observation is None:
        return pending(4, 'set `answer_4 = ToolRegistry([get_weather]).run("get_wether", {...})`')
    text = observation[0] if isinstance(observation, tuple) else observation
    require(4, isinstance(text, str), "answer_4 should be the registry's answer (a str or its tuple)")
    require(4, "get_wether" in text and "get_weather" in text,
            "the message should name the unknown tool and the one that exists: was it "
            "run('get_wether', …) on a registry holding get_weather?")
    return passed(4, "the registry names the unknown tool and suggests get_weather — a message "
                     "the model can act on")
