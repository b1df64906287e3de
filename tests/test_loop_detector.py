"""reactlab.loop_detector: canonical arguments and the three loop shapes."""

from __future__ import annotations

import pytest

from reactlab.loop_detector import LoopDetector, canonical_args, format_call
from reactlab.prompts import load_template

# --- canonical arguments and the loop detector --------------------------------------------


@pytest.mark.parametrize("a,b", [
    ({"location": "北京", "day": 1}, {"day": 1, "location": "北京"}),
    ('{"location": "北京"}', '{ "location" :"北京" }'),
    ('{"location":"北京"}', {"location": "北京"}),
    ({"location": " 北京 "}, {"location": "北京"}),
    ("", {}),
    (None, "{}"),
    ("北京", '"北京"'),
    ("  306 *  5 ", "306 * 5"),
])
def test_equal_calls_have_equal_canonical_args(a, b):
    assert canonical_args(a) == canonical_args(b)


def test_different_calls_differ():
    assert canonical_args({"location": "北京"}) != canonical_args({"location": "广州"})
    assert canonical_args({"a": 1}) != canonical_args({"a": "1"})


def test_format_call_decodes_json_arguments():
    assert format_call("get_weather", '{"location": "北京"}') == "get_weather({'location': '北京'})"
    assert format_call("f", "not json") == "f('not json')"


def test_repeat_fires_on_the_third_identical_call_whatever_the_key_order():
    d = LoopDetector()
    assert d.check("get_weather", {"location": "北京", "unit": "C"}) is None
    assert d.check("get_weather", '{"unit": "C",  "location": "北京"}') is None
    event = d.check("get_weather", {"location": "北京", "unit": "C"})
    assert event == "loop: get_weather({'location': '北京', 'unit': 'C'}) repeated 3 times"
    assert d.triggers == 1 and d.events == [event]
    # Ignoring the intervention and repeating once more fires again: the agent then stops.
    assert d.check("get_weather", {"location": "北京", "unit": "C"})
    assert d.triggers == 2


def test_a_different_call_breaks_the_streak():
    d = LoopDetector()
    calls = [("get_weather", {"location": "北京"})] * 2 + [("get_today", {})] + \
            [("get_weather", {"location": "北京"})] * 2
    assert [d.check(n, a) for n, a in calls] == [None] * 5
    assert d.triggers == 0


def test_ping_pong_fires_on_a_b_a_b():
    d = LoopDetector()
    calls = [("get_weather", {"location": "北京"}), ("get_weather", {"location": "广州"})] * 2
    events = [d.check(n, a) for n, a in calls]
    assert events[:3] == [None, None, None]
    assert events[3] == ("loop: ping-pong between get_weather({'location': '北京'}) and "
                         "get_weather({'location': '广州'})")
    assert d.check("get_weather", {"location": "北京"}).startswith("loop: ping-pong")
    assert d.triggers == 2


def test_a_a_b_b_is_not_ping_pong_and_settings_can_turn_detection_off():
    d = LoopDetector()
    assert [d.check(n, {}) for n in "aabb"] == [None] * 4
    off = LoopDetector(repeat=0, pingpong=0)
    assert [off.check(n, {}) for n in "aaaaabababab"] == [None] * 12


@pytest.mark.parametrize("kwargs", [{"repeat": 1}, {"pingpong": 1}])
def test_nonsense_settings_are_refused_with_a_sentence(kwargs):
    with pytest.raises(ValueError, match="use 2 or more"):
        LoopDetector(**kwargs)


def test_custom_message():
    assert LoopDetector(message="停！").message == "停！"
    assert "Do not call it again" in LoopDetector().message == load_template("loop_intervention")


def test_loop_detector_sees_a_chain_replayed_in_one_reply():
    # Seen on the real 1.5B: get_today -> days_between -> calculator written three times over.
    d = LoopDetector()
    chain = [("get_today", {}), ("days_between", {"date1": "2026-03-01", "date2": "2027-01-01"}),
             ("calculator", {"expression": "306 * 5"})]
    events = [d.check(n, a) for n, a in chain * 2]
    assert events[:5] == [None] * 5
    assert events[5] and "cycle" in events[5] and "calculator" in events[5]


def test_three_different_calls_are_not_a_loop():
    d = LoopDetector()
    assert [d.check(c, {}) for c in ("a", "b", "c", "a", "c", "b")] == [None] * 6




def test_deeply_nested_arguments_never_raise():
    deep = "[" * 5000
    assert canonical_args(deep) == deep
    nested: dict = {}
    for _ in range(600):
        nested = {"a": nested}
    assert canonical_args(nested)
    assert format_call("f", nested).startswith("f(")
