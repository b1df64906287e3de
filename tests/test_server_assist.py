"""The server's help after tool results (`reactlab.server.assist`), on the replay engine.

Each script is what the model "wrote" for each attempt, so the tests show exactly when the
server asks again, with what constraint, and what the client finally gets.
"""

from __future__ import annotations

import json

import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactlab.server import assist
from reactlab.server.__main__ import _parser
from reactlab.server.replay import ReplayEngine, serve_replay

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather of a Chinese city.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"]}}}
TOOLS = [WEATHER]
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "广州"}}\n</tool_call>'
OTHER = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}}\n</tool_call>'
RESULT = "广州：多云，24.2 °C"
ANSWERED = [
    {"role": "user", "content": "广州现在多少度？"},
    {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": '{"location": "广州"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": RESULT},
]


@pytest.fixture(scope="module")
def servers():
    """Two replay servers: help on (the default) and help off (`--no-help`)."""
    on, off = ReplayEngine([]), ReplayEngine([])
    with serve_replay(on, more_calls=False) as url_on, serve_replay(off, help=False) as url_off:
        yield {True: (on, url_on), False: (off, url_off)}


def ask(servers, texts, messages=ANSWERED, help=True, server_help=True, stream=False, **kw):
    """(message, debug view, engine): one request with the script `texts`."""
    engine, url = servers[server_help]
    engine.reset(texts)
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=20)
    extra = {"reactlab_debug": True, **({} if help else {"reactlab_help": False})}
    kw = {"tools": TOOLS, "tool_choice": "auto", **kw}
    resp = client.chat.completions.create(model=engine.model, messages=messages,
                                          temperature=0, extra_body=extra, stream=stream, **kw)
    if not stream:
        return resp.choices[0].message, resp.model_extra["reactlab"], engine
    content, calls, debug = "", {}, None
    for chunk in resp:
        debug = (chunk.model_extra or {}).get("reactlab") or debug
        for choice in chunk.choices:
            content += choice.delta.content or ""
            for tc in choice.delta.tool_calls or []:
                got = calls.setdefault(tc.index, {"name": "", "arguments": ""})
                got["name"] += (tc.function.name or "") if tc.function else ""
                got["arguments"] += (tc.function.arguments or "") if tc.function else ""
    return {"content": content, "calls": list(calls.values())}, debug, engine


# --- the pure pieces --------------------------------------------------------------------

def test_answered_calls_pairs_each_result_with_its_call():
    assert assist.answered_calls(ANSWERED) == {
        ("get_weather", '{"location": "广州"}'): RESULT}
    assert assist.answered_calls(ANSWERED[:2]) == {}  # asked, not answered yet
    parts = [*ANSWERED[:2], {**ANSWERED[2], "content": [{"type": "text", "text": "24.2"},
                                                         {"type": "text", "text": " °C"}]}]
    assert list(assist.answered_calls(parts).values()) == ["24.2 °C"]  # as the model reads it


def test_call_key_ignores_key_order_and_layout():
    assert assist.call_key("f", '{"b": 1, "a": 2}') == assist.call_key("f", {"a": 2, "b": 1})
    assert assist.call_key("f", "") == assist.call_key("f", {})
    assert assist.call_key("f", "{broken") == ("f", "{broken")
    assert assist.call_key("f", {"a": 1}) != assist.call_key("g", {"a": 1})


@given(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=4))
def test_call_key_of_a_dict_and_its_json_text_agree(args):
    assert assist.call_key("f", args) == assist.call_key("f", json.dumps(args))


@given(st.text(max_size=200))
def test_read_answer_never_raises(text):
    assert assist.read_answer(text) is None or isinstance(assist.read_answer(text), str)


def test_read_answer_and_schema():
    assert assist.read_answer('{"answer": "24.2 °C"}') == "24.2 °C"
    assert assist.read_answer('{"name": "get_weather", "arguments": {}}') is None
    schema = assist.answer_or_call_schema(TOOLS)
    assert schema["anyOf"][0] == assist.ANSWER_SCHEMA
    assert schema["anyOf"][1]["properties"]["name"] == {"const": "get_weather"}


def test_note_names_the_known_result():
    key = ("get_weather", '{"location": "广州"}')
    text = assist.note([key], {key: RESULT}, constrained=True)["content"]
    assert "get_weather" in text and RESULT in text and '{"answer"' in text
    assert "plain text" in assist.note([], {}, constrained=False)["content"]


# --- rule 1: a repeated call is not returned -------------------------------------------

@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_repeat_is_regenerated_constrained_and_answered(servers, stream):
    msg, debug, engine = ask(servers, [CALL, '{"answer": "广州现在 24.2 °C。"}'], stream=stream)
    content = msg["content"] if stream else msg.content
    calls = msg["calls"] if stream else msg.tool_calls
    assert content == "广州现在 24.2 °C。" and not calls
    assert len(engine.calls) == 2
    assert engine.calls[0]["json_schema"] is None
    assert engine.calls[1]["json_schema"] == assist.answer_or_call_schema(TOOLS)
    assert RESULT in engine.calls[1]["prompt"].split("<tool_response>")[-1]  # the note
    (step,) = debug["help"]["interventions"]
    assert step["rule"] == "repeat_call" and step["model_wrote"] == CALL
    assert "already has a result" in step["why"]
    assert [a["mode"] for a in debug["help"]["attempts"]] == ["normal", "answer_or_call"]
    assert debug["finish_reason"] == "stop"


def test_a_second_repeat_gets_a_plain_answer_without_tools(servers):
    bare = '{"name": "get_weather", "arguments": {"location": "广州"}}'
    msg, debug, engine = ask(servers, [CALL, bare, "广州现在 24.2 °C。"])
    assert msg.content == "广州现在 24.2 °C。" and not msg.tool_calls
    assert len(engine.calls) == 3
    assert "<tools>" in engine.calls[1]["prompt"] and "<tools>" not in engine.calls[2]["prompt"]
    assert engine.calls[2]["json_schema"] is None
    rules = [(s["rule"], s["model_wrote"]) for s in debug["help"]["interventions"]]
    assert rules == [("repeat_call", CALL), ("repeat_call", bare)]
    assert "tool_choice none" in debug["help"]["interventions"][1]["action"]


def test_the_regeneration_may_make_a_different_call(servers):
    other = '{"name": "get_weather", "arguments": {"location": "北京"}}'
    msg, debug, engine = ask(servers, [CALL, other])
    assert [json.loads(c.function.arguments) for c in msg.tool_calls] == [{"location": "北京"}]
    assert len(engine.calls) == 2 and debug["finish_reason"] == "tool_calls"


def test_a_repeat_beside_a_new_call_is_dropped_without_a_retry(servers):
    msg, debug, engine = ask(servers, [CALL + "\n" + OTHER])
    assert [json.loads(c.function.arguments) for c in msg.tool_calls] == [{"location": "北京"}]
    assert len(engine.calls) == 1 and debug["help"]["interventions"] == []
    assert debug["help"]["repeated_calls_dropped"] == [
        {"name": "get_weather", "arguments": '{"location": "广州"}'}]


def test_a_call_with_other_arguments_is_no_repeat(servers):
    msg, _, engine = ask(servers, [OTHER])
    assert len(msg.tool_calls) == 1 and len(engine.calls) == 1


# --- rule 2: an empty reply after tool results is retried ------------------------------

@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_an_empty_reply_after_tool_results_is_retried_without_tools(servers, stream):
    msg, debug, engine = ask(servers, ["", "广州现在 24.2 °C。"], stream=stream)
    assert (msg["content"] if stream else msg.content) == "广州现在 24.2 °C。"
    assert len(engine.calls) == 2 and "<tools>" not in engine.calls[1]["prompt"]
    (step,) = debug["help"]["interventions"]
    assert step["rule"] == "empty_reply" and step["model_wrote"] == ""


def test_an_empty_reply_before_any_tool_result_is_not_retried(servers):
    msg, _, engine = ask(servers, [""], messages=ANSWERED[:1])
    assert msg.content == "" and len(engine.calls) == 1


def test_echoed_markup_counts_as_empty(servers):
    msg, _, engine = ask(servers, ["<tools></tools>", "24.2 °C"])
    assert msg.content == "24.2 °C" and len(engine.calls) == 2


# --- when the server does not help -----------------------------------------------------

@pytest.mark.parametrize("where", ["request", "server"])
def test_help_off_returns_the_model_reply_as_it_is(servers, where):
    off = {"help": False} if where == "request" else {"server_help": False}
    msg, debug, engine = ask(servers, [CALL], **off)
    assert [json.loads(c.function.arguments) for c in msg.tool_calls] == [{"location": "广州"}]
    assert len(engine.calls) == 1 and debug["help"]["on"] is False
    msg, _, engine = ask(servers, [""], **off)
    assert msg.content == "" and not msg.tool_calls and len(engine.calls) == 1


def test_help_off_streams_the_repeat(servers):
    msg, _, _ = ask(servers, [CALL], help=False, stream=True)
    assert msg["calls"] == [{"name": "get_weather", "arguments": '{"location": "广州"}'}]


def test_a_forced_call_gets_no_help(servers):
    forced = '{"name": "get_weather", "arguments": {"location": "广州"}}'
    msg, debug, engine = ask(servers, [forced], tool_choice="required",
                             parallel_tool_calls=False)
    assert len(msg.tool_calls) == 1 and len(engine.calls) == 1 and not debug["help"]["on"]


def test_help_off_request_field_must_be_a_boolean(servers):
    engine, url = servers[True]
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=20)
    with pytest.raises(openai.BadRequestError, match="reactlab_help"):
        client.chat.completions.create(model=engine.model, messages=ANSWERED,
                                       extra_body={"reactlab_help": "no"})


def test_debug_last_shows_the_intervention(servers):
    import httpx

    ask(servers, [CALL, '{"answer": "24.2 °C"}'])
    last = httpx.get(servers[True][1] + "/debug/last", timeout=10).json()
    assert last["help"]["interventions"][0]["model_wrote"] == CALL
    assert last["raw_text"] == '{"answer": "24.2 °C"}'  # the attempt that was answered


def test_the_cli_flag_and_the_environment_variable(monkeypatch):
    assert _parser().parse_args([]).help is True
    assert _parser().parse_args(["--no-help"]).help is False
    monkeypatch.setenv("REACTLAB_SERVER_HELP", "0")
    assert _parser().parse_args([]).help is False


@pytest.mark.parametrize("stream", [False, True])
def test_a_plan_instead_of_an_answer_after_tool_results_is_retried_without_tools(servers, stream):
    # the OpenAI Agents SDK's real second reply on the local model
    plan = 'To get the current weather of Guangzhou, you can use the `get_weather` function.'
    msg, debug, engine = ask(servers, [plan, "广州现在 24.2 °C。"], stream=stream)
    assert (msg["content"] if stream else msg.content) == "广州现在 24.2 °C。"
    assert len(engine.calls) == 2 and "<tools>" not in engine.calls[1]["prompt"]
    assert RESULT in engine.calls[1]["prompt"]  # the note repeats the known result
    (step,) = debug["help"]["interventions"]
    assert step["rule"] == "narrated_call" and step["model_wrote"] == plan


def test_an_answer_that_uses_the_result_is_not_a_plan(servers):
    said = "我调用了 get_weather：广州现在 24.2 °C。"
    msg, _, engine = ask(servers, [said])
    assert msg.content == said and len(engine.calls) == 1
    assert assist.narrates("get_weather 说 24.2", TOOLS, [RESULT]) is False
    assert assist.narrates("you can call get_weather", TOOLS, [RESULT]) is True
    assert assist.narrates("广州多云。", TOOLS, [RESULT]) is False  # names no tool
