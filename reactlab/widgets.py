"""A trace viewer: step through a run's Thought → Action → Observation with token counts.

`show_trace(result)` draws an ipywidgets viewer (slider and prev/next buttons, one step at a
time, a bar of prompt tokens per step, guard events highlighted) in JupyterLab. Anywhere
widgets cannot render — plain python, a terminal, `REACTLAB_WIDGETS=0` — it prints
`trace_text(result)` instead. In a notebook the displayed output also carries that text as
its plain-text version, so a notebook saved or rendered without widget state (nbval, GitHub,
nbconvert) still shows the trace.

It deliberately does NOT re-run, edit or store anything: it only reads a `RunResult`
(`runlog` holds the records and exports). Introduced in notebook 08.
"""

from __future__ import annotations

import html
import os
from typing import Any

from reactlab.report import format_step
from reactlab.runlog import STATUSES, RunResult, Step


def trace_text(result: RunResult) -> str:
    """The whole run as plain text: header, one block per step, answer and totals.

    Example: trace_text(r).splitlines()[0] -> "Question: 北京和广州今天哪里更热？"
    """
    lines = [f"Question: {result.question}",
             f"Run: {result.protocol or '?'} · {result.model or '?'} · {len(result.steps)} steps"]
    lines += [format_step(step) for step in result.steps] or ["(no steps recorded)"]
    lines.append(f"Status: {result.status} ({STATUSES.get(result.status, 'unknown status')})")
    if result.error:
        lines.append(f"Error: {result.error}")
    lines.append(f"Answer: {result.answer if result.answer is not None else '(none)'}")
    u = result.usage or {}
    lines.append(f"Tokens: {u.get('prompt_tokens', 0)} prompt + "
                 f"{u.get('completion_tokens', 0)} completion, {u.get('cached_tokens', 0)} cached; "
                 f"model time {sum(s.latency_ms for s in result.steps) / 1000:.1f} s")
    return "\n".join(lines)


# --- HTML pieces (plain functions, so they are testable without a browser) ----------------


def _pre(text: str, colour: str = "#f6f8fa") -> str:
    return (f'<pre style="white-space:pre-wrap;background:{colour};padding:6px;margin:2px 0;'
            f'max-height:22em;overflow:auto">{html.escape(text)}</pre>')


def _label(name: str) -> str:
    return f"<b>{html.escape(name)}</b>"


def step_html(step: Step, total: int, full: bool = False) -> str:
    """One step as HTML: Thought, Action(s), Observation(s) (as shown, or full), events."""
    title = (f"<div><b>Step {step.number} of {total}</b> · <code>{step.kind}</code> · "
             f"{step.latency_ms:.0f} ms · prompt {step.prompt_tokens} · completion "
             f"{step.completion_tokens} · cached {step.cached_tokens}</div>")
    out = [title]
    if step.thought:
        out += [_label("Thought"), _pre(step.thought)]
    for call in step.tool_calls:
        out += [_label("Action" + (" (tool error)" if call.error else "")),
                _pre(f"{call.name}({call.arguments!r})")]
        obs = call.full_observation if full and call.full_observation is not None \
            else call.observation
        note = ""
        if call.full_observation is not None:
            note = (f" <i>(the model saw {len(call.observation):,} of "
                    f"{len(call.full_observation):,} chars)</i>")
        out += [_label("Observation") + note, _pre(obs, "#eef6ee")]
    if step.error:
        out += [_label("Parse error (fed back to the model)"), _pre(step.error, "#fdecea")]
    if not step.tool_calls and step.kind in ("final", "final_request", "empty"):
        title = {"final": "Final answer", "final_request": "Answer after the final request",
                 "empty": "Empty reply"}[step.kind]
        out += [_label(title), _pre(step.text.strip() or "(empty reply)", "#eef2fb")]
    for event in step.events:
        out.append(f'<div style="background:#fff3cd;padding:4px;margin:2px 0">guard: '
                   f"{html.escape(event)}</div>")
    if step.text.strip():
        out.append(f"<details><summary>raw model reply</summary>{_pre(step.text)}</details>")
    return "\n".join(out)


def header_html(result: RunResult) -> str:
    """Question, status, answer and totals of a run."""
    u = result.usage or {}
    answer = result.answer if result.answer is not None else "(none)"
    colour = "#2e7d32" if result.status == "final" else "#b26a00"
    status = (f'<div><b>Status:</b> <span style="color:{colour}">{result.status}</span> — '
              f"{html.escape(STATUSES.get(result.status, 'unknown status'))} · "
              f"{html.escape(result.protocol or '?')} · {html.escape(result.model or '?')}</div>")
    tokens = (f"<div><b>Tokens:</b> {u.get('prompt_tokens', 0)} prompt + "
              f"{u.get('completion_tokens', 0)} completion, {u.get('cached_tokens', 0)} cached</div>")
    parts = [f"<div><b>Question:</b> {html.escape(result.question)}</div>", status,
             f"<div><b>Answer:</b> {html.escape(answer)}</div>", tokens]
    if result.error:
        parts.append(f"<div><b>Error:</b> {html.escape(result.error)}</div>")
    return "\n".join(parts)


def bars_html(result: RunResult, current: int) -> str:
    """A tiny bar chart of prompt tokens per step; the current step (0-based) is dark."""
    peak = max((s.prompt_tokens for s in result.steps), default=0) or 1
    bars = []
    for i, s in enumerate(result.steps):
        h = max(2, round(40 * s.prompt_tokens / peak))
        colour = "#1565c0" if i == current else ("#e0a800" if s.events else "#90caf9")
        bars.append(f'<div title="step {s.number}: {s.prompt_tokens} prompt tokens" '
                    f'style="width:14px;height:{h}px;background:{colour};margin-right:2px">'
                    "</div>")
    return ('<div style="display:flex;align-items:flex-end;height:44px">' + "".join(bars) +
            '<span style="margin-left:6px;font-size:smaller">prompt tokens per step</span></div>')


# --- the widget ---------------------------------------------------------------------------


def trace_widget(result: RunResult) -> Any:
    """Build (not display) the viewer as an ipywidgets VBox. Raises ImportError without
    ipywidgets. Example: w = trace_widget(r); w.children[1].children[1].value = 2"""
    import ipywidgets as widgets

    n = len(result.steps)
    header = widgets.HTML(header_html(result))
    body = widgets.HTML()
    bars = widgets.HTML()
    slider = widgets.IntSlider(value=1, min=1, max=max(n, 1), description="step",
                               continuous_update=True, disabled=n <= 1)
    prev_b = widgets.Button(description="◀ prev", layout=widgets.Layout(width="80px"))
    next_b = widgets.Button(description="next ▶", layout=widgets.Layout(width="80px"))
    full = widgets.Checkbox(value=False, description="full observations", indent=False)

    def render(*_: Any) -> None:
        if not n:
            body.value = "<i>No steps recorded (the run ended before the first model reply).</i>"
            bars.value = ""
            return
        i = slider.value - 1
        body.value = step_html(result.steps[i], n, full=full.value)
        bars.value = bars_html(result, i)
        prev_b.disabled, next_b.disabled = i == 0, i == n - 1

    prev_b.on_click(lambda _: setattr(slider, "value", max(1, slider.value - 1)))
    next_b.on_click(lambda _: setattr(slider, "value", min(n, slider.value + 1)))
    slider.observe(render, names="value")
    full.observe(render, names="value")
    render()
    controls = widgets.HBox([prev_b, slider, next_b, full])
    return widgets.VBox([header, controls, bars, body])


class _WithText:
    """Display a widget, with the plain-text trace as its text/plain fallback."""

    def __init__(self, widget: Any, text: str):
        self.widget, self.text = widget, text

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = self.text
        return bundle


def widgets_available() -> bool:
    """True inside a Jupyter kernel with ipywidgets installed and REACTLAB_WIDGETS not "0"."""
    if os.environ.get("REACTLAB_WIDGETS", "").strip() == "0":
        return False
    try:
        import ipywidgets  # noqa: F401
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    # Terminal IPython has no kernel and no front-end to draw widgets in.
    return shell is not None and getattr(shell, "kernel", None) is not None


def show_trace(result: RunResult, mode: str = "auto") -> None:
    """Show a run: the widget viewer in Jupyter, else print the plain-text trace.

    mode: "auto" (decide as above), "widget" (always try the widget), "text" (always print).
    Example: show_trace(run_react("北京和广州今天哪里更热？"))
    """
    if mode not in ("auto", "widget", "text"):
        raise ValueError(f"mode must be 'auto', 'widget' or 'text', not {mode!r}.")
    text = trace_text(result)
    if mode == "text" or (mode == "auto" and not widgets_available()):
        print(text)
        return
    try:
        widget = trace_widget(result)
        from IPython.display import display
    except ImportError:
        print(text)
        return
    display(_WithText(widget, text))
