"""reactlab.folding, and both protocols rendering folded steps: always a valid history."""

from __future__ import annotations

from fakes import message_problems
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.fc_agent import NativeStep
from reactlab.folding import step_line, steps_summary, turns_summary
from reactlab.guards import Guards
from reactlab.prompts import load_template
from reactlab.react_agent import ReActStep
from reactlab.runlog import Step, ToolCallRecord
from reactlab.tools import default_registry

HEADER = load_template("steps_summary").splitlines()[0]


def call(k: int, j: int = 0) -> ToolCallRecord:
    return ToolCallRecord("get_weather", {"location": f"城市{k}"}, f"晴 {k}°C", id=f"call_{k}_{j}",
                          raw_arguments=f'{{"location": "城市{k}"}}')


def action(k: int, n_calls: int = 1, feedback: str | None = None) -> Step:
    text = f'Thought: more.\nAction: {{"action": "get_weather", "action_input": "城市{k}"}}'
    return Step(k, "action", text=text, tool_calls=[call(k, j) for j in range(n_calls)],
                feedback=feedback)


def native() -> NativeStep:
    return NativeStep(default_registry(), Guards(), "北京和广州今天哪里更热？")


def test_step_lines():
    assert step_line(action(1)) == "get_weather({'location': '城市1'}) -> 晴 1°C"
    assert step_line(Step(2, "empty", feedback="Your reply was empty.")) == \
        "(empty reply); [note: Your reply was empty.]"
    assert step_line(Step(3, "parse_error", text="blah", error="No Action found")) == \
        "an unreadable reply -> No Action found"
    assert step_line(Step(4, "final", text="北京更热")) == "replied: 北京更热"
    assert steps_summary([action(1), action(2)]).splitlines() == [
        HEADER, "step 1: get_weather({'location': '城市1'}) -> 晴 1°C",
        "step 2: get_weather({'location': '城市2'}) -> 晴 2°C"]
    assert turns_summary([("北京天气？", "晴")]).endswith("\n- Q: 北京天气？ → A: 晴")


def test_native_render_folds_steps_into_one_message_and_stays_valid():
    steps = [action(k) for k in range(1, 6)]
    messages = native().render(steps, 3, None)
    assert [m["role"] for m in messages[:3]] == ["system", "user", "user"]
    assert messages[2]["content"].startswith(HEADER) and messages[2]["content"].count("step ") == 3
    assert [m["role"] for m in messages[3:]] == ["assistant", "tool", "assistant", "tool"]
    assert messages[3]["tool_calls"][0]["function"]["arguments"] == '{"location": "城市4"}'
    assert message_problems(messages) == []


def test_parallel_calls_stay_with_their_assistant_message_and_notes_come_after_results():
    steps = [action(1, 2), action(2, 3, feedback=load_template("loop_intervention"))]
    messages = native().render(steps, 0, "answer now")
    assert message_problems(messages) == []
    assert [m["role"] for m in messages[-5:]] == ["tool", "tool", "tool", "user", "user"]
    assert messages[-1]["content"] == "answer now"


def test_react_layouts_render_the_same_steps():
    react = ReActStep(default_registry(), Guards(), "北京天气？")
    steps = [action(1), Step(2, "parse_error", text="I think…", error="No Action found."),
             Step(3, "empty", feedback="Your reply was empty.")]
    pad = react.render(steps, 0, None)[1]["content"]
    assert "Observation: 晴 1°C" in pad and "Observation: No Action found." in pad
    assert pad.endswith("(Your reply was empty.)\n")
    folded = react.render(steps, 2, None)[1]["content"]
    assert HEADER in folded and "Observation: 晴 1°C" not in folded
    chat = ReActStep(default_registry(), Guards(), "北京天气？", layout="chat")
    roles = [m["role"] for m in chat.render(steps, 0, None)]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user", "user"]


KINDS = st.sampled_from(["action", "parallel", "empty", "parse_error", "loop"])


@settings(max_examples=150, deadline=None)
@given(st.lists(KINDS, max_size=8), st.integers(0, 8))
def test_any_steps_folded_anywhere_render_a_valid_history(kinds, folded):
    steps = []
    for k, kind in enumerate(kinds, 1):
        if kind == "action":
            steps.append(action(k))
        elif kind == "parallel":
            steps.append(action(k, 3))
        elif kind == "loop":
            steps.append(action(k, feedback=load_template("loop_intervention")))
        else:
            steps.append(Step(k, kind, error="bad" if kind == "parse_error" else None,
                              feedback=load_template("empty_reply") if kind == "empty" else None))
    folded = min(folded, len(steps))
    messages = native().render(steps, folded, None)
    assert message_problems(messages) == []
    assert messages[1] == {"role": "user", "content": "北京和广州今天哪里更热？"}
    assert sum(m["role"] == "tool" for m in messages) == sum(
        len(s.tool_calls) for s in steps[folded:])


def test_results_list_names_each_call_that_ran_and_leaves_out_held_back_ones():
    from reactlab.folding import results_list
    ran = ToolCallRecord("get_weather", {"location": "北京"}, "北京: 23.4°C, humidity 43%")
    held = ToolCallRecord("calculator", {"expression": "(32 + 29) / 2"},
                          "Not run: calculator was given 32, 29, …", error=True)
    failed = ToolCallRecord("get_weather", {"location": "上海"},
                            "Error: get_weather failed: ConnectionError: down", error=True)
    text = results_list([Step(1, "action", tool_calls=[held]), Step(2, "action", tool_calls=[ran]),
                         Step(3, "action", tool_calls=[failed])])
    assert text.splitlines() == ["- get_weather({'location': '北京'}) -> 北京: 23.4°C, humidity 43%",
                                 ("- get_weather({'location': '上海'}) -> Error: get_weather failed: "
                                  "ConnectionError: down")]
    assert results_list([]) == "(none)"
    assert len(results_list([Step(1, "action", tool_calls=[
        ToolCallRecord("search_docs", {"query": "x"}, "y" * 9000)])])) < 2100  # a bound
