"""The one lenient JSON reader of the package: the JSON-ish text models write as arguments.

Models wrap JSON in code fences, add a sentence after it, write Python dicts (single quotes,
`True`, `None`), put raw newlines inside strings, leave a trailing comma, or use full-width
punctuation (`“北京”`, `：`, `，`). `loads_lenient` decodes one such value with a short list of
fallbacks, in this order: JSON; JSON with raw control characters allowed inside strings; a
Python literal (`ast.literal_eval`, which never runs code); JSON after replacing full-width
punctuation and dropping trailing commas. What it returns is always plain JSON data (dict with
string keys, list, str, int, finite float, bool, None): a Python set or tuple becomes a list.

It deliberately does NOT accept: unquoted keys (`{a: 1}`), a missing brace or quote, comments,
`NaN`/`Infinity`, bytes (`b'x'`), complex numbers (`1j`), non-string keys it cannot name (tuple
keys), or nesting deeper than `MAX_DEPTH`. Those raise `ValueError` with a sentence saying what
to write instead, because that message (sent back to the model) is a better repair than our
guess. Every function here runs in time linear in the input (a few passes), so a 100 kB reply
cannot stall the agent.

The reader for the whole package (`loads_lenient`, `first_value`, `find_closing`,
`strip_fence`); `reactlab.action_parsing` reads tool arguments with it. No notebook imports it
directly: notebook 03 builds a small version by hand (`first_object`).
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

MAX_DEPTH = 64  # deeper than any real tool argument; keeps the decoders far from recursion limits
OPENERS = {"{": "}", "[": "]", "(": ")"}
_FULL_WIDTH = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "：": ":", "，": ",",
                             "｛": "{", "｝": "}", "［": "[", "］": "]"})
_TRAILING_COMMA = re.compile(r",(\s{0,20}[}\]])")
_NOT_DECODED = object()


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


def nesting_depth(text: str) -> int:
    """The deepest bracket nesting outside double-quoted strings (one linear pass).

    Example: nesting_depth('{"a": [1, {"b": "[[["}]}') -> 3
    """
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "}])":
            depth = max(depth - 1, 0)
    return deepest


def jsonable(value: Any, _depth: int = 0) -> Any:
    """`value` as plain JSON data: tuples and sets become lists, number/bool/None keys strings.

    Raises ValueError, with what to write instead, for what JSON cannot hold.
    Example: jsonable({"ids": {2, 1}, 3: (True, None)}) -> {'ids': [1, 2], '3': [True, None]}
    """
    if _depth > MAX_DEPTH:
        raise ValueError(f"the value is nested deeper than {MAX_DEPTH} levels; flatten it")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a JSON number; write a finite number")
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out[_key(key)] = jsonable(item, _depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [jsonable(item, _depth + 1) for item in value]
    if isinstance(value, (set, frozenset)):
        items = [jsonable(item, _depth + 1) for item in value]
        # sets have no order; sort (by type, then value) so the same reply gives the same args
        return sorted(items, key=lambda x: (type(x).__name__, json.dumps(x, sort_keys=True)))
    if isinstance(value, (bytes, bytearray)):
        # ValueError, not TypeError: the one documented error of this module
        raise ValueError(f"{bytes(value)[:20]!r} is a bytes literal; write a plain string "  # noqa: TRY004
                         f"in double quotes instead")
    if isinstance(value, complex):
        raise ValueError(f"{value!r} is a complex number; write a real number or a string")  # noqa: TRY004
    raise ValueError(f"{type(value).__name__} values cannot be tool arguments; write JSON "
                     f"(strings, numbers, true/false, null, lists, objects)")


def _key(key: Any) -> str:
    """A dict key as JSON would write it. Example: _key(3) -> "3"; _key(None) -> "null"."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or key is None or isinstance(key, (int, float)):
        return json.dumps(jsonable(key))
    raise ValueError(f"the key {key!r} is not a string; object keys must be strings in double "
                     f"quotes, e.g. {{\"name\": 1}}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number; write a finite number")


def _json(text: str, strict: bool = True) -> Any:
    return json.loads(text, strict=strict, parse_constant=_reject_constant)


def loads_lenient(text: str) -> Any:
    """Decode one JSON value, or a Python literal, or JSON with raw newlines inside strings or
    full-width punctuation. The result is plain JSON data (see `jsonable`).

    Raises ValueError with the JSON decoder's message (or what to fix) when every attempt fails.
    Example: loads_lenient("{'location': '北京', 'days': (1, 2)}") -> {'location': '北京', 'days': [1, 2]}
    """
    if not isinstance(text, str):
        raise ValueError(f"expected text, got {type(text).__name__}")  # noqa: TRY004
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise ValueError(f"the value is nested {depth} levels deep (at most {MAX_DEPTH}); "
                         f"flatten it")
    try:
        return jsonable(_json(text))
    except (ValueError, RecursionError) as exc:
        first_error: Exception = exc
    attempts = [lambda: _json(text, strict=False), lambda: _literal(text)]
    repaired = _TRAILING_COMMA.sub(r"\1", text.translate(_FULL_WIDTH))
    if repaired != text:
        attempts += [lambda: _json(repaired, strict=False), lambda: _literal(repaired)]
    for attempt in attempts:
        try:
            value = attempt()
            if value is not _NOT_DECODED:
                return jsonable(value)
        except (ValueError, RecursionError):
            continue
    raise ValueError(_why_not(text, first_error)) from None


@contextmanager
def quiet_compile() -> Iterator[None]:
    """Compile a model's text without the compiler's warnings: a model's `'\\('` is an invalid
    escape to Python, and the warning about it would land in a learner's notebook output (or,
    under a filter that turns warnings into errors, fail the parse). Not thread-safe (it swaps
    the process's warning filters): for the client's parsers, not the server's worker threads.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _eval_literal(text: str) -> Any:
    """ast.literal_eval of `text`, quietly (`quiet_compile`)."""
    with quiet_compile():
        return ast.literal_eval(text.strip())


def _literal(text: str) -> Any:
    """A Python literal, or _NOT_DECODED; a literal JSON cannot hold raises ValueError."""
    try:
        value = _eval_literal(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return _NOT_DECODED
    if isinstance(value, (dict, list, tuple, set, frozenset, str, int, float, bool)) or \
            value is None:
        return value
    jsonable(value)  # raises the sentence for bytes, complex, Ellipsis, ...
    return _NOT_DECODED  # pragma: no cover - jsonable raised


def _why_not(text: str, error: Exception) -> str:
    """The decoder's message, or a clearer one for a literal JSON cannot hold (b'x', 1j)."""
    try:
        value = _eval_literal(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return str(error)
    try:
        jsonable(value)
    except ValueError as exc:
        return str(exc)
    return str(error)  # pragma: no cover - a decodable literal was returned earlier


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
