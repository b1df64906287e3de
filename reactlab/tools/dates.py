"""The date tools: `get_today` and `days_between`, the first two steps of the savings question.

"今天是几号？到 2027-01-01 还有多少天？每天存 5 元一共多少？" needs three dependent calls:
get_today -> days_between -> calculator. `get_today` is the machine's date unless
`REACTLAB_TODAY=YYYY-MM-DD` pins it (reproducible runs and tests). `days_between` reads ISO
dates and the forms models write instead (2026/3/1, 2026年3月1日, a copied get_today answer) and
says "call get_today() first" when it is given the word "today".

Deliberately NOT here: time zones (dates are the machine's local date), times of day, relative
dates ("next Friday"), calendars other than the Gregorian one. `get_today` first appears in
notebook 04 (an exercise); the savings chain is in notebook 05.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import unicodedata

from reactlab.tools.bundled import MAX_INPUT_CHARS
from reactlab.tools.registry import tool

_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _today() -> dt.date:
    pinned = os.environ.get("REACTLAB_TODAY", "").strip()
    if not pinned:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(pinned)
    except ValueError:
        raise ValueError(f"REACTLAB_TODAY={pinned!r} is not a date: set it as YYYY-MM-DD, "
                         "e.g. 2025-06-27, or unset it to use the real date.") from None


@tool
def get_today() -> str:
    """Get today's date as YYYY-MM-DD with its weekday. Use it whenever a question says 今天 / today.

    Example: get_today() -> "2026-03-01 (Sunday, 星期日)"
    """
    d = _today()
    return f"{d.isoformat()} ({_WEEKDAYS[d.weekday()]}, 星期{'一二三四五六日'[d.weekday()]})"


_DATE = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*[日号號]?")


def _parse_date(text: object, arg: str) -> dt.date:
    """A date from ISO or Chinese forms. Example: "2025年12月31日" -> date(2025, 12, 31)."""
    raw = unicodedata.normalize("NFKC", str(text)).strip()
    m = _DATE.fullmatch(raw) or re.fullmatch(r"(\d{4})(\d{2})(\d{2})", raw)
    # a copied get_today() answer or an ISO timestamp: "2026-03-01 (Sunday, 星期日)"
    m = m or re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ]\d[\d:.+Z-]*|\s*\(.*\))", raw)
    if m:
        try:
            return dt.date(*(int(g) for g in m.groups()))
        except ValueError as exc:
            raise ValueError(f"{arg}={text!r} is not a real date ({exc}).") from None
    if re.search(r"今天|今日|today|now|现在", raw, re.IGNORECASE):
        raise ValueError(f"{arg}={text!r:.80} is not a date: call get_today() first, then pass "
                         "its YYYY-MM-DD date.")
    raise ValueError(f"{arg}={text!r:.80} is not a date I can read: write it as YYYY-MM-DD, "
                     "e.g. 2025-12-31 (2025年12月31日 also works).")


@tool(max_chars=MAX_INPUT_CHARS)
def days_between(date1: str, date2: str) -> int:
    """Count the days between two dates (order does not matter).

    Args:
        date1: a date as YYYY-MM-DD, e.g. 2025-10-01 (2025年10月1日 also works)
        date2: the other date, e.g. 2027-01-01

    The same date twice is refused with a message, not answered 0: asked "how many days until
    2026-10-01?", a small model passes the target date as both dates instead of calling
    get_today first (measured on the 1.5B), and 0 would look like an answer.

    Example: days_between("2026-03-01", "2027-01-01") -> 306
    """
    first, second = _parse_date(date1, "date1"), _parse_date(date2, "date2")
    if first == second:
        raise ValueError(f"date1 and date2 are both {first.isoformat()}: that is no span of days. "
                         "If one of them should be today, call get_today first and use its date.")
    return abs((second - first).days)
