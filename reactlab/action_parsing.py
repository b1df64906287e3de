"""Read the text of ONE action into (tool name, arguments), whatever shape the model chose.

`reactlab.parsing` finds where the action is (after `Action:`, or a bare blob); this module
reads it:
- a JSON blob: {"action": …, "action_input": …}, {"name": …, "arguments": …} or the other key
  names in NAME_KEYS / ARG_KEYS, fenced or bare, also a Python-literal dict, also a one-element
  list;
- a call: `get_weather(location="北京")`, `get_weather("北京")`, `Search[明天天气]`, also a whole
  reply that is nothing but one call (`[get_weather(city="SF")]`, fenced or not);
- an XML-ish call in plain content: `<function=get_weather><parameter=city>SF</parameter>…`,
  `<invoke name="get_weather">…`, `<tool_name>get_weather</tool_name><arguments>…`;
- the `Action Input:` text: JSON, a quoted string, or plain words.

Problems raise `ShapeError(problem, code)`; `parsing` turns it into the `ReActParseError`
the model reads. This module does not decide whether a reply is an action or an answer, and
it does not know which tools exist. No notebook imports it directly: notebook 03 writes the
same ideas by hand (`parse_step`, `first_object`) and then uses `parse_react`.

About 310 lines: one reader per way a model writes a call (blob, `tool(...)`, code, XML-ish),
each short; splitting them would scatter the shared key names.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from reactlab.jsonish import (
    MAX_DEPTH,
    find_closing,
    first_value,
    jsonable,
    loads_lenient,
    nesting_depth,
    quiet_compile,
    strip_fence,
)

NAME_KEYS = ("action", "name", "tool", "tool_name", "function", "function_name", "action_name")
ARG_KEYS = ("action_input", "arguments", "args", "input", "parameters", "tool_input",
            "tool_arguments", "tool_args", "params", "kwargs")
NAME = re.compile(r"[^\W\d][\w.\-]{0,80}")
# Tool names with spaces ("Delegate work to coworker"), accepted only before an `Action Input:`.
WORDS_NAME = re.compile(r"[^\W\d][\w.\-]{0,40}(?: [\w.\-]{1,40}){1,5}")
# `get_weather(` or `Search [` at the start of the action text (optionally in backticks).
CALL = re.compile(r"[`*]{0,3}((?:functions\.)?[^\W\d][\w.\-]{0,80})[`*]{0,3}[ \t]{0,3}([(\[])")
# `add (add two numbers)`: a description in parentheses after the name.
_DESCRIBED = re.compile(r"([^\W\d][\w.\-]{0,80})[ \t]{1,3}\([^()\n]{0,200}\)")
# `QueryEngineTool({"a": 1})` as the whole Action Input: the object is the input.
_WRAPPED_OBJECT = re.compile(r"[^\W\d][\w.]{0,80}[ \t]{0,3}\((\{.*\})\)", re.DOTALL)
_SPECIAL_TOKEN = re.compile(r"<\|[\w\-]{1,30}\|>")
_XML_FUNCTION = re.compile(r"<function=([^\W\d][\w.\-]{0,80})>")
_XML_INVOKE = re.compile(r"<invoke[ \t]{1,3}name=[\"']([^\W\d][\w.\-]{0,80})[\"'][ \t]{0,3}>")
_XML_NAME = re.compile(r"<(tool_name|name)>[ \t\n]{0,8}([^\W\d][\w.\-]{0,80})[ \t\n]{0,8}</\1>")
_XML_ARG = re.compile(r"<(?:arg|parameter)[ \t]{1,3}(?:key|name)=[\"']([\w.\-]{1,80})[\"'][ \t]{0,3}>"
                      r"|<parameter=([\w.\-]{1,80})>")
_XML_ARGS_TAGS = ("arguments", "parameters", "args", "tool_arguments", "input")


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
    call = _python_call(f"f({inner})")
    args = _call_args(name, call) if call is not None else None
    # not plain Python literals (e.g. `get_weather(北京)`): keep the raw text for the tool
    return name, inner if args is None else args


def from_code(text: str) -> tuple[str, Any] | None:
    """A reply that is nothing but a call, as code: fenced, in a list, or between special tokens.
    None if the text is anything else.

    Example: from_code('```python\\nget_weather(city="SF")\\n```') -> ("get_weather", {"city": "SF"})
    """
    body = _SPECIAL_TOKEN.sub("", strip_fence(text)).strip()
    if not body or body[-1] not in ")]" or not (body[0].isalpha() or body[0] in "_["):
        return None
    node = _python_call(body, whole=True)
    if node is None:
        return None
    calls = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    if not calls or not all(isinstance(c, ast.Call) and _dotted(c.func) for c in calls):
        return None
    if len(calls) > 1:
        raise ShapeError(f"your reply calls {len(calls)} tools at once. Call exactly ONE tool, "
                         f"then stop and wait for its Observation.", "multiple_actions")
    name = _dotted(calls[0].func).removeprefix("functions.")
    args = _call_args(name, calls[0])
    return None if args is None else (name, args)


def from_xml(text: str) -> tuple[str, Any] | None:
    """An XML-ish tool call in plain content, or None if there is none.

    Example: from_xml('<function=get_weather>\\n<parameter=city>\\nSF\\n</parameter>\\n</function>')
             -> ("get_weather", {"city": "SF"})
    """
    found = [m for m in (_XML_FUNCTION.search(text), _XML_INVOKE.search(text),
                         _XML_NAME.search(text)) if m]
    if not found:
        return None
    m = min(found, key=lambda x: x.start())
    pattern = m.re
    if len(pattern.findall(text, m.end())) > 0:
        raise ShapeError("your reply contains more than one tool call. Write exactly ONE call, "
                         "then stop and wait for its Observation.", "multiple_actions")
    name = m.group(2) if pattern is _XML_NAME else m.group(1)
    rest = text[m.end() :]
    for tag in _XML_ARGS_TAGS:
        start = rest.find(f"<{tag}>")
        end = rest.find(f"</{tag}>", start + 1) if start != -1 else -1
        if start != -1 and end != -1:
            inner = rest[start + len(tag) + 2 : end].strip()
            if inner[:1] in ("{", "["):
                return name, decode_args(inner)
            return name, _xml_args(inner) or (inner if inner else {})
    return name, _xml_args(rest)


def _xml_args(text: str) -> dict:
    """`<parameter=k>v</parameter>` / `<arg key="k">v</arg>` / `<parameter name="k">v</…>` pairs."""
    args: dict = {}
    pos = 0
    while True:
        m = _XML_ARG.search(text, pos)
        if not m:
            return args
        tag = "</arg>" if text.startswith("<arg", m.start()) else "</parameter>"
        end = text.find(tag, m.end())
        if end == -1:
            return args
        args[m.group(1) or m.group(2)] = text[m.end() : end].strip()
        pos = end + len(tag)


def _python_call(source: str, whole: bool = False) -> ast.expr | None:
    """The expression node of `source` if Python can parse it (bounded depth), else None."""
    if nesting_depth(source) > MAX_DEPTH:
        return None
    try:
        with quiet_compile():
            node = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return node if whole or isinstance(node, ast.Call) else None


def _dotted(func: ast.expr) -> str:
    """`get_weather` or `functions.get_weather` for a call's function; "" for anything else."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return ""
    return ".".join([func.id, *reversed(parts)])


def _call_args(name: str, call: ast.Call) -> Any:
    """The arguments of a parsed call: keywords -> dict, one positional -> that value, no
    arguments -> {}. None when they are not plain literals, or mix positional and keywords."""
    try:
        kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords if kw.arg}
        positional = [ast.literal_eval(a) for a in call.args]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None  # an expression or a variable, e.g. `get_weather(city)`
    if (positional and kwargs) or len(positional) > 1 or len(kwargs) < len(call.keywords):
        return None
    try:
        return normalise_args(positional[0]) if positional else jsonable(kwargs)
    except ValueError as exc:
        raise ShapeError(f"the arguments of `{name}(...)` cannot be sent as JSON: {exc}.",
                         "bad_json") from None


def decode_args(raw: str) -> dict | str:
    """The text after `Action Input:` (or inside brackets) as a dict or a plain string.

    Example: decode_args('```json\\n{"location": "北京"}\\n```') -> {"location": "北京"}
    Example: decode_args('北京') -> "北京"
    """
    text = strip_fence(raw)
    if text.startswith("**") and text.lstrip("* ").startswith("{"):
        text = text.lstrip("* ")  # `Action Input: ** {"a": 1}`: markdown bold before the JSON
    wrapped = _WRAPPED_OBJECT.fullmatch(text)
    if wrapped:
        text = wrapped.group(1)
    if not text:
        return {}
    if text[0] in "{[":
        try:
            found = first_value(text)
        except ValueError as exc:
            if not any(c in text for c in "\"':："):
                return text  # `{temperature in SF}`: brackets around words, not JSON
            raise ShapeError(f"the Action Input is not valid JSON ({exc}). Write it as one JSON "
                             f"object with double-quoted keys and strings.", "bad_json") from None
        return normalise_args(found[0]) if found else {}
    try:
        return normalise_args(loads_lenient(text))  # "北京" in quotes, or a number
    except ValueError:
        text = text.strip()
        if len(text) > 1 and text[0] == text[-1] == "`":
            text = text.strip("`")
        return text


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
    try:
        value = jsonable(value)
    except ValueError as exc:
        raise ShapeError(f"the tool arguments cannot be sent as JSON: {exc}.", "bad_json") \
            from None
    if isinstance(value, dict):
        return value
    return json.dumps(value, ensure_ascii=False)


def clean_name(raw: str, *, words: bool = False) -> str:
    """The tool name from the Action line; `words` allows names with spaces ("Test Tool").

    Example: clean_name(" `get_weather()` ") -> "get_weather"; "[get_weather]" likewise;
             clean_name("add (add two numbers)") -> "add"
    """
    name = raw.strip().strip("`*\"'[]").strip().removesuffix("()").removeprefix("functions.")
    described = _DESCRIBED.fullmatch(name)
    if described:
        name = described.group(1)
    if NAME.fullmatch(name) or (words and WORDS_NAME.fullmatch(name)):
        return name
    shown = name if len(name) <= 60 else name[:57] + "..."
    raise ShapeError(f"after `Action:` write only the tool name (e.g. `Action: get_weather`); "
                     f"I read {shown!r}.", "no_tool_name")
