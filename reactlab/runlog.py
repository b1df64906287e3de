"""Run records: one `Step` per model call, one `RunResult` per agent run — the run's only truth.

Both agents (`react_agent`, `fc_agent`) fill the same records through the one loop in
`reactlab.loop`, and every message they send is rendered from the steps, so a text-ReAct run
and a native-tool-call run can be put side by side, saved, reloaded and replayed.

This module only *holds* records: the dataclasses, the usage arithmetic and the JSON Lines
export/import. It does not decide anything (the loop lives in `loop`, the limits in `guards`)
and it does not show anything (tables and charts are in `report`, the widget in `widgets`).
Introduced in notebook 04; the export is the subject of notebook 08.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

# Statuses a run can end with. Each has exactly one cause, so a teacher can read a table of
# statuses and know what went wrong without opening the transcript.
STATUSES = {
    "final": "the model gave a final answer",
    "max_steps": "the step budget ran out",
    "loop": "the model kept repeating the same call, and the run was stopped for it",
    "parse_errors": "too many replies that could not be parsed",
    "max_tokens": "the token budget ran out",
    "provider_error": "the provider or the connection failed (network, HTTP status, a reply "
                      "that is not a chat completion, a cut stream): see RunResult.error",
    "error": "reactlab itself failed (a bug, please report it): see RunResult.error",
}

# Step.require_call for "the next request goes without tools": the model can only answer
ANSWER_ONLY = "none"


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
    raw_arguments: str | None = None  # native: the arguments exactly as the model wrote them
    bad_json: bool = False  # the arguments could not be read as JSON (counts as a parse error)


@dataclass
class Step:
    """One model call inside a run, and everything that followed from it.

    kind: "action" (asked for tools), "final" (answered), "parse_error" (unreadable reply),
    "empty" (said nothing), "ungrounded" (an answer the run does not support, sent back once),
    "final_request" (the closing "answer with what you have" call).
    The next request is rendered from these fields: `text` is what the model said, the tool
    calls carry what it was shown, `error` and `feedback` are what we told it.
    """

    number: int
    kind: str
    text: str = ""  # the model's raw reply (content) for this step
    thought: str | None = None
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    error: str | None = None  # why the reply could not be used (fed back to the model)
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    events: list[str] = field(default_factory=list)  # guard events, e.g. "loop: repeat x3"
    feedback: str | None = None  # our message after this step: a nudge, the loop intervention
    reasoning: str | None = None  # a reasoning model's reasoning_content, echoed back with calls
    # the next request must call a tool: its name, or "any"; ANSWER_ONLY: it goes without tools
    require_call: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RunResult:
    """What an agent run returns. It never raises because the model or the provider misbehaved."""

    question: str
    answer: str | None
    status: str
    steps: list[Step] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    messages: list[dict] = field(default_factory=list)  # the last request's messages + reply
    protocol: str = ""  # "react" or "function_calling"
    model: str = ""
    error: str | None = None  # why the run failed, when status is "provider_error" or "error"
    meta: dict[str, Any] = field(default_factory=dict)  # free-form: label, settings, wall time

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


def as_dict(obj: Any) -> Any:
    """A dict from a dict or an SDK (pydantic) object; anything else is returned as it is.

    The one bridge between the openai SDK's objects and plain data in this package.
    Example: as_dict(ChatCompletion(...))["choices"][0]["message"]["content"]
    """
    if isinstance(obj, Mapping):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            return dump()
        except Exception:  # noqa: BLE001 - a broken object is "not a dict", not a crash
            return obj
    return obj


def _count(value: Any) -> int:
    """A token count from whatever a provider sent: 12, "12", 12.0 -> 12; "n/a", -3, NaN -> 0."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0
    if not math.isfinite(number) or number < 0:
        return 0
    return int(min(number, 10**12))


def add_usage(total: dict[str, int], usage: Any) -> dict[str, int]:
    """Add one response's usage (dict or SDK object) into a running total and return it.

    Unreadable counts ("n/a", None, negative) count as 0: a provider's bookkeeping never ends
    a run. Example: add_usage({}, {"prompt_tokens": 10, "completion_tokens": 2,
             "prompt_tokens_details": {"cached_tokens": 8}})
             -> {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "cached_tokens": 8}
    """
    usage = as_dict(usage)
    if not isinstance(usage, Mapping):
        return total
    p = _count(usage.get("prompt_tokens"))
    c = _count(usage.get("completion_tokens"))
    details = as_dict(usage.get("prompt_tokens_details"))
    cached = _count(details.get("cached_tokens")) if isinstance(details, Mapping) else 0
    for key, val in (("prompt_tokens", p), ("completion_tokens", c),
                     ("total_tokens", p + c), ("cached_tokens", cached)):
        total[key] = total.get(key, 0) + val
    return total


# --- export / import ----------------------------------------------------------------------


def _jsonable(obj: Any) -> Any:
    """json.dumps fallback: SDK objects (pydantic) become dicts, anything else its str()."""
    data = as_dict(obj)
    return data if isinstance(data, Mapping) else str(obj)


_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """Lone surrogates (half of an emoji cut by a stream) as U+FFFD, so UTF-8 can carry it.

    Example: encodable("晴\\ud83d") -> "晴\\ufffd"
    """
    return _SURROGATE.sub("\ufffd", text)


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
            line = json.dumps(r.to_dict(), ensure_ascii=False, default=_jsonable)
            f.write(encodable(line) + "\n")
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
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{path}, line {n} is not a JSON run record: {exc}") from exc
    return runs
