"""reactlab.action_parsing: one action's text -> (tool name, arguments), every shape and guard."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.action_parsing import (
    ShapeError,
    clean_name,
    decode_args,
    from_blob,
    from_call,
    from_code,
    from_xml,
    normalise_args,
)

WEATHER = ("get_weather", {"location": "北京"})


def code_of(fn, *args) -> str:
    with pytest.raises(ShapeError) as info:
        fn(*args)
    return info.value.code


# --- blobs --------------------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    '{"action": "get_weather", "action_input": {"location": "北京"}}',
    '{"name": "get_weather", "arguments": {"location": "北京"}}',
    '{"name": "get_weather", "parameters": {"location": "北京"}}',
    '{"tool_name": "get_weather", "tool_arguments": {"location": "北京"}}',
    '{"function_name": "get_weather", "params": {"location": "北京"}}',
    '{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"location\\": \\"北京\\"}"}}',
    '[{"name": "get_weather", "arguments": {"location": "北京"}}]',
    "```python\n{'action': 'get_weather', 'action_input': {'location': '北京'}}\n```",
    '{"name": "get_weather", "arguments": {"location": "北京"}} I will wait for the result.',
])
def test_blob_shapes(body):
    assert from_blob(body) == WEATHER


def test_blob_guards():
    assert code_of(from_blob, '[{"name": "a"}, {"name": "b"}]') == "multiple_actions"
    assert code_of(from_blob, '{"name": "a"} {"name": "b"}') == "multiple_actions"
    assert code_of(from_blob, '{"action_input": {}}') == "no_tool_name"
    assert code_of(from_blob, '{"name": "a"') == "bad_json"
    assert code_of(from_blob, "no json here") == "bad_json"
    assert code_of(from_blob, "{'name': 'a', 'arguments': {'x': b'1'}}") == "bad_json"


# --- calls ---------------------------------------------------------------------------------------

def test_from_call():
    assert from_call("get_weather", 'get_weather(location="北京")', 11) == WEATHER
    assert from_call("get_weather", 'get_weather("北京")', 11) == ("get_weather", "北京")
    assert from_call("Search", "Search[明天天气]", 6) == ("Search", "明天天气")
    assert from_call("Finish", "Finish['1530 元']", 6) == ("Finish", "1530 元")
    assert from_call("f", "f(北京)", 1) == ("f", "北京")  # not Python: the raw text
    assert from_call("f", "f(city)", 1) == ("f", "city")  # a variable: the raw text
    assert from_call("f", "f(ids={2, 1})", 1) == ("f", {"ids": [1, 2]})  # a set becomes a list
    assert code_of(from_call, "f", "f(x=b'1')", 1) == "bad_json"
    assert code_of(from_call, "f", "f(x=1j)", 1) == "bad_json"
    assert code_of(from_call, "f", "f(x=1", 1) == "bad_json"


@pytest.mark.parametrize("text", [
    'get_weather(location="北京")',
    '```python\nget_weather(location="北京")\n```',
    '[get_weather(location="北京")]',
    '<|python_start|>get_weather(location="北京")<|python_end|>',
    'functions.get_weather(location="北京")',
])
def test_from_code(text):
    assert from_code(text) == WEATHER


@pytest.mark.parametrize("text", ["北京今天晴。", "get_weather(city)", "x = f(1)", "[1, 2]",
                                  "(f)(1)", "f(1)(2)", "", "```\n```"])
def test_from_code_ignores_what_is_not_one_literal_call(text):
    assert from_code(text) is None


def test_from_code_two_calls_is_an_error():
    assert code_of(from_code, '[get_today(), get_weather(location="北京")]') == "multiple_actions"


# --- XML-ish calls -----------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    ("<tool_call>\n<function=get_weather>\n<parameter=location>\n北京\n</parameter>\n</function>\n"
    "</tool_call>"),
    '<invoke name="get_weather"><parameter name="location">北京</parameter></invoke>',
    ('<action>\n<tool_name>get_weather</tool_name>\n<arguments><arg key="location">北京</arg>'
    "</arguments>\n</action>"),
    '<tool_call><name>get_weather</name><arguments>{"location": "北京"}</arguments></tool_call>',
])
def test_from_xml(text):
    assert from_xml(text) == WEATHER


def test_from_xml_guards():
    assert from_xml("no tags here <b>bold</b>") is None
    two = "<function=a></function><function=b></function>"
    assert code_of(from_xml, two) == "multiple_actions"
    assert from_xml("<tool_name>get_today</tool_name>") == ("get_today", {})
    assert from_xml("<function=a><parameter=x>1") == ("a", {})  # never closed: no argument


# --- Action Input text --------------------------------------------------------------------------

@pytest.mark.parametrize("raw,args", [
    ('```json\n{"location": "北京"}\n```', {"location": "北京"}),
    ('** {"location": "北京"}', {"location": "北京"}),  # markdown bold before the JSON
    ('QueryEngineTool({"location": "北京"})', {"location": "北京"}),
    ("{temperature in SF}", "{temperature in SF}"),  # brackets around words
    ("[temperature in {SF}]", "[temperature in {SF}]"),
    ('"北京"', "北京"),
    ("`ls -l`", "ls -l"),
    ("```\nprint(1)\n```", "print(1)"),
    ("a `code` word", "a `code` word"),
    ("", {}),
    ("[1, 2]", "[1, 2]"),
])
def test_decode_args(raw, args):
    assert decode_args(raw) == args


@pytest.mark.parametrize("raw", ['{"location": 北京}', "{location: '北京'}", '{"a": 1'])
def test_decode_args_refuses_broken_json(raw):
    assert code_of(decode_args, raw) == "bad_json"


def test_normalise_args():
    assert normalise_args('{"location": "北京"}') == {"location": "北京"}
    assert normalise_args("{not json") == "{not json"
    assert normalise_args(None) == {}
    assert normalise_args(5) == "5"
    assert normalise_args((1, 2)) == "[1, 2]"
    assert code_of(normalise_args, {"a": 1j}) == "bad_json"


def test_clean_name():
    assert clean_name(" `get_weather()` ") == "get_weather"
    assert clean_name("[get_weather]") == "get_weather"
    assert clean_name("functions.get_weather") == "get_weather"
    assert clean_name("add (add two numbers)") == "add"
    assert clean_name("Delegate work to coworker", words=True) == "Delegate work to coworker"
    assert code_of(clean_name, "Delegate work to coworker") == "no_tool_name"
    assert code_of(lambda n: clean_name(n, words=True), "I will now call the weather tool") \
        == "no_tool_name"
    assert code_of(clean_name, "x" * 200) == "no_tool_name"


# --- any input: only ShapeError, and arguments JSON can carry --------------------------------------

PIECES = ["{", "}", "[", "]", "(", ")", '"', "'", ":", ",", "<", ">", "/", "=", "function",
          "parameter", "tool_name", "arguments", "name", "get_weather", "b'x'", "1j", "{1, 2}",
          "```", "\n", " ", "**", "北京", "<|python_start|>"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=30)
       .map("".join))
def test_readers_raise_only_shape_errors(text):
    for reader in (from_blob, from_code, from_xml, decode_args):
        try:
            out = reader(text)
        except ShapeError as exc:
            assert exc.code in {"bad_json", "multiple_actions", "no_tool_name"}
            continue
        if isinstance(out, tuple):
            out = out[1]
        json.dumps(out, allow_nan=False)


def test_a_call_with_an_invalid_escape_parses_the_same_under_any_warning_filter():
    # "\(" is an invalid escape to Python: compiling it warned into the notebook, and under a
    # filter that makes warnings errors the call was not read at all
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert from_code("calculator('\\(1+2\\)')") == ("calculator", "\\(1+2\\)")
