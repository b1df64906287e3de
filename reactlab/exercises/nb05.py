"""Checks for notebook 05's exercises (native tool calls). See `reactlab.exercises`.

`check_1` validates the learner's message lists with the local server's own message checker
(`reactlab.server.conversation.check_messages`, no model); `check_2` assembles their chunks
with `ToolCallAccumulator`; `check_3` runs their `run_in_order` on a tool that sleeps;
`check_4` reads their run's record and prints its verdict (the model's luck decides the
verdict, so it is shown, not required). Example: check_2(interleaved) -> "✔ exercise 2: …"
"""

from __future__ import annotations

import json
import time
from itertools import pairwise
from typing import Any

from reactlab.exercises import passed, pending, require
from reactlab.grader import Expected, grade
from reactlab.runlog import RunResult
from reactlab.server.conversation import check_messages
from reactlab.server.errors import APIError
from reactlab.streaming import ToolCallAccumulator
from reactlab.tools import ToolRegistry, tool

__all__ = ["check_1", "check_2", "check_3", "check_4"]

STOCK_EXPECTED = Expected(figures=("67.92", "1488.21"), winner="贵州茅台")


def _refusal(messages: list) -> str | None:
    """The local server's 400 message for these messages, or None when it would accept them."""
    try:
        check_messages(messages)
    except APIError as err:
        return str(err)
    return None


def check_1(answer: Any) -> bool | None:
    """answer: (messages with a wrong tool_call_id, messages without the tool result)."""
    if answer is None:
        return pending(1, "set answer_1 = (wrong_id_messages, no_result_messages)")
    require(1, isinstance(answer, tuple) and len(answer) == 2
            and all(isinstance(m, list) for m in answer),
            "answer_1 should be a pair of message lists: (wrong_id, no_result)")
    wrong_id, no_result = answer
    require(1, any(isinstance(m, dict) and m.get("tool_call_id") == "call_other" for m in wrong_id),
            "the first list should hold a tool message whose tool_call_id is \"call_other\"")
    require(1, any(isinstance(m, dict) and m.get("tool_calls") for m in wrong_id),
            "the first list should keep the assistant message with its tool_calls")
    require(1, any(isinstance(m, dict) and m.get("tool_calls") for m in no_result)
            and not any(isinstance(m, dict) and m.get("role") == "tool" for m in no_result),
            "the second list should keep the assistant message with tool_calls and drop the "
            "tool message")
    reasons = [_refusal(wrong_id), _refusal(no_result)]
    require(1, all(reasons), "the server would accept one of the lists as it is — "
                             "break exactly one thing in each")
    return passed(1, f"both are refused. (a) {reasons[0]}  (b) {reasons[1]}")


def _fragments(chunks: list) -> list[dict]:
    return [f for c in chunks if isinstance(c, dict) for ch in c.get("choices") or []
            for f in (ch.get("delta") or {}).get("tool_calls") or []]


def check_2(answer: Any) -> bool | None:
    """answer: chunk dicts for two calls whose fragments alternate index 0, 1, 0, 1."""
    if answer is None:
        return pending(2, "set answer_2 to your list of chunk dicts")
    require(2, isinstance(answer, list) and all(isinstance(c, dict) for c in answer),
            "answer_2 should be a list of chunk dicts ({\"choices\": [{\"delta\": …}]})")
    frags = _fragments(answer)
    order = [f.get("index") for f in frags]
    require(2, len(order) >= 4 and all(a != b for a, b in pairwise(order))
            and set(order) == {0, 1},
            f"the fragments should alternate between index 0 and 1 (0, 1, 0, 1); got {order}")
    second_ids = [f.get("id") for f in frags if f.get("index") == 1]
    require(2, second_ids[0] and len(set(second_ids)) == 1,
            f"every fragment of the second call should repeat its id; got {second_ids}")
    acc = ToolCallAccumulator()
    for chunk in answer:
        acc.add(chunk)
    calls = acc.tool_calls
    require(2, len(calls) == 2, f"ToolCallAccumulator assembles {len(calls)} call(s), not 2")
    try:
        places = [json.loads(c["function"]["arguments"]).get("location") for c in calls]
    except (ValueError, AttributeError):
        places = [c["function"]["arguments"] for c in calls]
    require(2, places == ["北京", "广州"] and all(c["function"]["name"] == "get_weather"
                                              for c in calls),
            f"the two calls should be get_weather for 北京 and for 广州; assembled: {calls}")
    return passed(2, f"two clean calls from {len(frags)} interleaved fragments: "
                     f"{[(c['id'], c['function']['arguments']) for c in calls]}")


@tool
def nap(text: str, seconds: float) -> str:
    """Return text after sleeping a while (a stand-in for a slow tool).

    Args:
        text: what to return, e.g. result 0
        seconds: how long to sleep, e.g. 0.2
    """
    time.sleep(seconds)
    return text


def check_3(answer: Any) -> bool | None:
    """answer: run_in_order(calls, registry) -> the tool messages, in call order."""
    if answer is None:
        return pending(3, "write run_in_order(calls, registry) and set answer_3 = run_in_order")
    require(3, callable(answer), "answer_3 should be the function itself (no parentheses)")
    sleeps = [0.4, 0.3, 0.2, 0.1]  # the first call finishes last
    calls = [{"id": f"call_{i}", "name": "nap",
              "arguments": json.dumps({"text": f"result {i}", "seconds": s})}
             for i, s in enumerate(sleeps)]
    start = time.perf_counter()
    out = answer(calls, ToolRegistry([nap]))
    took = time.perf_counter() - start
    require(3, isinstance(out, list) and len(out) == len(calls),
            f"run_in_order should return a list of {len(calls)} tool messages, got {out!r:.200}")
    ids = [m.get("tool_call_id") if isinstance(m, dict) else None for m in out]
    require(3, ids == [c["id"] for c in calls],
            f"the tool messages should come back in call order (call_0 … call_3); got {ids}")
    require(3, all(m.get("role") == "tool" and m.get("content") == f"result {i}"
                   for i, m in enumerate(out)),
            "each message should be {\"role\": \"tool\", \"tool_call_id\": …, \"content\": "
            "the tool's result}")
    require(3, took < 0.8 * sum(sleeps),
            f"the calls took {took:.2f} s, about as long as one after the other "
            f"({sum(sleeps):.1f} s): run them in a thread pool")
    return passed(3, f"results in call order after {took:.2f} s (one after the other would take "
                     f"{sum(sleeps):.1f} s)")


def check_4(answer: Any) -> bool | None:
    """answer: run_function_calling on the 青岛啤酒 / 贵州茅台 question."""
    if answer is None:
        return pending(4, "set answer_4 = run_function_calling(\"青岛啤酒和贵州茅台…\", …)")
    require(4, isinstance(answer, RunResult),
            f"answer_4 should be the RunResult run_function_calling returns, not "
            f"{type(answer).__name__}")
    require(4, "青岛啤酒" in answer.question and "贵州茅台" in answer.question,
            "the run should ask about 青岛啤酒 and 贵州茅台")
    require(4, answer.protocol == "function_calling",
            "use run_function_calling (native tool calls), not run_react")
    per_step = [len(s.tool_calls) for s in answer.steps]
    return passed(4, f"calls per step {per_step} → {grade(answer, STOCK_EXPECTED)}")
