"""Tools an agent can call: the `@tool` decorator, `Tool`, `ToolRegistry` and `ToolError`.

`@tool` turns a plain Python function into a `Tool` whose JSON schema comes from its type hints
and docstring (`reactlab.tools.schema`). A `ToolRegistry` holds tools and speaks both protocols:
`.describe()` renders the tool list for a ReAct prompt, `.openai_tools()` is the native `tools=`
parameter. `.validate()` checks a model's arguments *before* anything runs and `.run()` turns
every failure into an observation string, because an agent must show the model its mistake
instead of crashing.

Deliberately NOT here: async tools, timeouts around a tool call (the course tools bound their
own work), retries, and running several calls of one reply (`reactlab.tools.execute`). The
`max_chars` bound is checked by `validate`/`run` only: calling a Tool directly from Python is
not bounded.

First used in notebook 02 (`run`), explained in notebook 04 (tools are data plus a function);
`@tool` on your own functions and tool errors are the subject of notebook 07.

About 350 lines: validation (types, required and unknown keys, the tool-name-as-value hint)
is most of it, and its messages are what the model reads, so they stay beside the registry.
"""

from __future__ import annotations

import json
import re
import reprlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any

from reactlab.jsonish import loads_lenient
from reactlab.tools.schema import coerce, function_schema, type_label


class ToolError(ValueError):
    """The model asked for a tool that does not exist, or passed arguments that do not fit.

    Its message is written for the model: it names the bad key and lists the parameters.
    """


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 200
_REPR.maxlevel = 3  # a 5000-deep list is shown as [[[...]]], without recursion


def shown(value: Any, limit: int = 80) -> str:
    """The start of a value's repr for an error message; never raises, whatever the value.

    Example: shown("北京" * 100) -> "'北京北京…" (80 characters)
    """
    try:
        return _REPR.repr(value)[:limit]
    except Exception:  # noqa: BLE001  (an int over 4300 digits: Python refuses to print it)
        return f"<{type(value).__name__} too long to show>"


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
    max_chars: int | None = None  # longest text argument `validate` accepts; None: no bound

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
            part = f"{key}: {type_label(schema)}"
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
        params = "; ".join(f"{k} ({type_label(s)}, {'required' if k in required else 'optional'})"
                           for k, s in props.items())
        example = json.dumps({k: "…" for k in props if k in required}, ensure_ascii=False)
        return f"{self.name} takes: {params}. Example input: {example}"

    def describe(self, style: str = "text") -> str:
        """This tool for a ReAct prompt: "text" (signature — description + one line per argument)
        or "json" (one JSON object per tool, as langchain-style prompts list them)."""
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
            lines.append(f"    - {key} ({type_label(schema)}, {need}){doc}")
        return "\n".join(lines)


def tool(func: Callable | None = None, *, name: str | None = None, side_effects: bool = False,
         max_chars: int | None = None) -> Any:
    """Decorator: `@tool` or `@tool(name="x", side_effects=True, max_chars=2000)` -> a `Tool`.

    Example: @tool def get_today() -> str: ...  ->  Tool(name="get_today", ...)
    """
    def make(f: Callable) -> Tool:
        tool_name = name or f.__name__
        description, parameters = function_schema(f, tool_name)
        return Tool(name=tool_name, description=description, parameters=parameters, func=f,
                    side_effects=side_effects, max_chars=max_chars)

    return make if func is None else make(func)


def _decode(text: str) -> Any:
    """A JSON (or Python-literal) value from a string, or the string itself if it is not one.

    Example: _decode('{"a": 1}') -> {"a": 1};  _decode("(1+2)*3") -> "(1+2)*3"
    """
    stripped = text.strip()
    if not stripped.startswith(("{", "[", '"')):
        return text
    try:
        return loads_lenient(stripped)
    except (ValueError, RecursionError, MemoryError) as exc:  # 5000 nested "[": not a value
        if stripped.startswith("{"):
            reason = str(exc)[:200] if isinstance(exc, ValueError) else "nested too deeply"
            raise ToolError(f"the arguments look like a JSON object but could not be decoded "
                            f"({reason}). Send a JSON object with double-quoted keys.") from None
        return text


def as_text(result: Any) -> str:
    """Tool results become observation text. Example: {"a": 1} -> '{"a": 1}'."""
    if isinstance(result, str):
        return result
    if result is None:
        return "(the tool returned nothing)"
    if isinstance(result, (dict, list, tuple)):
        try:
            return json.dumps(result, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            pass  # a date inside, say: its repr is still readable
    try:
        return str(result)
    except Exception:  # noqa: BLE001  (an int over 4300 digits, 5000 nested lists, a broken __str__)
        return shown(result)


def exc_text(exc: BaseException) -> str:
    """An exception's message, even when its __str__ fails. Example: KeyError("a") -> "'a'"."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001  (an exception whose __str__ itself fails)
        return repr(type(exc))


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
        hint = get_close_matches(name[:100], list(self._tools), n=1) if isinstance(name, str) \
            else []
        maybe = f" Did you mean {hint[0]!r}?" if hint else ""
        raise ToolError(f"There is no tool named {shown(name)}.{maybe} Available tools: "
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
                raise ToolError(f"{t.name} has {what}, so the single value {shown(args)} cannot "
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
        days_between first, then days_between" helps no one). A value that *calls* another tool
        inside it counts too: calculator("(get_weather('北京')['humidity'] + …) / 3"), the
        1.5B's way of writing an average before fetching anything.
        """
        t = self.get(name)
        for key, value in self._as_kwargs(t, args).items():
            if not isinstance(value, str) or len(value) > 100:
                continue
            called = _CALL_SUFFIX.sub("", value.strip()).rstrip()
            if called != t.name and called in self._tools:
                return (f"{t.name} got {key}={value!r}, which is the name of a tool, not a value. "
                        f"Call {called} first, then call {t.name} again with its result.")
            inside = [n for n in self._tools if n != t.name
                      and re.search(rf"(?<!\w){re.escape(n)}\s*\(", value)]
            if inside:
                return (f"{t.name} got {key}={value!r}, which calls {', '.join(inside)} inside "
                        f"it. A tool cannot call another tool: call {inside[0]} first (one call "
                        f"for each value you need), then call {t.name} again with the figures "
                        f"its results give.")
        return None

    def validate(self, name: str, args: Any) -> dict:
        """Check (and lightly coerce) `args` for tool `name`; return the keyword arguments.

        Accepted: a dict; None/"" for no arguments; a JSON or Python-literal string (decoded
        first); a bare value for a one-parameter tool; a list taken as positional arguments.
        A text value longer than the tool's `max_chars` is refused.
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
            hint = (get_close_matches(key[:100], list(props), n=1, cutoff=0.5)
                    if isinstance(key, str) else []) or (missing if len(missing) == 1 else [])
            maybe = f" Did you mean {hint[0]!r}?" if hint else ""
            raise ToolError(f"{t.name} got an unexpected argument {shown(key)}.{maybe} {usage}")
        if missing:
            raise ToolError(f"{t.name} is missing the required argument {missing[0]!r}. {usage}")
        clean = {}
        for key, value in args.items():
            ok, clean[key] = coerce(value, props[key])
            if not ok:
                raise ToolError(f"{t.name}: argument {key!r} must be {type_label(props[key])}, "
                                f"got {type(value).__name__} {shown(value)}. {usage}")
            if t.max_chars is not None and isinstance(clean[key], str) \
                    and len(clean[key]) > t.max_chars:
                raise ToolError(f"{t.name}: argument {key!r} is too long ({len(clean[key]):,} "
                                f"characters; the limit is {t.max_chars:,}). Send only the short "
                                f"value the tool needs, not a whole text. {usage}")
        return clean

    def call(self, name: str, args: Any = None) -> str:
        """Validate, run and return the result as text. ToolError for a bad call; the tool's own
        exception propagates (use `run` inside an agent loop)."""
        kwargs = self.validate(name, args)
        return as_text(self._tools[name].func(**kwargs))

    def run(self, name: str, args: Any = None) -> tuple[str, bool]:
        """(observation, is_error). Never raises for anything a tool or a model can do:
        errors come back as text the model can act on. (KeyboardInterrupt still stops.)

        Before the tool runs, an argument value that is the name of another tool in this
        registry ("get_today", "get_today()") is refused with a hint to call that tool first;
        the tool itself is not run (see `_tool_name_as_value`). `validate` and `call` do not
        make this check: they answer "do these arguments fit?", not "is this a sensible call?".

        Example: run("calculator", {"expression": "1/0"})
                 -> ("Error: calculator failed: ValueError: division by zero.", True)
        """
        try:
            hint = self._tool_name_as_value(name, args)
            if hint:
                return f"Error: {hint}", True
            return self.call(name, args), False
        except ToolError as exc:
            return f"Error: {exc_text(exc)}", True
        except (Exception, SystemExit) as exc:  # noqa: BLE001  (the point of run())
            message = exc_text(exc) or "(no message)"
            who = name if isinstance(name, str) else shown(name)
            return f"Error: {who} failed: {type(exc).__name__}: {message}", True
