"""reactlab.server.unpack and the server's help using it: a call that packs several values into
a one-value argument is split into one call per value. The pure piece first, then requests
through the real `openai` SDK to a replay server."""

from __future__ import annotations

import json

import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactlab.server.replay import ReplayEngine, serve_replay
from reactlab.server.unpack import MAX_ITEMS, unpacked

PRESIDENT = {"type": "function", "function": {
    "name": "get_president_and_vp", "description": "The president or vice president in a year.",
    "parameters": {"type": "object", "properties": {
        "year": {"type": "integer"}, "position": {"type": "string"},
        "sources": {"type": "array", "items": {"type": "string"}}},
        "required": ["year", "position"]}}}
PROPS = PRESIDENT["function"]["parameters"]["properties"]
# BFCL parallel_33, as the 1.5B wrote it
PACKED = ('{"year": [1980, 2016, 1975, 2011], "position": ["president", "president", '
          '"vice president", "vice president"]}')


def test_a_packed_call_is_split_item_by_item():
    assert [json.loads(a) for a in unpacked(PACKED, PROPS)] == [
        {"year": 1980, "position": "president"}, {"year": 2016, "position": "president"},
        {"year": 1975, "position": "vice president"}, {"year": 2011, "position": "vice president"}]
    # an argument that is not packed is copied into every call
    assert [json.loads(a) for a in unpacked('{"year": [1980, 2016], "position": "president"}',
                                            PROPS)] == [
        {"year": 1980, "position": "president"}, {"year": 2016, "position": "president"}]


def test_what_is_not_a_packed_call_is_left_alone():
    assert unpacked('{"year": 1980, "position": "president"}', PROPS) is None
    assert unpacked('{"year": 1980, "sources": ["a", "b"]}', PROPS) is None  # an array argument
    assert unpacked('{"year": [1980, 2016], "position": ["president"]}', PROPS) is None  # unequal
    assert unpacked('{"year": [1980]}', PROPS) is None  # one item: nothing to split
    assert unpacked('{"year": [1980, 2016]}', {"year": {}}) is None  # no type stated
    assert unpacked('{"year": [1980, 2016]}', {"year": {"type": ["integer", "array"]}}) is None
    assert unpacked(json.dumps({"year": list(range(MAX_ITEMS + 1))}), PROPS) is None  # a bound
    assert unpacked("{broken", PROPS) is None and unpacked("[1, 2]", PROPS) is None
    assert unpacked('{"location": "北京, 广州"}', {"location": {"type": "string"}}) is None


@given(st.dictionaries(st.sampled_from(["year", "position", "sources", "other"]),
                       st.integers() | st.text(max_size=4)
                       | st.lists(st.integers() | st.text(max_size=3), max_size=4), max_size=4))
def test_unpacked_never_raises_and_each_piece_takes_one_item(args):
    parts = unpacked(json.dumps(args), PROPS)
    if parts is None:
        return
    pieces = [json.loads(p) for p in parts]
    assert 2 <= len(pieces) <= MAX_ITEMS
    for i, piece in enumerate(pieces):
        assert piece.keys() == args.keys()
        for k, v in args.items():
            packed = isinstance(v, list) and k in ("year", "position")
            assert piece[k] == (v[i] if packed else v)


# --- through the server ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    engine = ReplayEngine([])
    with serve_replay(engine) as url:  # more calls on, as by default
        yield engine, openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=20)


QUESTION = [{"role": "user", "content": "Who were the president and the vice president in 1980 "
             "and 2016, and in 1975 and 2011?"}]
TAG = f'<tool_call>\n{{"name": "get_president_and_vp", "arguments": {PACKED}}}\n</tool_call>'
# what the 1.5B wrote in the tag the server then opened: the same call (nothing more to call)
AGAIN = f'get_president_and_vp", "arguments": {PACKED}}}\n'


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_help_splits_a_packed_call(server, stream):
    engine, client = server
    engine.reset([TAG, AGAIN])
    kw = {"model": engine.model, "messages": QUESTION, "tools": [PRESIDENT],
          "extra_body": {"reactlab_debug": True}}
    if stream:
        calls, debug = {}, None
        for chunk in client.chat.completions.create(stream=True, **kw):
            debug = (chunk.model_extra or {}).get("reactlab") or debug
            for d in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
                calls[d.index] = calls.get(d.index, "") + (d.function.arguments or "")
        years = [json.loads(a)["year"] for _, a in sorted(calls.items())]
    else:
        resp = client.chat.completions.create(**kw)
        years = [json.loads(c.function.arguments)["year"] for c in resp.choices[0].message.tool_calls]
        debug = resp.model_extra["reactlab"]
    assert years == [1980, 2016, 1975, 2011]
    assert debug["help"]["unpacked"] == [{"name": "get_president_and_vp", "arguments": PACKED}]


def test_no_split_without_more_calls(server):
    engine, client = server
    for kw in ({"extra_body": {"reactlab_help": False}}, {"parallel_tool_calls": False},
               {"extra_body": {"reactlab_more_calls": False}}, {"tool_choice": "required"}):
        engine.reset([TAG])
        message = client.chat.completions.create(model=engine.model, messages=QUESTION,
                                                 tools=[PRESIDENT], **kw).choices[0].message
        assert len(message.tool_calls) == 1, kw
        assert json.loads(message.tool_calls[0].function.arguments)["year"] == [1980, 2016, 1975, 2011]
