"""The JSON schema of a tool, built from a function's type hints and Google-style docstring.

`function_schema(func)` returns what the model reads about a tool: a one-paragraph description
and a JSON schema of its parameters (`{"type": "object", "properties": …, "required": …}`).
Because both come from the function itself, the description and the code cannot drift apart.
`coerce(value, schema)` is the other direction: does a value the model sent fit a parameter's
schema, after fixing the harmless mismatches small models make ("5" for 5)?

Deliberately NOT here: the full JSON Schema vocabulary (no nested object schemas, formats,
min/max or maxLength: a tool that needs them checks inside itself), other docstring styles
(numpy, reST), and pydantic: hand-written, the mapping from hint to schema fits on one screen.
The schema text appears in notebook 04 (`describe()`) and as JSON in notebook 05
(`openai_tools()`).
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

_SIMPLE_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean",
                 list: "array", dict: "object", type(None): "null"}


def json_type(annotation: Any) -> dict:
    """JSON schema for one annotation. Example: Optional[int] -> {"type": ["integer", "null"]}."""
    if annotation in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[annotation]}
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        kinds = {_SIMPLE_TYPES.get(type(a)) for a in args}
        schema: dict = {"enum": list(args)}
        if len(kinds) == 1 and None not in kinds:
            schema = {"type": kinds.pop(), "enum": list(args)}
        return schema
    if origin in (Union, types.UnionType):
        parts = [json_type(a) for a in args]
        if all(set(p) == {"type"} for p in parts):
            flat: list[str] = []
            for p in parts:
                flat += p["type"] if isinstance(p["type"], list) else [p["type"]]
            return {"type": flat}
        return {"anyOf": parts}
    if origin in (list, tuple, set):
        schema = {"type": "array"}
        if args and args[0] is not Ellipsis:
            schema["items"] = json_type(args[0])
        return schema
    if origin is dict:
        return {"type": "object"}
    raise TypeError(f"@tool cannot turn the type hint {annotation!r} into a JSON schema; use str, "
                    "int, float, bool, list, dict, Optional[...] or Literal[...].")


_SECTION = re.compile(r"^(\s*)(Args|Arguments|Parameters|Returns?|Raises|Examples?|Notes?)\s*:")
_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (first paragraph, {arg: description}).

    Only the first paragraph becomes the tool description: it is what the model reads on every
    call, so it stays short; the rest of the docstring is for people.
    Example: "Add two numbers.\\n\\nArgs:\\n    a: first" -> ("Add two numbers.", {"a": "first"})
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    in_summary, in_args, current = True, False, None
    header_indent = arg_indent = 0
    for line in lines:
        indent = len(line) - len(line.lstrip())
        head = _SECTION.match(line)
        if in_summary and (not line.strip() or head):
            in_summary = False
        if in_summary:
            summary.append(line.strip())
            continue
        if head:
            in_args = head.group(2) in ("Args", "Arguments", "Parameters")
            header_indent, arg_indent, current = len(head.group(1)), None, None
            continue
        if not in_args or not line.strip():
            continue
        if indent <= header_indent:  # dedented text ends the Args section
            in_args = False
            continue
        m = _ARG_LINE.match(line)
        if m and (arg_indent is None or indent <= arg_indent):
            arg_indent, current = indent, m.group(1).lstrip("*")
            args[current] = m.group(3).strip()
        elif current:  # a continuation line of the previous argument
            args[current] = (args[current] + " " + line.strip()).strip()
    return " ".join(" ".join(summary).split()), args


def function_schema(func: Callable, name: str) -> tuple[str, dict]:
    """(description, parameters schema) of a function; TypeError for what JSON cannot describe.

    Example: for `def get_today() -> str: "Get today's date."` ->
             ("Get today's date.", {"type": "object", "properties": {}, "required": []})
    """
    summary, arg_docs = parse_docstring(func.__doc__ or "")
    try:
        hints = typing.get_type_hints(func)
    except Exception as exc:  # an unresolvable string annotation
        raise TypeError(f"@tool could not read the type hints of {func.__name__}: {exc}") from exc
    properties: dict[str, dict] = {}
    required: list[str] = []
    for pname, param in inspect.signature(func).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise TypeError(f"@tool needs named parameters; {func.__name__} has {param}.")
        if pname not in hints:
            raise TypeError(f"@tool needs a type hint on every parameter: {func.__name__}"
                            f"({pname}) has none (the model must know what to send).")
        schema = json_type(hints[pname])
        if arg_docs.get(pname):
            schema["description"] = arg_docs[pname]
        if param.default is param.empty:
            required.append(pname)
        else:
            try:
                schema["default"] = json.loads(json.dumps(param.default))
            except (TypeError, ValueError):
                pass  # a default JSON cannot carry is simply not advertised
        properties[pname] = schema
    description = summary or f"The {name} tool."
    return description, {"type": "object", "properties": properties, "required": required}


def type_label(schema: dict) -> str:
    """Short human type for prompts. Example: {"type": ["string", "null"]} -> "string | null"."""
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "anyOf" in schema:
        return " | ".join(type_label(s) for s in schema["anyOf"])
    kind = schema.get("type", "any")
    return " | ".join(kind) if isinstance(kind, list) else kind


# --- reading a model's value against a schema -----------------------------------------------

def coerce(value: Any, schema: dict) -> tuple[bool, Any]:
    """(ok, value), converting the harmless mismatches small models make ("5" for 5, 5 for "5").

    Never raises, whatever the value. Example: coerce("4", {"type": "integer"}) -> (True, 4)
    """
    if "enum" in schema:
        try:
            return value in schema["enum"], value
        except Exception:  # noqa: BLE001  (a value whose == fails is simply not in the enum)
            return False, value
    if "anyOf" in schema:
        for sub in schema["anyOf"]:
            ok, out = coerce(value, sub)
            if ok:
                return ok, out
        return False, value
    kinds = schema.get("type")
    for kind in kinds if isinstance(kinds, list) else [kinds]:
        ok, out = _coerce_one(value, kind)
        if ok:
            return ok, out
    return False, value


def _coerce_one(value: Any, kind: str | None) -> tuple[bool, Any]:
    is_num = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is None:
        return True, value
    if kind == "null":
        return value is None, value
    if kind == "string":
        if not is_num:
            return isinstance(value, str), value
        try:
            return True, str(value)
        except ValueError:  # an int too long for str() (Python's 4300-digit limit)
            return False, value
    if kind == "boolean":
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return True, value.strip().lower() == "true"
        return isinstance(value, bool), value
    if kind in ("integer", "number"):
        if isinstance(value, str):
            try:
                value = float(value) if kind == "number" else int(value.strip())
            except ValueError:  # not a number, or more digits than int() reads
                return False, value
            is_num = True
        if not is_num:
            return False, value
        if kind == "integer":
            if isinstance(value, float) and value.is_integer():
                return True, int(value)
            return isinstance(value, int), value
        return True, value
    if kind == "array":
        return (True, list(value)) if isinstance(value, (list, tuple)) else (False, value)
    if kind == "object":
        return isinstance(value, dict), value
    return False, value
