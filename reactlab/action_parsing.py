"""Read the text of ONE action into (tool name, arguments), whatever shape the model chose.

`reactlab.parsing` finds where the action is (after `Action:`, or a bare blob); this module
reads it:
- a JSON blob: {"action": …, "action_input": …} or {"name": …, "arguments": …}, fenced or
  bare, also a Python-literal dict, also a one-element list;
- a call: `get_weather(location="北京")`, `get_weather("北京")`, `Search[明天天气]`;
- the `Action Input:` text: JSON, a quoted string, or plain words.

Problems raise `ShapeError(problem, code)`; `parsing` turns it into the `ReActParseError`
the model reads. This module does not decide whether a reply is an action or an answer, and
it does not know which tools exist. Introduced in notebook 03.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from reactlab.jsonish import find_closing, first_value, loads_lenient, strip_fence

NAME_KEYS = ("action", "name", "tool", "tool_name", "function")
ARG_KEYS = ("action_input", "arguments", "args", "input", "parameters", "tool_input")
NAME = re.compile(r"[^\W\d][\w.\-]{0,80}")
# `get_weather(` or `Search [` at the start of the action text (optionally in backticks).
CALL = re.compile(r"[`*]{0,3}((?:functions\.)?[^\W\d][\w.\-]{0,80})[`*]{0,3}[ \t]{0,3}([(\[])")


class ShapeError(ValueError):
    """The action text cannot be read. `code`: bad_json, multiple_actions, no_tool_name."""

    def __init__(self, problem: str, code: str):
        super().__init__(problem)
        self.code = code


def from_blob(body: str) -> tuple[str, Any]:
    """The first JSON blob in `body` (fenced or not) as (name, args).

    Example: from_blob('```\\n{"action": "get_today", "action_input": {}}\\n```')
             -> ("get_today", {})
    """
    if body.startswith("```"):
        close = body.find("```", 3)
        inner = strip_fence(body[: close + 3] if close != -1 else body)
        after = body[close + 3 :] if close != -1 else ""
    else:
        inner, after = body, ""
    try:
        found = first_value(inner)
    except ValueError as exc:
        raise ShapeError(f"the JSON after `Action:` is not valid ({exc}). Write one JSON object "
                         f"with double-quoted keys and strings.", "bad_json") from None
    if found is None:
        raise ShapeError("`Action:` must be followed by a JSON blob with \"action\" and "
                         "\"action_input\" keys.", "bad_json")
    value, _, end = found
    if isinstance(value, list):
        if len(value) != 1:
            raise ShapeError(f"your JSON blob is a list of {len(value)} actions. Put exactly ONE "
                             f"action in the blob; call the next tool after you see the "
                             f"Observation.", "multiple_actions")
        value = value[0]
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = value["function"]  # the OpenAI tool_calls shape {"function": {"name", …}}
    name = next((value[k] for k in NAME_KEYS if isinstance(value, dict) and k in value), None)
    if not isinstance(name, str) or not name.strip():
        raise ShapeError("the JSON blob needs an \"action\" key holding the tool name, and an "
                         "\"action_input\" key holding its arguments.", "no_tool_name")
    if has_second_blob(inner[end:] + after):
        raise ShapeError("your reply contains more than one action blob. Write exactly ONE "
                         "action, then stop and wait for its Observation.", "multiple_actions")
    return name.strip(), normalise_args(next((value[k] for k in ARG_KEYS if k in value), {}))


def has_second_blob(text: str) -> bool:
    """True if `text` holds another {...} that looks like an action (has a name key)."""
    try:
        found = first_value(text)
    except ValueError:
        return False
    return bool(found and isinstance(found[0], dict) and any(k in found[0] for k in NAME_KEYS))


def from_call(name: str, body: str, open_at: int) -> tuple[str, Any]:
    """`get_weather(location="北京")`, `get_weather("北京")`, `Search[明天天气]`, `Finish[答案]`.

    `open_at` is the index of the opening bracket in `body`.
    Example: from_call("Search", "Search[明天天气]", 6) -> ("Search", "明天天气")
    """
    close = find_closing(body, open_at)
    if close is None:
        raise ShapeError(f"the bracket after `{name}` is never closed.", "bad_json")
    inner = body[open_at + 1 : close - 1].strip()
    if name.lower() == "finish":
        return name, inner.strip("\"'")
    if body[open_at] == "[" or not inner or inner[0] in "{[":
        return name, decode_args(inner)
    try:  # Python call syntax; literal_eval never runs code
        call = ast.parse(f"f({inner})", mode="eval").body
        kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords if kw.arg}
        if len(call.args) == 1 and not kwargs:
            return name, normalise_args(ast.literal_eval(call.args[0]))
        if kwargs and not call.args:
            return name, kwargs
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        pass  # not Python syntax (e.g. `get_weather(北京)`): keep the raw text below
    return name, inner


def decode_args(raw: str) -> dict | str:
    """The text after `Action Input:` (or inside brackets) as a dict or a plain string.

    Example: decode_args('```json\\n{"location": "北京"}\\n```') -> {"location": "北京"}
    Example: decode_args('北京') -> "北京"
    """
    text = strip_fence(raw)
    if not text:
        return {}
    if text[0] in "{[":
        try:
            found = first_value(text)
        except ValueError as exc:
            raise ShapeError(f"the Action Input is not valid JSON ({exc}). Write it as one JSON "
                             f"object with double-quoted keys and strings.", "bad_json") from None
        return normalise_args(found[0]) if found else {}
    try:
        return normalise_args(loads_lenient(text))  # "北京" in quotes, or a number
    except ValueError:
        return text.strip().strip("`")


def normalise_args(value: Any) -> dict | str:
    """Action.args is a dict or a str: decode a JSON string holding an object, stringify the rest.

    Example: normalise_args('{"location": "北京"}') -> {"location": "北京"}; normalise_args(5) -> "5"
    """
    if isinstance(value, str):
        if value.strip().startswith("{"):
            try:
                decoded = loads_lenient(value.strip())
                if isinstance(decoded, dict):
                    return decoded
            except ValueError:
                pass  # not an object after all: keep the string
        return value
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    return json.dumps(value, ensure_ascii=False)


def clean_name(raw: str) -> str:
    """Example: clean_name(" `get_weather()` ") -> "get_weather"; "[get_weather]" likewise."""
    name = raw.strip().strip("`*\"'[]").strip().removesuffix("()").removeprefix("functions.")
    if not NAME.fullmatch(name):
        shown = name if len(name) <= 60 else name[:57] + "..."
        raise ShapeError(f"after `Action:` write only the tool name (e.g. `Action: get_weather`); "
                         f"I read {shown!r}.", "no_tool_name")
    return name
