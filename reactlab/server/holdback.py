"""Decide, while a reply streams in, which text is safe to send as `content` right away.

A streamed reply may turn out to be a tool call, and a call must not reach the client as
content. So content streams freely until the text *might* start a call: `<tool_call>` (or
any `<tool…` / `</tool…` tag: the template markup the model echoes is never content either), a
code fence, `{"name"`, or a `{` / `[` at the start of a line (bare JSON). From there on
everything is held back, and the whole reply is parsed when the model finishes (`toolcalls`);
the server then sends only the content the client has not had (text before the first call),
so text the model invents after a call never streams. A partial marker at the end of a piece
(`<to`, two backticks, a line holding only spaces) is held until the next piece shows what it
was.

A simplification, on purpose: calls are parsed once the model has finished, not token by
token, so their arguments reach the client in one burst of fragments at the end (the server
still splits them into OpenAI-style deltas). Content that merely starts with `{` is held to
the end too and then sent as content. A call in a shape no marker catches (`{ "name"` in
mid-line) streams as content before anyone knows it is a call: released text cannot be taken
back. Work per piece is bounded (at most `MAX_INDENT` spaces are held before a possible `{`),
so a long reply streams in linear time. This module is pure; it knows nothing about HTTP.
Introduced in notebook 05 (streamed tool calls).
"""

from __future__ import annotations

import re

MARKERS = ("<tool", "</tool", "```", '{"name"', '{"function"')
MAX_INDENT = 64  # spaces held at a line start (a `{` may follow); past it they are released
_LINE_START_JSON = re.compile(r"^[ \t]*[{\[]", re.MULTILINE)


class HoldBack:
    """Feed pieces in, get safe content out; `finish()` returns what was held.

    Example: h = HoldBack(); h.feed("Let me check.\\n<tool") -> "Let me check.\\n";
             h.feed("_call>{…}") -> ""; h.finish() -> "<tool_call>{…}"
    """

    def __init__(self, active: bool = True):
        self.active = active     # False: no tools in play, everything is content at once
        self.pending = ""        # received but not released
        self.holding = False     # a possible call has started: hold everything from here
        self.line_start = True   # the next character begins a line (the reply's start counts)

    def _trigger(self) -> int | None:
        found = [i for i in (self.pending.find(m) for m in MARKERS) if i >= 0]
        for m in _LINE_START_JSON.finditer(self.pending):
            if m.start() > 0 or self.line_start:
                found.append(m.end() - 1)
                break
        return min(found) if found else None

    def _unsafe_tail(self) -> int:
        """How many trailing characters could still become a marker."""
        text, keep = self.pending, 0
        newline = text.rfind("\n")
        if (newline >= 0 or self.line_start) and not text[newline + 1:].strip():
            # spaces at a line start: a `{` may follow. Bounded, or a reply of spaces would be
            # held whole and rescanned at every piece (quadratic, on the event loop).
            keep = min(len(text) - newline - 1, MAX_INDENT)
        for marker in MARKERS:
            for k in range(min(len(marker) - 1, len(text)), keep, -1):
                if marker.startswith(text[-k:]):
                    keep = k
                    break
        return keep

    def _release(self, text: str) -> str:
        if text:
            # Still at a line start if only spaces follow the last newline (or the old start).
            newline = text.rfind("\n")
            blank = not text[newline + 1:].strip(" \t")
            self.line_start = blank and (newline >= 0 or self.line_start)
        return text

    def feed(self, piece: str) -> str:
        """Add a piece; return the content that can be sent now (maybe "")."""
        if not self.active:
            return piece
        self.pending += piece
        if self.holding:
            return ""
        start = self._trigger()
        if start is not None:
            self.holding = True
            out, self.pending = self.pending[:start], self.pending[start:]
            return self._release(out)
        keep = self._unsafe_tail()
        cut = len(self.pending) - keep
        out, self.pending = self.pending[:cut], self.pending[cut:]
        return self._release(out)

    def finish(self) -> str:
        """Everything not released yet (a call, or a harmless tail); resets the buffer."""
        held, self.pending = self.pending, ""
        return held
