"""Run records: one `Step` per model call, one `RunResult` per agent run.

Both agents (`react_agent`, `fc_agent`) return the same `RunResult`, so notebooks and
benchmarks can put a text-ReAct run and a native-tool-call run side by side.

This module only *holds* and *shows* what happened. It does not decide anything: the loops
live in the agents, the limits in `guards`. Introduced in notebook 04; the viewer and
exports are the subject of notebook 08.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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


def format_step(step: Step) -> str:
    """One step as a few readable lines (used by the agents' verbose mode).

    Example: "[2] action  get_weather({'location': '广州'}) -> 广州: 多云 …  (812 ms, 431+38 tok)"
    """
    head = f"[{step.number}] {step.kind:<12}"
    lines = []
    if step.thought:
        lines.append(f"{head} Thought: {step.thought}")
        head = " " * len(head)
    for call in step.tool_calls:
        obs = call.observation if len(call.observation) <= 160 else call.observation[:157] + "..."
        lines.append(f"{head} {call.name}({call.arguments!r}) -> {obs}")
        head = " " * len(head)
    if step.error:
        lines.append(f"{head} parse error: {step.error}")
        head = " " * len(head)
    if step.kind in ("final", "final_request", "empty") and not step.tool_calls:
        lines.append(f"{head} {step.text.strip()[:300]}")
    for event in step.events:
        lines.append(f"{' ' * len(head)} guard: {event}")
    lines.append(f"{' ' * len(head)} ({step.latency_ms:.0f} ms, {step.prompt_tokens}+"
                 f"{step.completion_tokens} tok, {step.cached_tokens} cached)")
    return "\n".join(lines)
