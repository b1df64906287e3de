"""Turn one ReAct reply into an `Action`, a `FinalAnswer`, or a `ReActParseError` for the model.

The rules:
1. Cut at the first line that starts an `Observation` (also `## observation:`): the model
   invented it. Drop a partial stop word left at the very end (`Obs`, `Observ`), and a last
   `PAUSE` line. A reply that arrived with its newlines escaped (`\\n` literally) gets them back.
2. Whichever comes first wins: an `Action` before any `Final Answer` (or LlamaIndex's
   `Answer:`), or the other way round. Both on the `Action:` line is an error.
3. Accepted action shapes: `Action:` + a JSON blob (`action`/`action_input`, `name`/`arguments`,
   `tool_name`/`tool_arguments`, ...), fenced or bare; `Action:` + `Action Input:` lines (the
   tool name may have spaces, or a description in parentheses); `Action: tool(...)` or
   `Action: tool[...]`; the colon style `Action: wikipedia: Django`; `Finish[...]` as a final
   answer; with no label at all, a bare blob, an XML-ish call (`<function=…>`, `<invoke …>`,
   `<tool_name>…`) or a reply that is just one call written as code. Colons may be full-width
   (`：`); arguments may be JSON, JSON with raw newlines, or a Python literal dict.
4. One action per reply, with its input. Two actions, an `Action:` with no input, or nothing
   recognisable raise `ReActParseError`, whose text is written for the model: what was wrong,
   and the expected format.

This module finds *where* the step is; `reactlab.action_parsing` reads one action's text and
`reactlab.jsonish` decodes JSON-ish arguments. It does not know which tools exist (the
registry checks names and arguments), it never repairs broken JSON beyond jsonish's small
fallbacks, and a reply that is only `print("hi")` is read as a call of a tool named `print`
(a simplification: the registry then says which tools exist). Notebook 02 first imports
`cut_at_stop` and `strip_invented_observation`; notebook 03 builds `parse_react`'s rules by hand
and then uses this one.

Longer than most modules (about 330 lines) because each accepted family of real replies needs
its own small rule; they stay together so the precedence between them reads in one place.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from reactlab.action_parsing import (
    CALL,
    ShapeError,
    clean_name,
    decode_args,
    from_blob,
    from_call,
    from_code,
    from_xml,
)


@dataclass(frozen=True)
class Action:
    """Example: Action(tool="get_weather", args={"location": "北京"}, thought="先查北京")"""

    tool: str
    args: dict | str = field(default_factory=dict)
    thought: str | None = None


@dataclass(frozen=True)
class FinalAnswer:
    """Example: FinalAnswer(answer="北京晴，23.4°C", thought="I now know the final answer")"""

    answer: str
    thought: str | None = None


JSON_FORMAT = """Thought: <what you will do next>
Action:
```
{"action": "<tool name>", "action_input": {"<argument>": "<value>"}}
```
or, once you know the answer:
Thought: I now know the final answer
Final Answer: <your answer>"""

ACTION_INPUT_FORMAT = """Thought: Do I need to use a tool? Yes
Action: <tool name>
Action Input: {"<argument>": "<value>"}
or, once you know the answer:
Thought: Do I need to use a tool? No
Final Answer: <your answer>"""


class ReActParseError(ValueError):
    """A reply we could not read. str() is the message sent back to the model as Observation.

    `code` names the problem for tests and tables: no_step, multiple_actions, bad_json,
    no_tool_name, no_input, action_and_final, empty_final.
    """

    def __init__(self, problem: str, *, code: str, style: str = "json", text: str = ""):
        self.problem, self.code, self.text = problem, code, text
        example = ACTION_INPUT_FORMAT if style == "action_input" else JSON_FORMAT
        super().__init__(f"Format error: {problem}\nReply again in exactly this format:\n{example}")


# Labels. Bounded quantifiers ({0,8}) keep every pattern linear on hostile input.
# optional markdown bold around an ASCII or full-width colon: "Action:", "**Action:**", "Action："
_C = r"(?:\*\*)?[ \t]{0,8}[:：](?:\*\*)?"
_NOT_AFTER = r"(?<![\w\"'])"
# "Observation" (also the bare stop residue), or "## observation:" in any case with a colon
OBSERVATION_LINE = re.compile(r"^[ \t>*_#-]{0,8}(?:Observation(?![A-Za-z])"
                              r"|(?i:observation)[ \t]{0,8}[:：])", re.MULTILINE)
ACTION = re.compile(_NOT_AFTER + r"Action(?:[ \t]{1,8}\d{1,3})?" + _C)
ACTION_INPUT = re.compile(_NOT_AFTER + r"Action[ \t_]{0,3}Input" + _C, re.IGNORECASE)
# "Final Answer:" anywhere; other capitalisations ("final answer:"), 最终答案 and LlamaIndex's
# "Answer:" only at a line start, so a Thought that mentions "my final answer: …" is not one.
FINAL = re.compile(_NOT_AFTER + r"Final[ \t_]{0,3}Answer" + _C
                   + r"|(?im:^[ \t*#]{0,8}(?:final[ \t_]{0,3}answer|最终答案|answer))" + _C)
THOUGHT = re.compile(_NOT_AFTER + r"Thought(?:[ \t]{1,8}\d{1,3})?" + _C)
NEXT_LABEL = re.compile(r"^[ \t*]{0,8}(?:Thought|Action|Observation|Final Answer|Question)"
                        r"\b[^\n:：]{0,12}[:：]", re.MULTILINE)
FINISH_LINE = re.compile(r"^[ \t]{0,8}Finish\[", re.MULTILINE)
# `Action: wikipedia: Django` (the colon style of the PAUSE prompt)
COLON_STYLE = re.compile(r"([^\W\d][\w.\-]{0,80})[ \t]{0,3}[:：][ \t]{0,8}(\S.*)", re.DOTALL)
MAX_INPUTS = 8  # more `Action Input:` lines than this is never one call (and bounds the work)
FINAL_NAMES = {"final answer", "final_answer", "finalanswer", "finish"}
STOP_WORD = "Observation"


def cut_at_stop(text: str, stops: list[str] | tuple[str, ...] | str | None) -> str:
    """Client-side `stop`: keep text before the earliest stop string (for providers that refuse
    the `stop` parameter).

    Example: cut_at_stop("Action: x\\nObservation: 42", ["Observation:"]) -> "Action: x\\n"
    """
    if isinstance(stops, str):
        stops = [stops]
    cut = len(text)
    for stop in stops or ():
        i = text.find(stop) if stop else -1
        if i != -1:
            cut = min(cut, i)
    return text[:cut]


def strip_invented_observation(text: str) -> str:
    """Rule 1: drop everything from the first line starting with "Observation", then a partial
    stop word at the end.

    Example: strip_invented_observation("Action: a\\nObservation: 晴\\nThought: …") -> "Action: a"
    Example: strip_invented_observation("…\\n```\\nObserv") -> "…\\n```"
    """
    m = OBSERVATION_LINE.search(text)
    if m:
        text = text[: m.start()]
    body = text.rstrip().rstrip(":：")
    j = len(body)
    while j > 0 and len(body) - j < len(STOP_WORD) + 1 and body[j - 1].isascii() \
            and body[j - 1].isalpha():
        j -= 1
    word = body[j:]
    if 3 <= len(word) <= len(STOP_WORD) and STOP_WORD.startswith(word):
        return body[:j].rstrip()
    return text.rstrip()


def unescape_newlines(text: str) -> str:
    """A reply whose newlines arrived escaped (one line holding literal backslash-n) gets them
    back; any other text is returned unchanged.

    Example: unescape_newlines("Thought: x\\nFinal Answer: 42") -> "Thought: x\nFinal Answer: 42"
    """
    if "\n" in text or "\\n" not in text:
        return text
    try:  # the whole reply JSON-escaped: undo every escape at once
        decoded = json.loads('"' + text + '"')
        if isinstance(decoded, str):
            return decoded
    except ValueError:
        pass  # raw quotes inside: only the newlines were escaped
    return text.replace("\\r\\n", "\n").replace("\\n", "\n").replace("\\t", "\t")


def strip_pause(text: str) -> str:
    """Drop a last line that is just `PAUSE` (the colon-style prompt's stop word).

    Example: strip_pause("Action: wikipedia: Django\nPAUSE") -> "Action: wikipedia: Django"
    """
    body = text.rstrip()
    head, _, last = body.rpartition("\n")
    return head.rstrip() if last.strip() == "PAUSE" else text


def parse_react(text: str, *, style: str | None = None) -> Action | FinalAnswer:
    """Parse one model reply. `style` ("json" / "action_input") only picks the format example
    shown in errors; by default it is guessed from the reply.

    Example: parse_react('Thought: 先查北京\\nAction:\\n```\\n{"action": "get_weather",
             "action_input": {"location": "北京"}}\\n```\\nObservation')
             -> Action(tool='get_weather', args={'location': '北京'}, thought='先查北京')
    """
    text = unescape_newlines(text if isinstance(text, str) else str(text or ""))
    style = style or ("action_input" if ACTION_INPUT.search(text) or "tool?" in text else "json")
    text = strip_pause(strip_invented_observation(text))
    try:
        return _parse(text)
    except ShapeError as exc:
        raise ReActParseError(str(exc), code=exc.code, style=style, text=text) from None


def _parse(text: str) -> Action | FinalAnswer:
    action, final = ACTION.search(text), FINAL.search(text)
    if action and final and final.start() > action.start() \
            and "\n" not in text[action.end() : final.start()]:
        raise ShapeError("your `Action:` line also holds a `Final Answer:`. Write EITHER an "
                         "Action (with its Action Input) OR a Final Answer, not both.",
                         "action_and_final")
    if final and (not action or final.start() < action.start()):
        answer = text[final.end() :]
        nxt = NEXT_LABEL.search(answer)  # an invented continuation ("Action: …") is not the answer
        return _step("Final Answer", answer[: nxt.start()] if nxt else answer,
                     _thought(text[: final.start()]))
    if action:
        end = final.start() if final else len(text)
        return _parse_action(text[action.end() : end], _thought(text[: action.start()]))
    finish = FINISH_LINE.search(text)
    if finish:
        body = text[finish.start() :].lstrip()
        return _step(*from_call("Finish", body, body.index("[")), _thought(text[: finish.start()]))
    # No label at all: an XML-ish call, a bare blob ({"name": …, "arguments": …}), or a call
    # written as code (`[get_weather(city="SF")]`).
    xml = from_xml(text)
    if xml:
        return _step(*xml, _thought(text[: text.find("<")]))
    start = min((i for i in (text.find("```"), text.find("{")) if i != -1), default=-1)
    if start != -1:
        try:
            return _step(*from_blob(text[start:]), _thought(text[:start]))
        except ShapeError as exc:
            if exc.code == "multiple_actions":
                raise
            # the braces were not an action blob: maybe code, else the general message below
    code = from_code(text)
    if code:
        return _step(*code, None)
    if THOUGHT.search(text):
        raise ShapeError("your reply has a Thought but no `Action:` and no `Final Answer:`. "
                         "After the Thought, either call one tool or give the final answer.",
                         "no_step")
    raise ShapeError("I could not find an `Action:` or a `Final Answer:` in your reply.", "no_step")


def _parse_action(segment: str, thought: str | None) -> Action | FinalAnswer:
    """Everything between `Action:` and the end of the reply (or a later `Final Answer:`)."""
    if ACTION.search(segment):
        raise ShapeError("your reply contains more than one Action. Write exactly ONE Action, "
                         "then stop and wait for its Observation.", "multiple_actions")
    inputs = []
    for m in ACTION_INPUT.finditer(segment):
        inputs.append(m)
        if len(inputs) > MAX_INPUTS:
            raise ShapeError(f"your reply has more than {MAX_INPUTS} `Action Input:` lines. Call "
                             f"ONE tool per reply, with ONE `Action Input:`.", "multiple_actions")
    if inputs:
        args = [decode_args(_until_label(segment[m.end() :])) for m in inputs]
        return _step(segment[: inputs[0].start()], _one_input(args), thought, words=True)
    body = segment.strip()
    if not body:
        raise ShapeError("`Action:` is not followed by anything. Name the tool and its input.",
                         "no_tool_name")
    if body[0] == "<":
        xml = from_xml(body)
        if xml:
            return _step(*xml, thought)
        body = body[body.find("{") :] if "{" in body else body
    if body.startswith("```") or body[0] in "{[":
        return _step(*from_blob(body), thought)
    call = CALL.match(body)
    if call:
        return _step(*from_call(call.group(1), body, call.start(2)), thought)
    first_line, _, rest = body.partition("\n")
    colon = COLON_STYLE.fullmatch(first_line.strip())
    if colon:  # `Action: wikipedia: Django`
        extra = _until_label(rest).strip()
        return _step(colon.group(1), decode_args(colon.group(2) + ("\n" + extra if extra else "")),
                     thought)
    # `Action: get_weather` followed by its arguments on the next lines, or by nothing.
    given = _until_label(rest).strip()
    if not given:
        name = clean_name(first_line)
        if name.lower() in FINAL_NAMES:
            raise ShapeError("your final answer is empty. Write the answer right after "
                             "`Final Answer:`.", "empty_final")
        raise ShapeError(f"`Action: {name}` has no input. Give the tool its arguments as one "
                         f"JSON object (`{{}}` if it takes none): on the next line "
                         f"`Action Input: {{}}`, or the JSON blob shown below.", "no_input")
    return _step(first_line, decode_args(given), thought)


def _one_input(inputs: list[dict | str]) -> dict | str:
    """Several `Action Input:` lines under one Action. Seen on the local 1.5B: the real input
    followed by an extra `Action Input: {}`, or one line per argument. Empty lines are dropped
    and dicts with different keys merged; anything else is ambiguous, so the model must fix it.

    Example: _one_input([{"date1": "2026-03-01"}, {"date2": "2027-01-01"}, {}])
             -> {"date1": "2026-03-01", "date2": "2027-01-01"}
    """
    given = [a for a in inputs if a not in ({}, "")]
    if len(given) <= 1:
        return given[0] if given else {}
    merged: dict = {}
    for a in given:
        if not isinstance(a, dict) or merged.keys() & a.keys():
            raise ShapeError(f"your reply has {len(inputs)} `Action Input:` lines. Call ONE tool "
                             f"per reply and put all of its arguments in ONE JSON object after a "
                             f"single `Action Input:`.", "multiple_actions")
        merged.update(a)
    return merged


def _step(name: str, args: Any, thought: str | None, *, words: bool = False
          ) -> Action | FinalAnswer:
    """(name, args) -> Action, or FinalAnswer for `Finish[...]` / {"action": "Final Answer"}.
    `words` allows a tool name with spaces (only before an `Action Input:`)."""
    if name.strip().strip("`*\"'").lower() in FINAL_NAMES:
        answer = args if isinstance(args, str) else (
            "" if args in ({}, []) else json.dumps(args, ensure_ascii=False))
        if not answer.strip():
            raise ShapeError("your final answer is empty. Write the answer right after "
                             "`Final Answer:`.", "empty_final")
        return FinalAnswer(answer.strip(), thought)
    return Action(clean_name(name, words=words), args, thought)


def _thought(prefix: str) -> str | None:
    """The text before the first label, without its `Thought:` label."""
    m = THOUGHT.search(prefix)
    thought = (prefix[m.end() :] if m else prefix).strip().strip("*").strip()
    return thought or None


def _until_label(text: str) -> str:
    nxt = NEXT_LABEL.search(text)
    return text[: nxt.start()] if nxt else text
