"""Guards: the small limits that keep an agent loop from bloating, looping or running forever.

Seed 001 §5 names the pitfalls; this module holds one answer to each, shared by both agents:

- `compact_observation` — a huge tool result is cut to head + tail with a visible marker.
- `compress_history` — older steps are folded into one summary message (one line per step),
  built from the messages themselves; the list stays valid for OpenAI-style APIs.
- `LoopDetector` — the same call N times in a row, or A, B, A, B, fires an intervention.
- `Guards` — the settings bundle (step, parse-error and token budgets) an agent run uses,
  plus `budget_status`, which names the budget that ran out.

It deliberately does NOT run the loop, call the model or count tokens: the agents do that
and ask the guards what to do. Summaries are text surgery, not a model call — cheap and
predictable, but lossy. Introduced in notebook 07 (pitfalls); runs are compared with guards
on and off in notebook 08.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

DEFAULT_LOOP_MESSAGE = (
    "You are repeating the same tool call (same tool, same arguments) and getting the same "
    "result. Do not call it again: answer the original question with the observations you "
    "already have, or try a different tool or different arguments."
)
DEFAULT_FINAL_REQUEST = (
    "You have run out of steps. Answer the original question now with what you already know, "
    "without calling tools."
)
# Worded for both ways out: a model that stops after the first of several look-ups should make
# the next call, not answer half the question (the benchmark transcripts showed exactly that
# with the earlier "please answer using the tool results above").
EMPTY_REPLY_NUDGE = ("Your reply was empty. If a part of the question still needs a tool, call "
                     "the next tool now; otherwise answer every part of the question using the "
                     "tool results above.")
# A reply without a call that talks about a tool ("I'll call get_closing_price for each stock…")
# is a plan, not an answer: nothing ran. Measured on the 1.5B (benchmark, native calls): 3 of
# its 13 failures were such plans returned as the final answer.
NARRATED_CALL_NUDGE = ("Your reply talks about a tool but makes no tool call, so nothing ran. "
                       "If you need a tool, call it now with a tool call; if you already have "
                       "every figure, answer the question itself, without mentioning tools.")
SUMMARY_HEADER = "Summary of earlier steps (folded to save context, one line per step):"


# --- observations -------------------------------------------------------------------------


def compact_observation(text: Any, max_chars: int | None = 2000) -> str:
    """Cut a long observation to its head and tail with a marker saying how much was cut.

    Head and tail both survive because tools put the headline first and totals or errors
    last. Example: compact_observation("x" * 50_000, 2000) -> 1000 x's, then
    "[… 48,000 characters cut …]", then 1000 x's.
    """
    text = "" if text is None else str(text)
    if max_chars is None or len(text) <= max_chars:
        return text
    max_chars = max(0, int(max_chars))
    head = max_chars // 2
    tail = max_chars - head
    cut = len(text) - max_chars
    return f"{text[:head]}\n[… {cut:,} characters cut …]\n{text[len(text) - tail:]}"


def compaction_event(full: str, shown: str) -> str:
    """The run-log event for a cut observation. Example: "compacted: 50000 chars -> 2030 chars"."""
    return f"compacted: {len(full)} chars -> {len(shown)} chars"


# --- loop detection -----------------------------------------------------------------------


def canonical_args(args: Any) -> str:
    """Arguments as one canonical string, so equal calls compare equal.

    JSON strings are decoded, dict keys sorted, layout whitespace and padding around string
    values ignored. Example: canonical_args('{"b": 1,  "a": " x"}') == canonical_args({"a": "x",
    "b": 1}) -> '{"a":"x","b":1}'
    """
    if args is None:
        args = {}
    if isinstance(args, str):
        s = args.strip()
        if not s:
            return "{}"
        try:
            args = json.loads(s)
        except ValueError:
            return " ".join(s.split())  # not JSON (e.g. ReAct "Action Input: 北京")
    args = _strip_strings(args)
    if isinstance(args, str):
        return " ".join(args.split())  # '"北京"' and '北京' are the same call
    try:
        return json.dumps(args, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(args)


def _strip_strings(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        return {str(k).strip(): _strip_strings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strip_strings(v) for v in value]
    return value


def format_call(name: str, args: Any) -> str:
    """A call as a student would write it. Example: format_call("get_weather",
    '{"location": "北京"}') -> "get_weather({'location': '北京'})"."""
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            pass
    text = f"{name}({args!r})"
    return text if len(text) <= 120 else text[:117] + "..."


class LoopDetector:
    """Notice a model that repeats itself: the same call `repeat` times in a row, or two calls
    alternating A, B, A, B (`pingpong` rounds), or a chain of three A, B, C replayed as often.
    Call `check` once per tool call, in order.

    It keeps its history after firing, so a model that ignores the intervention and repeats
    the call once more fires it again; the agents stop at the second trigger.
    Example: d = LoopDetector(); [d.check("f", {"x": 1}) for _ in range(3)][-1]
             -> "loop: f({'x': 1}) repeated 3 times"
    """

    def __init__(self, repeat: int = 3, pingpong: int = 2, message: str = DEFAULT_LOOP_MESSAGE):
        if repeat and repeat < 2:
            raise ValueError(f"repeat={repeat} would flag every call; use 2 or more (or 0 to turn "
                             "repeat detection off).")
        if pingpong and pingpong < 2:
            raise ValueError(f"pingpong={pingpong} would flag A, B as a loop; use 2 or more "
                             "(or 0 to turn ping-pong detection off).")
        self.repeat = repeat
        self.pingpong = pingpong
        self.message = message
        self.triggers = 0
        self.events: list[str] = []
        self.history: list[tuple[str, str]] = []  # (tool name, canonical arguments)
        self._shown: dict[tuple[str, str], str] = {}

    def check(self, name: str, args: Any) -> str | None:
        """Record one call; return an event string if it completes a loop, else None."""
        key = (name, canonical_args(args))
        self._shown.setdefault(key, format_call(name, args))
        self.history.append(key)
        event = self._repeated() or self._ping_pong()
        if event:
            self.triggers += 1
            self.events.append(event)
        return event

    def _repeated(self) -> str | None:
        n = self.repeat
        if not n or len(self.history) < n:
            return None
        last = self.history[-n:]
        if all(k == last[0] for k in last):
            return f"loop: {self._shown[last[0]]} repeated {n} times"
        return None

    def _ping_pong(self) -> str | None:
        # Period 2 is the classic ping-pong; period 3 catches a whole chain replayed, e.g. the
        # 1.5B writing get_today, days_between, calculator three times in one reply.
        for period in (2, 3):
            n = period * self.pingpong if self.pingpong else 0
            if not n or len(self.history) < n:
                continue
            last = self.history[-n:]
            cycle = last[:period]
            if len(set(cycle)) == period and all(
                    k == cycle[i % period] for i, k in enumerate(last)):
                shown = [self._shown[k] for k in cycle]
                if period == 2:
                    return f"loop: ping-pong between {shown[0]} and {shown[1]}"
                return f"loop: the cycle {' -> '.join(shown)} repeated {self.pingpong} times"
        return None

    def copy(self) -> LoopDetector:
        """The same settings, a clean history."""
        return LoopDetector(self.repeat, self.pingpong, self.message)

    def __repr__(self) -> str:
        return (f"LoopDetector(repeat={self.repeat}, pingpong={self.pingpong}, "
                f"triggers={self.triggers})")


# --- the settings bundle ------------------------------------------------------------------


@dataclass
class Guards:
    """Every limit an agent run obeys. `Guards.on()` is the default, `Guards.off()` the naive
    loop of seed 001 §3 (only the step budget), for before/after comparisons.

    Example: run_react(q, guards=Guards.on(max_steps=8)); run_react(q, guards=Guards.off())
    """

    max_steps: int = 6
    max_parse_errors: int = 3
    max_total_tokens: int | None = None
    observation_chars: int | None = 2000  # None = never compact
    loop: LoopDetector | None = field(default_factory=LoopDetector)
    compress_after: int | None = None  # fold older steps once history has more steps than this
    final_request: str = field(default=DEFAULT_FINAL_REQUEST, repr=False)
    keep_last: int = 2  # steps kept verbatim when compress_after folds the history
    narrated_calls: bool = True  # send a plan that names a tool back once (native agent)

    @classmethod
    def off(cls, max_steps: int = 6) -> Guards:
        """No compaction, no loop detector, no token budget, no check for narrated calls;
        parse errors only end with steps."""
        return cls(max_steps=max_steps, max_parse_errors=max_steps, max_total_tokens=None,
                   observation_chars=None, loop=None, compress_after=None, narrated_calls=False)

    @classmethod
    def on(cls, max_steps: int = 6) -> Guards:
        """The defaults: compaction at 2000 chars, loop detector, 3 parse errors."""
        return cls(max_steps=max_steps)

    def fresh(self, max_steps: int | None = None) -> Guards:
        """A copy for one run: a new LoopDetector (history and triggers reset), and
        optionally a different step budget. Example: g = (guards or Guards.on()).fresh(8)"""
        return replace(self, loop=self.loop.copy() if self.loop is not None else None,
                       max_steps=self.max_steps if max_steps is None else max_steps)

    # Conveniences for the agents: each applies one guard and returns what to record.

    def observe(self, text: Any) -> tuple[str, str | None, str | None]:
        """(shown, full_if_cut, event_if_cut) for one tool result.

        Example: shown, full, event = Guards().observe("x" * 50_000)
                 len(shown) -> 2029; len(full) -> 50000; event -> "compacted: 50000 chars ->
                 2029 chars". A short text gives (text, None, None).
        """
        full = "" if text is None else str(text)
        shown = compact_observation(full, self.observation_chars)
        if shown == full:
            return full, None, None
        return shown, full, compaction_event(full, shown)

    def narrated(self, text: str, tool_names: list[str]) -> list[str]:
        """Tool names a reply without calls mentions ([] when the check is off).

        Example: Guards().narrated("I'll call `get_today` first.", ["get_today"]) -> ["get_today"]
        """
        if not self.narrated_calls or not text:
            return []
        return [n for n in tool_names if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text)]

    def check_call(self, name: str, args: Any) -> str | None:
        """The loop detector's verdict on one call (None when the detector is off)."""
        return self.loop.check(name, args) if self.loop is not None else None

    @property
    def loop_exhausted(self) -> bool:
        """True once the loop detector has fired twice: time to stop with status "loop"."""
        return self.loop is not None and self.loop.triggers >= 2

    def maybe_compress(self, messages: list, start: int | None = None) -> tuple[list, str | None]:
        """Apply `compress_after`: (messages, event or None). Call it before each request."""
        if self.compress_after is None or count_steps(messages, start) <= self.compress_after:
            return messages, None
        before = _chars(messages)
        folded = count_steps(messages, start) - self.keep_last
        out = compress_history(messages, keep_last=self.keep_last, start=start)
        return out, (f"compressed: folded {folded} steps into a summary "
                     f"({before} -> {_chars(out)} chars)")


def budget_status(guards: Guards, steps: int, parse_errors: int = 0,
                  total_tokens: int = 0) -> str | None:
    """Which budget has run out after this many steps, if any, as a RunResult status.

    Checked in this order, most specific first: "loop" (detector fired twice),
    "parse_errors" (more than max_parse_errors), "max_tokens" (more than max_total_tokens),
    "max_steps" (steps >= max_steps). Example: budget_status(Guards(), 6, 0, 900) -> "max_steps"
    """
    if guards.loop_exhausted:
        return "loop"
    if parse_errors > guards.max_parse_errors:
        return "parse_errors"
    if guards.max_total_tokens is not None and total_tokens > guards.max_total_tokens:
        return "max_tokens"
    if steps >= guards.max_steps:
        return "max_steps"
    return None


def budget_event(guards: Guards, status: str, steps: int = 0, parse_errors: int = 0,
                 total_tokens: int = 0) -> str:
    """The run-log event for a budget end, for the agents to put on the final_request step.

    Example: budget_event(Guards(), "parse_errors", 4, 4) ->
             "budget: parse_errors (4 parse errors > max_parse_errors=3)"
    """
    why = {
        "loop": "the loop detector fired twice",
        "parse_errors": f"{parse_errors} parse errors > max_parse_errors={guards.max_parse_errors}",
        "max_tokens": f"{total_tokens} tokens > max_total_tokens={guards.max_total_tokens}",
        "max_steps": f"{steps} steps, max_steps={guards.max_steps}",
    }.get(status, "unknown budget")
    return f"budget: {status} ({why})"


# --- history compression ------------------------------------------------------------------


def _get(obj: Any, key: str, default: Any = None) -> Any:
    """Read a field from a dict message or an SDK message object alike."""
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, list):  # content parts: [{"type": "text", "text": …}, …]
        return "".join(str(_get(p, "text", "") or "") for p in content)
    return str(content)


def _calls(message: Any) -> list[tuple[Any, str, Any]]:
    out = []
    for call in _get(message, "tool_calls") or []:
        fn = _get(call, "function") or {}
        out.append((_get(call, "id"), _get(fn, "name") or "?", _get(fn, "arguments")))
    return out


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_OBSERVATION = re.compile(r"^\s*Observation\s*[:：]", re.IGNORECASE)
_NOT_QUESTIONS = {EMPTY_REPLY_NUDGE, NARRATED_CALL_NUDGE, DEFAULT_LOOP_MESSAGE,
                  DEFAULT_FINAL_REQUEST}


def _is_summary(m: Any) -> bool:
    return _get(m, "role") == "user" and _text(_get(m, "content")).startswith(SUMMARY_HEADER)


def _is_observation(m: Any) -> bool:
    return _get(m, "role") == "user" and bool(_OBSERVATION.match(_text(_get(m, "content"))))


def _run_start(messages: list) -> int:
    """Index of the first message after the current question (where the steps begin).

    A summary from an earlier fold marks it. Otherwise the question is the last user message
    that is not an observation, a known nudge, or a message after tool results. When unsure
    this errs towards a later start: fewer steps get folded, nothing needed gets lost.
    """
    for i, m in enumerate(messages):
        if _is_summary(m):
            return i
    start = len(messages)
    for i, m in enumerate(messages):
        if _get(m, "role") != "user" or _is_observation(m):
            continue
        if _text(_get(m, "content")).strip() in _NOT_QUESTIONS:
            continue
        prev = messages[i - 1] if i else None
        if prev is not None and (_get(prev, "role") == "tool" or _calls(prev)
                                 or _is_observation(prev)):
            continue  # e.g. a loop intervention right after the tool results
        start = i + 1
    return start


def _groups(body: list) -> tuple[list, list[list]]:
    """Split the steps into groups that start at an assistant message (its tool messages,
    observations and nudges follow it), so a group can be folded or kept as a whole."""
    lead: list = []
    groups: list[list] = []
    for m in body:
        if _get(m, "role") == "assistant":
            groups.append([m])
        elif groups:
            groups[-1].append(m)
        else:
            lead.append(m)
    return lead, groups


def count_steps(messages: list, start: int | None = None) -> int:
    """How many steps (assistant messages) follow the question, not counting folded ones."""
    return len(_groups(messages[_run_start(messages) if start is None else start:])[1])


def _summarize_group(group: list) -> str:
    first, rest = group[0], group[1:]
    parts: list[str] = []
    calls = _calls(first)
    if calls:
        results = {_get(m, "tool_call_id"): _text(_get(m, "content"))
                   for m in rest if _get(m, "role") == "tool"}
        for call_id, name, args in calls:
            obs = results.get(call_id, "(no result)")
            parts.append(f"{format_call(name, args)} -> {_one_line(obs, 80)}")
    text = _text(_get(first, "content"))
    observations = [m for m in rest if _is_observation(m)]
    if not calls:
        if observations:  # ReAct chat style: keep the Action, not the Thought
            obs = _OBSERVATION.sub("", _text(_get(observations[0], "content")), count=1)
            parts.append(f"{_react_action(text)} -> {_one_line(obs, 80)}")
        elif text.strip():
            parts.append(f"replied: {_one_line(text, 100)}")
        else:
            parts.append("(empty reply)")
    for m in rest:
        if _get(m, "role") == "user" and not _is_observation(m):
            parts.append(f"[note: {_one_line(_text(_get(m, 'content')), 50)}]")
    return "; ".join(parts)


def _react_action(text: str) -> str:
    """A ReAct reply's action as `tool(args)`; the raw Action text if it does not parse."""
    try:
        from reactlab.parsing import Action, parse_react  # lazy: parsing is optional here

        parsed = parse_react(text)
    except Exception:  # noqa: BLE001 - any failure just means "show the text instead"
        parsed = None
    if parsed is not None and isinstance(parsed, Action):
        return format_call(parsed.tool, parsed.args)
    found = re.search(r"Action\s*[:：]", text)
    return _one_line(text[found.start():] if found else text, 100)


def compress_history(messages: list, keep_last: int = 2, start: int | None = None) -> list:
    """Fold all but the last `keep_last` steps into one summary message (role "user").

    Keeps the system prompt, any earlier turns and the question; a step is folded or kept
    whole, so an assistant `tool_calls` message never loses its tool messages. A summary from
    an earlier fold is extended, not nested. `start` (index of the first step) overrides the
    guess of where the question ends. Returns a new list; the input is not modified.
    Example: [system, user, a1+tool, a2+tool, a3+tool] ->
             [system, user, user("Summary …\\nstep 1: get_today({}) -> 2026-03-01"),
              a2+tool, a3+tool]
    """
    start = _run_start(messages) if start is None else start
    prefix, body = list(messages[:start]), messages[start:]
    lead, groups = _groups(body)
    if len(groups) <= keep_last:
        return list(messages)
    folded = groups[: len(groups) - keep_last]
    kept = groups[len(groups) - keep_last:]
    lines: list[str] = []
    for m in lead:
        if _is_summary(m):
            lines += [ln for ln in _text(_get(m, "content")).splitlines()[1:] if ln.strip()]
        else:
            prefix.append(m)
    lines += [f"step {len(lines) + i + 1}: {_summarize_group(g)}" for i, g in enumerate(folded)]
    summary = {"role": "user", "content": SUMMARY_HEADER + "\n" + "\n".join(lines)}
    return prefix + [summary] + [m for g in kept for m in g]


def message_problems(messages: list) -> list[str]:
    """What an OpenAI-style API would reject about tool messages; [] when the list is valid.

    Example: [user, tool(call_1)] -> ["message 1 (tool, call_1) does not follow an assistant
    message whose tool_calls include call_1."]
    """
    problems: list[str] = []
    open_ids: set = set()
    for i, m in enumerate(messages):
        role = _get(m, "role")
        if role == "tool":
            cid = _get(m, "tool_call_id")
            if cid not in open_ids:
                problems.append(f"message {i} (tool, {cid}) does not follow an assistant message "
                                f"whose tool_calls include {cid}.")
            open_ids.discard(cid)
            continue
        if open_ids:
            problems.append(f"message {i} ({role}) comes before the tool results for "
                            f"{', '.join(sorted(map(str, open_ids)))}.")
        open_ids = {cid for cid, _, _ in _calls(m)} if role == "assistant" else set()
    if open_ids:
        problems.append(f"the list ends before the tool results for "
                        f"{', '.join(sorted(map(str, open_ids)))}.")
    return problems


def _chars(messages: list) -> int:
    return sum(len(_text(_get(m, "content"))) + sum(len(str(a or "")) for _, _, a in _calls(m))
               for m in messages)
