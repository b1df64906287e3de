"""Shortening text: a long tool result cut to head + tail, a long line cut to one short line.

Two cuts, one rule each:
- `compact_observation` keeps the head and the tail of a tool result with a visible marker in
  the middle, because tools put the headline first and totals or errors last. The model reads
  this one, so it says how much was cut.
- `shorten` squeezes any text to one line of at most `limit` characters, ending in "…". Logs,
  tables and summaries use it; a model only meets it inside a folded-history summary.

It deliberately does NOT summarise with a model, count tokens, or know about steps or
messages. Introduced in notebook 07 (context bloat).
"""

from __future__ import annotations

from typing import Any


def compact_observation(text: Any, max_chars: int | None = 2000) -> str:
    """Cut a long observation to its head and tail with a marker saying how much was cut.

    Example: compact_observation("x" * 50_000, 2000) -> 1000 x's, then
    "[… 48,000 characters cut …]", then 1000 x's. None (or a short text) keeps it whole.
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
    """The run-log event for a cut observation. Example: "compacted: 50000 chars -> 2029 chars"."""
    return f"compacted: {len(full)} chars -> {len(shown)} chars"


def shorten(text: Any, limit: int = 80) -> str:
    """Any text as one line of at most `limit` characters (whitespace folded, "…" when cut).

    Example: shorten("北京: 晴\\n  3°C, humidity 20 %", 12) -> "北京: 晴 3°C, …"
    """
    line = " ".join(str("" if text is None else text).split())
    return line if len(line) <= limit else line[: max(limit - 1, 0)] + "…"
