"""The loop detector: notice a model that keeps making the same tool call.

`LoopDetector.check(name, args)` is called once per tool call, in order, and returns an event
string when the calls so far end in a loop: the same call `repeat` times in a row, two calls
alternating A, B, A, B, or a chain of three A, B, C replayed. Calls are compared on
`canonical_args`, so `{"b": 1, "a": " x"}` and `'{"a":"x","b":1}'` are the same call.

It deliberately does NOT decide what happens next (the guards say "send the intervention
once, stop the run at the second trigger") and it never looks at results: a loop is the same
*request*, whatever came back. Introduced in notebook 07 (dead loops).
"""

from __future__ import annotations

import json
from typing import Any

from reactlab.compaction import shorten
from reactlab.jsonish import loads_lenient
from reactlab.prompts import load_template


def canonical_args(args: Any) -> str:
    """Arguments as one canonical string, so equal calls compare equal.

    JSON strings are decoded, dict keys sorted, layout whitespace and padding around string
    values ignored. Example: canonical_args('{"b": 1,  "a": " x"}') == canonical_args({"a": "x",
    "b": 1}) -> '{"a":"x","b":1}'
    """
    if args is None:
        args = {}
    if isinstance(args, str):
        text = args.strip()
        if not text:
            return "{}"
        try:
            args = loads_lenient(text)
        except (ValueError, RecursionError):
            return " ".join(text.split())  # not JSON (e.g. ReAct "Action Input: 北京")
    args = _strip_strings(args)
    if isinstance(args, str):
        return " ".join(args.split())  # '"北京"' and '北京' are the same call
    try:
        return json.dumps(args, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return repr(args)


def _strip_strings(value: Any, depth: int = 0) -> Any:
    if depth > 50:  # simplification: past 50 levels, compare as written
        return value
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        return {str(k).strip(): _strip_strings(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strip_strings(v, depth + 1) for v in value]
    return value


def format_call(name: str, args: Any) -> str:
    """A call as a student would write it, on one line of at most 120 characters.

    Example: format_call("get_weather", '{"location": "北京"}') -> "get_weather({'location': '北京'})"
    """
    if isinstance(args, str):
        try:
            args = loads_lenient(args) if args.strip() else {}
        except (ValueError, RecursionError):
            pass
    try:
        text = f"{name}({args!r})"
    except RecursionError:
        text = f"{name}(…)"
    return shorten(text, 120)


class LoopDetector:
    """Notice a model that repeats itself: the same call `repeat` times in a row, or two calls
    alternating A, B, A, B (`pingpong` rounds), or a chain of three A, B, C replayed as often.

    It keeps its history after firing, so a model that ignores the intervention and repeats
    the call once more fires it again; the agents stop at the second trigger.
    Example: d = LoopDetector(); [d.check("f", {"x": 1}) for _ in range(3)][-1]
             -> "loop: f({'x': 1}) repeated 3 times"
    """

    def __init__(self, repeat: int = 3, pingpong: int = 2, message: str | None = None):
        if repeat and repeat < 2:
            raise ValueError(f"repeat={repeat} would flag every call; use 2 or more (or 0 to turn "
                             "repeat detection off).")
        if pingpong and pingpong < 2:
            raise ValueError(f"pingpong={pingpong} would flag A, B as a loop; use 2 or more "
                             "(or 0 to turn ping-pong detection off).")
        self.repeat = repeat
        self.pingpong = pingpong
        # The intervention the agents send once; the text is the loop_intervention template.
        self.message = load_template("loop_intervention") if message is None else message
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
