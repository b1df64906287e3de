"""Tests for reactlab.tools.registry: `@tool`, `Tool`, `ToolRegistry` (validate, call, run).

`run` is the agent's entry point and must never raise: hypothesis sends it arbitrary JSON
values, and arbitrary Python values (bytes, sets, complex numbers, tuple keys, huge ints, deep
nesting). Timings are never asserted.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from typing import Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sample_tools import COURSE, lookup, ping

from reactlab.tools import (
    Tool,
    ToolError,
    ToolRegistry,
    days_between,
    default_registry,
    get_today,
    tool,
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    """Tests must not depend on the developer's shell (live weather, pinned dates)."""
    for name in ("REACTLAB_WEATHER", "REACTLAB_WEATHER_URL", "REACTLAB_WEATHER_TIMEOUT",
                 "REACTLAB_TODAY"):
        monkeypatch.delenv(name, raising=False)


def test_tool_decorator_options_and_call():
    assert isinstance(ping, Tool)
    assert ping.name == "ping" and ping.side_effects is True
    assert ping() == "pong"  # a Tool stays callable like the function
    assert lookup("北京")["days"] == 3


def test_openai_schema_signature_and_describe():
    assert lookup.openai_schema() == {"type": "function", "function": {
        "name": "lookup", "description": "Look up a forecast.", "parameters": lookup.parameters}}
    assert lookup.signature() == ('lookup(city: string, days: integer = 3, units: "metric" | '
                                  '"imperial" = "metric", detailed: boolean = false, '
                                  'note: string | null = null)')
    text = lookup.describe()
    assert text.splitlines()[0].startswith("lookup(city: string")
    assert "    - city (string, required): the city, e.g. 北京" in text
    assert "    - days (integer, optional): how many days, between 1 and 7" in text
    assert json.loads(lookup.describe("json"))["name"] == "lookup"
    with pytest.raises(ValueError, match="describe style"):
        lookup.describe("yaml")


def test_describe_says_when_a_tool_takes_no_arguments():
    reg = default_registry()
    assert "get_today() — takes no arguments." in reg.describe()
    today = json.loads(reg.describe("json").splitlines()[COURSE.index("get_today")])
    assert today["parameters"]["properties"] == {}
    assert "Takes no arguments" in today["description"]
    assert len(reg.describe().split("\n")) >= len(COURSE)


# --- registry -------------------------------------------------------------------------------

def test_registry_basics():
    reg = ToolRegistry([lookup])
    assert reg.register(ping) is ping
    assert reg.register(ping) is ping  # registering the same tool twice is harmless

    @reg.register
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    assert isinstance(shout, Tool)
    assert reg.names() == ["lookup", "ping", "shout"]
    assert "ping" in reg and ping in reg and "nope" not in reg and 3 not in reg
    assert [t.name for t in reg] == reg.names() and len(reg) == 3
    assert repr(reg) == "ToolRegistry(['lookup', 'ping', 'shout'])"
    assert [t["function"]["name"] for t in reg.openai_tools()] == reg.names()
    assert reg.get("shout") is shout and reg.get("nope", None) is None


def test_registry_refuses_a_second_tool_with_the_same_name():
    reg = ToolRegistry([lookup])

    def other(x: int) -> int:
        """Other."""
        return x

    with pytest.raises(ValueError, match="already registered"):
        reg.register(tool(other, name="lookup"))


def test_unknown_tool_lists_the_available_ones():
    reg = default_registry()
    with pytest.raises(ToolError) as err:
        reg.get("get_wether")
    message = str(err.value)
    assert "'get_wether'" in message and "Did you mean 'get_weather'?" in message
    assert all(name in message for name in COURSE)
    assert "(none)" in str(pytest.raises(ToolError, ToolRegistry().get, "x").value)


def test_default_registry_is_fresh_each_call():
    a, b = default_registry(), default_registry()
    assert a.names() == b.names() == COURSE
    assert a is not b
    a.register(ping)
    assert "ping" not in b


@pytest.mark.parametrize("args, expected", [
    ({"city": "北京"}, {"city": "北京"}),
    ('{"city": "北京", "days": 2}', {"city": "北京", "days": 2}),
    ("{'city': '北京'}", {"city": "北京"}),  # a Python-literal dict, as small models write
    (["北京", 5], {"city": "北京", "days": 5}),
    ({"city": 42}, {"city": "42"}),  # number where a string is expected: harmless, converted
    ({"city": "x", "days": "4"}, {"city": "x", "days": 4}),
    ({"city": "x", "days": 4.0}, {"city": "x", "days": 4}),
    ({"city": "x", "detailed": "true"}, {"city": "x", "detailed": True}),
    ({"city": "x", "note": None}, {"city": "x", "note": None}),
    ({"city": "x", "units": "imperial"}, {"city": "x", "units": "imperial"}),
])
def test_validate_accepts_and_lightly_coerces(args, expected):
    reg = ToolRegistry([lookup, ping])
    assert reg.validate("lookup", args) == expected


@pytest.mark.parametrize("args", [None, "", "  ", "{}", {}, "null", "None", []])
def test_validate_no_argument_forms(args):
    assert ToolRegistry([ping]).validate("ping", args) == {}


def test_validate_single_parameter_tool_takes_a_bare_value():
    reg = default_registry()
    assert reg.validate("get_weather", "北京") == {"location": "北京"}
    assert reg.validate("get_weather", '"北京"') == {"location": "北京"}
    assert reg.validate("calculator", "(1+2)*3") == {"expression": "(1+2)*3"}
    assert reg.validate("calculator", "[1, 2") == {"expression": "[1, 2"}  # not JSON: kept
    assert reg.validate("calculator", 306) == {"expression": "306"}


@pytest.mark.parametrize("name, args, fragments", [
    ("get_weather", {"city": "北京"},
     ["unexpected argument 'city'", "Did you mean 'location'?", "location (string, required)"]),
    ("lookup", {"city": "x", "dayz": 3}, ["unexpected argument 'dayz'", "Did you mean 'days'?"]),
    ("days_between", {"date1": "2026-03-01"},
     ["missing the required argument 'date2'", "date1 (string, required)",
      'Example input: {"date1": "…", "date2": "…"}']),
    ("lookup", {"city": "x", "days": "many"}, ["'days' must be integer", "got str 'many'"]),
    ("lookup", {"city": "x", "days": True}, ["'days' must be integer"]),
    ("lookup", {"city": "x", "detailed": "maybe"}, ["'detailed' must be boolean"]),
    ("lookup", {"city": "x", "units": "kelvin"}, ["'units' must be \"metric\" | \"imperial\""]),
    ("lookup", {"city": ["a"]}, ["'city' must be string"]),
    ("lookup", "北京", ["has 5 parameters", "single value '北京'"]),
    ("lookup", ["a", 1, "metric", False, None, "extra"], ["6 positional values", "5 parameter"]),
    ("lookup", '{"city": 北京}', ["could not be decoded", "lookup takes: city (string"]),
    ("days_between", "2026-03-01, 2027-01-01", ["2 parameters", "single value"]),
    ("get_today", "today", ["no parameters", "takes no arguments: use {} as its input"]),
    ("get_today", {"date": "today"}, ["unexpected argument 'date'"]),
    ("get_today", 5, ["no parameters"]),
])
def test_validate_errors_name_the_key_and_list_the_parameters(name, args, fragments):
    reg = default_registry()
    reg.register(lookup)
    with pytest.raises(ToolError) as err:
        reg.validate(name, args)
    for fragment in fragments:
        assert fragment in str(err.value)


def test_validate_number_and_array_coercions():
    def f(x: float, items: list) -> None:
        """F."""

    reg = ToolRegistry([tool(f)])
    assert reg.validate("f", {"x": "2.5", "items": ("a", "b")}) == {"x": 2.5, "items": ["a", "b"]}
    assert reg.validate("f", {"x": 2, "items": []}) == {"x": 2, "items": []}
    with pytest.raises(ToolError, match="'items' must be array"):
        reg.validate("f", {"x": 1, "items": "a"})
    with pytest.raises(ToolError, match="'x' must be number"):
        reg.validate("f", {"x": [1], "items": []})


def test_validate_union_and_object_types():
    def f(x: int | Literal["all"], d: dict) -> None:
        """F."""

    reg = ToolRegistry([tool(f)])
    assert reg.validate("f", {"x": "all", "d": {}}) == {"x": "all", "d": {}}
    assert reg.validate("f", {"x": "3", "d": {"a": 1}}) == {"x": 3, "d": {"a": 1}}
    with pytest.raises(ToolError, match="'x' must be"):
        reg.validate("f", {"x": "some", "d": {}})
    with pytest.raises(ToolError, match="'d' must be object"):
        reg.validate("f", {"x": 1, "d": "{}"})


def test_call_returns_text():
    reg = ToolRegistry([lookup, ping])

    @reg.register
    def nothing() -> None:
        """Return nothing."""

    @reg.register
    def unserialisable() -> dict:
        """Return a dict JSON cannot carry."""
        return {"when": dt.date(2026, 3, 1)}

    assert reg.call("ping") == "pong"
    assert json.loads(reg.call("lookup", {"city": "北京"}))["city"] == "北京"
    assert reg.call("nothing") == "(the tool returned nothing)"
    assert "datetime.date(2026, 3, 1)" in reg.call("unserialisable")
    assert default_registry().call("calculator", {"expression": "306 * 5"}) == "1530"


def test_call_lets_the_tools_own_exception_through():
    with pytest.raises(ValueError, match="unknown city"):
        default_registry().call("get_weather", {"location": "Atlantis"})
    with pytest.raises(ToolError):
        default_registry().call("nope", {})


class _Weird(Exception):
    def __str__(self):
        raise RuntimeError("no str for you")


def test_run_never_raises_and_reports_errors_as_text():
    reg = default_registry()

    @reg.register
    def boom() -> str:
        """Always fails."""
        raise _Weird()

    @reg.register
    def quits() -> str:
        """Calls sys.exit."""
        sys.exit(3)

    @reg.register
    def silent() -> str:
        """Raises without a message."""
        raise KeyError

    assert reg.run("calculator", {"expression": "306*5"}) == ("1530", False)
    text, is_error = reg.run("get_weather", {"location": "Atlantis"})
    assert is_error and text.startswith("Error: get_weather failed: ValueError: unknown city")
    assert "Known cities: 北京 (Beijing), 广州 (Guangzhou)" in text
    text, is_error = reg.run("calculator", {"expression": "1/0"})
    assert (text, is_error) == ("Error: calculator failed: ValueError: division by zero.", True)
    assert reg.run("nope", {})[0].startswith("Error: There is no tool named 'nope'")
    assert reg.run("get_weather", {"city": "北京"})[0].startswith("Error: get_weather got an")
    text, is_error = reg.run("boom", None)  # even an exception whose str() fails
    assert is_error and text.startswith("Error: boom failed: _Weird: <class ")
    assert reg.run("quits") == ("Error: quits failed: SystemExit: 3", True)
    assert reg.run("silent") == ("Error: silent failed: KeyError: (no message)", True)
    assert reg.run(None, None)[1] is True  # type: ignore[arg-type]


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                  max_size=4),
    max_leaves=10,
)


@pytest.mark.timeout(300)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from([*COURSE, "nope", ""]) | st.text(max_size=20),
       args=_json_values | st.text(max_size=200))
def test_run_never_raises_for_any_input(name, args):
    text, is_error = default_registry().run(name, args)
    assert isinstance(text, str) and isinstance(is_error, bool)
    assert text.startswith("Error: ") or not is_error


# --- imports --------------------------------------------------------------------------------

TOOLS_MODULES = ["schema", "registry", "execute", "calculator", "bundled", "weather", "prices",
                 "dates", "docs", "course"]


@pytest.mark.parametrize("module", TOOLS_MODULES)
def test_every_tools_module_imports_first_in_a_fresh_interpreter(module):
    """No import circle: whichever module is imported first, everything resolves."""
    code = (f"import reactlab.tools.{module}; from reactlab.tools import calculator, "
            "default_registry; print(calculator('306 * 5'), len(default_registry()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1530", "6"]


def test_the_package_reexports_every_public_name():
    import reactlab.tools

    for name in reactlab.tools.__all__:
        assert getattr(reactlab.tools, name) is not None
    assert reactlab.tools.COURSE_TOOL_NAMES == tuple(COURSE)
    assert isinstance(reactlab.tools.calculator, Tool)  # the tool, not its module


def test_unknown_module_attribute():
    import reactlab.tools

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        reactlab.tools.nope  # noqa: B018


# --- a tool's name passed as a value --------------------------------------------------------

def test_tool_name_as_a_value_says_call_that_tool_first():
    """Seen on the 1.5B model: it passed get_today's name instead of calling it first."""
    text, is_error = default_registry().run(
        "days_between", {"date1": "2026-12-31", "date2": "get_today"})
    assert is_error
    assert text == ("Error: days_between got date2='get_today', which is the name of a tool, "
                    "not a value. Call get_today first, then call days_between again with its "
                    "result.")


@pytest.mark.parametrize("args, shown", [
    ({"date1": "2026-12-31", "date2": "get_today()"}, "date2='get_today()'"),
    ({"date1": "get_today({})", "date2": "2026-12-31"}, "date1='get_today({})'"),
    ({"date1": "2026-12-31", "date2": " get_today "}, "date2=' get_today '"),
    ('{"date1": "2026-12-31", "date2": "get_today()"}', "date2='get_today()'"),  # JSON text
    (["2026-12-31", "get_today"], "date2='get_today'"),  # positional values
])
def test_tool_name_as_a_value_variants(args, shown):
    text, is_error = default_registry().run("days_between", args)
    assert is_error
    assert text.startswith(f"Error: days_between got {shown}, which is the name of a tool")
    assert text.endswith("Call get_today first, then call days_between again with its result.")


@pytest.mark.parametrize("value", ["get_today is a tool", "Get_Today", "my_get_today(1)"])
def test_a_value_that_only_mentions_a_tool_runs_as_usual(value):
    text, is_error = default_registry().run("days_between", {"date1": "2026-12-31",
                                                             "date2": value})
    assert is_error and text.startswith("Error: days_between failed: ValueError: ")
    assert "name of a tool" not in text


@pytest.mark.parametrize("tool_name, args, inner", [
    # the 1.5B's real t46 expression: an average written before any weather was fetched
    ("calculator", {"expression": "(get_weather('北京')['humidity'] + "
                                  "get_weather('上海')['humidity']) / 2"}, "get_weather"),
    ("calculator", {"expression": "get_closing_price('Kweichow Moutai') / 3"}, "get_closing_price"),
    ("days_between", {"date1": "2026-12-31", "date2": "get_today(2026)"}, "get_today"),
])
def test_a_value_that_calls_another_tool_says_call_it_first(tool_name, args, inner):
    text, is_error = default_registry().run(tool_name, args)
    assert is_error and f"which calls {inner} inside it" in text
    assert f"call {inner} first" in text and text.endswith("the figures its results give.")


def test_tool_name_of_an_unregistered_tool_runs_as_usual():
    text, is_error = ToolRegistry([days_between]).run(
        "days_between", {"date1": "2026-12-31", "date2": "get_today"})
    assert is_error and text.startswith("Error: days_between failed: ValueError: date2=")
    assert "name of a tool" not in text


def test_tool_name_hint_does_not_run_the_tool():
    calls = []

    @tool
    def echo(text: str) -> str:
        """Repeat the text.

        Args:
            text: anything
        """
        calls.append(text)
        return text

    reg = ToolRegistry([echo, get_today])
    text, is_error = reg.run("echo", {"text": "get_today()"})
    assert is_error and "Call get_today first, then call echo again" in text
    assert calls == []
    # Its own name is not "another tool"; validate() and call() do not make the check.
    assert reg.run("echo", {"text": "echo"}) == ("echo", False)
    assert reg.validate("echo", {"text": "get_today"}) == {"text": "get_today"}
    assert reg.call("echo", "get_today") == "get_today"
    assert calls == ["echo", "get_today"]


# --- hardening: length bounds, odd values, deep nesting --------------------------------------

def test_a_text_argument_over_max_chars_is_refused_before_the_tool_runs():
    calls = []

    @tool(max_chars=10)
    def echo(text: str) -> str:
        """Repeat the text."""
        calls.append(text)
        return text

    reg = ToolRegistry([echo])
    assert reg.run("echo", {"text": "x" * 10}) == ("x" * 10, False)
    text, is_error = reg.run("echo", {"text": "x" * 11})
    assert is_error and text == (
        "Error: echo: argument 'text' is too long (11 characters; the limit is 10). Send only "
        "the short value the tool needs, not a whole text. echo takes: text (string, "
        "required). Example input: {\"text\": \"…\"}")
    assert calls == ["x" * 10]
    assert echo("x" * 50) == "x" * 50  # a direct Python call is not bounded
    assert tool(echo.func).max_chars is None  # the default: no bound


@pytest.mark.parametrize("args", [
    "[" * 5000,
    "{" * 5000,
    '{"a": ' * 5000 + "1" + "}" * 5000,
    '{"location": ' + "[" * 500 + "]" * 500 + "}",
    {"location": [[[[[[[[[[1]]]]]]]]]]},
    b"\xff\xfe",
    {1, 2, 3},
    frozenset(),
    1 + 2j,
    {("tuple", "key"): 1},
    {b"bytes": 1},
    10**5000,
    {"location": 10**5000},
    [10**5000],
    float("nan"),
    object(),
], ids=lambda a: type(a).__name__ if not isinstance(a, str) else f"str{len(a)}")
@pytest.mark.parametrize("name", ["get_weather", "days_between", "get_today", "calculator"])
def test_run_turns_odd_values_into_observations(name, args):
    text, is_error = default_registry().run(name, args)
    assert isinstance(text, str) and is_error and text.startswith("Error: ")
    assert len(text) < 2_000  # the observation quotes the value, not all of it


def test_a_deeply_nested_object_is_a_bad_arguments_observation():
    text, is_error = default_registry().run("days_between", "{" * 5000)
    assert is_error and "look like a JSON object but could not be decoded" in text
    nested = '{"date1": ' * 500 + '"2026-03-01"' + "}" * 500  # past the reader's depth bound
    text, is_error = default_registry().run("days_between", nested)
    assert is_error and text.startswith("Error: days_between") and "nested 500 levels" in text


def test_odd_tool_names_are_observations():
    reg = default_registry()
    for name in (10**5000, ["get_today"], None, b"get_today", "x" * 100_000):
        text, is_error = reg.run(name, {})  # type: ignore[arg-type]
        assert is_error and text.startswith("Error: There is no tool named ")
        assert len(text) < 1_000


def test_a_tool_returning_odd_results_still_gives_text():
    reg = ToolRegistry()

    @reg.register
    def huge() -> int:
        """A number str() refuses to print."""
        return 10**5000

    @reg.register
    def deep() -> list:
        """A list nested too deeply for JSON."""
        out: list = []
        for _ in range(5000):
            out = [out]
        return out

    for name in ("huge", "deep"):
        text, is_error = reg.run(name)
        assert isinstance(text, str) and not is_error and len(text) <= 200


def test_shown_never_raises_and_stays_short():
    from reactlab.tools.registry import shown

    class Broken:
        def __repr__(self):
            raise RuntimeError("no repr")

    deep: list = []
    for _ in range(5000):
        deep = [deep]
    assert shown("北京" * 100) == repr("北京" * 100)[:80]
    assert shown(10**5000) == "<int too long to show>"
    assert shown(Broken()).startswith("<Broken instance")  # reprlib's own fallback
    assert len(shown(deep)) <= 80


_python_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(10**4400, 10**4500)
    | st.floats(allow_nan=True) | st.complex_numbers() | st.text(max_size=30)
    | st.binary(max_size=10) | st.dates(),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.sets(st.integers(), max_size=3) | st.frozensets(st.text(max_size=3), max_size=3)
    | st.dictionaries(st.text(max_size=10) | st.integers() | st.tuples(st.integers())
                      | st.binary(max_size=3), inner, max_size=4),
    max_leaves=10,
)


@pytest.mark.timeout(300)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from([*COURSE, "nope"]), args=_python_values)
def test_run_never_raises_for_any_python_value(name, args):
    text, is_error = default_registry().run(name, args)
    assert isinstance(text, str) and isinstance(is_error, bool)
    assert text.startswith("Error: ") or not is_error


def test_a_long_result_json_cannot_carry_is_shown_in_full():
    reg = ToolRegistry()

    @reg.register
    def dates() -> dict:
        """Many dates."""
        return {f"day{i}": dt.date(2026, 3, 1) for i in range(20)}

    text = reg.call("dates")
    assert text.count("datetime.date(2026, 3, 1)") == 20
