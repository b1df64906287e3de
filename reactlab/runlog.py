"""Run records: one `Step` per model call, one `RunResult` per agent run.

Both agents (`react_agent`, `fc_agent`) return the same `RunResult`, so notebooks and
benchmarks can put a text-ReAct run and a native-tool-call run side by side.

This module only *holds* and *shows* what happened: records, JSONL export/import, a summary
table per run, a comparison table across runs, and a chart of context growth. It does not
decide anything (the loops live in the agents, the limits in `guards`) and it does not draw
widgets (`widgets` does). Introduced in notebook 04; the exports, tables and chart are the
subject of notebook 08.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

# Statuses a run can end with. Each has exactly one cause, so a teacher can read a table of
# statuses and know what went wrong without opening the transcript.
STATUSES = {
    "final": "the model gave a final answer",
    "max_steps": "the step budget ran out",
    "loop": "the loop detector fired twice: the model kept repeating itself",
    "parse_errors": "too many replies that could not be parsed",
    "max_tokens": "the token budget ran out",
    "error": "the provider failed (network, auth, server error): see RunResult.error",
}


@dataclass
class ToolCallRecord:
    """One tool call the model asked for, and what came back.

    Example: ToolCallRecord(name="get_weather", arguments={"location": "北京"},
             observation="北京: 晴, 3°C …", id="call_0")
    """

    name: str
    arguments: dict | str  # a str when the model's arguments were not valid JSON
    observation: str = ""  # what the model was shown (possibly compacted)
    full_observation: str | None = None  # the tool's full output when it was compacted
    id: str | None = None  # tool_call_id on the native path; None for text ReAct
    error: bool = False  # the tool raised / was unknown / got bad arguments
    latency_ms: float = 0.0


@dataclass
class Step:
    """One model call inside a run.

    kind: "action" (asked for tools), "final" (answered), "parse_error" (unreadable reply),
    "empty" (said nothing), "final_request" (the closing "answer with what you have" call).
    """

    number: int
    kind: str
    text: str = ""  # the model's raw reply (content) for this step
    thought: str | None = None
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    error: str | None = None  # the parse error message fed back, if any
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    events: list[str] = field(default_factory=list)  # guard events, e.g. "loop: repeat x3"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RunResult:
    """What an agent run returns. It never raises because the model misbehaved."""

    question: str
    answer: str | None
    status: str
    steps: list[Step] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    messages: list[dict] = field(default_factory=list)  # the final message list sent
    protocol: str = ""  # "react" or "function_calling"
    model: str = ""
    error: str | None = None  # set when status == "error"
    meta: dict[str, Any] = field(default_factory=dict)  # free-form: label, guards, wall time

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunResult:
        """Rebuild a RunResult from `to_dict()` output (unknown keys are ignored)."""
        steps = []
        for s in data.get("steps") or []:
            calls = [ToolCallRecord(**_known(ToolCallRecord, c)) for c in s.get("tool_calls") or []]
            steps.append(Step(**{**_known(Step, s), "tool_calls": calls}))
        return cls(**{**_known(cls, data), "steps": steps})


def _known(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def add_usage(total: dict[str, int], usage: Any) -> dict[str, int]:
    """Add one response's usage (dict or SDK object) into a running total and return it.

    Example: add_usage({}, {"prompt_tokens": 10, "completion_tokens": 2,
             "prompt_tokens_details": {"cached_tokens": 8}})
             -> {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "cached_tokens": 8}
    """
    if usage is None:
        return total
    if not isinstance(usage, dict):
        usage = usage.model_dump() if hasattr(usage, "model_dump") else dict(vars(usage))
    p = int(usage.get("prompt_tokens") or 0)
    c = int(usage.get("completion_tokens") or 0)
    details = usage.get("prompt_tokens_details") or {}
    cached = int((details.get("cached_tokens") if isinstance(details, dict) else 0) or 0)
    for key, val in (("prompt_tokens", p), ("completion_tokens", c),
                     ("total_tokens", p + c), ("cached_tokens", cached)):
        total[key] = total.get(key, 0) + val
    return total


def _call_text(call: ToolCallRecord, limit: int = 80) -> str:
    text = f"{call.name}({call.arguments!r})"
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
        obs = " ".join(call.observation.split())
        obs = obs if len(obs) <= 160 else obs[:157] + "..."
        flag = " [tool error]" if call.error else ""
        lines.append(f"{_call_text(call, 200)} -> {obs}{flag}")
        if call.full_observation is not None:
            lines.append(f"  (shown {len(call.observation):,} of {len(call.full_observation):,}"
                         " chars)")
    if step.error:
        lines.append(f"parse error: {step.error}")
    if step.kind in ("final", "final_request", "empty") and not step.tool_calls:
        lines.append(step.text.strip()[:300] or "(empty reply)")
    lines += [f"guard: {event}" for event in step.events]
    lines.append(f"({step.latency_ms:.0f} ms, {step.prompt_tokens}+{step.completion_tokens} tok, "
                 f"{step.cached_tokens} cached)")
    return "\n".join((head if i == 0 else pad) + " " + line for i, line in enumerate(lines))


# --- export / import ----------------------------------------------------------------------


def _jsonable(obj: Any) -> Any:
    """json.dumps fallback: SDK objects (pydantic) become dicts, anything else its str()."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    return str(obj)


def _as_list(results: Any) -> list[RunResult]:
    if isinstance(results, RunResult):
        return [results]
    if isinstance(results, Mapping):  # {label: RunResult}: the label travels in meta
        out = []
        for label, r in results.items():
            d = r.to_dict()
            d["meta"] = {**d.get("meta", {}), "label": str(label)}
            out.append(RunResult.from_dict(d))
        return out
    return list(results)


def to_jsonl(result_or_results: RunResult | Iterable[RunResult] | Mapping[str, RunResult],
             path: str | Path, append: bool = False) -> Path:
    """Write runs as JSON Lines, one run per line (its steps nested), and return the path.

    A dict {label: RunResult} stores each label in meta["label"]. Chinese stays readable
    (ensure_ascii=False). Example: to_jsonl({"guards on": r1, "off": r2}, "runs.jsonl")
    """
    path = Path(path)
    with path.open("a" if append else "w", encoding="utf-8") as f:
        for r in _as_list(result_or_results):
            f.write(json.dumps(r.to_dict(), ensure_ascii=False, default=_jsonable) + "\n")
    return path


def read_jsonl(path: str | Path) -> list[RunResult]:
    """Read runs written by `to_jsonl` (blank lines skipped). Example: read_jsonl("runs.jsonl")"""
    runs = []
    with Path(path).open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                runs.append(RunResult.from_dict(json.loads(line)))
            except ValueError as exc:
                raise ValueError(f"{path}, line {n} is not a JSON run record: {exc}") from exc
    return runs


# --- tables -------------------------------------------------------------------------------


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
    text = " ".join(str(value).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
