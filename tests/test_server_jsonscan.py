"""Finding JSON values in free text: the same answers as decoding at every brace, bounded work."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.server import jsonscan
from reactlab.server.jsonscan import Spans, json_values


def naive(text: str) -> list[tuple[int, int, object]]:
    """The quadratic reference: raw_decode at every brace, skip a decoded value's inside."""
    out, i, decoder = [], 0, json.JSONDecoder()
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = decoder.raw_decode(text, i)
            except (ValueError, RecursionError):
                i += 1
                continue
            out.append((i, end, value))
            i = end
        else:
            i += 1
    return out


def test_example():
    assert list(json_values('a {"x": 1} b [2]', Spans())) == [(2, 10, {"x": 1}), (13, 16, [2])]


def test_spans():
    s = Spans()
    s.add(5, 9)
    s.add(1, 3)
    assert (s.starts, s.ends) == ([1, 5], [3, 9])
    assert s.free(0, 1) and s.free(3, 5) and s.free(9, 20)
    assert not s.free(8, 12) and not s.free(0, 2) and not s.free(0, 20)
    assert s.end_containing(6) == 9 and s.end_containing(9) is None


def test_skipped_spans_are_not_searched():
    text = '<tool_call>{"a": 1}</tool_call> {"b": 2}'
    skip = Spans()
    skip.add(0, 31)
    assert [v for _, _, v in json_values(text, skip)] == [{"b": 2}]


@pytest.mark.parametrize("value", [
    {"long": "x" * 5000}, [1] * 3000, {"deep": [[[[{"a": "b" * 300}]]]]},
    {"edge": "-Infinity"}, {"n": 12345678901234567890},
])
def test_values_longer_than_the_window_decode_whole(value):
    text = "prose " + json.dumps(value) + " more"
    assert [v for _, _, v in json_values(text, Spans())] == [value]


@pytest.mark.parametrize("cut", range(jsonscan.WINDOW - 20, jsonscan.WINDOW + 4))
def test_a_value_cut_anywhere_by_the_first_window_still_decodes(cut):
    # literals, numbers, escapes and strings straddling the window's edge
    for tail in ('-Infinity]', '12345.678e9]', '"\\u4e2d\\u6587"]', "true]", "null]"):
        text = "[" + " " * (cut - 1) + tail
        assert list(json_values(text, Spans())) == naive(text), (cut, tail)


PIECES = ["{", "}", "[", "]", '"', ":", ",", "1", "-", "e", "a", " ", "\n", "\\", "\\u",
          "true", "null", "NaN", "-Infinity", '"k"', "x" * 300]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=80).map("".join))
def test_same_values_as_decoding_at_every_brace(text):
    assert list(json_values(text, Spans())) == naive(text)
