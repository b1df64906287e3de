"""Unit tests for reactlab.guards: each guard provoked on purpose, no model, no agent."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessage

from reactlab.guards import (
    DEFAULT_FINAL_REQUEST,
    DEFAULT_LOOP_MESSAGE,
    EMPTY_REPLY_NUDGE,
    SUMMARY_HEADER,
    Guards,
    LoopDetector,
    budget_event,
    budget_status,
    canonical_args,
    compact_observation,
    compress_history,
    count_steps,
    format_call,
    message_problems,
)

# --- compact_observation ------------------------------------------------------------------


def test_fifty_thousand_characters_are_cut_with_a_visible_marker():
    text = "H" * 25_000 + "T" * 25_000
    out = compact_observation(text, max_chars=2000)
    assert "[… 48,000 characters cut …]" in out
    assert out.startswith("H" * 1000) and out.endswith("T" * 1000)
    assert len(out) - len("\n[… 48,000 characters cut …]\n") == 2000


@pytest.mark.parametrize("text,limit", [("short", 2000), ("x" * 2000, 2000), ("y" * 50, None)])
def test_short_text_or_no_limit_is_unchanged(text, limit):
    assert compact_observation(text, limit) == text


def test_non_strings_are_stringified():
    assert compact_observation(None) == ""
    assert compact_observation(1530) == "1530"
    assert "characters cut" in compact_observation(list(range(5000)), 100)


def test_guards_observe_reports_full_text_and_event():
    shown, full, event = Guards().observe("x" * 50_000)
    assert full == "x" * 50_000
    assert "48,000 characters cut" in shown
    assert event == f"compacted: 50000 chars -> {len(shown)} chars"
    assert Guards().observe("ok") == ("ok", None, None)
    assert Guards.off().observe("x" * 50_000) == ("x" * 50_000, None, None)


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
    assert "Do not call it again" in LoopDetector().message == DEFAULT_LOOP_MESSAGE


# --- Guards -------------------------------------------------------------------------------


def test_on_and_off():
    on, off = Guards.on(max_steps=8), Guards.off(max_steps=4)
    assert (on.max_steps, on.max_parse_errors, on.observation_chars) == (8, 3, 2000)
    assert isinstance(on.loop, LoopDetector) and on.final_request == DEFAULT_FINAL_REQUEST
    assert (off.max_steps, off.max_parse_errors, off.observation_chars, off.loop,
            off.max_total_tokens, off.compress_after) == (4, 4, None, None, None, None)


def test_fresh_gives_each_run_its_own_loop_detector():
    g = Guards(loop=LoopDetector(repeat=4, message="m"))
    for _ in range(4):
        g.check_call("f", {})
    assert g.loop.triggers == 1
    f = g.fresh()
    assert f.loop is not g.loop and f.loop.triggers == 0 and f.loop.history == []
    assert (f.loop.repeat, f.loop.message, f.max_steps) == (4, "m", 6)
    assert g.fresh(max_steps=9).max_steps == 9
    assert Guards.off().fresh().loop is None
    assert Guards.off().check_call("f", {}) is None


def test_loop_exhausted_after_two_triggers():
    g = Guards.on().fresh()
    for _ in range(3):
        g.check_call("f", {"x": 1})
    assert not g.loop_exhausted
    g.check_call("f", {"x": 1})
    assert g.loop_exhausted
    assert budget_status(g, steps=2) == "loop"


@pytest.mark.parametrize("steps,parse_errors,tokens,expected", [
    (0, 0, 0, None),
    (5, 3, 10**9, None),           # no token budget, 3 parse errors are still allowed
    (6, 0, 0, "max_steps"),
    (2, 4, 0, "parse_errors"),
    (6, 4, 0, "parse_errors"),     # the more specific cause wins
])
def test_budget_status(steps, parse_errors, tokens, expected):
    assert budget_status(Guards(), steps, parse_errors, tokens) == expected


def test_token_budget():
    g = Guards(max_total_tokens=1000)
    assert budget_status(g, 1, 0, 1000) is None
    assert budget_status(g, 1, 0, 1001) == "max_tokens"
    assert budget_status(g, 6, 0, 1001) == "max_tokens"


@pytest.mark.parametrize("status,expected", [
    ("max_steps", "budget: max_steps (6 steps, max_steps=6)"),
    ("parse_errors", "budget: parse_errors (4 parse errors > max_parse_errors=3)"),
    ("max_tokens", "budget: max_tokens (1530 tokens > max_total_tokens=1500)"),
    ("loop", "budget: loop (the loop detector fired twice)"),
])
def test_budget_event_names_the_budget(status, expected):
    assert budget_event(Guards(max_total_tokens=1500), status, 6, 4, 1530) == expected


# --- history compression ------------------------------------------------------------------


def native_step(k: int, name: str = "get_weather", args: str = '{"location": "北京"}',
                obs: str | None = None, n_calls: int = 1) -> list[dict]:
    calls = [{"id": f"call_{k}_{j}", "type": "function",
              "function": {"name": name, "arguments": args}} for j in range(n_calls)]
    msgs: list[dict] = [{"role": "assistant", "content": None, "tool_calls": calls}]
    msgs += [{"role": "tool", "tool_call_id": c["id"], "content": obs or f"晴 {k}°C"}
             for c in calls]
    return msgs


def react_step(k: int) -> list[dict]:
    return [{"role": "assistant",
             "content": f'Thought: I need more.\nAction: {{"action": "get_weather", '
                        f'"action_input": {{"location": "城市{k}"}}}}'},
            {"role": "user", "content": f"Observation: 城市{k}: 晴 {k}°C"}]


HEAD = [{"role": "system", "content": "You are a tool user."},
        {"role": "user", "content": "北京和广州今天哪里更热？"}]


def test_native_history_is_folded_and_stays_valid():
    msgs = HEAD + [m for k in range(1, 6) for m in native_step(k)]
    before = copy.deepcopy(msgs)
    out = compress_history(msgs, keep_last=2)
    assert msgs == before  # the input is not modified
    assert out[:2] == HEAD
    assert out[2]["role"] == "user" and out[2]["content"].startswith(SUMMARY_HEADER)
    lines = out[2]["content"].splitlines()[1:]
    assert lines == [f"step {k}: get_weather({{'location': '北京'}}) -> 晴 {k}°C"
                     for k in (1, 2, 3)]
    assert out[3:] == native_step(4) + native_step(5)
    assert message_problems(out) == []
    assert count_steps(out) == 2


def test_a_second_fold_extends_the_summary_instead_of_nesting_it():
    msgs = compress_history(HEAD + [m for k in range(1, 5) for m in native_step(k)])
    msgs += native_step(5) + native_step(6)
    out = compress_history(msgs)
    summaries = [m for m in out if str(m["content"]).startswith(SUMMARY_HEADER)]
    assert len(summaries) == 1
    assert [ln.split(":")[0] for ln in summaries[0]["content"].splitlines()[1:]] == \
        ["step 1", "step 2", "step 3", "step 4"]
    assert out[-4:] == native_step(5) + native_step(6)
    assert message_problems(out) == []


def test_parallel_calls_stay_with_their_assistant_message():
    msgs = HEAD + native_step(1, n_calls=2) + native_step(2, n_calls=3) + native_step(3)
    out = compress_history(msgs, keep_last=2)
    assert message_problems(out) == []
    assert out[-6:] == native_step(2, n_calls=3) + native_step(3)
    assert out[2]["content"].count("get_weather") == 2  # both calls of step 1, one line


def test_nothing_to_fold_returns_an_equal_copy():
    msgs = HEAD + native_step(1) + native_step(2)
    out = compress_history(msgs, keep_last=2)
    assert out == msgs and out is not msgs
    assert compress_history(HEAD) == HEAD


def test_keep_last_zero_folds_every_step():
    out = compress_history(HEAD + native_step(1) + native_step(2), keep_last=0)
    assert len(out) == 3 and out[2]["content"].count("\nstep ") == 2


def test_react_chat_style_keeps_the_action_and_observation():
    msgs = HEAD + [m for k in range(1, 5) for m in react_step(k)]
    out = compress_history(msgs, keep_last=1)
    lines = out[2]["content"].splitlines()[1:]
    assert len(lines) == 3
    assert lines[0].startswith("step 1: get_weather({'location': '城市1'})")
    assert lines[0].endswith("-> 城市1: 晴 1°C")
    assert "Thought" not in out[2]["content"]
    assert out[3:] == react_step(4)


def test_loop_intervention_and_nudges_are_not_mistaken_for_the_question():
    msgs = HEAD + native_step(1) + native_step(2) + native_step(3)
    msgs.append({"role": "user", "content": DEFAULT_LOOP_MESSAGE})
    msgs += native_step(4)
    msgs += [{"role": "assistant", "content": ""},
             {"role": "user", "content": EMPTY_REPLY_NUDGE}]
    msgs += native_step(5)
    out = compress_history(msgs, keep_last=1)
    assert out[:2] == HEAD
    assert out[2]["content"].count("\nstep ") == 5
    assert "[note: You are repeating" in out[2]["content"]
    assert "(empty reply)" in out[2]["content"]
    assert message_problems(out) == []


def test_earlier_turns_and_the_current_question_survive():
    history = [{"role": "user", "content": "北京天气？"}, {"role": "assistant", "content": "晴。"},
               {"role": "user", "content": "广州呢？"}, {"role": "assistant", "content": "多云。"}]
    question = {"role": "user", "content": "哪里更热？"}
    msgs = [HEAD[0], *history, question] + [m for k in range(1, 5) for m in native_step(k)]
    out = compress_history(msgs)
    assert out[:6] == [HEAD[0], *history, question]
    assert out[6]["content"].startswith(SUMMARY_HEADER)
    assert message_problems(out) == []
    # An explicit start (what the agents know) gives the same answer.
    assert compress_history(msgs, start=6) == out


def test_sdk_message_objects_are_read_too():
    assistant = ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_x", "type": "function",
             "function": {"name": "get_today", "arguments": "{}"}}]})
    msgs = HEAD + [assistant, {"role": "tool", "tool_call_id": "call_x", "content": "2026-03-01"}]
    msgs += native_step(2) + native_step(3)
    out = compress_history(msgs)
    assert "step 1: get_today({}) -> 2026-03-01" in out[2]["content"]
    assert message_problems(out) == []


def test_maybe_compress_applies_compress_after():
    msgs = HEAD + [m for k in range(1, 6) for m in native_step(k)]
    same, event = Guards().maybe_compress(msgs)
    assert same is msgs and event is None
    out, event = Guards(compress_after=4).maybe_compress(msgs)
    assert event.startswith("compressed: folded 3 steps into a summary (")
    assert count_steps(out) == 2
    out, event = Guards(compress_after=4, keep_last=1).maybe_compress(msgs, start=2)
    assert "folded 4 steps" in event and count_steps(out, start=2) == 1


def test_message_problems_names_what_is_wrong():
    assert message_problems([{"role": "user", "content": "q"},
                             {"role": "tool", "tool_call_id": "c1", "content": "x"}]) == [
        "message 1 (tool, c1) does not follow an assistant message whose tool_calls include c1."]
    broken = HEAD + native_step(1)[:1] + [{"role": "user", "content": "hi"}]
    assert "comes before the tool results for call_1_0" in message_problems(broken)[0]
    assert "ends before the tool results" in message_problems(HEAD + native_step(1)[:1])[0]


@st.composite
def histories(draw):
    msgs = list(HEAD)
    for k in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["native", "parallel", "react", "empty", "loop"]))
        if kind == "native":
            msgs += native_step(k, args=json.dumps({"location": draw(st.text(max_size=5))}))
        elif kind == "parallel":
            msgs += native_step(k, n_calls=draw(st.integers(2, 3)))
        elif kind == "react":
            msgs += react_step(k)
        elif kind == "empty":
            msgs += [{"role": "assistant", "content": ""},
                     {"role": "user", "content": "Please answer the question using the tool "
                                                 "results above."}]
        else:
            msgs += native_step(k) + [{"role": "user", "content": DEFAULT_LOOP_MESSAGE}]
    return msgs


@settings(max_examples=150, deadline=None)
@given(histories(), st.integers(0, 4))
def test_compression_never_breaks_a_valid_history(msgs, keep_last):
    out = compress_history(msgs, keep_last=keep_last)
    assert message_problems(out) == []
    assert out[:2] == HEAD
    assert count_steps(out) == min(count_steps(msgs), keep_last)
    assert compress_history(out, keep_last=keep_last) == out  # folding again changes nothing


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


def test_narrated_names_whole_tool_names_only():
    names = ["get_today", "days_between"]
    assert Guards().narrated("I'll call `get_today` first.", names) == ["get_today"]
    assert Guards().narrated("days_between(…) then get_today", names) == names
    assert Guards().narrated("my_get_today_helper", names) == []
    assert Guards().narrated("", names) == []
    assert Guards.off().narrated("I'll call get_today.", names) == []
