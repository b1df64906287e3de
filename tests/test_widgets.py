"""Unit tests for reactlab.widgets: the plain-text trace, the HTML pieces, the widget itself."""

from __future__ import annotations

import pytest

from reactlab import widgets as W
from reactlab.runlog import RunResult, Step, ToolCallRecord

BIG = "x" * 50_000


def run_with_steps() -> RunResult:
    shown = BIG[:1000] + "\n[… 48,000 characters cut …]\n" + BIG[:1000]
    steps = [
        Step(1, "action", text='Thought: 查一下\nAction: {"action": "search_docs"}',
             thought="查一下", prompt_tokens=300, completion_tokens=20, latency_ms=812,
             tool_calls=[ToolCallRecord("search_docs", {"query": "<b>长文</b>"}, shown, BIG)],
             events=["compacted: 50000 chars -> 2029 chars"]),
        Step(2, "parse_error", text="???", error="No Action or Final Answer found.",
             prompt_tokens=500, completion_tokens=3),
        Step(3, "final", text="Final Answer: 完成", prompt_tokens=700, completion_tokens=5),
    ]
    return RunResult("长文里说了什么？", "完成", "final", steps,
                     {"prompt_tokens": 1500, "completion_tokens": 28}, protocol="react",
                     model="m")


def test_trace_text_reads_top_to_bottom():
    text = W.trace_text(run_with_steps())
    lines = text.splitlines()
    assert lines[0] == "Question: 长文里说了什么？"
    assert lines[1] == "Run: react · m · 3 steps"
    assert "[1] action" in text and "[2] parse_error" in text and "[3] final" in text
    assert "guard: compacted: 50000 chars -> 2029 chars" in text
    assert "Status: final (the model gave a final answer)" in text
    assert "Answer: 完成" in text and "Tokens: 1500 prompt + 28 completion" in text


def test_trace_text_of_a_run_without_steps():
    text = W.trace_text(RunResult("q", None, "error", error="The provider failed."))
    assert "(no steps recorded)" in text and "Error: The provider failed." in text
    assert "Answer: (none)" in text


def test_show_trace_prints_text_outside_jupyter(capsys):
    assert not W.widgets_available()  # plain pytest: no kernel, no front-end
    W.show_trace(run_with_steps())
    assert capsys.readouterr().out.strip() == W.trace_text(run_with_steps())


def test_environment_switch_and_bad_mode(monkeypatch, capsys):
    monkeypatch.setenv("REACTLAB_WIDGETS", "0")
    assert not W.widgets_available()
    W.show_trace(run_with_steps(), mode="text")
    assert "Question:" in capsys.readouterr().out
    with pytest.raises(ValueError, match="mode must be"):
        W.show_trace(run_with_steps(), mode="fancy")


def test_step_html_escapes_and_shows_each_part():
    run = run_with_steps()
    first = W.step_html(run.steps[0], 3)
    assert "Step 1 of 3" in first and "<b>Thought</b>" in first and "<b>Action</b>" in first
    assert "&lt;b&gt;长文&lt;/b&gt;" in first and "<b>长文</b>" not in first
    assert "the model saw 2,029 of 50,000 chars" in first
    assert "characters cut" in first and len(first) < 10_000
    assert "characters cut" not in W.step_html(run.steps[0], 3, full=True)
    assert len(W.step_html(run.steps[0], 3, full=True)) > 50_000
    assert "guard: compacted" in first
    assert "Parse error (fed back to the model)" in W.step_html(run.steps[1], 3)
    assert "Final answer" in W.step_html(run.steps[2], 3)


def test_header_and_bars():
    run = run_with_steps()
    assert "长文里说了什么？" in W.header_html(run) and ">final<" in W.header_html(run)
    bars = W.bars_html(run, 1)
    assert bars.count('title="step') == 3 and "#1565c0" in bars  # current step highlighted


def test_widget_steps_with_slider_and_buttons():
    pytest.importorskip("ipywidgets")
    run = run_with_steps()
    box = W.trace_widget(run)
    _, controls, _, body = box.children
    prev_b, slider, next_b, full = controls.children
    assert "Step 1 of 3" in body.value and prev_b.disabled and not next_b.disabled
    next_b.click()
    assert slider.value == 2 and "Step 2 of 3" in body.value
    next_b.click()
    assert "Step 3 of 3" in body.value and next_b.disabled
    next_b.click()
    assert slider.value == 3
    slider.value = 1
    full.value = True
    assert len(body.value) > 50_000
    prev_b.click()
    assert slider.value == 1


def test_widget_for_a_run_without_steps():
    pytest.importorskip("ipywidgets")
    box = W.trace_widget(RunResult("q", None, "error", error="boom"))
    assert "No steps recorded" in box.children[3].value


def test_widget_display_carries_the_text_trace(monkeypatch):
    pytest.importorskip("ipywidgets")
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    W.show_trace(run_with_steps(), mode="widget")
    bundle = shown[0]._repr_mimebundle_()
    assert bundle["text/plain"] == W.trace_text(run_with_steps())
    assert "application/vnd.jupyter.widget-view+json" in bundle
