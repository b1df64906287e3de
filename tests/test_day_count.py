"""reactlab.day_count: the dates a question names, today as get_today gave it, the day count
the question settles; it never raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.day_count import asked_days, asked_span, question_dates, today_from
from reactlab.runlog import Step, ToolCallRecord

TODAY = Step(1, "action", tool_calls=[ToolCallRecord("get_today", {}, "2026-03-01 (Sunday, 星期日)")])
DOWN = Step(1, "action", tool_calls=[ToolCallRecord("get_today", {}, "Error: timed out", error=True)])
SAVINGS = "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？"


@pytest.mark.parametrize("question, dates", [
    (SAVINGS, ["2027-01-01"]),
    ("今天距离2026年10月1日还有多少天？", ["2026-10-01"]),
    ("How many days are there between 2026-01-15 and 2026/12/25?", ["2026-01-15", "2026-12-25"]),
    ("2026-02-30 还有多少天？", []),  # no such day
    ("到 2027-01-01，还是 2027-01-01？", ["2027-01-01"]),  # once each
    ("明年元旦还有多少天？", []),  # words are not read
])
def test_question_dates_reads_full_dates_in_either_spelling(question, dates):
    assert question_dates(question) == dates


def test_today_is_what_get_today_said_and_nothing_else():
    assert today_from([TODAY]) == "2026-03-01"
    assert today_from([DOWN]) is None and today_from([]) is None


@pytest.mark.parametrize("question, steps, span, days", [
    (SAVINGS, [TODAY], ("2026-03-01", "2027-01-01"), 306),  # seed 001
    ("从2025年12月25日到今天过去了多少天？", [TODAY], ("2026-03-01", "2025-12-25"), 66),
    ("How many days are there between 2026-01-15 and 2026-12-25?", [], ("2026-01-15", "2026-12-25"),
     344),
    (SAVINGS, [], None, None),  # today not known yet
    (SAVINGS, [DOWN], None, None),  # get_today failed
    ("今天是 2026-03-01，还有多少天？", [TODAY], None, None),  # the only date is today
    ("北京现在多少度？2027-01-01", [TODAY], None, None),  # no day count asked
    ("How many days are there in a week?", [TODAY], None, None),  # no date
    ("2026-01-01、2026-02-01 和 2026-03-01 之间有几天？", [TODAY], None, None),  # three dates
])
def test_the_span_is_settled_by_two_dates_or_today_and_one(question, steps, span, days):
    assert asked_span(question, steps) == span
    assert asked_days(question, steps) == days


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_asked_days_never_raises_and_is_never_negative(question):
    n = asked_days(question, [TODAY])
    assert n is None or n >= 0
