"""The tool-call parser, the streaming hold-back and the forced-call schema (no server, no model).

The parser and the hold-back must survive any text the model writes: hypothesis feeds them
generated replies, and 100k-character pathological ones check that the work stays linear.

REAL_* strings are verbatim outputs of qwen2.5-coder-1.5b-instruct (Q4_K_M, xllamacpp,
temperature 0 unless noted) given the Qwen2.5 template with the course tools.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.server import jsonscan, toolcalls
from reactlab.server.constrain import tool_call_schema
from reactlab.server.holdback import HoldBack
from reactlab.server.toolcalls import new_call_id, parse_tool_calls

NAMES = ["get_weather", "get_closing_price", "calculator", "get_today", "days_between"]

# "北京和广州今天天气怎么样？" — one city only, in a fenced block (the headline example)
REAL_FENCED = '```json\n{\n  "name": "get_weather",\n  "arguments": {\n    "location": "北京"\n  }\n}\n```'
# "今天是几号？"
REAL_BARE = '{"name": "get_today", "arguments": {}}'
# "北京和广州今天天气怎么样？" at temperature 0.7, seed 1
REAL_BARE_INDENTED = ('{\n    "name": "get_weather",\n    "arguments": {\n        "location": '
                      '"北京"\n    }\n}')
# after the tool result, the model asked again (arguments on one line inside the fence)
REAL_REPEAT = '```json\n{\n  "name": "get_weather",\n  "arguments": {"location": "北京"}\n}\n```'
REAL_CALC = ('```json\n{\n  "name": "calculator",\n  "arguments": {\n    "expression": "306 * 5"\n'
             '  }\n}\n```')
REAL_CONSTRAINED = '[{"name": "get_weather", "arguments": {"location": "北京"}}]'


def one(text, names=NAMES):
    reply = parse_tool_calls(text, names)
    assert len(reply.calls) == 1, reply
    return reply, reply.calls[0]


def test_headline_real_fenced_call():
    reply, call = one(REAL_FENCED)
    assert (call.name, json.loads(call.arguments), call.source) == (
        "get_weather", {"location": "北京"}, "fence")
    assert reply.content is None
    assert call.arguments == '{"location": "北京"}'  # Chinese stays Chinese


@pytest.mark.parametrize("text,name,args,source", [
    (REAL_BARE, "get_today", {}, "json"),
    (REAL_BARE_INDENTED, "get_weather", {"location": "北京"}, "json"),
    (REAL_REPEAT, "get_weather", {"location": "北京"}, "fence"),
    (REAL_CALC, "calculator", {"expression": "306 * 5"}, "fence"),
    (REAL_CONSTRAINED, "get_weather", {"location": "北京"}, "json"),
])
def test_real_outputs(text, name, args, source):
    _, call = one(text)
    assert (call.name, json.loads(call.arguments), call.source) == (name, args, source)


def test_tags_with_content_and_two_calls():
    text = ('我来查一下。\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}}\n'
            '</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "广州"}}\n'
            '</tool_call>')
    reply = parse_tool_calls(text, NAMES)
    assert reply.content == "我来查一下。"
    assert [json.loads(c.arguments)["location"] for c in reply.calls] == ["北京", "广州"]
    assert {c.source for c in reply.calls} == {"tag"}


def test_unclosed_tag_and_missing_brace_are_repaired():
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}'
    _, call = one(text)
    assert json.loads(call.arguments) == {"location": "北京"}


def test_broken_json_in_a_tag_is_still_a_call_with_raw_arguments():
    _, call = one('<tool_call>\n{"name": "get_weather", "arguments": {"location": 北京}}\n</tool_call>')
    assert call.name == "get_weather"
    assert call.arguments == '{"location": 北京}'  # invalid JSON, passed on for the agent to report
    with pytest.raises(ValueError):
        json.loads(call.arguments)


# BFCL's parallel_139 (Qwen2.5-Coder-1.5B, temperature 0): the question names the function
# 'employee.fetch_data', the request offers it as employee_fetch_data (OpenAI's names allow no
# dots), and the model wrote the dotted name back in a fence
REAL_DOTTED = ('```json\n{\n  "name": "employee.fetch_data",\n  "arguments": {\n    '
               '"company_name": "Tech Solutions",\n    "employee_id": 12345\n  }\n}\n```')


@pytest.mark.parametrize("text", [
    REAL_DOTTED,
    REAL_DOTTED.replace("```json", "<tool_call>").replace("```", "</tool_call>"),
    '{"name": "employee.fetch_data", "arguments": {"employee_id": 12345}}',
    '<tool_call>{"name": "employee.fetch_data", "arguments": {"employee_id": 12345,}</tool_call>',
])
def test_a_dotted_name_is_the_tool_written_with_underscores(text):
    _, call = one(text, ["employee_fetch_data", "get_weather"])
    assert call.name == "employee_fetch_data"


def test_a_dotted_name_without_its_tool_stays_as_written():
    assert toolcalls.dotted("employee.fetch_data", {"employee_fetch"}) == "employee.fetch_data"
    assert toolcalls.dotted("get_weather", {"get.weather"}) == "get_weather"  # only dots change
    assert toolcalls.dotted("a.b", {"a.b", "a_b"}) == "a.b"  # a name that is a tool stays
    assert toolcalls.dotted("a.b", None) == toolcalls.dotted("a.b", set()) == "a.b"
    assert parse_tool_calls(REAL_DOTTED, ["get_weather"]).calls == []  # a fence: not a call
    _, call = one("<tool_call>" + REAL_DOTTED + "</tool_call>", ["get_weather"])
    assert call.name == "employee.fetch_data"  # inside a tag any name is a call, as written


def test_python_literal_in_a_tag():
    _, call = one("<tool_call>{'name': 'get_weather', 'arguments': {'location': '上海'}}</tool_call>")
    assert json.loads(call.arguments) == {"location": "上海"}


@pytest.mark.parametrize("text", [
    '{"name": "get_weather", "parameters": {"location": "北京"}}',
    '{"name": "get_weather", "arguments": "{\\"location\\": \\"北京\\"}"}',
    '{"function": {"name": "get_weather", "arguments": "{\\"location\\": \\"北京\\"}"}}',
    '```\n{"name": "get_weather", "arguments": {"location": "北京"}}\n```',
    'Calling: {"name": "get_weather", "arguments": {"location": "北京"}}',
])
def test_lenient_shapes(text):
    _, call = one(text)
    assert json.loads(call.arguments) == {"location": "北京"}


def test_several_bare_objects_and_a_list():
    two = ('{"name": "get_closing_price", "arguments": {"name": "青岛啤酒"}}\n'
           '{"name": "get_closing_price", "arguments": {"name": "贵州茅台"}}')
    assert len(parse_tool_calls(two, NAMES).calls) == 2
    listed = "[" + two.replace("\n", ", ") + "]"
    assert [json.loads(c.arguments)["name"] for c in parse_tool_calls(listed, NAMES).calls] == [
        "青岛啤酒", "贵州茅台"]


def test_name_alone_is_a_call_only_for_a_known_no_argument_tool():
    assert one('{"name": "get_today"}')[1].arguments == "{}"
    assert parse_tool_calls('{"name": "Alice"}', NAMES).calls == []


@pytest.mark.parametrize("text", [
    "北京今天晴，25°C。",
    'The JSON you asked for: {"name": "Alice", "arguments": 3}',
    '```python\nprint({"a": 1})\n```',
    "Use {braces} and [brackets] freely.",
])
def test_plain_answers_stay_content(text):
    reply = parse_tool_calls(text, NAMES)
    assert reply.calls == [] and reply.content == text


def test_unknown_name_counts_only_inside_tags():
    assert parse_tool_calls('{"name": "get_stock", "arguments": {}}', NAMES).calls == []
    _, call = one('<tool_call>{"name": "get_stock", "arguments": {}}</tool_call>')
    assert call.name == "get_stock"  # the agent can tell the model the tool does not exist


def test_without_tool_names_any_call_shape_counts():
    assert parse_tool_calls('{"name": "anything", "arguments": {"x": 1}}').calls[0].name == "anything"


# --- only trusted text: what the model writes after a call is dropped -------------------------

CALL_BJ = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}}\n</tool_call>'
CALL_GZ = CALL_BJ.replace("北京", "广州")
BARE_BJ = '{"name": "get_weather", "arguments": {"location": "北京"}}'
KEY_ORDER = ('{"name": "get_weather", "arguments": {"location": "北京", "unit": "C"}}\n'
             '{"name": "get_weather", "arguments": {"unit": "C", "location": "北京"}}')


def test_text_after_a_call_is_dropped_and_kept_for_debug():
    # written before any tool ran: an invented answer, not something to show the user
    reply = parse_tool_calls("我来查一下。\n" + CALL_BJ + "\n北京今天晴，25°C，适合出门。", NAMES)
    assert reply.content == "我来查一下。"  # the preamble before the call stays
    assert [c.name for c in reply.calls] == ["get_weather"]
    assert reply.dropped_text == "北京今天晴，25°C，适合出门。"
    assert reply.calls_start == len("我来查一下。\n")


def test_headline_invented_tool_response_after_a_fenced_call():
    # The 1.5B's failure in native style: a call, then the result it imagines the tool gave.
    text = REAL_FENCED + '\n<tool_response>\n{"temp": 25, "condition": "晴"}\n</tool_response>\n北京晴。'
    reply, call = one(text)
    assert reply.content is None and json.loads(call.arguments) == {"location": "北京"}
    assert reply.dropped_text.startswith("<tool_response>") and reply.dropped_text.endswith("北京晴。")


def test_text_between_calls_is_dropped():
    reply = parse_tool_calls(CALL_BJ + "\n北京：晴。然后查广州。\n" + CALL_GZ, NAMES)
    assert [json.loads(c.arguments)["location"] for c in reply.calls] == ["北京", "广州"]
    assert reply.content is None and reply.dropped_text == "北京：晴。然后查广州。"


def test_text_before_a_call_is_kept_even_when_it_looks_like_an_answer():
    # a simplification, on purpose: the preamble is not judged, only what follows a call is
    reply = parse_tool_calls("答案：北京晴。\n" + BARE_BJ, NAMES)
    assert reply.content == "答案：北京晴。" and len(reply.calls) == 1
    assert reply.dropped_text is None


def test_whitespace_and_markup_after_a_call_is_not_reported_as_dropped():
    reply = parse_tool_calls(CALL_BJ + "\n\n</tool_call>\n```\n```\n", NAMES)
    assert reply.content is None and reply.dropped_text is None


@pytest.mark.parametrize("text,source", [
    (CALL_BJ + "\n" + CALL_BJ, "tag"),
    (BARE_BJ + "\n" + BARE_BJ, "json"),
    ("[" + BARE_BJ + ", " + BARE_BJ + "]", "json"),
    (BARE_BJ.replace('"arguments"', '"parameters"') + "\n" + CALL_BJ, "json"),
    (KEY_ORDER, "json"),
], ids=["tags", "bare", "list", "bare+tag", "key-order"])
def test_identical_calls_are_collapsed_to_the_first(text, source):
    reply, call = one(text)
    assert reply.duplicates_dropped == 1 and call.source == source  # the first one is kept
    assert json.loads(call.arguments)["location"] == "北京"


def test_a_call_repeated_three_times_with_an_invented_answer_between():
    reply, _ = one("\n好的。\n".join([CALL_BJ] * 3))
    assert reply.duplicates_dropped == 2 and reply.dropped_text == "好的。\n好的。"


@pytest.mark.parametrize("second", [
    CALL_GZ,                                                     # other arguments
    CALL_BJ.replace("get_weather", "get_air"),                   # other tool, same arguments
    CALL_BJ.replace('"北京"}', '"北京", "unit": "C"}'),          # one more argument
])
def test_different_calls_are_not_collapsed(second):
    reply = parse_tool_calls(CALL_BJ + "\n" + second, NAMES)
    assert len(reply.calls) == 2 and reply.duplicates_dropped == 0


def test_broken_arguments_are_duplicates_only_when_the_same_text():
    broken = '<tool_call>\n{"name": "get_weather", "arguments": {"location": 北京}}\n</tool_call>'
    assert len(parse_tool_calls(broken + "\n" + broken, NAMES).calls) == 1
    other = broken.replace("北京", "广州")
    assert len(parse_tool_calls(broken + "\n" + other, NAMES).calls) == 2


def test_a_reply_without_calls_keeps_all_its_text():
    text = "北京今天晴。\n\n明天：多云。\n{\"note\": \"not a call\"}"
    reply = parse_tool_calls(text, NAMES)
    assert reply.calls == [] and reply.content == text
    assert (reply.dropped_text, reply.duplicates_dropped, reply.calls_start) == (None, 0, None)


def test_call_ids_look_like_openai():
    ids = {new_call_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(i.startswith("call_") and len(i) == 29 for i in ids)


# --- streaming hold-back -------------------------------------------------------------------

def stream(text, size):
    h, out = HoldBack(), []
    for i in range(0, len(text), size):
        out.append(h.feed(text[i:i + size]))
    return "".join(out), h.finish()


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
@pytest.mark.parametrize("text,sent", [
    ("Let me check.\n<tool_call>\n{\"name\": \"f\"}\n</tool_call>", "Let me check.\n"),
    (REAL_FENCED, ""),
    (REAL_BARE, ""),
    ("Answer:\n  {\"x\": 1}", "Answer:\n  "),
    ("北京今天晴。a<b, c`d {x}", "北京今天晴。a<b, c`d {x}"),
    ("<tools></tools>", ""),  # echoed template markup: held, then dropped by the parser
    (REAL_FENCED + "\n北京晴。", ""),  # invented text after a call: held, never released
])
def test_holdback_never_leaks_a_call_as_content(text, sent, size):
    released, held = stream(text, size)
    assert released == sent
    assert released + held == text


def test_holdback_inactive_passes_everything():
    h = HoldBack(active=False)
    assert h.feed("<tool_call>") == "<tool_call>" and h.finish() == ""


# --- forced calls --------------------------------------------------------------------------

TOOLS = [{"type": "function", "function": {"name": n, "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}}
    for n in ("get_weather", "get_air")]


def test_named_choice_is_one_object_with_const_name():
    schema = tool_call_schema(TOOLS, "get_air")
    assert schema["properties"]["name"] == {"const": "get_air"}
    assert schema["properties"]["arguments"]["additionalProperties"] is False
    assert TOOLS[1]["function"]["parameters"].get("additionalProperties") is None  # not mutated


def test_required_choice_shapes():
    assert tool_call_schema(TOOLS, parallel=False)["anyOf"][0]["properties"]["name"] == {
        "const": "get_weather"}
    listed = tool_call_schema(TOOLS)
    assert listed["type"] == "array" and listed["minItems"] == 1


def test_echoed_template_markup_is_not_content():
    # Seen on the real 1.5B (harbin humidity, all course tools, temperature 0): the whole
    # reply was the template's empty tools block. It must reach the agent as an empty reply.
    from reactlab.server.toolcalls import parse_tool_calls

    reply = parse_tool_calls("<tools></tools>", {"get_weather"})
    assert reply.content is None and reply.calls == []


# --- any text at all: only the documented error, linear work (hypothesis) -------------------

# Pieces that steer the parser into every branch: tags, fences, braces, strings, literals.
PIECES = ["<tool_call>", "</tool_call>", "```", "```json\n", "{", "}", "[", "]", '"', ":", ",",
          '"name"', '"arguments"', '"parameters"', '"function"', '"tool_calls"', '"get_weather"',
          "'name'", "'get_weather'", "NaN", "1e999", "{1, 2}", "\\", "\\u", "\n", " ", "北京",
          "<tools>", "<tool_response>", "None", "True", "1", "-", "0x", "(", ")"]
model_text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=5)),
                      max_size=60).map("".join)
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8)
                           | st.floats(allow_nan=False, allow_infinity=False),
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                           max_leaves=10)


def check_reply(text, reply):
    assert isinstance(reply, toolcalls.ParsedReply)
    assert reply.content is None or (isinstance(reply.content, str) and reply.content.strip())
    for call in reply.calls:
        assert isinstance(call.name, str) and call.name and isinstance(call.arguments, str)
        assert call.source in ("tag", "fence", "json")
        if call.source != "tag":  # outside tags, arguments are JSON we wrote ourselves
            json.loads(call.arguments)
    if reply.calls:
        assert 0 <= reply.calls_start <= len(text)
    else:
        assert reply.calls_start is None and reply.dropped_text is None


@settings(max_examples=300, deadline=None)
@given(model_text, st.sampled_from([None, NAMES, ["get_weather"]]))
def test_any_text_parses_without_raising(text, names):
    check_reply(text, parse_tool_calls(text, names))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4),
       st.sampled_from(["tag", "fence", "json"]), st.text(alphabet="abc 。\n北京", max_size=20))
def test_a_call_in_any_shape_comes_back_with_its_arguments(args, shape, preamble):
    call = json.dumps({"name": "get_weather", "arguments": args}, ensure_ascii=False)
    text = {"tag": f"<tool_call>\n{call}\n</tool_call>", "fence": f"```json\n{call}\n```",
            "json": call}[shape]
    reply = parse_tool_calls(preamble + "\n" + text, NAMES)
    assert [(c.name, json.loads(c.arguments), c.source) for c in reply.calls] == [
        ("get_weather", args, shape)]
    assert reply.content == (preamble.strip() or None)


@pytest.mark.parametrize("value", [None, 3, b"{}", ["<tool_call>"]])
def test_only_a_string_is_parsed(value):
    with pytest.raises(TypeError, match="needs the model's text as a str"):
        parse_tool_calls(value, NAMES)


N = 100_000
CALL = '{"name": "get_weather", "arguments": {"location": "北京"}}'
PATHOLOGICAL = {
    "braces": "{" * N, "brackets": "[" * N, "list-of-braces": "[{" * (N // 2),
    "tag-brackets": "<tool_call>" + "[" * N, "tag-braces": "<tool_call>" + "{" * N,
    "lists-of-strings": '["' * (N // 2), "unterminated-keys": ('{"' + "a" * 20) * (N // 22),
    "nested-900-then-string": "[" * 900 + '"' + "a" * (N - 901),
    "open-calls": '{"name": "get_weather", "arguments": ' * (N // 38),
    "python-set": "<tool_call>{'name': 'get_weather', 'arguments': {" + "1, " * (N // 3) + "}}",
    "spaces": " " * N, "backticks": "`" * N, "quotes": '"' * N,
    "tags": ("<tool_call>" + CALL + "</tool_call>") * (N // 70),
    "calls-then-garbage": (CALL + "\n") * 100 + "[{" * (N // 2),
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_pathological_replies_of_100k_chars_parse_with_bounded_work(text, monkeypatch):
    # Work, not time, is asserted: the characters the bare-JSON search decoded.
    spent = []
    decode = jsonscan._decode_at

    def counting(text_, i):
        value, end, cost = decode(text_, i)
        spent.append(cost)
        return value, end, cost

    monkeypatch.setattr(jsonscan, "_decode_at", counting)
    check_reply(text, parse_tool_calls(text, NAMES))
    assert sum(spent) <= (jsonscan.SCAN_BUDGET + 1) * len(text) + 1000


def test_calls_before_garbage_are_still_found():
    reply = parse_tool_calls(PATHOLOGICAL["calls-then-garbage"], NAMES)
    assert len(reply.calls) == 1 and reply.duplicates_dropped == 99


@pytest.mark.parametrize("text", [
    "<tool_call>{'name': 'get_weather', 'arguments': {1, 2}}</tool_call>",   # a Python set
    "<tool_call>{'name': 'get_weather', 'arguments': {[1]: 2}}</tool_call>",  # TypeError inside
    "<tool_call>" + "[" * 5000 + "</tool_call>",
    '<tool_call>{"name": "get_weather", "arguments": ' + "[" * 50 + "]" * 50 + "}</tool_call>",
])
def test_guarded_tag_contents_become_raw_calls_or_nothing(text):
    reply = parse_tool_calls(text, NAMES)
    check_reply(text, reply)
    assert all(c.name == "get_weather" for c in reply.calls)


def test_values_too_deep_or_not_json_are_not_bare_calls():
    deep = '{"name": "get_weather", "arguments": ' + '{"a": ' * 40 + "1" + "}" * 41
    nan = '{"name": "get_weather", "arguments": {"x": NaN}}'
    for text in (deep, nan, "[" * 10 + CALL + "]" * 10):
        assert parse_tool_calls(text, NAMES).calls == [], text


@settings(max_examples=200, deadline=None)
@given(model_text, st.integers(1, 9))
def test_holdback_releases_plus_held_is_the_text(text, size):
    released, held = stream(text, size)
    assert released + held == text
    assert "<tool_call>" not in released


def test_holdback_releases_a_long_run_of_spaces_but_not_the_call_after_it():
    text = " " * 10_000 + CALL
    released, held = stream(text, 3)
    assert released == " " * len(released) and held.endswith(CALL)
    assert len(held) <= len(CALL) + 64


def test_a_fence_key_in_a_fenced_call_stays_one_fenced_call():
    # found by Hypothesis: the fence's text ended at the ``` inside the key
    text = '```json\n{"name": "get_weather", "arguments": {"```": null}}\n```'
    reply = parse_tool_calls(text, NAMES)
    assert [(c.arguments, c.source) for c in reply.calls] == [('{"```": null}', "fence")]
    assert reply.content is None


def test_a_tag_holding_a_call_then_a_fenced_call_gives_both_whole():
    # the 1.5B in a <tool_call> the server opened (BFCL parallel_84): a call, a stray fence
    # closing, then its next call in a fence of its own
    text = ('<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}}\n```\n'
            '```json\n{"name": "get_weather", "arguments": {"location": "广州"}}\n```\n</tool_call>')
    calls = parse_tool_calls(text, NAMES).calls
    assert [json.loads(c.arguments) for c in calls] == [{"location": "北京"}, {"location": "广州"}]


def test_a_stray_fence_closing_after_a_tagged_call_missing_its_brace():
    text = '<tool_call>\n{"name": "get_weather", "arguments": {\n "location": "广州"\n}\n```\n</tool_call>'
    (call,) = parse_tool_calls(text, NAMES).calls
    assert json.loads(call.arguments) == {"location": "广州"}
