"""Tests for reactlab.tools.schema: the JSON schema of a function, and reading values against it.

The schema comes from type hints and a Google-style docstring (`function_schema`, through
`@tool`); `coerce` fixes the harmless mismatches small models make. Hypothesis checks that
`coerce` never raises, whatever the value.
"""

from __future__ import annotations

from typing import Literal, Optional, Union

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sample_tools import lookup

from reactlab.tools import tool
from reactlab.tools.schema import coerce, json_type, parse_docstring, type_label


def test_schema_from_hints_and_docstring():
    assert lookup.name == "lookup"
    assert lookup.description == "Look up a forecast."
    assert lookup.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "the city, e.g. 北京"},
            "days": {"type": "integer", "description": "how many days, between 1 and 7",
                     "default": 3},
            "units": {"type": "string", "enum": ["metric", "imperial"],
                      "description": "unit system", "default": "metric"},
            "detailed": {"type": "boolean", "description": "include hourly data",
                         "default": False},
            "note": {"type": ["string", "null"], "description": "free text", "default": None},
        },
        "required": ["city"],
    }
    assert lookup.side_effects is False




def test_schema_types_lists_dicts_unions():
    def f(a: list, b: list[str], c: dict, d: dict[str, int], e: float,
          g: Union[int, str], h: int | None, i: Union[int, Literal["x"]]) -> None:  # noqa: UP007
        """F."""

    props = tool(f).parameters["properties"]
    assert props["a"] == {"type": "array"}
    assert props["b"] == {"type": "array", "items": {"type": "string"}}
    assert props["c"] == {"type": "object"} == props["d"]
    assert props["e"] == {"type": "number"}
    assert props["g"] == {"type": ["integer", "string"]}
    assert props["h"] == {"type": ["integer", "null"]}
    assert props["i"] == {"anyOf": [{"type": "integer"}, {"type": "string", "enum": ["x"]}]}


def test_schema_literal_of_mixed_types_has_enum_only():
    def f(x: Literal[1, "a"]) -> None:
        """F."""

    assert tool(f).parameters["properties"]["x"] == {"enum": [1, "a"]}


def test_default_that_json_cannot_carry_is_not_advertised():
    def f(x: str = object()) -> None:
        """F."""

    assert "default" not in tool(f).parameters["properties"]["x"]
    assert tool(f).parameters["required"] == []


def test_missing_docstring_gets_a_plain_description():
    def nodoc(x: int) -> int:
        return x

    assert tool(nodoc).description == "The nodoc tool."


@pytest.mark.parametrize("source, message", [
    ("def f(x): pass", "type hint"),
    ("def f(*args: int): pass", "named parameters"),
    ("def f(**kw: int): pass", "named parameters"),
    ("def f(x: int, /): pass", "named parameters"),
    ("def f(x: complex): pass", "JSON schema"),
    ("def f(x: 'NoSuchType'): pass", "type hints"),
])
def test_decorator_refuses_what_it_cannot_describe(source, message):
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102  (test-only: build functions with odd signatures)
    with pytest.raises(TypeError, match=message):
        tool(namespace["f"])




# --- the helpers on their own ---------------------------------------------------------------

def test_json_type_parse_docstring_and_type_label_examples():
    assert json_type(Optional[int]) == {"type": ["integer", "null"]}  # noqa: UP045  (on purpose)
    assert json_type(list[int]) == {"type": "array", "items": {"type": "integer"}}
    assert parse_docstring("Add two numbers.\n\nArgs:\n    a: first") == (
        "Add two numbers.", {"a": "first"})
    assert parse_docstring("") == ("", {})
    assert type_label({"type": ["string", "null"]}) == "string | null"
    assert type_label({"enum": ["a", 1]}) == '"a" | 1'
    assert type_label({}) == "any"


@pytest.mark.parametrize("value, schema, expected", [
    ("4", {"type": "integer"}, (True, 4)),
    (4.0, {"type": "integer"}, (True, 4)),
    (5, {"type": "string"}, (True, "5")),
    (" TRUE ", {"type": "boolean"}, (True, True)),
    ("2.5", {"type": "number"}, (True, 2.5)),
    (("a",), {"type": "array"}, (True, ["a"])),
    (None, {"type": ["string", "null"]}, (True, None)),
    ("x", {"anyOf": [{"type": "integer"}, {"type": "string", "enum": ["x"]}]}, (True, "x")),
    (True, {"type": "integer"}, (False, True)),  # a bool is not a number here
    # str() and int() refuse 4300+ digits: not a match, no crash
    pytest.param(10**5000, {"type": "string"}, (False, 10**5000), id="huge-int-as-string"),
    pytest.param("9" * 5000, {"type": "integer"}, (False, "9" * 5000), id="huge-digits-as-int"),
    (float("inf"), {"type": "integer"}, (False, float("inf"))),
    ({1, 2}, {"enum": [1, 2]}, (False, {1, 2})),
])
def test_coerce_examples_and_refusals(value, schema, expected):
    assert coerce(value, schema) == expected


_schemas = st.sampled_from([
    {"type": t} for t in ("string", "integer", "number", "boolean", "array", "object", "null")
] + [{"type": ["string", "null"]}, {"enum": ["a", 1, None]}, {}, {"type": "weird"},
     {"anyOf": [{"type": "integer"}, {"type": "string", "enum": ["all"]}]}])
_anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(10**4400, 10**4500)
    | st.floats(allow_nan=True) | st.complex_numbers() | st.text(max_size=20)
    | st.binary(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner)
    | st.frozensets(st.integers(), max_size=3)
    | st.dictionaries(st.text(max_size=5) | st.tuples(st.integers()), inner, max_size=3),
    max_leaves=8,
)


@given(value=_anything, schema=_schemas)
def test_coerce_never_raises(value, schema):
    ok, _ = coerce(value, schema)
    assert isinstance(ok, bool)
