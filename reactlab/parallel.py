"""Run the tool calls of one model reply: decode arguments, call tools, keep the call order.

A model may ask for several tools in one reply (北京 *and* 广州 weather). Calls that do not
depend on each other run at the same time in a thread pool; their results still go back in the
order the model asked, so each `role: "tool"` message lines up with its call. A tool marked
`side_effects=True` (it writes, sends, buys…) never runs concurrently with anything: it waits for
the calls before it and runs alone, in order.

Nothing here raises because of the model: arguments that are not JSON, unknown tools and tools
that raise all come back as an observation that says what went wrong (the model reads it and
can fix its call). It deliberately does NOT time out a slow tool, retry, or decide whether calls
depend on each other — a model that puts two calls in one reply says they are independent.
Used by `reactlab.fc_agent`; introduced in notebook 06 (parallel calls).
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

MAX_WORKERS = 4  # simplification: a fixed small pool; the course tools are quick


@dataclass
class CallOutcome:
    """What happened to one requested call (before any compaction for the model)."""

    id: str
    name: str
    arguments: dict | str  # the raw string when it was not a JSON object
    observation: str = ""
    error: bool = False
    bad_json: bool = False  # counts toward the parse-error budget
    latency_ms: float = 0.0


def decode_arguments(raw: str | dict | None) -> tuple[dict | str, str | None]:
    """Decode a tool call's `arguments` string; return (args, error message or None).

    Empty or `null` means "no arguments" (a no-argument tool such as get_today); a JSON string
    is passed on as a string (a single-parameter tool takes it as that parameter).

    Example: decode_arguments('{"location": "北京"}') -> ({"location": "北京"}, None)
             decode_arguments('{"location": 北京}')   -> ('{"location": 北京}', "… not valid JSON …")
    """
    if isinstance(raw, dict):
        return raw, None
    text = (raw or "").strip()
    if not text or text == "null":
        return {}, None
    try:
        value = json.loads(text)
    except ValueError as exc:
        return raw, (f"the arguments are not valid JSON ({exc}). Send the arguments again as "
                     f"one JSON object, for example {{\"location\": \"北京\"}}.")
    if isinstance(value, (dict, str)):
        return value, None
    return raw, (f"the arguments must be a JSON object with named parameters, not "
                 f"{type(value).__name__} {text[:80]}.")


def run_one(registry, call: dict) -> CallOutcome:
    """Decode and run one call `{"id", "function": {"name", "arguments"}}`; never raises."""
    fn = call.get("function") or {}
    name = fn.get("name") or ""
    args, problem = decode_arguments(fn.get("arguments"))
    outcome = CallOutcome(id=call["id"], name=name, arguments=args)
    start = time.perf_counter()
    if problem:
        outcome.observation = f"Error: {name or 'the tool call'} was not run: {problem}"
        outcome.error = outcome.bad_json = True
    elif not name:
        outcome.observation = (f"Error: the tool call has no tool name. Call one of: "
                               f"{', '.join(registry.names())}.")
        outcome.error = True
    else:
        try:
            outcome.observation, outcome.error = registry.run(name, args)
        except Exception as exc:  # noqa: BLE001 - run() promises not to raise; be safe anyway
            outcome.observation = f"Error: {name} failed: {type(exc).__name__}: {exc}"
            outcome.error = True
    outcome.latency_ms = (time.perf_counter() - start) * 1000
    return outcome


def _has_side_effects(registry, name: str) -> bool:
    if not name or name not in registry:
        return False
    return bool(getattr(registry.get(name), "side_effects", False))


def execute_calls(registry, calls: list[dict], parallel: bool = True,
                  max_workers: int = MAX_WORKERS) -> list[CallOutcome]:
    """Run a reply's tool calls; results come back in the same order as `calls`.

    Consecutive calls without side effects run together in a thread pool; a call to a tool
    with side effects runs by itself after everything before it has finished.

    Example: [get_weather(北京), get_weather(广州), send_email(…), get_today()] runs as
             {北京, 广州} together, then send_email alone, then get_today.
    """
    if not parallel or len(calls) < 2:
        return [run_one(registry, c) for c in calls]
    outcomes: list[CallOutcome] = []
    batch: list[dict] = []

    def flush() -> None:
        if len(batch) == 1:
            outcomes.append(run_one(registry, batch[0]))
        elif batch:
            with ThreadPoolExecutor(max_workers=min(max_workers, len(batch))) as pool:
                # map() returns results in submission order, whatever order they finish in
                outcomes.extend(pool.map(lambda c: run_one(registry, c), batch))
        batch.clear()

    for call in calls:
        if _has_side_effects(registry, (call.get("function") or {}).get("name") or ""):
            flush()
            outcomes.append(run_one(registry, call))
        else:
            batch.append(call)
    flush()
    return outcomes


__all__ = ["CallOutcome", "decode_arguments", "execute_calls", "run_one"]
