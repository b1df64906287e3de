"""reactlab.compaction: head + tail cuts for the model, one-line cuts for logs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactlab.compaction import compact_observation, shorten
from reactlab.guards import Guards

# --- compact_observation ------------------------------------------------------------------


def test_fifty_thousand_characters_are_cut_with_a_visible_marker():
    text = "H" * 25_000 + "T" * 25_000
    out = compact_observation(text, max_chars=2000)
    assert "[… 48,000 characters cut …]" in out
    assert out.startswith("H" * 1000) and out.endswith("T" * 1000)
    assert len(out) - len("\n[… 48,000 characters cut …]\n") == 2000


@pytest.mark.parametrize("text,limit", [("short", 2000), ("x" * 2000, 2000), ("y" * 50, None)])
def test_short_text_or_no_limit_is_unchanged(text, limit):
    assert compact_observation(text, limit) == text


def test_non_strings_are_stringified():
    assert compact_observation(None) == ""
    assert compact_observation(1530) == "1530"
    assert "characters cut" in compact_observation(list(range(5000)), 100)


def test_guards_observe_reports_full_text_and_event():
    shown, full, event = Guards().observe("x" * 50_000)
    assert full == "x" * 50_000
    assert "48,000 characters cut" in shown
    assert event == f"compacted: 50000 chars -> {len(shown)} chars"
    assert Guards().observe("ok") == ("ok", None, None)
    assert Guards.off().observe("x" * 50_000) == ("x" * 50_000, None, None)




def test_shorten_folds_whitespace_and_marks_the_cut():
    assert shorten("北京: 晴\n  3°C, humidity 20 %", 12) == "北京: 晴 3°C, …"
    assert shorten("short") == "short"
    assert shorten(None) == ""


@given(st.text(max_size=300), st.integers(1, 200))
def test_shorten_is_one_line_within_the_limit(text, limit):
    out = shorten(text, limit)
    assert len(out) <= limit and "\n" not in out
