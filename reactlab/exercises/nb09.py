"""Checks for notebook 09's exercises (frameworks). `check_N(None)` says "not attempted yet".

check_1(run): a RunResult of the two-city question driven by LangChain (from a ToolRecorder).
check_2(help_report): your function, tried on a hand-made debug view with two interventions.
check_3(no_repeat): your wrapper, tried on a counting tool: a repeated call is not run again.
None of them calls the model.
"""

from __future__ import annotations

from typing import Any

from reactlab.exercises import passed, pending, require
from reactlab.grader import Expected, grade
from reactlab.runlog import RunResult

__all__ = ["DEBUG_VIEW", "check_1", "check_2", "check_3"]

# What /v1/debug/last said after a helped reply (shortened): the model repeated its call, then
# the constrained retry wrote an answer.
DEBUG_VIEW = {
    "raw_text": '{"answer": "广州现在 24.2°C。"}',
    "help": {"on": True, "repeated_calls_dropped": [], "interventions": [
        {"rule": "repeat_call", "model_wrote": '<tool_call>\n{"name": "get_weather", '
         '"arguments": {"location": "广州"}}\n</tool_call>',
         "why": 'the conversation already has a result for get_weather({"location": "广州"})',
         "action": 'asked again, constrained to {"answer": …} or a call'},
        {"rule": "empty_reply", "model_wrote": "", "why": "no content and no call right after "
         "tool results", "action": "asked again without tools (as tool_choice none)"}]},
}


def check_1(run: Any) -> bool | None:
    """A RunResult of "北京和广州现在哪里更热？" that LangChain drove (protocol "langchain")."""
    if run is None:
        return pending(1, "set `answer_1` to the RunResult that langchain_run returns first: "
                          "answer_1, _ = langchain_run(...)")
    require(1, isinstance(run, RunResult), f"`answer_1` should be a RunResult (from "
                                           f"ToolRecorder.result), not {type(run).__name__}")
    require(1, "北京" in run.question and "广州" in run.question,
            f"the run asked {run.question!r}; ask about both 北京 and 广州")
    require(1, run.protocol == "langchain",
            f"pass framework=\"langchain\" to rec.result (the run says {run.protocol!r})")
    calls = [c for s in run.steps for c in s.tool_calls]
    require(1, calls, "the recorder saw no tool call: give LangChain the tool that "
                      "rec.wrap(get_weather) returned, and run the tool calls it asks for")
    verdict = grade(run, Expected(parts=("北京", "广州")))
    print(verdict)
    return passed(1, f"a LangChain run with {len(calls)} recorded call(s); its verdict is above")


def check_2(help_report: Any) -> bool | None:
    """help_report(debug) -> one line per intervention, naming its rule and what the model wrote."""
    if help_report is None:
        return pending(2, "set `answer_2` to your function help_report")
    require(2, callable(help_report), "`answer_2` should be the function itself")
    lines = help_report(DEBUG_VIEW)
    require(2, isinstance(lines, list) and all(isinstance(x, str) for x in lines),
            f"help_report should return a list of strings, not {lines!r:.120}")
    require(2, len(lines) == 2, f"the debug view has 2 interventions; you returned {len(lines)}")
    require(2, "repeat_call" in lines[0] and "get_weather" in lines[0],
            f"the first line should name the rule (repeat_call) and what the model wrote "
            f"(a get_weather call): {lines[0]!r:.160}")
    require(2, "empty_reply" in lines[1], f"the second line should name empty_reply: "
                                          f"{lines[1]!r:.160}")
    quiet = help_report({"raw_text": "hi", "help": {"on": True, "interventions": []}})
    require(2, quiet == [], f"a reply the server did not touch has no lines, not {quiet!r:.120}")
    off = help_report({"raw_text": "hi"})
    require(2, off == [], "a debug view without a 'help' entry (an older server) has no lines")
    return passed(2, "two interventions, two lines; none when the server did nothing")


def check_3(no_repeat: Any) -> bool | None:
    """no_repeat(tool) -> a tool that runs each distinct call once and says so on a repeat."""
    if no_repeat is None:
        return pending(3, "set `answer_3` to your wrapper no_repeat")
    require(3, callable(no_repeat), "`answer_3` should be the function itself")
    ran = []

    def weather(location: str) -> str:
        """Made-up weather of one city."""
        ran.append(location)
        return f"{location}: 24.2°C"

    wrapped = no_repeat(weather)
    require(3, callable(wrapped), "no_repeat(tool) should return a function")
    first = wrapped(location="广州")
    require(3, first == "广州: 24.2°C", f"the first call should return the tool's result, not "
                                       f"{first!r:.120}")
    second = wrapped(location="广州")
    require(3, ran == ["广州"], f"the repeated call ran the tool again (it ran for {ran})")
    require(3, isinstance(second, str) and "24.2" in second and second != first,
            "on a repeat, return a message that says it is a repeat and gives the earlier "
            f"result (24.2°C), not {second!r:.120}")
    wrapped(location="北京")
    require(3, ran == ["广州", "北京"], f"a call with other arguments should run (it ran for {ran})")
    return passed(3, "广州 ran once, its repeat got the earlier result back, 北京 ran")
