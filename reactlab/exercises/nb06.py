"""Checks for notebook 06's exercises (under the hood). They read a rendered prompt, texts for
the tool-call parser, a reply and two runs the learner produced; none calls the model.

Example: check_1(template.render(second, tools=...)) looks for the tool result's tag and turn.
"""

from __future__ import annotations

import json
from typing import Any

from reactlab.exercises import passed, pending, require
from reactlab.grader import grade
from reactlab.runlog import RunResult
from reactlab.server.toolcalls import parse_tool_calls

__all__ = ["check_1", "check_2", "check_3", "check_4"]


def check_1(prompt: Any) -> bool | None:
    """`prompt`: the rendered second request (user, assistant with tool_calls, tool result)."""
    if prompt is None:
        return pending(1, "set `answer_1 = template.render(second, tools=...)`")
    require(1, isinstance(prompt, str), "answer_1 should be the string template.render returned")
    assistant = prompt.find("<|im_start|>assistant")
    require(1, assistant != -1 and "<tool_call>" in prompt[assistant:],
            "no assistant turn with a <tool_call>: add the assistant message with tool_calls")
    at = prompt.find("<tool_response>")
    require(1, at != -1, "no <tool_response> in the prompt: add the role 'tool' message")
    turn = prompt.rfind("<|im_start|>", 0, at)
    role = prompt[turn + len("<|im_start|>"):].split("\n", 1)[0].strip() if turn != -1 else "?"
    return passed(1, f"the tool result sits in <tool_response> inside a {role!r} turn")


def check_2(texts: Any) -> bool | None:
    """`texts`: {label: raw text} — at least three texts a careless model might write."""
    if texts is None:
        return pending(2, "set `answer_2 = {label: text, ...}` with three raw texts")
    require(2, isinstance(texts, dict) and len(texts) >= 3
            and all(isinstance(t, str) and t.strip() for t in texts.values()),
            "answer_2 should be a dict of at least three non-empty texts")
    no_call = [k for k, t in texts.items() if not parse_tool_calls(t, tool_names=["get_weather"]).calls]
    require(2, no_call, "parse_tool_calls finds a call in every one of your texts; write at "
                        "least one it refuses")
    return passed(2, f"{len(no_call)} of {len(texts)} texts give no call: {', '.join(no_call)[:80]}")


def check_3(response: Any) -> bool | None:
    """`response`: the reply to "306 乘以 5 等于多少？" with calculator named in tool_choice."""
    if response is None:
        return pending(3, "set `answer_3` to the response of the request with a named tool_choice")
    choice = getattr(response, "choices", [None])[0]
    calls = getattr(getattr(choice, "message", None), "tool_calls", None) or []
    require(3, calls, "the reply holds no tool call: was tool_choice the named calculator?")
    require(3, all(c.function.name == "calculator" for c in calls),
            f"it called {[c.function.name for c in calls]}; name calculator in tool_choice")
    try:
        args = json.loads(calls[0].function.arguments)
    except ValueError:
        args = None
    require(3, isinstance(args, dict), "the call's arguments are not a JSON object")
    return passed(3, f"calculator({calls[0].function.arguments}) — the name was fixed by the schema")


def check_4(answer: Any) -> bool | None:
    """`answer`: {"react": RunResult, "native": RunResult, "more_tokens": "react" or "native"}."""
    if answer is None:
        return pending(4, 'set `answer_4 = {"react": run1, "native": run2, "more_tokens": ...}`')
    require(4, isinstance(answer, dict) and all(isinstance(answer.get(k), RunResult)
                                                for k in ("react", "native")),
            'answer_4 should hold the two runs: {"react": <RunResult>, "native": <RunResult>, …}')
    spent = {k: sum(answer[k].usage.get(f, 0) for f in ("prompt_tokens", "completion_tokens"))
             for k in ("react", "native")}
    more = max(spent, key=spent.get)
    require(4, answer.get("more_tokens") == more,
            f"read the usage again: react spent {spent['react']} tokens, native {spent['native']}")
    verdicts = ", ".join(f"{k} {'✔' if grade(answer[k]).ok else '✘'}" for k in ("react", "native"))
    return passed(4, f"{more} spent more ({spent['react']} vs {spent['native']} tokens); "
                     f"verdicts: {verdicts}")
