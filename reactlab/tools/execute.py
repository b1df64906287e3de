"""Run the tool calls of one model reply: decode arguments, call tools, keep the call order.

`execute_calls` serves both agents. A native reply may ask for several tools
at once (北京 *and* 广州 weather); calls that do not depend on each other run at the same time
in a thread pool, and their results still come back in the order the model asked, so each
`role: "tool"` message lines up with its call. A tool marked `side_effects=True` (it writes,
sends, buys…) never runs concurrently with anything: it waits for the calls before it and runs
alone, in order. The ReAct agent passes its one parsed Action as a call with `"id": None`.

Calls are OpenAI-shaped dicts `{"id", "function": {"name", "arguments"}}`. `arguments` is
JSON text in a native call (decoded leniently with `reactlab.jsonish.loads_lenient`; text
that does not decode is a bad-JSON error), or a value that is already decoded (a dict, or a
bare value for a one-parameter tool). A call with `"id": None` keeps its arguments exactly as
the ReAct parser left them, so a bare text such as "北京" reaches the tool.

Nothing here raises because of the model: arguments that are not JSON (or nested 5000 deep),
unknown tools, tools that raise and replies with more than `max_calls` calls all come back as
an observation that says what went wrong. It deliberately does NOT time out a slow tool, retry,
or decide whether calls depend on each other — a model that puts two calls in one reply says
they are independent. Introduced in notebook 05 (several calls in one reply).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from reactlab.jsonish import loads_lenient
from reactlab.tools.registry import ToolRegistry, exc_text

MAX_WORKERS = 4  # simplification: a fixed small pool; the course tools are quick
MAX_CALLS = 8  # calls run per reply; a model that asks for 50 gets 8 and a note for the rest


@dataclass
class CallOutcome:
    """What happened to one requested call (before any compaction for the model)."""

    id: str | None
    name: str
    arguments: Any  # decoded arguments; the raw text when they did not decode
    observation: str = ""
    error: bool = False
    bad_json: bool = False  # counts toward the parse-error budget
    latency_ms: float = 0.0


def decode_arguments(raw: Any) -> tuple[Any, str | None]:
    """Decode a native tool call's `arguments`; return (args, error message or None).

    Empty or `null` means "no arguments" (a no-argument tool such as get_today); a decoded JSON
    string is passed on (a single-parameter tool takes it as that parameter); a value that is
    not text is already decoded and passed on unchanged.

    Example: decode_arguments('{"location": "北京"}') -> ({"location": "北京"}, None)
             decode_arguments('{"location": 北京}')   -> ('{"location": 北京}', "… not valid JSON …")
    """
    if not isinstance(raw, str):
        return ({} if raw is None else raw), None
    text = raw.strip()
    if not text or text == "null":
        return {}, None
    try:
        value = loads_lenient(text)
    except (ValueError, RecursionError, MemoryError) as exc:  # "[" * 5000 nests too deep
        reason = str(exc)[:200] if isinstance(exc, ValueError) else "nested too deeply"
        return raw, (f"the arguments are not valid JSON ({reason}). Send the arguments again as "
                     f"one JSON object, for example {{\"location\": \"北京\"}}.")
    if isinstance(value, (dict, str)):
        return value, None
    return raw, (f"the arguments must be a JSON object with named parameters, not "
                 f"{type(value).__name__} {text[:80]}.")


def _parts(call: Any) -> tuple[str | None, str, Any]:
    """(id, name, raw arguments) of a call, whatever shape it has."""
    call = call if isinstance(call, dict) else {}
    fn = call.get("function")
    fn = fn if isinstance(fn, dict) else {}
    name = fn.get("name")
    return call.get("id"), (name if isinstance(name, str) else ""), fn.get("arguments")


def run_one(registry: ToolRegistry, call: dict) -> CallOutcome:
    """Decode and run one call `{"id", "function": {"name", "arguments"}}`; never raises.

    Example: run_one(reg, {"id": "c1", "function": {"name": "get_today", "arguments": "{}"}})
             -> CallOutcome(id="c1", name="get_today", observation="2026-03-01 (Sunday, …)", …)
    """
    call_id, name, raw = _parts(call)
    if call_id is None:  # the ReAct agent's Action: its arguments are already parsed
        args, problem = raw, None
    else:
        args, problem = decode_arguments(raw)
    outcome = CallOutcome(id=call_id, name=name, arguments=args)
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
            outcome.observation = f"Error: {name} failed: {type(exc).__name__}: {exc_text(exc)}"
            outcome.error = True
    outcome.latency_ms = (time.perf_counter() - start) * 1000
    return outcome


def _not_run(call: Any, max_calls: int, total: int) -> CallOutcome:
    """The outcome of a call past the per-reply cap: an observation, nothing runs."""
    call_id, name, raw = _parts(call)
    return CallOutcome(id=call_id, name=name, arguments=raw, error=True, observation=(
        f"Error: {name or 'this call'} was not run: only {max_calls} tool calls run per reply "
        f"and this reply asked for {total}. Ask for it again in your next reply if you still "
        f"need it."))


def _has_side_effects(registry: ToolRegistry, name: str) -> bool:
    if not name or name not in registry:
        return False
    return bool(getattr(registry.get(name), "side_effects", False))


def execute_calls(registry: ToolRegistry, calls: list[dict], parallel: bool = True,
                  max_calls: int = MAX_CALLS, max_workers: int = MAX_WORKERS) -> list[CallOutcome]:
    """Run a reply's tool calls; exactly one outcome per call, in the same order as `calls`.

    Consecutive calls without side effects run together in a thread pool; a call to a tool
    with side effects runs by itself after everything before it has finished. Only the first
    `max_calls` calls run; every later one gets an observation saying so.

    Example: [get_weather(北京), get_weather(广州), send_email(…), get_today()] runs as
             {北京, 广州} together, then send_email alone, then get_today.
    """
    calls = list(calls or [])
    limit = max(int(max_calls), 0)
    to_run, skipped = calls[:limit], calls[limit:]
    tail = [_not_run(c, limit, len(calls)) for c in skipped]
    if not parallel or len(to_run) < 2:
        return [run_one(registry, c) for c in to_run] + tail
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

    for call in to_run:
        if _has_side_effects(registry, _parts(call)[1]):
            flush()
            outcomes.append(run_one(registry, call))
        else:
            batch.append(call)
    flush()
    return outcomes + tail
