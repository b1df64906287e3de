"""The day count a question asks for: its dates, today's date as get_today gave it, the span.

"今天是几号？到 2027-01-01 还有多少天？" asks for the days from today to 2027-01-01. Once
get_today has answered 2026-03-01 that count is settled: 306, whatever the model wrote. The
grader checks an answer's day count with it (`grader.miscounted_days`), and the days
correction names the `days_between` call that gives it (`hints.days_call`).

Deliberately NOT here: reading the clock or `REACTLAB_TODAY` (today is what a tool said, or
nothing), dates written in words (明年元旦, "next Christmas"), counts that include both ends
or only working days (the course's `days_between` counts neither), calling a tool. Notebook 04
lists the check among the grader's; notebook 05 runs the savings question whose count it is.
"""

from __future__ import annotations

import re
from datetime import date

from reactlab.runlog import Step

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")  # a date as get_today writes it
DAYS_ASKED = re.compile(r"多少天|几天|(?i:how many days)")  # the question asks a day count
# a full date in a question: 2027-01-01, 2026/6/18, 2026年10月1日
QUESTION_DATE = re.compile(r"(?<!\d)(\d{4})\s*[-/年]\s*(\d{1,2})\s*[-/月]\s*(\d{1,2})(?!\d)")


def today_from(steps: list[Step]) -> str | None:
    """The date get_today answered in `steps`, None before it has.

    Example: a get_today result "2026-03-01 (Sunday, 星期日)" -> "2026-03-01"
    """
    for step in steps:
        for c in step.tool_calls:
            if c.name == "get_today" and not c.error and (m := DATE.search(c.observation or "")):
                return m.group()
    return None


def question_dates(question: str) -> list[str]:
    """The full dates the question names, as YYYY-MM-DD, once each, in order; a date that does
    not exist (2026-02-30) is left out.

    Example: question_dates("今天距离2026年10月1日还有多少天？") -> ["2026-10-01"]
    """
    out = []
    for y, m, d in QUESTION_DATE.findall(question or ""):
        try:
            out.append(date(int(y), int(m), int(d)).isoformat())
        except ValueError:
            continue
    return list(dict.fromkeys(out))


def asked_span(question: str, steps: list[Step]) -> tuple[str, str] | None:
    """(from, to) of the day count the question asks for: its two dates, or today (from
    get_today's result in `steps`) and its one date. None when it asks no day count, names no
    date, names more than two, or needs today before get_today has answered.

    Example: asked_span("到 2027-01-01 还有多少天？", [get_today -> "2026-03-01 …"])
             -> ("2026-03-01", "2027-01-01")
    """
    if not DAYS_ASKED.search(question or ""):
        return None
    dates = question_dates(question)
    if len(dates) == 2:
        return dates[0], dates[1]
    today = today_from(steps) if len(dates) == 1 else None
    if today is None or today == dates[0]:
        return None
    return today, dates[0]


def asked_days(question: str, steps: list[Step]) -> int | None:
    """The day count the question asks for (`asked_span`), as days_between counts it: the
    difference, never negative. None when the span is not settled.

    Example: asked_days("从2025年12月25日到今天过去了多少天？", [get_today -> "2026-03-01 …"]) -> 66
    """
    span = asked_span(question, steps)
    if span is None:
        return None
    first, last = (date.fromisoformat(d) for d in span)
    return abs((last - first).days)


def days_between_ran(steps: list[Step]) -> bool:
    """Has a `days_between` call run without error? (The grader's and the days correction's
    test that the model has a day count of its own.)"""
    return any(c.name == "days_between" and not c.error for s in steps for c in s.tool_calls or [])


__all__ = ["DATE", "DAYS_ASKED", "QUESTION_DATE", "asked_days", "asked_span", "days_between_ran",
           "question_dates", "today_from"]
