"""reactlab.jsonish: the lenient JSON reader. Every documented fallback, every refusal, and
hypothesis for "only ValueError, only JSON data out, work linear in the size"."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.jsonish import (
    MAX_DEPTH,
    find_closing,
    first_value,
    jsonable,
    loads_lenient,
    nesting_depth,
    strip_fence,
)


def is_json_data(value) -> bool:
    """True if `value` survives a strict JSON round trip unchanged."""
    return json.loads(json.dumps(value, allow_nan=False)) == value


# --- what it accepts --------------------------------------------------------------------------

@pytest.mark.parametrize("text,value", [
    ('{"location": "北京"}', {"location": "北京"}),
    ("{'location': '北京'}", {"location": "北京"}),  # Python literal
    ("{'ok': True, 'none': None}", {"ok": True, "none": None}),
    ('{"a": [1, 2,],}', {"a": [1, 2]}),  # trailing commas
    ('{"note": "line one\nline two"}', {"note": "line one\nline two"}),  # raw newline in a string
    ('{“location”：“北京”，}', {"location": "北京"}),  # full-width punctuation
    ("｛'a'：1｝", {"a": 1}),
    ("{'days': (1, 2)}", {"days": [1, 2]}),  # tuple -> list
    ("{'ids': {3, 1, 2}}", {"ids": [1, 2, 3]}),  # set -> sorted list
    ("{2: 'a', None: 'b', True: 'c'}", {"2": "a", "null": "b", "true": "c"}),
    ('"北京"', "北京"),
    ("42", 42),
])
def test_accepted_shapes(text, value):
    got = loads_lenient(text)
    assert got == value and is_json_data(got)


# --- what it refuses, with a sentence saying what to write --------------------------------------

@pytest.mark.parametrize("text,hint", [
    ("{a: 1}", "double quotes"),
    ('{"a": 1', "delimiter"),
    ("{'a': b'x'}", "bytes literal"),
    ("{'a': 1j}", "complex number"),
    ("{(1, 2): 'x'}", "keys must be strings"),
    ('{"a": NaN}', "finite number"),
    ('{"a": 1e999}', "finite number"),
    ("{'a': ...}", "cannot be tool arguments"),
    ('{"a": 1} /* note */', "Extra data"),
])
def test_refusals_say_what_to_fix(text, hint):
    with pytest.raises(ValueError) as info:
        loads_lenient(text)
    assert hint in str(info.value)


def test_not_text_is_a_value_error():
    with pytest.raises(ValueError):
        loads_lenient(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("opener,closer", [("[", "]"), ("{\"a\":", "}"), ("(", ")")])
def test_deep_nesting_is_refused_not_a_recursion_error(opener, closer):
    deep = opener * 100_000 + "1" + closer * 100_000
    with pytest.raises(ValueError) as info:
        loads_lenient(deep)
    assert "flatten" in str(info.value)
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert nesting_depth(ok) == MAX_DEPTH and isinstance(loads_lenient(ok), list)


def test_jsonable():
    assert jsonable({"ids": {2, 1}, 3: (True, None)}) == {"ids": [1, 2], "3": [True, None]}
    assert jsonable(frozenset({"b", 1})) == [1, "b"]  # mixed types: a stable order
    with pytest.raises(ValueError, match="nested deeper"):
        nested: list = []
        for _ in range(MAX_DEPTH + 2):
            nested = [nested]
        jsonable(nested)
    with pytest.raises(ValueError, match="bytes"):
        jsonable(bytearray(b"x"))


def test_nesting_depth_ignores_brackets_inside_strings():
    assert nesting_depth('{"a": [1, {"b": "[[[", "c": "\\"{"}]}') == 3
    assert nesting_depth("]]] no brackets opened") == 0


def test_find_closing_strip_fence_first_value():
    assert find_closing('x {"a": "}"} y', 2) == 12
    assert find_closing("{'it''s': 1}", 0) == 12
    assert find_closing("{ never closed", 0) is None
    assert find_closing("[don't]", 0) == 7  # an apostrophe in prose is not a quote
    assert strip_fence('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert strip_fence('```json{"a": 1}```') == '{"a": 1}'
    assert strip_fence("plain") == "plain"
    assert first_value('Action: {"a": 1} done') == ({"a": 1}, 8, 16)
    assert first_value("no brackets") is None
    with pytest.raises(ValueError, match="never closed"):
        first_value('Action: {"a": 1')


# --- any input: only ValueError, only JSON data ---------------------------------------------------

PIECES = ["{", "}", "[", "]", "(", ")", '"', "'", ":", ",", "：", "，", "“", "”", "True", "None",
          "b'x'", "1j", "NaN", "1e999", "\\", "\n", " ", "{1, 2}", "(1,)", "...", "北京", "-", "#"]


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(max_size=60),
                 st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)),
                          max_size=40).map("".join)))
def test_any_text_gives_json_data_or_value_error(text):
    try:
        value = loads_lenient(text)
    except ValueError as exc:
        assert str(exc)
        return
    assert is_json_data(value)


python_literals = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
              st.text(max_size=5), st.binary(max_size=3), st.complex_numbers(max_magnitude=9)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                            st.frozensets(st.integers(), max_size=3),
                            st.dictionaries(st.one_of(st.text(max_size=3), st.integers(),
                                                      st.tuples(st.integers())), inner,
                                            max_size=3)),
    max_leaves=10)


@settings(max_examples=400, deadline=None)
@given(python_literals)
def test_python_literals_become_json_data_or_a_value_error(value):
    # repr() of sets, tuples, bytes, complex, tuple keys: what a model writing Python produces
    try:
        got = loads_lenient(repr(value))
    except ValueError as exc:
        assert str(exc)
        return
    assert is_json_data(got)


# --- work linear in the size (counted in executed lines, never timed) ---------------------------

def lines_executed(fn, *args) -> int:
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        fn(*args)
    except ValueError:
        pass
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("piece", ['{"a": "', "[", "{'a': [1, 2,], ", '"\\"', "x, ", "：“，"])
def test_work_grows_linearly_with_the_input(piece):
    small = lines_executed(loads_lenient, piece * 500)
    large = lines_executed(loads_lenient, piece * 4000)  # 8 times as long
    assert large <= 10 * small + 200, (small, large)  # quadratic work would be ~64x


def test_a_python_literal_with_an_invalid_escape_decodes_without_a_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the compiler's DeprecationWarning / SyntaxWarning
        assert loads_lenient("{'expression': '\\(1 + 2\\)'}") == {"expression": "\\(1 + 2\\)"}
