"""A JSON schema that makes `tool_choice="required"` (or a named tool) valid by construction.

With `tool_choice` left on `auto`, the model may answer in prose, and we parse whatever it
wrote. When the client *requires* a call, we do not hope: the engine's constrained decoding
(`json_schema`, turned into a grammar by llama.cpp/llguidance) lets the sampler pick only
tokens that keep the text valid against this schema, so the reply is always a parseable call
to a real tool with arguments of the right shape.

Shapes (the text the model is forced to write; `toolcalls` parses both):

- named tool, or `required` with `parallel_tool_calls=false`: one call object
  `{"name": "get_weather", "arguments": {"location": "北京"}}`;
- `required` with parallel calls allowed (OpenAI's default): a list of one or more such
  objects, `[{"name": …, "arguments": …}, …]`. A simplification: the template teaches
  `<tool_call>` tags, but a JSON list keeps this a plain `json_schema`, easy to print;
- a *choice* under `tool_choice="auto"`, when the request asks for it (`"reactlab_choice":
  true`): an answer `{"answer": "…"}`, one call object, or (when parallel calls are allowed)
  a list of calls. The model still decides whether to call and how many calls to make, and
  each call's arguments must fit that tool's schema (types, enums, required keys), so a
  schema word ("type": "string") cannot stand in for a value. The single call object is there
  because the 1.5B opens every call with `{`: offered only `{"answer"…}` or `[…]`, it took
  `{` and was walked into an answer (BFCL simple 0/5, against 5/5 with the call object;
  benchmarks/results/bfcl_notes.md). Simplification: no room for a thought before the choice.

Argument objects get `additionalProperties: false` when the tool's schema does not say,
so the model cannot invent keys. This module does not validate tool schemas (`validate`
does) and does not check that the engine honoured the schema. Introduced in notebook 06.
"""

from __future__ import annotations

import copy


def _strict(schema: dict | None) -> dict:
    """Example: {"type": "object", "properties": {"x": …}} -> same + "additionalProperties": false"""
    schema = copy.deepcopy(schema) if schema else {"type": "object", "properties": {}}
    if schema.get("type") == "object" and "additionalProperties" not in schema:
        schema["additionalProperties"] = False
    return schema


def call_schema(tool: dict) -> dict:
    """The schema of one call to `tool` (an OpenAI `{"type": "function", …}` entry).

    Example: get_weather -> {"type": "object", "properties": {"name": {"const": "get_weather"},
             "arguments": {…get_weather's parameters…}}, "required": ["name", "arguments"], …}
    """
    fn = tool["function"]
    return {"type": "object",
            "properties": {"name": {"const": fn["name"]},
                           "arguments": _strict(fn.get("parameters"))},
            "required": ["name", "arguments"], "additionalProperties": False}


ANSWER_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string", "minLength": 1}},
                 "required": ["answer"], "additionalProperties": False}


def choice_schema(tools: list[dict], parallel: bool = True, max_calls: int = 8) -> dict:
    """The schema of a free choice: an answer, or calls (at most `max_calls`) to `tools`.

    Example: choice_schema([get_weather])["anyOf"] -> [ANSWER_SCHEMA, <get_weather's call
             schema>, {"type": "array", "items": <the same>, "minItems": 1, "maxItems": 8}]
    """
    one = [call_schema(t) for t in tools]
    call = one[0] if len(one) == 1 else {"anyOf": one}
    calls = [{"type": "array", "items": call, "minItems": 1, "maxItems": max_calls}] if parallel else []
    return {"anyOf": [ANSWER_SCHEMA, call, *calls]}


def tool_call_schema(tools: list[dict], name: str | None = None, parallel: bool = True) -> dict:
    """The schema for a forced call: to `name` if given, else to any of `tools`.

    Example: tool_call_schema(tools, "get_weather")["properties"]["name"] -> {"const": "get_weather"}
    """
    chosen = [t for t in tools if name is None or t["function"]["name"] == name]
    if not chosen:
        raise ValueError(f"No tool named {name!r} among the request's tools.")
    one = call_schema(chosen[0]) if len(chosen) == 1 else {"anyOf": [call_schema(t) for t in chosen]}
    if name is not None or not parallel:
        return one
    return {"type": "array", "items": one, "minItems": 1}
