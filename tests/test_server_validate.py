"""Request checking without a server: defaults, accepted shapes, and the tool-pairing rules."""

from __future__ import annotations

import json

import pytest

from reactlab.server.errors import APIError
from reactlab.server.validate import DEFAULT_MAX_TOKENS, parse_body

USER = {"role": "user", "content": "北京天气？"}
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}}}}}


def call(cid, name="get_weather"):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": "{}"}}


def body(**kw) -> bytes:
    return json.dumps({"model": "1.5b", "messages": [USER], **kw}).encode()


def refused(**kw) -> APIError:
    with pytest.raises(APIError) as err:
        parse_body(body(**kw))
    assert err.value.status == 400
    return err.value


def test_defaults():
    r = parse_body(body())
    assert (r.temperature, r.max_tokens, r.tool_choice, r.stream, r.cache_prompt, r.debug) == (
        1.0, DEFAULT_MAX_TOKENS, "none", False, True, False)
    assert parse_body(body(tools=[TOOL])).tool_choice == "auto"


def test_accepted_shapes():
    r = parse_body(body(messages=[
        {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]}, USER,
        {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")]},
        {"role": "tool", "tool_call_id": "b", "content": "雨"},
        {"role": "tool", "tool_call_id": "a", "content": "晴"},   # any order within the group
        {"role": "assistant", "content": "北京晴，广州雨。"}, USER],
        tools=[TOOL], tool_choice={"type": "function", "function": {"name": "get_weather"}},
        max_completion_tokens=50, stop="Observation:", seed=3, stream=True,
        stream_options={"include_usage": True}, parallel_tool_calls=False,
        response_format={"type": "json_object"}, reactlab_debug=True, cache_prompt=False,
        user="someone", frequency_penalty=0))  # unknown extras are ignored
    assert (r.tool_choice, r.tool_name, r.max_tokens, r.stop, r.seed) == (
        "named", "get_weather", 50, ["Observation:"], 3)
    assert r.include_usage and not r.parallel_tool_calls and r.debug and not r.cache_prompt
    assert r.response_schema == {"type": "object"}


def test_tool_pairing_rules():
    asked = {"role": "assistant", "content": None, "tool_calls": [call("a")]}
    answer = {"role": "tool", "tool_call_id": "a", "content": "晴"}
    assert refused(messages=[USER, answer]).code == "tool_without_call"
    assert "a 'user' message" in refused(messages=[USER, answer]).message
    assert refused(messages=[USER, asked, answer, answer]).code == "duplicate_tool_result"
    assert refused(messages=[USER, asked, {**answer, "tool_call_id": None}]).code == \
        "unknown_tool_call_id"
    assert refused(messages=[USER, asked, {"role": "tool", "tool_call_id": "a"}]).code == \
        "missing_content"
    two = {**asked, "tool_calls": [call("a"), call("a")]}
    assert "used twice" in refused(messages=[USER, two]).message
    no_id = {**asked, "tool_calls": [{"type": "function", "function": {"name": "f"}}]}
    assert "echo the assistant message" in refused(messages=[USER, no_id]).message


@pytest.mark.parametrize("kw,param", [
    ({"top_p": 2}, "top_p"), ({"seed": 1.5}, "seed"), ({"temperature": True}, "temperature"),
    ({"model": 3}, "model"), ({"stream_options": "yes"}, "stream_options"),
    ({"response_format": {"type": "xml"}}, "response_format"),
    ({"tools": {"name": "f"}}, "tools"), ({"tools": [TOOL, TOOL]}, "tools[1].function.name"),
    ({"tools": [{"function": TOOL["function"]}]}, "tools[0]"),
    ({"tools": [TOOL], "tool_choice": "sometimes"}, "tool_choice"),
    ({"messages": ["hi"]}, "messages[0]"),
    ({"messages": [{"role": "user"}]}, "messages[0].content"),
])
def test_wrong_types_name_the_field(kw, param):
    assert refused(**kw).param == param


def schema_tool(parameters) -> dict:
    return {"type": "function", "function": {"name": "f", "parameters": parameters}}


@pytest.mark.parametrize("schema,where", [
    ({"type": "object", "properties": {"x": 3}}, ".properties.x"),
    ({"type": "object", "properties": {"x": {"type": "strng"}}}, ".properties.x.type"),
    ({"type": "object", "properties": {"x": {"type": ["string", 5]}}}, ".properties.x.type"),
    ({"type": "object", "properties": {}, "required": "x"}, ".required"),
    ({"type": "object", "properties": {"x": {"enum": "ab"}}}, ".properties.x.enum"),
    ({"type": "object", "properties": {"x": {"type": "array", "items": 5}}},
     ".properties.x.items"),
    ({"type": "object", "properties": {"x": {"anyOf": {"type": "string"}}}},
     ".properties.x.anyOf"),
    ({"type": "object", "properties": {"x": {"oneOf": [{"type": "string"}, "int"]}}},
     ".properties.x.oneOf[1]"),
    ({"type": "object", "properties": {}, "$defs": []}, ".$defs"),
])
def test_malformed_tool_schemas_are_refused_where_they_break(schema, where):
    error = refused(tools=[schema_tool(schema)])
    assert (error.code, error.param) == ("invalid_tool_schema", "tools[0].function.parameters")
    assert error.message.startswith("tools[0].function.parameters" + where + " ")


def test_well_formed_schemas_pass_unknown_keywords_included():
    schema = {"type": "object", "properties": {
        "city": {"type": "string", "description": "城市", "enum": ["北京", "上海"]},
        "days": {"type": ["integer", "null"], "minimum": 1, "x-unit": "day"},
        "tags": {"type": "array", "items": {"type": "string"}, "prefixItems": [True]},
        "any": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/n"}]}},
        "$defs": {"n": {"type": "number"}}, "required": ["city"], "additionalProperties": False}
    assert parse_body(body(tools=[schema_tool(schema)])).tools[0]["function"]["parameters"] == \
        schema
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    assert parse_body(body(response_format=fmt)).response_schema == schema


@pytest.mark.parametrize("fmt", [
    {"type": "json_schema", "json_schema": "x"}, {"type": "json_schema", "json_schema": [1]},
    {"type": "json_schema", "json_schema": {"schema": "x"}}, {"type": "json_schema"}, "json",
])
def test_response_format_of_the_wrong_shape_is_refused(fmt):
    assert refused(response_format=fmt).param == "response_format"


def test_response_format_schema_is_checked():
    fmt = {"type": "json_schema", "json_schema": {"schema": {"type": "object",
                                                             "properties": {"a": 1}}}}
    error = refused(response_format=fmt)
    assert (error.code, error.param) == ("invalid_schema", "response_format.json_schema.schema")


def test_stop_strings_are_capped_and_stream_options_must_be_an_object():
    assert len(parse_body(body(stop=[f"s{i}" for i in range(16)])).stop) == 16
    assert refused(stop=[f"s{i}" for i in range(17)]).code == "too_many_stop_strings"
    for options in (0, "", [], False):
        assert refused(stream_options=options).param == "stream_options"
    assert refused(tools=[{"type": "function", "function": {
        "name": "f", "description": 5}}]).param == "tools[0].function.description"


def test_five_thousand_tool_calls_and_their_results_are_checked():
    # 5000 calls answered in reverse order: list.remove / `in list` made this quadratic
    calls = [call(f"c{i}") for i in range(5000)]
    results = [{"role": "tool", "tool_call_id": f"c{i}", "content": "ok"}
               for i in reversed(range(5000))]
    messages = [USER, {"role": "assistant", "content": None, "tool_calls": calls}, *results]
    assert len(parse_body(body(messages=messages)).messages) == 5002
    error = refused(messages=[USER, {"role": "assistant", "tool_calls": calls}, *results[1:]])
    assert error.code == "unanswered_tool_calls" and "c4999" in error.message
