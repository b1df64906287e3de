"""More calls after a complete one: the server opens the next `<tool_call>` for the model.

Measured on BFCL's parallel cases: the 1.5B writes one call and ends its turn, with a
probability of 0.98–1.00 of ending right after the first call, on questions that need two
calls and on questions that need one alike ("What's the weather like in Boston and in San
Francisco?" gets Boston only). Waiting for a second call gets nothing. So, where a request
allows parallel calls, the server writes the template's own `<tool_call>` opening after the
model's calls and lets the model fill it in. It is part of the server's help (`assist`): on
unless the request says `"reactlab_more_calls": false` or `"reactlab_help": false`, or the server
was started with `--no-more-calls` or `--no-help`; a request with the help off may still ask for
it with `"reactlab_more_calls": true` (the course's native agent does under `Guards.more_calls`).
Given that opening, the model often writes the rest of its calls at once (a call, a stray
fence closing, then one fenced call after another); each is kept, in order, only if

- it parses as a call of one of the request's tools (when the token cap cut the opened text,
  its last parsed call is dropped: it may be a cut one the parser repaired),
- it is not one the reply already has (a repeat is how the model says "nothing more"), and
- every value in it that the reply's earlier calls did not write appears in the last user
  message (`grounded`: "San Francisco, CA" counts when the question says San Francisco; a
  number counts by its value, not as text: "50%" grounds 0.5 and "- 7" grounds -7, but the
  "1" inside "10" grounds nothing).

It stops at the first call it does not keep, and at the request's cap on calls; when every call
in an opened tag was kept, it opens the next one. The last rule is what separates a second
city the question names from a value the model makes up when it is pushed to write a call no
question asked for. What this module does NOT do: decide when to try (`chat.Turn`: only under
`tool_choice` "auto" without `reactlab_choice`, with `parallel_tool_calls` true, after a reply
that made a call), or check argument types (the schema does not constrain the continuation). Measured in
`benchmarks/results/bfcl_notes.md` (BFCL's parallel cases: 0/24 without it, 11/24 with it, at
about 1.7 times the time per case) and `frameworks.md`. The course's agents switch the
help off, so their runs never meet it; the raw requests of notebooks 05–07 do (05's parallel
calls meet it, and notebook 09 lists it with the rest of the help).
"""

from __future__ import annotations

import json
import re
from typing import Any

from reactlab.server.template import content_text

OPEN = "<tool_call>\n"
# written after OPEN too: with only the tag opened, the 1.5B ends its turn at once (BFCL's
# parallel cases: an empty reply in the opened tag), so the call's first key is written for it
PREFILL = '{"name": "'
CLOSE = "</tool_call>"
MAX_QUESTION = 20_000  # characters of the last user message compared against (a bound)
MAX_TOKENS = 384  # per opened call (the model may write the rest of its calls in it)
# a number in the question, and whether a percent sign or word follows it
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_NUMBER = re.compile(r"(\d[\d,]*(?:\.\d+)?|\.\d+)\s*(%|percent\b)?", re.IGNORECASE)


def question_text(messages: list[dict]) -> str:
    """The text of the last user message as the model reads it (`template.content_text`: text
    parts joined as they are), at most MAX_QUESTION characters.

    Example: question_text([{"role": "user", "content": [{"type": "text", "text": "Hi"}]}])
             -> "Hi"
    """
    for m in reversed(messages):
        if m.get("role") != "user":
            continue
        return content_text(m.get("content"))[:MAX_QUESTION]
    return ""


def leaves(value: Any, depth: int = 0) -> list[Any]:
    """Every scalar inside an argument value, to a depth of 20.
    Example: leaves({"a": [1, "x"]}) -> [1, "x"]"""
    if depth > 20:
        return []
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in leaves(v, depth + 1)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in leaves(v, depth + 1)]
    return [value]


def _arguments(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        return None


def grounded(arguments: str, earlier: list[str], question: str) -> bool:
    """Does every value of `arguments` (JSON text) that none of the `earlier` calls' arguments
    wrote appear in `question`? False when nothing in it is new, or it is not JSON.

    Example: grounded('{"city": "San Francisco, CA"}', ['{"city": "Boston, MA"}'],
             "What's the weather like in Boston and in San Francisco?") -> True
    """
    args = _arguments(arguments)
    if args is None:
        return False
    seen = {json.dumps(v) for e in earlier if (a := _arguments(e)) is not None
            for v in leaves(a)}
    new = [v for v in leaves(args) if json.dumps(v) not in seen and not isinstance(v, bool)
           and v is not None and str(v).strip()]
    text = question.casefold()
    numbers = question_numbers(question)
    return bool(new) and all(_key(abs(v)) in numbers if isinstance(v, (int, float))
                             else str(v).split(",")[0].strip().casefold() in text
                             for v in new)


def _key(x: float) -> float:
    return round(float(x), 9)


def question_numbers(question: str, limit: int = MAX_QUESTION) -> set[float]:
    """The numbers the question writes, as values: "1,000,000" is 1000000, "50%" is 50 and
    0.5, "- 7" is 7 (a number argument is compared by its absolute value); the first `limit`
    characters are read.

    Example: question_numbers("a 60% chance, 10 shots") -> {60.0, 0.6, 10.0}
    """
    out: set[float] = set()
    for m in _NUMBER.finditer(question[:limit]):
        digits, percent = m.group(1), m.group(2)
        grouped = _GROUPED.fullmatch(digits)  # "1,000,000" is one number, "45,60" two
        pieces = [digits.replace(",", "")] if grouped else [p for p in digits.split(",") if p]
        for piece in pieces:
            try:
                n = float(piece)
            except ValueError:
                continue
            out.add(_key(n))
            if percent:
                out.add(_key(n / 100))
    return out


def call_text(name: str, arguments: str) -> str:
    """A parsed call written back as the template writes one, for the reply's text.
    Example: call_text("f", '{"x": 1}') -> '{"name": "f", "arguments": {"x": 1}}'"""
    args = _arguments(arguments)
    return json.dumps({"name": name, "arguments": arguments if args is None else args},
                      ensure_ascii=False)


def wrap(body: str) -> str:
    """The text a kept call adds to the reply: the opening, the model's call, the closing."""
    return "\n" + OPEN + body.strip() + "\n" + CLOSE


__all__ = ["CLOSE", "MAX_QUESTION", "MAX_TOKENS", "OPEN", "PREFILL", "call_text", "grounded", "leaves",
           "question_numbers", "question_text", "wrap"]
