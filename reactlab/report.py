"""Showing a run: a few lines per step, tables per run and across runs, a context-growth chart.

Everything here reads `reactlab.runlog` records and returns text (Markdown that also reads
as plain text) or a matplotlib Axes. It deliberately does NOT hold or change records
(`runlog`), decide anything (`guards`) or draw interactive widgets (`widgets`). `format_step`
is what the agents print in verbose mode (notebook 04); the tables and the chart are the
subject of notebook 08.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reactlab.compaction import shorten
from reactlab.runlog import STATUSES, RunResult, Step, ToolCallRecord


def _call_text(call: ToolCallRecord, limit: int = 80) -> str:
    return shorten(f"{call.name}({call.arguments!r})", limit)


def format_step(step: Step) -> str:
    """One step as a few readable lines (used by the agents' verbose mode).

    Example: "[2] action       get_weather({'location': '广州'}) -> 广州: 多云 …
                               (812 ms, 431+38 tok, 400 cached)"
    """
    head = f"[{step.number}] {step.kind:<12}"
    pad = " " * len(head)
    lines = []
    if step.thought:
        lines.append(f"Thought: {step.thought}")
    for call in step.tool_calls:
        obs = shorten(call.observation, 160)
        flag = " [tool error]" if call.error else ""
        lines.append(f"{_call_text(call, 200)} -> {obs}{flag}")
        if call.full_observation is not None:
            lines.append(f"  (shown {len(call.observation):,} of {len(call.full_observation):,}"
                         " chars)")
    if step.error:  # an answer the grader rejected is not a parse error: say which it was
        lines.append(f"{'rejected' if step.kind == 'ungrounded' else 'parse error'}: {step.error}")
    if step.feedback:
        lines.append(f"told the model: {shorten(step.feedback, 120)}")
    if step.kind in ("final", "final_request", "empty") and not step.tool_calls:
        lines.append(step.text.strip()[:300] or "(empty reply)")
    lines += [f"guard: {event}" for event in step.events]
    lines.append(f"({step.latency_ms:.0f} ms, {step.prompt_tokens}+{step.completion_tokens} tok, "
                 f"{step.cached_tokens} cached)")
    return "\n".join((head if i == 0 else pad) + " " + line for i, line in enumerate(lines))


def step_rows(result: RunResult) -> list[dict[str, Any]]:
    """One flat dict per step, ready for a table or `pandas.DataFrame(step_rows(r))`.

    obs_shown / obs_full: characters of observation shown to the model / returned by the tools.
    """
    rows = []
    for s in result.steps:
        shown = sum(len(c.observation) for c in s.tool_calls)
        full = sum(len(c.full_observation if c.full_observation is not None else c.observation)
                   for c in s.tool_calls)
        rows.append({
            "step": s.number, "kind": s.kind,
            "tool_calls": "; ".join(_call_text(c, 60) for c in s.tool_calls),
            "obs_shown": shown, "obs_full": full, "latency_ms": round(s.latency_ms),
            "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens,
            "cached_tokens": s.cached_tokens, "events": "; ".join(s.events),
        })
    return rows


def _cell(value: Any, limit: int = 80) -> str:
    return shorten(value, limit).replace("|", "\\|")


def markdown_table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table; cells are squeezed to one line and pipes escaped."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def summary_table(result: RunResult) -> str:
    """A run as Markdown: question, status, answer, then one row per step and a total row.

    Reads as plain text too. Example row:
    | 1 | action | get_weather({'location': '北京'}) | 2030/50000 | 812 | 431 | 38 | 0 | compacted… |
    """
    rows = step_rows(result)
    body = [[r["step"], r["kind"], r["tool_calls"] or "—",
             f"{r['obs_shown']}/{r['obs_full']}" if r["tool_calls"] else "—", r["latency_ms"],
             r["prompt_tokens"], r["completion_tokens"], r["cached_tokens"], r["events"] or "—"]
            for r in rows]
    n_calls = sum(len(s.tool_calls) for s in result.steps)
    body.append(["**total**", "", f"{n_calls} calls", "", sum(r["latency_ms"] for r in rows),
                 sum(r["prompt_tokens"] for r in rows), sum(r["completion_tokens"] for r in rows),
                 sum(r["cached_tokens"] for r in rows),
                 f"{sum(len(s.events) for s in result.steps)} events"])
    status = f"{result.status} ({STATUSES.get(result.status, 'unknown status')})"
    head = [f"**Question:** {_cell(result.question, 200)}  ",
            f"**Status:** {status} · {result.protocol or '?'} · {result.model or '?'}  ",
            f"**Answer:** {_cell(result.answer if result.answer is not None else '(none)', 300)}"]
    if result.error:
        head.append(f"  \n**Error:** {_cell(result.error, 300)}")
    table = markdown_table(["step", "kind", "tool calls", "obs shown/full", "ms", "prompt", "compl",
                    "cached", "events"], body)
    return "\n".join(head) + "\n\n" + table


def compare_table(results: Mapping[str, RunResult]) -> str:
    """Runs side by side, one row each (e.g. {"react, guards on": r1, "native, off": r2}).

    peak prompt = the largest prompt of any step: the context the model had to read at worst.
    """
    rows = []
    for label, r in results.items():
        events = [e for s in r.steps for e in s.events]
        answer = r.answer if r.answer is not None else "(none)"
        rows.append([label, r.protocol or "?", r.status, len(r.steps),
                     sum(len(s.tool_calls) for s in r.steps),
                     r.usage.get("prompt_tokens", sum(s.prompt_tokens for s in r.steps)),
                     r.usage.get("completion_tokens", sum(s.completion_tokens for s in r.steps)),
                     r.usage.get("cached_tokens", sum(s.cached_tokens for s in r.steps)),
                     max((s.prompt_tokens for s in r.steps), default=0),
                     f"{sum(s.latency_ms for s in r.steps) / 1000:.1f}",
                     len(events), _cell(answer, 60)])
    return markdown_table(["run", "protocol", "status", "steps", "calls", "prompt tok", "compl tok",
                   "cached", "peak prompt", "model s", "events", "answer"], rows)


# --- chart --------------------------------------------------------------------------------


def plot_context_growth(results: Mapping[str, RunResult] | RunResult, ax: Any = None,
                        title: str = "Context growth: prompt tokens per step") -> Any:
    """Plot prompt tokens per step, one line per run; steps with guard events are ringed.

    Returns the matplotlib Axes. Example: plot_context_growth({"guards off": r_off,
    "guards on": r_on}) — the "off" line climbs with every uncut observation.
    """
    import matplotlib.pyplot as plt  # imported here: the package works without matplotlib

    if isinstance(results, RunResult):
        results = {results.protocol or "run": results}
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    ringed = False
    for label, r in results.items():
        xs = [s.number for s in r.steps]
        ys = [s.prompt_tokens for s in r.steps]
        (line,) = ax.plot(xs, ys, marker="o", label=f"{label} ({r.status})")
        ev = [(s.number, s.prompt_tokens) for s in r.steps if s.events]
        if ev:
            ax.scatter([x for x, _ in ev], [y for _, y in ev], s=160, facecolors="none",
                       edgecolors=line.get_color(), linewidths=1.5,
                       label=None if ringed else "guard event")
            ringed = True
    ax.set_xlabel("step (model call)")
    ax.set_ylabel("prompt tokens")
    ax.set_title(title)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(alpha=0.3)
    ax.legend()
    return ax
