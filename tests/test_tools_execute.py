"""Tests for reactlab.tools.execute: the calls of one reply, decoded, run and answered in order.

Concurrency is shown with a threading.Barrier (two calls that can only finish together), never
with timings. Every guard is provoked: bad JSON, JSON nested 5000 deep, malformed calls, a
missing tool name, more calls than `max_calls`, a ReAct call (`"id": None`) with a bare value.
Hypothesis sends arbitrary argument text and checks one outcome per call, in order.
"""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reactlab.tools import (
    CallOutcome,
    ToolRegistry,
    decode_arguments,
    default_registry,
    execute_calls,
    run_one,
    tool,
)
from reactlab.tools.execute import MAX_CALLS


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in ("REACTLAB_WEATHER", "REACTLAB_WEATHER_URL", "REACTLAB_TODAY"):
        monkeypatch.delenv(name, raising=False)


def call(name, arguments, call_id="c"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# --- decode_arguments -----------------------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [
    ('{"location": "北京"}', {"location": "北京"}),
    ("{'location': '北京'}", {"location": "北京"}),  # lenient: a Python-literal dict
    ('{“location”： “北京”}', {"location": "北京"}),  # lenient: full-width punctuation
    ('"北京"', "北京"),  # a JSON string: a one-parameter tool takes it
    ("", {}), ("  ", {}), ("null", {}), (None, {}),
    ({"location": "北京"}, {"location": "北京"}),  # already decoded
    (["北京"], ["北京"]),  # already decoded: passed on, the registry reads it
])
def test_decode_arguments_accepts(raw, expected):
    assert decode_arguments(raw) == (expected, None)


@pytest.mark.parametrize("raw, fragment", [
    ('{"location": 北京}', "not valid JSON"),
    ("北京", "not valid JSON"),
    ("[" * 5000, "not valid JSON"),
    ("{" * 5000, "not valid JSON"),
    ("[1, 2]", "must be a JSON object with named parameters, not list"),
    ("42", "not int"),
])
def test_decode_arguments_refuses_with_a_sentence(raw, fragment):
    args, problem = decode_arguments(raw)
    assert args == raw and fragment in problem
    assert "Send the arguments again" in problem or "JSON object" in problem


# --- run_one --------------------------------------------------------------------------------

def test_run_one_runs_a_native_call(monkeypatch):
    monkeypatch.setenv("REACTLAB_TODAY", "2026-03-01")
    out = run_one(default_registry(), call("get_today", "{}", "c1"))
    assert out == CallOutcome(id="c1", name="get_today", arguments={},
                              observation="2026-03-01 (Sunday, 星期日)", error=False,
                              bad_json=False, latency_ms=out.latency_ms)
    assert out.latency_ms >= 0


def test_bad_json_is_an_observation_that_counts_as_bad_json():
    out = run_one(default_registry(), call("get_weather", '{"location": 北京}'))
    assert out.error and out.bad_json and out.arguments == '{"location": 北京}'
    assert out.observation.startswith("Error: get_weather was not run: the arguments are not "
                                      "valid JSON")


@pytest.mark.parametrize("raw", ["[" * 5000, "{" * 5000, '{"a": ' * 5000 + "1" + "}" * 5000])
def test_json_nested_5000_deep_is_bad_arguments_not_an_exception(raw):
    out = run_one(default_registry(), call("get_weather", raw))
    assert out.error and out.bad_json and "not valid JSON" in out.observation


def test_json_nested_500_deep_is_bad_json_past_the_readers_depth_bound():
    # jsonish refuses nesting past MAX_DEPTH (64) before decoding: a bad-arguments
    # observation that says why, counted as a parse error.
    raw = '{"location": ' * 500 + '"北京"' + "}" * 500
    out = run_one(default_registry(), call("get_weather", raw))
    assert out.error and out.bad_json
    assert "nested 500 levels" in out.observation


def test_a_react_call_keeps_its_parsed_arguments():
    reg = default_registry()
    bare = run_one(reg, {"id": None, "function": {"name": "get_weather", "arguments": "北京"}})
    assert bare.id is None and not bare.error and bare.observation.startswith("北京: 23.4°C")
    parsed = run_one(reg, {"id": None, "function": {"name": "calculator",
                                                    "arguments": {"expression": "306 * 5"}}})
    assert (parsed.observation, parsed.error) == ("1530", False)
    text = run_one(reg, {"id": None, "function": {"name": "calculator", "arguments": "(1+2)*3"}})
    assert text.observation == "9"  # the same string as a native call would be bad JSON
    assert run_one(reg, call("calculator", "(1+2)*3")).bad_json


@pytest.mark.parametrize("bad_call", [
    {}, None, "get_today", [1], {"id": "x"}, {"id": "x", "function": None},
    {"id": "x", "function": {"name": None, "arguments": "{}"}},
    {"id": "x", "function": {"name": 42}}, {"id": "x", "function": {"arguments": "{}"}},
])
def test_malformed_calls_get_an_observation(bad_call):
    out = run_one(default_registry(), bad_call)
    assert out.error and out.observation.startswith("Error: the tool call has no tool name. "
                                                    "Call one of: get_weather, ")


def test_unknown_tool_and_failing_tool_are_observations():
    reg = default_registry()
    assert run_one(reg, call("nope", "{}")).observation.startswith(
        "Error: There is no tool named 'nope'")
    out = run_one(reg, call("calculator", '{"expression": "1/0"}'))
    assert (out.observation, out.error, out.bad_json) == (
        "Error: calculator failed: ValueError: division by zero.", True, False)


def test_run_one_survives_a_registry_that_raises():
    class Broken(ToolRegistry):
        def run(self, name, args=None):
            raise RuntimeError("broken registry")

    out = run_one(Broken(), call("x", "{}"))
    assert out.error and out.observation == "Error: x failed: RuntimeError: broken registry"


# --- execute_calls --------------------------------------------------------------------------

def test_independent_calls_run_concurrently_and_answer_in_call_order():
    barrier = threading.Barrier(2, timeout=10)

    @tool
    def meet(city: str) -> str:
        """Wait for the other call; only concurrent calls both get past the barrier."""
        barrier.wait()
        return city

    reg = ToolRegistry([meet])
    outs = execute_calls(reg, [call("meet", '{"city": "北京"}', "a"),
                               call("meet", '{"city": "广州"}', "b")])
    assert [(o.id, o.observation, o.error) for o in outs] == [("a", "北京", False),
                                                             ("b", "广州", False)]


def test_side_effect_tools_run_alone_and_in_order():
    active, log, lock = [0], [], threading.Lock()

    def enter(label):
        with lock:
            active[0] += 1
            log.append((label, active[0]))

    def leave():
        with lock:
            active[0] -= 1

    @tool
    def read(x: str) -> str:
        """Read."""
        enter(x)
        leave()
        return x

    @tool(side_effects=True)
    def write(x: str) -> str:
        """Write."""
        enter(x)
        leave()
        return x

    reg = ToolRegistry([read, write])
    calls = [call("read", '"r1"', "1"), call("read", '"r2"', "2"), call("write", '"w"', "3"),
             call("read", '"r3"', "4")]
    outs = execute_calls(reg, calls)
    assert [o.observation for o in outs] == ["r1", "r2", "w", "r3"]
    assert ("w", 1) in log  # nothing else was running while the write ran
    assert [label for label, _ in log].index("w") == 2  # after both reads, before the last


def test_parallel_off_gives_the_same_outcomes():
    calls = [call("get_weather", '{"location": "北京"}', "a"),
             call("get_weather", '{"location": "广州"}', "b")]
    together = execute_calls(default_registry(), calls)
    one_by_one = execute_calls(default_registry(), calls, parallel=False)
    assert [o.observation for o in together] == [o.observation for o in one_by_one]


def test_more_calls_than_max_calls_run_the_first_and_answer_every_id():
    calls = [call("calculator", json.dumps({"expression": f"{i} * 2"}), f"c{i}")
             for i in range(MAX_CALLS + 3)]
    outs = execute_calls(default_registry(), calls)
    assert [o.id for o in outs] == [c["id"] for c in calls]
    assert [o.observation for o in outs[:MAX_CALLS]] == [str(i * 2) for i in range(MAX_CALLS)]
    for out in outs[MAX_CALLS:]:
        assert out.error and not out.bad_json
        assert out.observation == (
            f"Error: calculator was not run: only {MAX_CALLS} tool calls run per reply and this "
            f"reply asked for {MAX_CALLS + 3}. Ask for it again in your next reply if you still "
            "need it.")


@pytest.mark.parametrize("max_calls, ran", [(2, 2), (0, 0), (-1, 0), (100, 5)])
def test_max_calls_is_configurable(max_calls, ran):
    calls = [call("get_today", "{}", f"c{i}") for i in range(5)]
    outs = execute_calls(default_registry(), calls, max_calls=max_calls)
    assert len(outs) == 5 and [o.id for o in outs] == [f"c{i}" for i in range(5)]
    assert sum("per reply" not in o.observation for o in outs) == ran


def test_no_calls_and_one_call():
    assert execute_calls(default_registry(), []) == []
    (out,) = execute_calls(default_registry(), [call("get_today", "")])
    assert not out.error


_arguments = (st.text(max_size=60) | st.sampled_from(["[" * 3000, "{" * 3000, "null", "{}"])
              | st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3))


@pytest.mark.timeout(300)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["get_weather", "calculator", "get_today", "nope", ""]),
                          _arguments, st.sampled_from(["x", None])), max_size=12))
def test_execute_calls_answers_every_call_in_order(specs):
    calls = [{"id": f"{prefix}{i}" if prefix else None,
              "function": {"name": name, "arguments": args}}
             for i, (name, args, prefix) in enumerate(specs)]
    outs = execute_calls(default_registry(), calls)
    assert [o.id for o in outs] == [c["id"] for c in calls]
    for out in outs:
        assert isinstance(out.observation, str) and out.observation
        assert out.observation.startswith("Error: ") or not out.error
        assert not out.bad_json or out.error
