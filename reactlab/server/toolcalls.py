"""Turn what the model wrote into OpenAI `tool_calls`, leniently, and keep only trusted text.

The Qwen2.5 template asks for `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, but the
1.5B model often answers with a fenced ```` ```json ```` block or bare JSON instead (llama.cpp's
own parser then returns the call as plain text). We accept, in this order:

1. `<tool_call> … </tool_call>` blocks (the closing tag may be missing at the end). Inside a
   tag any name is accepted, and JSON broken beyond a simple repair still becomes a call whose
   `arguments` is the raw text, so the agent can tell the model what to fix.
2. fenced blocks (```` ```json ````, ```` ``` ````) holding a call object or a list of them;
3. bare JSON objects or lists with `name` + `arguments` anywhere in the text.

For 2 and 3 the name must be one of the request's tools (when they are known), so a JSON
answer that merely has a "name" key is not mistaken for a call. `parameters` is accepted for
`arguments`, arguments given as a JSON *string* are decoded, and the OpenAI shape
`{"function": {"name", "arguments"}}` is unwrapped. A name written with dots where a tool's name
has underscores (`lawyer.find_nearby` for `lawyer_find_nearby`: OpenAI's names allow no dots,
so clients rename such functions) is that tool, in all three.

Once a reply holds a call, only the text *before* the first call stays `content` (the model's
preamble, "Let me check."). Text between calls and after the last one is dropped: no tool has
run yet, so a `<tool_response>` or a "final answer" written there is invented (seen often on
the 1.5B). A call repeated with the same name and the same arguments (compared as JSON with
sorted keys) is kept once. Both are recorded (`ParsedReply.dropped_text`,
`.duplicates_dropped`) for the server's debug view. A reply without calls keeps all its text.

Any text is safe to parse: `parse_tool_calls` raises only `TypeError` (when `text` is not a
string) and takes time linear in the text's length. Every JSON decode is guarded (deep nesting,
Python literals the JSON encoder cannot write, NaN), values nested more than `MAX_DEPTH` levels
are not calls, and the search for bare JSON (`jsonscan`) decodes a bounded number of
characters per character of text: past that budget bare JSON is no longer looked for (tags and
fences still are), so that a pathological reply (100k `{`) cannot stall the server.

This module is pure (no I/O, no randomness except `new_call_id`); it does not check the
arguments against the tool's schema (the agent's tool registry does), does not cap the number
of calls (`chat` does), and it does not judge the preamble: a "final answer" written *before*
the first call stays content. Notebook 06.
"""

from __future__ import annotations

import ast
import json
import re
import secrets
from dataclasses import dataclass

from reactlab.server.jsonscan import Spans, json_values

_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"```[ \t]*([\w-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_FENCE_OPENING = re.compile(r"```[ \t]*[\w-]*[ \t]*\n?[ \t]*\Z")  # ends right before a call
_FENCE_CLOSING = re.compile(r"\s*```")
_EMPTY_FENCE = re.compile(r"```[\w-]*\s*```")
# Template markup the 1.5B sometimes echoes instead of answering (seen: the whole reply was
# "<tools></tools>"); it is never content for the user, so it goes, leaving an empty reply.
_ECHOED_MARKUP = re.compile(r"</?(?:tools|tool_call|tool_response)>")
_NAME = re.compile(r'"name"\s*:\s*"([^"]+)"')
_ARGS = re.compile(r'"(?:arguments|parameters)"\s*:\s*(.*)', re.DOTALL)
_DECODER = json.JSONDecoder()
MAX_DEPTH = 32     # deeper values are not calls (and would strain every JSON encoder after us)
MAX_SHAPE = 4      # wrappers around a call: [ {"tool_calls": [ {"function": {…}} ]} ]


@dataclass
class ParsedCall:
    name: str
    arguments: str  # JSON text, as OpenAI sends it (invalid only if the model broke it in a tag)
    source: str     # "tag" | "fence" | "json": where we found it, for the debug view


@dataclass
class ParsedReply:
    content: str | None
    calls: list[ParsedCall]
    dropped_text: str | None = None  # text between/after the calls, not sent (debug view)
    duplicates_dropped: int = 0      # repeated identical calls, not sent (debug view)
    calls_start: int | None = None   # where the first call starts in the raw text


class _Unusable(ValueError):
    """A decoded value that cannot become `arguments` (too deep, NaN, a Python set …)."""


def new_call_id() -> str:
    """Example: new_call_id() -> "call_3f9a0c1be27d4a5581b6e0c2" (24 hex digits, like OpenAI)."""
    return "call_" + secrets.token_hex(12)


def _shallow(value, limit: int = MAX_DEPTH) -> bool:
    """True if `value` nests at most `limit` lists/dicts deep (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            if depth > limit:
                return False
            stack.extend((c, depth + 1) for c in (v.values() if isinstance(v, dict) else v))
    return True


def _dump(value) -> str:
    """JSON text for a decoded value; _Unusable if it is too deep or not JSON (NaN, a set)."""
    if not _shallow(value):
        raise _Unusable("nested too deeply")
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise _Unusable(str(exc)) from None


def _loads(text: str):
    """json.loads, with deep nesting reported as ValueError like any other broken JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _arguments(value) -> str:
    """Example: '{"location": "北京"}' (a string) -> '{"location": "北京"}'; None -> '{}'."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return "{}"
    if isinstance(value, str):
        try:
            return _dump(_loads(value))
        except ValueError:
            return value  # the model's broken JSON, passed on for the agent to report
    return _dump(value)


def calls_from_value(value, names: set[str] | None, source: str,
                     _depth: int = 0) -> list[ParsedCall] | None:
    """Calls in a decoded JSON value, or None if it is not call-shaped.

    Example: {"name": "get_today", "parameters": {}} -> [ParsedCall("get_today", "{}", …)]
    """
    if _depth > MAX_SHAPE:
        return None
    if isinstance(value, list):
        if not value:
            return None
        calls = []
        for item in value:
            found = calls_from_value(item, names, source, _depth + 1)
            if not found:
                return None
            calls.extend(found)
        return calls
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("tool_calls"), list):
        return calls_from_value(value["tool_calls"], names, source, _depth + 1)
    if isinstance(value.get("function"), dict):  # the OpenAI shape, echoed by the model
        value = value["function"]
    name = value.get("name")
    if isinstance(name, str):
        name = dotted(name, names)
    if not isinstance(name, str) or not name or (names and name not in names and source != "tag"):
        return None
    key = "arguments" if "arguments" in value else "parameters" if "parameters" in value else None
    if key is None and not (names and name in names and len(value) == 1):
        return None  # {"name": …} alone is a call only when the name is a known tool
    try:
        return [ParsedCall(name, _arguments(value.get(key)), source)]
    except _Unusable:
        return None


def dotted(name: str, names: set[str] | None) -> str:
    """The tool a dotted name stands for, or `name` itself.

    OpenAI's function names allow no ".", so clients write a function such as
    `lawyer.find_nearby` as `lawyer_find_nearby` in `tools=`; when the question names the
    function with its dots, the model writes them back (BFCL's parallel_139 and
    parallel_multiple_145). Only a name with a dot that is not itself one of `names`, and
    whose underscore spelling is, changes; with no `names` nothing does.
    Example: dotted("lawyer.find_nearby", {"lawyer_find_nearby"}) -> "lawyer_find_nearby"
    """
    if not names or "." not in name or name in names:
        return name
    alias = name.replace(".", "_")
    return alias if alias in names else name


def _values(blob: str) -> list | None:
    """Consecutive JSON values in `blob` (whitespace or commas between), or None.

    Example: '{"a": 1}\\n{"b": 2}' -> [{"a": 1}, {"b": 2}]
    """
    out, i = [], 0
    while True:
        while i < len(blob) and blob[i] in " \t\r\n,":
            i += 1
        if i == len(blob):
            return out or None
        try:
            value, i = _DECODER.raw_decode(blob, i)
        except (ValueError, RecursionError):
            return None
        out.append(value)


def _unfence(blob: str) -> str:
    blob = blob.strip()
    match = _FENCE.fullmatch(blob)
    return match.group(2).strip() if match else blob


def _literal_calls(blob: str, names: set[str] | None) -> list[ParsedCall] | None:
    """Python-literal dicts: {'name': 'f', 'arguments': {'x': 1}}. None for anything else."""
    try:
        value = ast.literal_eval(blob)
    except Exception:  # noqa: BLE001 — any text: SyntaxError, ValueError, TypeError, Memory…
        return None
    return calls_from_value(value, names, "tag")


def _tag_calls(inner: str, names: set[str] | None) -> list[ParsedCall] | None:
    blob = _unfence(inner)
    if blob.endswith("```") and "```" not in blob[:-3]:  # a fence closed that never opened
        blob = blob[:-3].rstrip()
    for attempt in (blob, blob + "}", blob + "}}"):  # the model often drops a closing brace
        values = _values(attempt)
        if values is not None:
            calls = calls_from_value(values, names, "tag")
            if calls:
                return calls
    calls = _literal_calls(blob, names)
    if calls:
        return calls
    # Whole calls with text between them: the 1.5B, given an opened tag, wrote a call, a
    # fence's closing and a second fenced call in it (`more_calls`); read each one whole
    # rather than one call whose arguments run to the last brace.
    # (Only with a second "name" in it: the text outside the tags is searched for bare JSON
    # anyway, and searching a call-less tag's text twice would double that work.)
    if blob.count('"name"') >= 2:
        calls = [c for _, group in _bare_calls(blob, names, Spans()) for c in group]
        if calls:
            return calls
    name, args = _NAME.search(blob), _ARGS.search(blob)
    if not name:
        return None
    raw = args.group(1).strip() if args else "{}"
    if raw.count("}") > raw.count("{"):  # drop the outer object's closing brace
        raw = raw[: raw.rfind("}")].rstrip()
    return [ParsedCall(dotted(name.group(1), names), raw, "tag")]


def _bare_calls(text: str, names: set[str] | None, spans: Spans) -> list:
    """(start, calls) for bare JSON calls outside `spans`, adding theirs. A call right after
    a fence's opening is labelled "fence": the fence's text ended early, at a ``` inside one
    of the call's strings (e.g. a key "```")."""
    found = []
    for start, end, value in json_values(text, spans):
        opening = _FENCE_OPENING.search(text, max(0, start - 40), start)
        calls = (calls_from_value(value, names, "fence" if opening else "json")
                 if spans.free(start, end) else None)
        if calls:
            if opening:  # the fence's markers go with the call, not into the content
                closing = _FENCE_CLOSING.match(text, end)
                wide = (opening.start(), closing.end() if closing else end)
                start, end = wide if spans.free(*wide) else (start, end)
            found.append((start, calls))
            spans.add(start, end)
    return found


def parse_tool_calls(text: str, tool_names=None) -> ParsedReply:
    """Split a raw model reply into content and tool calls.

    Example: 'Let me check.\\n```json\\n{"name": "get_weather", "arguments": {"location": "北京"}}\\n```'
    -> ParsedReply(content="Let me check.", calls=[ParsedCall("get_weather",
       '{"location": "北京"}', "fence")])
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_tool_calls needs the model's text as a str, got "
                        f"{type(text).__name__}.")
    names = set(tool_names) if tool_names else None
    found: list[tuple[int, list[ParsedCall]]] = []
    spans = Spans()
    for m in _TAG.finditer(text):
        calls = _tag_calls(m.group(1), names)
        if calls:
            found.append((m.start(), calls))
            spans.add(*m.span())
    for m in _FENCE.finditer(text):
        if spans.free(*m.span()):
            values = _values(m.group(2))
            calls = calls_from_value(values, names, "fence") if values else None
            if calls:
                found.append((m.start(), calls))
                spans.add(*m.span())
    found += _bare_calls(text, names, spans)
    calls = [c for _, group in sorted(found, key=lambda f: f[0]) for c in group]
    if not calls:
        return ParsedReply(clean_content(text), [])
    # Text after the first call was written before any tool ran, so it cannot be based on a
    # result: kept for the debug view only, e.g. '<tool_call>…</tool_call>\\n北京今天晴。'.
    starts, ends = spans.starts[1:] + [len(text)], spans.ends
    dropped = [text[e:s].strip() for e, s in zip(ends, starts) if clean_content(text[e:s])]
    unique = _unique(calls)
    first = spans.starts[0]
    return ParsedReply(clean_content(text[:first]), unique, "\n".join(dropped) or None,
                       len(calls) - len(unique), first)


def clean_content(text: str) -> str | None:
    """Text as the client may see it: echoed markup and empty fences removed, stripped.

    Example: "<tools></tools>" -> None; " Let me check.\\n" -> "Let me check."
    """
    text = _EMPTY_FENCE.sub("", text)
    return _ECHOED_MARKUP.sub("", text).strip() or None


def _unique(calls: list[ParsedCall]) -> list[ParsedCall]:
    """The first of each (name, arguments) pair; arguments compared as JSON with sorted keys.

    Example: f({"a": 1, "b": 2}), f({"b": 2, "a": 1}), f({"a": 3}) -> f({"a": 1, "b": 2}), f({"a": 3})
    """
    seen, out = set(), []
    for call in calls:
        try:
            args = json.dumps(_loads(call.arguments), sort_keys=True, ensure_ascii=False)
        except (ValueError, TypeError, RecursionError):
            args = call.arguments.strip()  # broken JSON: only the same broken text is a repeat
        if (call.name, args) not in seen:
            seen.add((call.name, args))
            out.append(call)
    return out
