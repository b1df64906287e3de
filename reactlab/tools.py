"""Tools an agent can call: the `@tool` decorator, `Tool`, `ToolRegistry` and `ToolError`.

`@tool` turns a plain Python function into a `Tool` whose JSON schema is built from the type
hints and the Google-style docstring, so the description the model reads and the function
that runs can never drift apart. A `ToolRegistry` holds tools and speaks both protocols:
`.describe()` renders the tool list for a ReAct prompt, `.openai_tools()` is the native
`tools=` parameter. `.validate()` checks a model's arguments *before* anything runs and
`.run()` turns every failure into an observation string, because an agent must show the model
its mistake instead of crashing.

Deliberately NOT here: the full JSON Schema vocabulary (no nested object schemas, formats or
min/max: a tool that needs them should validate inside itself), async tools, timeouts around
a tool call (the course tools bound their own work). The course tools live in
`reactlab.course_tools` and are re-exported here (`from reactlab.tools import calculator`).

Introduced in notebook 04 (tools as data); `run()` and tool errors are the subject of notebook 07.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import types
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any, Literal, Union

__all__ = [  # noqa: RUF022  (the course tools come last, resolved by __getattr__ below)
    "Tool", "ToolError", "ToolRegistry", "default_registry", "tool",
    "calculator", "days_between", "get_closing_price", "get_today", "get_weather", "search_docs",  # noqa: F822
]

COURSE_TOOL_NAMES = (
    "get_weather", "get_closing_price", "get_today", "days_between", "calculator", "search_docs",
)


class ToolError(ValueError):
    """The model asked for a tool that does not exist, or passed arguments that do not fit.

    Its message is written for the model: it names the bad key and lists the parameters.
    """


# --- schema from type hints -----------------------------------------------------------------

_SIMPLE_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean",
                 list: "array", dict: "object", type(None): "null"}


def _json_type(annotation: Any) -> dict:
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
        parts = [_json_type(a) for a in args]
        if all(set(p) == {"type"} for p in parts):
            flat: list[str] = []
            for p in parts:
                flat += p["type"] if isinstance(p["type"], list) else [p["type"]]
            return {"type": flat}
        return {"anyOf": parts}
    if origin in (list, tuple, set):
        schema = {"type": "array"}
        if args and args[0] is not Ellipsis:
            schema["items"] = _json_type(args[0])
        return schema
    if origin is dict:
        return {"type": "object"}
    raise TypeError(f"@tool cannot turn the type hint {annotation!r} into a JSON schema; use str, "
                    "int, float, bool, list, dict, Optional[...] or Literal[...].")


_SECTION = re.compile(r"^(\s*)(Args|Arguments|Parameters|Returns?|Raises|Examples?|Notes?)\s*:")
_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
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


def _type_label(schema: dict) -> str:
    """Short human type for prompts. Example: {"type": ["string", "null"]} -> "string | null"."""
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "anyOf" in schema:
        return " | ".join(_type_label(s) for s in schema["anyOf"])
    kind = schema.get("type", "any")
    return " | ".join(kind) if isinstance(kind, list) else kind


@dataclass(eq=False)  # identity semantics: a Tool can be a dict key or a set member
class Tool:
    """A function plus the description and JSON schema the model sees.

    Calling a Tool calls its function: `calculator("306 * 5") -> 1530`.
    """

    name: str
    description: str
    parameters: dict
    func: Callable[..., Any]
    side_effects: bool = False  # True: never run twice "just in case", never in parallel

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    def openai_schema(self) -> dict:
        """The native protocol's entry: {"type": "function", "function": {...}}."""
        return {"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters}}

    def signature(self) -> str:
        """Example: "days_between(date1: string, date2: string)"."""
        props, required = self.parameters.get("properties", {}), self.parameters.get("required", [])
        parts = []
        for key, schema in props.items():
            part = f"{key}: {_type_label(schema)}"
            if key not in required:
                part += f" = {json.dumps(schema.get('default'), ensure_ascii=False)}"
            parts.append(part)
        return f"{self.name}({', '.join(parts)})"

    def usage(self) -> str:
        """The parameter list used in error messages.

        Example: "get_weather takes: location (string, required). Example input: {"location": "…"}"
        """
        props, required = self.parameters.get("properties", {}), self.parameters.get("required", [])
        if not props:
            return f"{self.name} takes no arguments: use {{}} as its input."
        params = "; ".join(f"{k} ({_type_label(s)}, {'required' if k in required else 'optional'})"
                           for k, s in props.items())
        example = json.dumps({k: "…" for k in props if k in required}, ensure_ascii=False)
        return f"{self.name} takes: {params}. Example input: {example}"

    def describe(self, style: str = "text") -> str:
        """This tool for a ReAct prompt: "text" (signature — description + one line per argument)
        or "json" (one JSON object, as in the langchain-style prompt of seed 000)."""
        props, required = self.parameters.get("properties", {}), self.parameters.get("required", [])
        if style == "json":
            entry = {"name": self.name, "description": self.description,
                     "parameters": self.parameters}
            if not props:  # say it in words too: small models otherwise invent an argument
                entry["description"] += " Takes no arguments: use {} as its input."
            return json.dumps(entry, ensure_ascii=False)
        if style != "text":
            raise ValueError(f"unknown describe style {style!r}: use 'text' or 'json'")
        if not props:
            return f"{self.name}() — takes no arguments. {self.description}"
        lines = [f"{self.signature()} — {self.description}"]
        for key, schema in props.items():
            need = "required" if key in required else "optional"
            doc = f": {schema['description']}" if schema.get("description") else ""
            lines.append(f"    - {key} ({_type_label(schema)}, {need}){doc}")
        return "\n".join(lines)


def _make_tool(func: Callable, name: str | None, side_effects: bool) -> Tool:
    summary, arg_docs = _parse_docstring(func.__doc__ or "")
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
        schema = _json_type(hints[pname])
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
    return Tool(name=name or func.__name__,
                description=summary or f"The {name or func.__name__} tool.",
                parameters={"type": "object", "properties": properties, "required": required},
                func=func, side_effects=side_effects)


def tool(func: Callable | None = None, *, name: str | None = None,
         side_effects: bool = False) -> Any:
    """Decorator: `@tool` or `@tool(name="x", side_effects=True)` -> a callable `Tool`."""
    if func is None:
        return lambda f: _make_tool(f, name, side_effects)
    return _make_tool(func, name, side_effects)


# --- argument checking ----------------------------------------------------------------------

def _coerce(value: Any, schema: dict) -> tuple[bool, Any]:
    """(ok, value), converting the harmless mismatches small models make ("5" for 5, 5 for "5")."""
    if "enum" in schema:
        return (value in schema["enum"], value)
    if "anyOf" in schema:
        for sub in schema["anyOf"]:
            ok, out = _coerce(value, sub)
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
        return (True, str(value)) if is_num else (isinstance(value, str), value)
    if kind == "boolean":
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return True, value.strip().lower() == "true"
        return isinstance(value, bool), value
    if kind in ("integer", "number"):
        if isinstance(value, str):
            try:
                value = float(value) if kind == "number" else int(value.strip())
            except ValueError:
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


def _decode(text: str) -> Any:
    """A JSON (or Python-literal) object from a string, or the string itself if it is not one."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[", '"')):
        return text
    try:
        return json.loads(stripped)
    except ValueError as json_error:
        try:
            return ast.literal_eval(stripped)
        except Exception:  # noqa: BLE001  (literal_eval raises many types; all mean "not a literal")
            if stripped.startswith("{"):
                raise ToolError(f"the arguments look like a JSON object but could not be decoded "
                                f"({json_error}). Send a JSON object with double-quoted keys."
                                ) from None
            return text


# "get_today()" or "get_today({})": a value written as a call of a tool, see ToolRegistry.run
_CALL_SUFFIX = re.compile(r"\(\s*(?:\{\s*\})?\s*\)$")


class ToolRegistry:
    """The tools one agent may call, by name.

    Example: reg = ToolRegistry([get_weather]); reg.run("get_weather", {"location": "北京"})
    """

    def __init__(self, tools: Iterable[Callable | Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.register(t)

    def register(self, fn_or_tool: Callable | Tool) -> Tool:
        """Add a Tool (or a plain function, wrapped with @tool). Usable as a decorator."""
        t = fn_or_tool if isinstance(fn_or_tool, Tool) else tool(fn_or_tool)
        if t.name in self._tools and self._tools[t.name] is not t:
            raise ValueError(f"a different tool named {t.name!r} is already registered")
        self._tools[t.name] = t
        return t

    _MISSING = object()

    def get(self, name: str, default: Any = _MISSING) -> Tool:
        """The tool called `name`; ToolError listing the available names (or `default`)."""
        if isinstance(name, str) and name in self._tools:
            return self._tools[name]
        if default is not self._MISSING:
            return default
        hint = get_close_matches(str(name), list(self._tools), n=1)
        maybe = f" Did you mean {hint[0]!r}?" if hint else ""
        raise ToolError(f"There is no tool named {name!r}.{maybe} Available tools: "
                        f"{', '.join(self._tools) or '(none)'}.")

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, item: object) -> bool:
        name = item.name if isinstance(item, Tool) else item
        return isinstance(name, str) and name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names()})"

    def openai_tools(self) -> list[dict]:
        """The `tools=` parameter of a native chat-completions request."""
        return [t.openai_schema() for t in self._tools.values()]

    def describe(self, style: str = "text") -> str:
        """Tool list for a ReAct prompt, one tool per entry (see Tool.describe for the styles)."""
        return "\n".join(t.describe(style) for t in self._tools.values())

    @staticmethod
    def _as_kwargs(t: Tool, args: Any) -> dict:
        """The model's arguments as a dict keyed by parameter name, not yet checked against the
        schema (the first half of `validate`). Example: (get_weather, "北京") -> {"location": "北京"}
        """
        props = t.parameters.get("properties", {})
        usage = t.usage()
        if isinstance(args, str):
            try:
                args = _decode(args)
            except ToolError as exc:
                raise ToolError(f"{t.name}: {exc} {usage}") from None
        if args is None or (isinstance(args, str) and args.strip().lower() in ("", "none", "null")):
            args = {}
        if isinstance(args, (list, tuple)):
            if len(args) > len(props):
                raise ToolError(f"{t.name} got {len(args)} positional values but has only "
                                f"{len(props)} parameter(s). {usage}")
            args = dict(zip(props, args))
        if not isinstance(args, dict):
            if len(props) != 1:
                what = "no parameters" if not props else f"{len(props)} parameters"
                raise ToolError(f"{t.name} has {what}, so the single value {args!r:.80} cannot "
                                f"be used. {usage}")
            args = {next(iter(props)): args}
        return args

    def _tool_name_as_value(self, name: str, args: Any) -> str | None:
        """A hint when an argument value is the name of another tool in this registry, else None.

        Small models sometimes pass the tool they should have called first *as a value*:
        days_between({"date1": "2026-12-31", "date2": "get_today"}). The tool would only say
        "'get_today' is not a date"; naming the tool to call first gets the model unstuck.
        Only whole values count ("get_today", "get_today()", "get_today({})", case-sensitive):
        "get_today is a tool" is an ordinary value. The tool's own name does not count ("call
        days_between first, then days_between" helps no one).
        """
        t = self.get(name)
        for key, value in self._as_kwargs(t, args).items():
            if not isinstance(value, str):
                continue
            called = _CALL_SUFFIX.sub("", value.strip()).rstrip()
            if called != t.name and called in self._tools:
                return (f"{t.name} got {key}={value!r}, which is the name of a tool, not a value. "
                        f"Call {called} first, then call {t.name} again with its result.")
        return None

    def validate(self, name: str, args: Any) -> dict:
        """Check (and lightly coerce) `args` for tool `name`; return the keyword arguments.

        Accepted: a dict; None/"" for no arguments; a JSON or Python-literal string (decoded
        first); a bare value for a one-parameter tool; a list taken as positional arguments.
        Example: validate("get_weather", "北京") -> {"location": "北京"}
        """
        t = self.get(name)
        props = t.parameters.get("properties", {})
        required = t.parameters.get("required", [])
        usage = t.usage()
        args = self._as_kwargs(t, args)
        unexpected = [k for k in args if k not in props]
        missing = [k for k in required if k not in args]
        if unexpected:
            key = unexpected[0]
            hint = get_close_matches(str(key), list(props), n=1, cutoff=0.5) or (
                missing if len(missing) == 1 else [])
            maybe = f" Did you mean {hint[0]!r}?" if hint else ""
            raise ToolError(f"{t.name} got an unexpected argument {key!r}.{maybe} {usage}")
        if missing:
            raise ToolError(f"{t.name} is missing the required argument {missing[0]!r}. {usage}")
        clean = {}
        for key, value in args.items():
            ok, clean[key] = _coerce(value, props[key])
            if not ok:
                raise ToolError(f"{t.name}: argument {key!r} must be {_type_label(props[key])}, "
                                f"got {type(value).__name__} {value!r:.80}. {usage}")
        return clean

    def call(self, name: str, args: Any = None) -> str:
        """Validate, run and return the result as text. ToolError for a bad call; the tool's own
        exception propagates (use `run` inside an agent loop)."""
        kwargs = self.validate(name, args)
        return _as_text(self._tools[name].func(**kwargs))

    def run(self, name: str, args: Any = None) -> tuple[str, bool]:
        """(observation, is_error). Never raises for anything a tool or a model can do:
        errors come back as text the model can act on. (KeyboardInterrupt still stops.)

        Before the tool runs, an argument value that is the name of another tool in this
        registry ("get_today", "get_today()") is refused with a hint to call that tool first;
        the tool itself is not run (see `_tool_name_as_value`). `validate` and `call` do not
        make this check: they answer "do these arguments fit?", not "is this a sensible call?".

        Example: run("calculator", {"expression": "1/0"})
                 -> ("Error: calculator failed: ValueError: division by zero", True)
        """
        try:
            hint = self._tool_name_as_value(name, args)
            if hint:
                return f"Error: {hint}", True
            return self.call(name, args), False
        except ToolError as exc:
            return f"Error: {_safe_str(exc)}", True
        except (Exception, SystemExit) as exc:  # noqa: BLE001  (the point of run())
            message = _safe_str(exc) or "(no message)"
            return f"Error: {name} failed: {type(exc).__name__}: {message}", True


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001  (an exception whose __str__ itself fails)
        return repr(type(exc))


def _as_text(result: Any) -> str:
    """Tool results become observation text. Example: {"a": 1} -> '{"a": 1}'."""
    if isinstance(result, str):
        return result
    if result is None:
        return "(the tool returned nothing)"
    if isinstance(result, (dict, list, tuple)):
        try:
            return json.dumps(result, ensure_ascii=False)
        except (TypeError, ValueError):
            return repr(result)
    return str(result)


def default_registry() -> ToolRegistry:
    """A fresh registry with the course tools: get_weather, get_closing_price, get_today,
    days_between, calculator, search_docs."""
    from reactlab import course_tools

    return ToolRegistry(getattr(course_tools, n) for n in COURSE_TOOL_NAMES)


def __getattr__(name: str) -> Any:
    # The course tools are defined in reactlab.course_tools, which itself imports this module;
    # resolving them lazily keeps `from reactlab.tools import calculator` free of import cycles.
    if name in COURSE_TOOL_NAMES:
        from reactlab import course_tools

        return getattr(course_tools, name)
    raise AttributeError(f"module 'reactlab.tools' has no attribute {name!r}")
