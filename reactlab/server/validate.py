"""Check a /v1/chat/completions body and turn it into a `ChatRequest`, or explain what is wrong.

Every message here is written for the person (or the agent) that sent the request: it names
the field (`temperature`, `tools[0].function.parameters`), says what was found and what to do
instead. The conversation itself (roles, tool-call pairing) is checked by `conversation`;
the body's size, depth, numbers and text were bounded before that (`limits`). Tool and
response schemas are checked for structure only (subschemas are objects, `type` is a JSON
type), so the engine's grammar compiler never sees a schema it cannot read.

This module does not render, generate or parse model output; it never talks to an engine.
Unknown extra fields are ignored (clients send many), but known ones must have the right type.
Introduced in notebook 05 (the errors a wrong request gets).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reactlab.server.conversation import check_messages
from reactlab.server.errors import bad_request
from reactlab.server.limits import Limits, decode_json

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
DEFAULT_MAX_TOKENS = 1024  # a runaway 1.5B at ~20 tok/s would otherwise hold the engine for minutes
MAX_STOP = 16  # OpenAI allows 4; every stop string is checked after every token
JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then",
        "else", "additionalItems", "unevaluatedProperties", "unevaluatedItems")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


@dataclass
class ChatRequest:
    messages: list[dict]
    model: str | None = None
    tools: list[dict] = field(default_factory=list)
    tool_choice: str = "none"          # "auto" | "none" | "required" | "named"
    tool_name: str | None = None       # the function named by tool_choice, if any
    parallel_tool_calls: bool = True
    stream: bool = False
    include_usage: bool = False
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float = 1.0           # OpenAI's default; agents in reactlab pass 0
    top_p: float | None = None
    seed: int | None = None
    stop: list[str] = field(default_factory=list)
    response_schema: dict | None = None  # from response_format json_object / json_schema
    debug: bool = False                # reactlab extension: "reactlab_debug": true
    cache_prompt: bool = True          # llama.cpp extension: false re-reads the whole prompt
    help: bool = True                  # reactlab extension: "reactlab_help": false (see assist)
    choice: bool = False               # reactlab extension: "reactlab_choice": true (constrain)
    more_calls: bool | None = None     # reactlab extension: "reactlab_more_calls" (more_calls);
                                       # None: as the help goes (on with it, off without)

    @property
    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.tools]


def _number(body: dict, key: str, lo: float, hi: float, integer: bool = False):
    value = body.get(key)
    if value is None:
        return None
    kind = "an integer" if integer else "a number"
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok:
        raise bad_request(f"'{key}' must be {kind}, got {value!r}.", key, "invalid_type")
    if not lo <= value <= hi:
        raise bad_request(f"'{key}' must be between {lo:g} and {hi:g}, got {value!r}.", key,
                          "invalid_value")
    return value


def _flag(body: dict, key: str, default: bool | None) -> bool | None:
    value = body.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise bad_request(f"'{key}' must be true or false, got {value!r}.", key, "invalid_type")
    return value




def _tools(body: dict) -> list[dict]:
    tools = body.get("tools")
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise bad_request("'tools' must be a list of {\"type\": \"function\", \"function\": {…}} "
                          "objects.", "tools", "invalid_type")
    seen = set()
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict) or tool.get("type") != "function":
            raise bad_request(f"{where} must be {{\"type\": \"function\", \"function\": {{\"name\": "
                              f"…, \"description\": …, \"parameters\": {{…}}}}}}.", where)
        fn = tool.get("function")
        name = fn.get("name") if isinstance(fn, dict) else None
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            raise bad_request(f"{where}.function.name must be 1-64 letters, digits, '_' or '-', "
                              f"got {name!r}.", f"{where}.function.name", "invalid_tool_name")
        if name in seen:
            raise bad_request(f"Two tools are named {name!r}; tool names must be unique.",
                              f"{where}.function.name", "duplicate_tool_name")
        seen.add(name)
        params = fn.get("parameters")
        if params is not None and not (isinstance(params, dict) and params.get("type") == "object"
                                       and isinstance(params.get("properties", {}), dict)):
            got = params.get("type") if isinstance(params, dict) else type(params).__name__
            raise bad_request(f"{where}.function.parameters must be a JSON schema of type "
                              f"'object' (got {got!r}): describe the arguments as "
                              f"{{\"type\": \"object\", \"properties\": {{…}}, \"required\": […]}}.",
                              f"{where}.function.parameters", "invalid_tool_schema")
        if params is not None:
            _check_schema(params, f"{where}.function.parameters", "invalid_tool_schema")
        if not isinstance(fn.get("description", ""), str):
            raise bad_request(f"{where}.function.description must be a string.",
                              f"{where}.function.description", "invalid_type")
    return tools


def _schema_problem(schema, where: str) -> tuple[str, str] | None:
    """(where, what is wrong) for the first malformed part of a JSON schema, or None.

    Checks the structure the engine's grammar compiler relies on (subschemas are objects,
    `type` names a JSON type, `required` lists names); unknown keywords pass. Iterative, so
    depth is bounded by `limits`, not by Python's stack.
    Example: {"type": "object", "properties": {"x": 3}} -> ("….properties.x", "must be …")
    """
    stack = [(schema, where)]
    while stack:
        s, at = stack.pop()
        if isinstance(s, bool):
            continue
        if not isinstance(s, dict):
            return at, f"must be a JSON schema (an object), got {type(s).__name__}"
        kind = s.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if kind is not None and not all(isinstance(k, str) and k in JSON_TYPES for k in kinds):
            return f"{at}.type", f"must be one of {', '.join(JSON_TYPES)} (or a list of them)"
        required = s.get("required")
        if required is not None and not (isinstance(required, list)
                                         and all(isinstance(r, str) for r in required)):
            return f"{at}.required", "must be a list of property names"
        if "enum" in s and not isinstance(s["enum"], list):
            return f"{at}.enum", "must be a list of values"
        for key in _ONE:
            if key in s:
                value = s[key]
                items = value if key in ("items", "additionalItems") and isinstance(value, list) \
                    else [value]
                stack.extend((v, f"{at}.{key}") for v in items)
        for key in _MANY:
            if key in s:
                if not isinstance(s[key], list):
                    return f"{at}.{key}", "must be a list of schemas"
                stack.extend((v, f"{at}.{key}[{i}]") for i, v in enumerate(s[key]))
        for key in _NAMED:
            if key in s:
                if not isinstance(s[key], dict):
                    return f"{at}.{key}", "must be an object of schemas by name"
                stack.extend((v, f"{at}.{key}.{name}") for name, v in s[key].items())
    return None


def _check_schema(schema, where: str, code: str) -> None:
    problem = _schema_problem(schema, where)
    if problem:
        at, what = problem
        raise bad_request(f"{at} {what}: fix this JSON schema (see json-schema.org).", where, code)


def _tool_choice(body: dict, names: list[str]) -> tuple[str, str | None]:
    choice = body.get("tool_choice")
    if choice is None:
        return ("auto" if names else "none"), None
    if choice in ("auto", "none", "required"):
        if choice == "required" and not names:
            raise bad_request("tool_choice 'required' needs a non-empty 'tools' list.",
                              "tool_choice")
        return choice, None
    name = None
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        name = choice["function"].get("name")
    if not isinstance(name, str):
        raise bad_request("tool_choice must be 'auto', 'none', 'required' or {\"type\": "
                          "\"function\", \"function\": {\"name\": …}}.", "tool_choice")
    if name not in names:
        raise bad_request(f"tool_choice names {name!r}, which is not in 'tools' (tools: "
                          f"{', '.join(names) or 'none'}).", "tool_choice", "unknown_tool")
    return "named", name


def _stop(body: dict) -> list[str]:
    stop = body.get("stop")
    if stop is None:
        return []
    stop = [stop] if isinstance(stop, str) else stop
    if not (isinstance(stop, list) and all(isinstance(s, str) and s for s in stop)):
        raise bad_request("'stop' must be a non-empty string or a list of them.", "stop")
    if len(stop) > MAX_STOP:
        raise bad_request(f"'stop' has {len(stop)} strings; this server accepts at most "
                          f"{MAX_STOP}.", "stop", "too_many_stop_strings")
    return stop


def _response_schema(body: dict) -> dict | None:
    fmt = body.get("response_format")
    if fmt is None or (isinstance(fmt, dict) and fmt.get("type") == "text"):
        return None
    if isinstance(fmt, dict) and fmt.get("type") == "json_object":
        return {"type": "object"}
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if isinstance(schema, dict):
            _check_schema(schema, "response_format.json_schema.schema", "invalid_schema")
            return schema
    raise bad_request("response_format must be {\"type\": \"text\"}, {\"type\": \"json_object\"} "
                      "or {\"type\": \"json_schema\", \"json_schema\": {\"schema\": {…}}}.",
                      "response_format")


def parse_body(raw: bytes, limits: Limits | None = None) -> ChatRequest:
    """Decode and check a request body. Raises APIError(400) with a sentence saying what to fix.

    Linear in the body's size; `limits.decode_json` refuses NaN, deep nesting and lone
    surrogates before any field is read.
    Example: parse_body(b'{"messages": [], "model": "1.5b"}') -> 400 "'messages' must be a
    non-empty list …"
    """
    body = decode_json(raw, limits or Limits())
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object with 'model' and 'messages'.",
                          None, "invalid_json")
    if body.get("model") is not None and not isinstance(body["model"], str):
        raise bad_request("'model' must be a string.", "model", "invalid_type")
    if body.get("n") not in (None, 1):
        raise bad_request("This server returns one choice per request: leave 'n' out or set it "
                          "to 1.", "n", "unsupported_value")
    tools = _tools(body)
    choice, name = _tool_choice(body, [t["function"]["name"] for t in tools])
    options = body.get("stream_options")
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise bad_request("'stream_options' must be an object such as {\"include_usage\": true}.",
                          "stream_options")
    max_tokens = _number(body, "max_tokens", 1, 1 << 20, integer=True)
    if max_tokens is None:
        max_tokens = _number(body, "max_completion_tokens", 1, 1 << 20, integer=True)
    temperature = _number(body, "temperature", 0, 2)
    return ChatRequest(
        messages=check_messages(body.get("messages")), model=body.get("model"),
        tools=tools, tool_choice=choice, tool_name=name,
        parallel_tool_calls=_flag(body, "parallel_tool_calls", True),
        stream=_flag(body, "stream", False),
        include_usage=_flag(options, "include_usage", False),
        max_tokens=max_tokens or DEFAULT_MAX_TOKENS,
        temperature=1.0 if temperature is None else float(temperature),
        top_p=_number(body, "top_p", 0, 1), seed=_number(body, "seed", -(1 << 63), (1 << 64) - 1,
                                                          integer=True),
        stop=_stop(body), response_schema=_response_schema(body),
        debug=_flag(body, "reactlab_debug", False), cache_prompt=_flag(body, "cache_prompt", True),
        help=_flag(body, "reactlab_help", True), choice=_flag(body, "reactlab_choice", False),
        more_calls=_flag(body, "reactlab_more_calls", None))
