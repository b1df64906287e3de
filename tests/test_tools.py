"""Tests for reactlab.tools (registry, schemas, validation) and reactlab.course_tools.

The seeds' headline tasks are named tests: test_weather_beijing_guangzhou (seed 000),
test_closing_prices_qingdao_vs_moutai (seed 002) and, through the registry,
test_savings_question_end_to_end_through_the_registry (seed 001). The calculator itself is
tested in tests/test_calculator.py. Live weather is tested against a local http.server on
127.0.0.1 serving CMA-shaped JSON; no test touches the internet. Timings are never asserted.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar, Literal, Optional, Union

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reactlab import course_tools
from reactlab.tools import (
    Tool,
    ToolError,
    ToolRegistry,
    days_between,
    default_registry,
    get_closing_price,
    get_today,
    get_weather,
    search_docs,
    tool,
)

COURSE = ["get_weather", "get_closing_price", "get_today", "days_between", "calculator",
          "search_docs"]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    """Tests must not depend on the developer's shell (live weather, pinned dates)."""
    for name in ("REACTLAB_WEATHER", "REACTLAB_WEATHER_URL", "REACTLAB_WEATHER_TIMEOUT",
                 "REACTLAB_TODAY"):
        monkeypatch.delenv(name, raising=False)


# --- a few tools to build schemas from ------------------------------------------------------

@tool
def lookup(city: str, days: int = 3, units: Literal["metric", "imperial"] = "metric",
           detailed: bool = False, note: Optional[str] = None) -> dict:  # noqa: UP045  (on purpose)
    """Look up a forecast.

    This second paragraph is for people and must not reach the model.

    Args:
        city: the city, e.g. 北京
        days (int): how many days,
            between 1 and 7
        units: unit system
        detailed: include hourly data
        note: free text

    Returns:
        a dict
    """
    return {"city": city, "days": days, "units": units, "detailed": detailed, "note": note}


@tool(name="ping", side_effects=True)
def _ping() -> str:
    """Say pong."""
    return "pong"


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


def test_tool_decorator_options_and_call():
    assert isinstance(_ping, Tool)
    assert _ping.name == "ping" and _ping.side_effects is True
    assert _ping() == "pong"  # a Tool stays callable like the function
    assert lookup("北京")["days"] == 3


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
    assert reg.register(_ping) is _ping
    assert reg.register(_ping) is _ping  # registering the same tool twice is harmless

    @reg.register
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    assert isinstance(shout, Tool)
    assert reg.names() == ["lookup", "ping", "shout"]
    assert "ping" in reg and _ping in reg and "nope" not in reg and 3 not in reg
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
    a.register(_ping)
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
    reg = ToolRegistry([lookup, _ping])
    assert reg.validate("lookup", args) == expected


@pytest.mark.parametrize("args", [None, "", "  ", "{}", {}, "null", "None", []])
def test_validate_no_argument_forms(args):
    assert ToolRegistry([_ping]).validate("ping", args) == {}


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
    reg = ToolRegistry([lookup, _ping])

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


# --- get_weather ----------------------------------------------------------------------------

def test_weather_beijing_guangzhou():
    """Seed 000's headline task: the weather of 北京 and 广州, one call per city."""
    reg = default_registry()
    beijing, err1 = reg.run("get_weather", {"location": "北京"})
    guangzhou, err2 = reg.run("get_weather", {"location": "广州"})
    assert not err1 and not err2
    # the figures of the CMA responses quoted in seed 000 (2025/04/26 15:00)
    for fragment in ("北京: 23.4°C", "feels like 23.1°C", "humidity 43%", "西南风 2.7 m/s (微风)",
                     "pressure 1005 hPa"):
        assert fragment in beijing
    for fragment in ("广州: 24.2°C", "feels like 27.1°C", "humidity 79%", "东北风 1.3 m/s (微风)"):
        assert fragment in guangzhou
    for answer in (beijing, guangzhou):
        assert "[snapshot of 2025-04-26 15:00, bundled teaching data, not live weather]" in answer


def test_snapshot_covers_the_required_cities_and_labels_every_answer():
    cities = json.loads(course_tools._data("weather_snapshot.json"))["cities"]
    required = ["北京", "广州", "上海", "深圳", "杭州", "成都", "武汉", "西安", "南京", "重庆",
                "天津", "青岛"]
    assert set(required) <= set(cities) and len(cities) >= 12
    for city, info in cities.items():
        answer = get_weather(city)
        assert answer.startswith(f"{city}: ") and "snapshot of 2025-04-26 15:00" in answer
        assert get_weather(info["en"]) == answer


@pytest.mark.parametrize("name, city", [
    ("Beijing", "北京"), ("beijing", "北京"), ("BEIJING", "北京"), (" 北京市 ", "北京"),
    ("Beijing City", "北京"), ("Peking", "北京"), ("北京市朝阳区", "北京"), ("guangzhou", "广州"),
    ("廣州", "广州"), ("Canton", "广州"), ("Xi'an", "西安"), ("xian", "西安"), ("XI AN", "西安"),
    ("Ｓｈａｎｇｈａｉ", "上海"), ("青島", "青岛"), ("Chongqing, China", "重庆"),
])
def test_weather_accepts_chinese_pinyin_and_english_names(name, city):
    assert get_weather(name).startswith(f"{city}: ")


def test_weather_unknown_city_lists_the_known_ones():
    with pytest.raises(ValueError) as err:
        get_weather("Atlantis")
    assert "unknown city 'Atlantis'" in str(err.value)
    assert "北京 (Beijing)" in str(err.value) and "青岛 (Qingdao)" in str(err.value)


@pytest.mark.parametrize("location", ["北京和广州", "Beijing and Guangzhou", "北京,广州"])
def test_weather_refuses_two_cities_in_one_call(location):
    with pytest.raises(ValueError, match="ONE city per call"):
        get_weather(location)


@pytest.mark.parametrize("location", ["", "   ", None])
def test_weather_needs_a_name(location):
    with pytest.raises(ValueError, match="city name"):
        get_weather(location)


def test_weather_skips_missing_cma_readings():
    now = {"temperature": 9999, "feelst": 9999.0, "humidity": 50.0, "windDirection": "",
           "windSpeed": 9999, "windScale": "", "precipitation": None, "pressure": 1000.0}
    assert course_tools._format_weather("X", now, "t") == "X: humidity 50%, pressure 1000 hPa [t]"
    assert course_tools._format_weather("X", {}, "t") == "X: no readings [t]"


# --- live weather against a local CMA-shaped server -----------------------------------------

class _CMA(BaseHTTPRequestHandler):
    """Answers like weather.cma.cn: /api/autocomplete?q=… and /api/now/<station>."""

    stations: ClassVar[dict] = {"北京": "54511|北京|Beijing|中国", "苏州": "58349|苏州|Suzhou|中国"}
    mode = "ok"  # ok | error_code | http_500 | bad_json | slow | empty
    seen: ClassVar[list[str]] = []

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        type(self).seen.append(urllib.parse.unquote(self.path))
        url = urllib.parse.urlsplit(self.path)
        if self.mode == "slow":
            time.sleep(1.5)
        if self.mode == "http_500":
            return self._send(500, b"server error")
        if self.mode == "bad_json":
            return self._send(200, b"<html>not json</html>")
        if self.mode == "error_code":
            return self._send(200, json.dumps({"msg": "fail", "code": 1, "data": []}).encode())
        if url.path == "/api/autocomplete":
            q = urllib.parse.parse_qs(url.query).get("q", [""])[0]
            data = [] if self.mode == "empty" else [
                entry for name, entry in self.stations.items() if q in name]
            return self._json({"msg": "success", "code": 0, "data": data})
        if url.path.startswith("/api/now/"):
            station = url.path.rsplit("/", 1)[1]
            name = {"54511": "北京", "58349": "苏州"}[station]
            return self._json({"msg": "success", "code": 0, "data": {
                "location": {"id": station, "name": name, "path": f"中国, {name}"},
                "now": {"precipitation": 0.5, "temperature": 18.5, "pressure": 1011.0,
                        "humidity": 55.0, "windDirection": "北风", "windDirectionDegree": 2.0,
                        "windSpeed": 4.2, "windScale": "3级", "feelst": 17.0},
                "alarm": [], "jieQi": "", "lastUpdate": "2026/03/01 10:00"}})
        return self._send(404, b"not found")

    def _json(self, payload):
        self._send(200, json.dumps(payload, ensure_ascii=False).encode("utf-8"))

    def _send(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def cma(monkeypatch):
    """A CMA-shaped server on a free loopback port, with live mode switched on."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CMA)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    _CMA.mode, _CMA.seen = "ok", []
    monkeypatch.setenv("REACTLAB_WEATHER", "live")
    monkeypatch.setenv("REACTLAB_WEATHER_URL", f"http://127.0.0.1:{server.server_address[1]}/")
    monkeypatch.setenv("REACTLAB_WEATHER_TIMEOUT", "5")
    yield _CMA
    server.shutdown()
    server.server_close()


def test_live_weather_follows_autocomplete_station_now(cma):
    answer = get_weather("北京")
    assert cma.seen == ["/api/autocomplete?q=北京", "/api/now/54511"]
    assert answer.startswith("北京: 18.5°C (feels like 17.0°C), humidity 55%, wind 北风 4.2 m/s")
    assert "live from the China Meteorological Administration, station 54511" in answer
    assert "updated 2026/03/01 10:00" in answer and "snapshot" not in answer


def test_live_weather_resolves_pinyin_before_asking(cma):
    assert get_weather("Beijing").startswith("北京: 18.5°C")
    assert cma.seen[0] == "/api/autocomplete?q=北京"


def test_live_weather_reaches_cities_outside_the_snapshot(cma):
    assert get_weather("苏州").startswith("苏州: 18.5°C")


@pytest.mark.parametrize("mode, reason", [
    ("empty", "LookupError: the CMA API knows no place called '北京'"),
    ("error_code", "LookupError: the CMA API answered 'fail' instead of success"),
    ("http_500", "HTTPError: HTTP Error 500"),
    ("bad_json", "JSONDecodeError"),
])
def test_live_weather_falls_back_to_the_snapshot_with_a_note(cma, mode, reason):
    cma.mode = mode
    answer = get_weather("北京")
    assert answer.startswith("(live weather failed: ")
    assert reason in answer
    assert "showing the bundled snapshot) 北京: 23.4°C" in answer
    assert answer.endswith("not live weather]")


def test_live_weather_times_out_then_falls_back(cma, monkeypatch):
    cma.mode = "slow"
    monkeypatch.setenv("REACTLAB_WEATHER_TIMEOUT", "0.2")
    answer = get_weather("广州")
    assert answer.startswith("(live weather failed: ") and "timed out" in answer
    assert "广州: 24.2°C" in answer


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_live_weather_offline_falls_back(monkeypatch):
    monkeypatch.setenv("REACTLAB_WEATHER", "LIVE")
    monkeypatch.setenv("REACTLAB_WEATHER_URL", f"http://127.0.0.1:{_closed_port()}")
    answer = get_weather("北京")
    assert answer.startswith("(live weather failed: URLError") and "北京: 23.4°C" in answer
    with pytest.raises(ValueError) as err:
        get_weather("苏州")  # not in the snapshot either: nothing to fall back to
    assert "live weather for '苏州' failed" in str(err.value)
    assert "Known cities: 北京 (Beijing)" in str(err.value)


def test_live_mode_is_off_by_default(cma, monkeypatch):
    monkeypatch.delenv("REACTLAB_WEATHER")
    assert "snapshot of 2025-04-26" in get_weather("北京")
    assert cma.seen == []  # the URL was set, but nothing was asked


def test_live_weather_still_refuses_two_cities(cma):
    with pytest.raises(ValueError, match="ONE city"):
        get_weather("北京和广州")
    assert cma.seen == []


# --- closing prices -------------------------------------------------------------------------

def test_closing_prices_qingdao_vs_moutai():
    """Seed 002's headline task: 青岛啤酒 vs 贵州茅台, with the seed's exact figures."""
    reg = default_registry()
    qingdao, _ = reg.run("get_closing_price", {"name": "青岛啤酒"})
    moutai, _ = reg.run("get_closing_price", {"name": "贵州茅台"})
    assert "青岛啤酒 (600600.SH) closing price: 67.92 CNY" in qingdao
    assert "贵州茅台 (600519.SH) closing price: 1488.21 CNY" in moutai
    assert "not live market data" in qingdao
    assert reg.run("calculator", {"expression": "1488.21 - 67.92"}) == ("1420.29", False)


@pytest.mark.parametrize("name, close", [
    ("贵州茅台", "1488.21"), ("貴州茅台", "1488.21"), ("茅台", "1488.21"), ("600519", "1488.21"),
    ("600519.SH", "1488.21"), ("sh600519", "1488.21"), ("Kweichow Moutai", "1488.21"),
    ("青岛啤酒", "67.92"), ("青島啤酒", "67.92"), ("Tsingtao", "67.92"), (600600, "67.92"),
])
def test_closing_price_accepts_names_and_codes(name, close):
    assert f": {close} CNY" in get_closing_price(name)


def test_closing_price_unknown_stock():
    with pytest.raises(ValueError) as err:
        get_closing_price("苹果")
    assert "Known stocks: 青岛啤酒 (600600), 贵州茅台 (600519)" in str(err.value)


# --- dates ----------------------------------------------------------------------------------

def test_get_today_is_the_real_date_with_weekday():
    before = dt.date.today()
    answer = get_today()
    assert answer[:10] in {before.isoformat(), dt.date.today().isoformat()}
    assert answer.endswith(")") and "星期" in answer


@pytest.mark.parametrize("pinned, expected", [
    ("2026-03-01", "2026-03-01 (Sunday, 星期日)"),
    ("2025-06-27", "2025-06-27 (Friday, 星期五)"),
    (" 2024-02-29 ", "2024-02-29 (Thursday, 星期四)"),
])
def test_get_today_pinned_by_env(monkeypatch, pinned, expected):
    monkeypatch.setenv("REACTLAB_TODAY", pinned)
    assert get_today() == expected


def test_get_today_bad_env_says_how_to_fix(monkeypatch):
    monkeypatch.setenv("REACTLAB_TODAY", "next friday")
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        get_today()


@pytest.mark.parametrize("date1, date2, days", [
    ("2026-03-01", "2027-01-01", 306),
    ("2027-01-01", "2026-03-01", 306),  # order does not matter
    ("2026/3/1", "2027.1.1", 306),
    ("2026年3月1日", "2027年01月01号", 306),
    ("２０２６－０３－０１", "20270101", 306),
    ("2026-03-01 (Sunday, 星期日)", "2027-01-01", 306),  # a copied get_today() answer
    ("2026-03-01T08:30:00", "2027-01-01", 306),
    ("2025-12-31", "2025-12-31", 0),
    ("2024-02-28", "2024-03-01", 2),
])
def test_days_between_formats(date1, date2, days):
    assert days_between(date1, date2) == days


@pytest.mark.parametrize("date1, message", [
    ("today", "call get_today() first"),
    ("今天", "call get_today() first"),
    ("2026-02-30", "not a real date"),
    ("12月31日", "write it as YYYY-MM-DD"),
    ("next week", "write it as YYYY-MM-DD"),
    ("", "write it as YYYY-MM-DD"),
])
def test_days_between_errors(date1, message):
    with pytest.raises(ValueError) as err:
        days_between(date1, "2027-01-01")
    assert message in str(err.value)


# --- calculator (its own tests: tests/test_calculator.py) ----------------------------------

def test_savings_question_end_to_end_through_the_registry(monkeypatch):
    monkeypatch.setenv("REACTLAB_TODAY", "2026-03-01")
    reg = default_registry()
    today, _ = reg.run("get_today", {})
    days, _ = reg.run("days_between", {"date1": today[:10], "date2": "2027-01-01"})
    total, _ = reg.run("calculator", {"expression": f"{days} * 5"})
    assert (today[:10], days, total) == ("2026-03-01", "306", "1530")


# --- search_docs ----------------------------------------------------------------------------

def test_search_docs_returns_long_whole_sections():
    answer = search_docs("dim sum")
    assert len(answer) >= 10_000  # deliberately big: the context-bloat lesson
    assert answer.startswith("search_docs: ")
    assert "=== Guangzhou (广州) City Guide — a reactlab sample document › Morning tea and dim sum" \
        in answer
    assert "Shrimp dumplings, har gow (虾饺)" in answer  # whole sections, not snippets


def test_search_docs_chinese_query_finds_the_chinese_guide():
    answer = search_docs("故宫")
    assert "=== 北京城市旅行指南（reactlab 示例文档） › 故宫与天安门一带 ===" in answer
    assert "参观故宫需要提前在官方渠道实名预约购票" in answer  # the whole section
    assert len(answer) > 5_000  # ~5,000 Chinese characters: about as many tokens as 15,000 English


def test_search_docs_is_deterministic_and_bundles_tens_of_thousands_of_characters():
    assert search_docs("typhoon battery") == search_docs("typhoon battery")
    total = sum(len(text) for _, _, text in course_tools._sections())
    assert total > 40_000


def test_search_docs_no_match_and_empty_query():
    assert search_docs("zzzzqqq").startswith("No section matched 'zzzzqqq'")
    with pytest.raises(ValueError, match="no searchable words"):
        search_docs("  ? ! ")


# --- imports --------------------------------------------------------------------------------

def test_imports_work_in_either_order():
    code = ("import reactlab.course_tools; from reactlab.tools import calculator, "
            "default_registry; print(calculator('306 * 5'), len(default_registry()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1530", "6"]


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


@pytest.mark.parametrize("value", ["get_today is a tool", "Get_Today", "get_today(2026)"])
def test_a_value_that_only_mentions_a_tool_runs_as_usual(value):
    text, is_error = default_registry().run("days_between", {"date1": "2026-12-31",
                                                             "date2": value})
    assert is_error and text.startswith("Error: days_between failed: ValueError: ")
    assert "name of a tool" not in text


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
