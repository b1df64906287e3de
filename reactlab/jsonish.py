"""Lenient decoding of the JSON-ish text that models write as tool arguments.

Models wrap JSON in code fences, add a sentence after it, write Python dicts with single
quotes, or use full-width punctuation (`“北京”`, `：`). This module finds the first JSON value
in such text and decodes it with a short list of fallbacks: JSON, then a Python literal
(`ast.literal_eval`, which never runs code), then JSON after replacing full-width punctuation
and trailing commas.

It deliberately does not guess beyond that: unquoted keys or a missing brace stay an error,
because the error message (sent back to the model) is a better repair than our guess.
Everything here runs in linear time, so a 100 kB reply cannot stall the agent.
Used by `reactlab.parsing`; introduced in notebook 03.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

OPENERS = {"{": "}", "[": "]", "(": ")"}
_FULL_WIDTH = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "：": ":", "，": ","})
_NOT_A_LITERAL = object()
_TRAILING_COMMA = re.compile(r",(\s{0,20}[}\]])")


def find_closing(text: str, start: int) -> int | None:
    """Index just past the bracket that closes text[start], skipping quoted strings; None if open.

    Example: find_closing('x {"a": "}"} y', 2) -> 12
    """
    close, opener = OPENERS[text[start]], text[start]
    depth, quote, i, n = 0, "", start, len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1  # skip the escaped character
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            # An apostrophe inside prose ("don't") is not a string start in JSON; only treat it
            # as a quote when it directly follows a JSON-ish delimiter.
            if ch == '"' or text[i - 1 : i] in ("", "{", "[", "(", ",", ":", " ", "\n", "="):
                quote = ch
        elif ch == opener:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def strip_fence(text: str) -> str:
    """Remove one surrounding code fence.

    Example: strip_fence('```json\\n{"a": 1}\\n```') -> '{"a": 1}'
    """
    s = text.strip()
    if not s.startswith("```"):
        return s
    newline = s.find("\n")
    if newline == -1:  # ```{"a": 1}``` on one line
        body = s[3:]
        body = body[4:] if body[:4].lower() == "json" else body
    else:
        body = s[newline + 1 :]
    end = body.rfind("```")
    return (body[:end] if end != -1 else body).strip()


def loads_lenient(text: str) -> Any:
    """Decode one JSON value, or a Python literal, or JSON written with full-width punctuation.

    Raises ValueError with the JSON decoder's own message when every attempt fails.
    Example: loads_lenient("{'location': '北京'}") -> {'location': '北京'}
    """
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        first_error = exc
    value: Any = _NOT_A_LITERAL
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        value = _NOT_A_LITERAL  # not a Python literal either
    if isinstance(value, (dict, list, str, int, float, bool)) or value is None:
        return value
    repaired = _TRAILING_COMMA.sub(r"\1", text.translate(_FULL_WIDTH))
    if repaired != text:
        try:
            return json.loads(repaired)
        except (ValueError, RecursionError):
            pass
    raise ValueError(str(first_error)) from None


def first_value(text: str) -> tuple[Any, int, int] | None:
    """Decode the first {...} or [...] in text: (value, start, end), or None if there is none.

    Raises ValueError when a bracket opens a value that is not closed or cannot be decoded.
    Example: first_value('Action: {"a": 1} done') -> ({'a': 1}, 8, 16)
    """
    starts = [i for i in (text.find("{"), text.find("[")) if i != -1]
    if not starts:
        return None
    start = min(starts)
    end = find_closing(text, start)
    if end is None:
        raise ValueError(f"the {text[start]!r} at character {start} is never closed")
    return loads_lenient(text[start:end]), start, end
