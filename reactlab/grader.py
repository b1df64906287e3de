"""The grader: is this answer supported by the run that produced it?

`grade(result, expected=None)` reads a `RunResult` and returns a `Verdict`: ✔ or ✘, reasons
in plain words, the unsupported figures, and a failure-mode name. It checks

- the run's status: no answer, a provider error, a loop, unreadable replies or a budget that
  ran out is a ✘ with that reason (the checks below still add theirs), and so is an answer
  that only repeats the question, or a message the loop sent (`echoed_message`), or hands the
  question back with a request to the user (`asks_back`);
- invention: a figure no tool result, the question or a calculation gives
  (`reactlab.figures`), or an `Observation:` line the model wrote itself;
- parts: every name the question asks about (北京 and 广州, and a name joined to a known one
  that the course has no data for: 宁德时代 in "青岛啤酒和宁德时代", `claims.partners`) needs its
  tool result, and an answer that states one name's figures must state the other's too; a
  name whose every lookup failed is covered by an answer that names it without a figure;
- attribution and comparisons (`reactlab.claims`): 广州 given 北京's figures, or "青岛啤酒更高"
  when 67.92 < 1488.21, is a ✘ (a claim with no other side, "天津更冷", is judged among the
  names the question asks about, not against a city fetched by mistake);
- arithmetic the answer writes out, a mean or a sum it calls a difference ("相差778.065"
  after `calculator("(67.92 + 1488.21) / 2")`), a comparison's size that is not the gap
  between the two readings ("广州比北京高1.8°C" after 24.2 and 23.4), and the expected facts
  where the caller knows them (with a winner, the answer must also say which one it is: a list
  of both figures that stops there is incomplete, `concluded`); a mean or a total that is not the mean or the sum of the fetched
  readings ("三地的平均气温是 21°C" after 23.4, 19.8 and 24.2, even from a calculator fed the wrong
  figures);
- a day count the question settles (to 2027-01-01 from today, once get_today has said
  2026-03-01: 306) that the answer does not state, even one a calculator gave ("还有 0 天"
  after `calculator("5 * (2027-2026-1) / 3")`): `miscounted_days`;
- amounts the question gives that nothing uses once a tool has answered ("再加上已有的 500 元"
  answered "2180元", 20 × 109): `figures.unused_givens` (skipped when the answer states every
  expected figure).

`unsupported_figures` and `comparison_problem` are the two checks an agent's guard can run on
a draft answer. Failure-mode names and their order are the benchmark's (`MODES`; the rules are
in benchmarks/scoring.py, which builds on this module). Deliberately NOT here: wording, tone,
language, units, common knowledge (pass it as `Expected(figures=…)`), calling a tool or a
model. Notebook 04 introduces the grader: every live run in the series is followed by its verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple

from reactlab import claims
from reactlab.claims import Subject
from reactlab.day_count import DAYS_ASKED, asked_days, asked_span, days_between_ran
from reactlab.figures import (
    argument_text,
    figures,
    invented_inputs,
    is_rounding,
    normalise,
    unused_givens,
    value,
    wrong_sums,
)
from reactlab.figures import unsupported_figures as _unsupported
from reactlab.runlog import STATUSES, RunResult, Step

MODES = ("provider_error", "loop", "format_error", "step_limit", "invented_data", "incomplete",
         "wrong_answer")
BUDGET_ENDS = ("max_steps", "max_tokens")
OWN_OBSERVATION = re.compile(r"(?im)^[ \t*]*Observation\s*[:：]")
# a tool call written out as the "answer": ReAct-JSON style and native style
CALL_AS_ANSWER = re.compile(r'"action"\s*:\s*"(?!Final Answer")[^"]+"\s*,\s*"action_input"'
                            r'|"name"\s*:\s*"[^"]+"\s*,\s*"arguments"\s*:')


@dataclass(frozen=True)
class Expected:
    """What the caller knows about the right answer; every field is optional.

    figures: values the answer must state ("1530", "67.92", a date "2026-03-01"); they also
    count as supported. winner: the name the answer must come out with. parts: the names it
    must cover, each a name or a tuple of spellings.
    Example: Expected(figures=("1530",), winner="贵州茅台", parts=(("北京", "Beijing"), "广州"))
    """

    figures: tuple[str, ...] = ()
    winner: str | None = None
    parts: tuple[str | tuple[str, ...], ...] = ()


@dataclass
class Verdict:
    """grade()'s result. str(v) is one line: "verdict: ✔ …" or "verdict: ✘ <reasons>"."""

    ok: bool
    reasons: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    mode: str | None = None  # a benchmark failure mode (MODES) when not ok
    # what the two difference checks found, for the guard's correction (not re-derived there)
    misnamed: list[tuple[str, str]] = field(default_factory=list)  # misnamed_differences
    gaps: list[str] = field(default_factory=list)  # wrong_differences
    unused: list[str] = field(default_factory=list)  # unused_givens: the question's amounts
    skipped: list[str] = field(default_factory=list)  # skipped: fetched names given no figure
    # claims.unfetched: (name, figure, error) for a figure given a name whose lookup failed
    unfetched: list[tuple[str, str, str]] = field(default_factory=list)
    totals: list[str] = field(default_factory=list)  # per_day_totals: the expressions
    days: list[str] = field(default_factory=list)  # unstated_days: the day count left out
    aggregates: list[str] = field(default_factory=list)  # aggregates: the mean or sum to compute
    counted: list[str] = field(default_factory=list)  # miscounted_days: the right day count

    def __str__(self) -> str:
        return f"verdict: {'✔' if self.ok else '✘'} " + "; ".join(self.reasons)

    def _repr_markdown_(self) -> str:
        head = f"**verdict: {'✔' if self.ok else '✘'}**" + (f" ({self.mode})" if self.mode else "")
        return head + "\n\n" + "\n".join(f"- {r}" for r in self.reasons)


def _readings(subs: dict[str, Subject]) -> tuple[Decimal, ...]:
    """Every fetched reading, and each quantity's sum and mean over the names: the operands
    of a calculation done without the calculator (26.1 − 15.6; the average of three cities)."""
    found = [claims.reading(s, q) for s in subs.values() for q in [*claims.QUANTITIES, None]]
    for q in claims.QUANTITIES:
        same = [v for v in (claims.reading(s, q) for s in subs.values()) if v is not None]
        found += [sum(same), sum(same) / len(same)] if len(same) >= 3 else []
    return tuple(v for v in dict.fromkeys(found) if v is not None)


def unsupported_figures(answer: str | None, result: RunResult) -> list[str]:
    """The answer's figures that no tool result, the question or a calculation supports.

    Example: after days_between -> "32" and calculator -> "-200", "一共能存1600元" -> ["1600"]
    """
    return _unsupported(answer, result, operands=_readings(claims.subjects(result)))


def comparison_problem(answer: str | None, result: RunResult) -> str | None:
    """Why the answer's comparison contradicts the fetched data; None when it does not (or
    makes none). Example: after 青岛啤酒 67.92 and 贵州茅台 1488.21, "青岛啤酒的收盘价更高" ->
    'the answer says 青岛啤酒 is "更高" (closing price), but the tool results give …'"""
    subs = claims.subjects(result)
    return claims.comparison(answer or "", result, subs, claims.names(subs))


# a figure the answer calls a difference: "相差778.065", "高 1420.29", "higher by 1420.29"
_DIFFERENCE = re.compile(
    r"(?:相差|差距|差额|差值|差|高出|高|低|多出|多|少|贵|便宜)(?:了|出)?(?:约|大约|为|是)?[:：]?"
    r"[ \t]{0,3}(\d[\d,.]*)"
    r"|(?i:\b(?:by|difference(?: of| is)?|differs? by)[:：]?[ \t]{0,3})(\d[\d,.]*)")


def misnamed_differences(answer: str | None, result: RunResult) -> list[tuple[str, str]]:
    """(figure, expression) for each figure the answer calls a difference although the
    calculator computed it without subtracting anything: a mean or a sum reported as 相差.

    Example: after calculator("(67.92 + 1488.21) / 2") -> 778.065, the answer
             "两者相差778.065" -> [("778.065", "(67.92 + 1488.21) / 2")]
    """
    computed = [(argument_text(c.arguments), value(fs[0])) for s in result.steps or []
                for c in s.tool_calls or [] if c.name == "calculator" and not c.error
                and (fs := figures(c.observation))]
    out = []
    for m in _DIFFERENCE.finditer(normalise(answer or "")):
        stated = figures(m.group(1) or m.group(2))
        if not stated:
            continue
        got = value(stated[0])
        sources = [e for e, v in computed if is_rounding(got, v) or is_rounding(got, abs(v))]
        if sources and not any("-" in e for e in sources):
            out.append((stated[0], sources[0]))
    return list(dict.fromkeys(out))


def _stated_gap(word: str, clause: str) -> str | None:
    """The figure a comparison gives as its size: "比北京高0.8°C", "warmer by 0.8", "0.8°C
    warmer". Example: _stated_gap("高", "广州比北京高1.8°C") -> "1.8" """
    w = re.escape(word)
    m = (re.search(w + r"(?:了|出)?(?:约|大约)?[ \t]{0,2}(?:by[ \t]{1,2})?(\d+(?:\.\d+)?)", clause)
         or re.search(w + r"[^\d,，。;；]{0,30}?\bby[ \t]{1,2}(\d+(?:\.\d+)?)", clause)
         or word.isascii() and re.search(  # English only: "比北京的23.4°C高" states a reading
             r"(\d+(?:\.\d+)?)[ \t]{0,2}(?:°C|%|CNY|degrees?|points?)?[ \t]{0,2}" + w, clause))
    return m.group(1) if m else None


def wrong_differences(answer: str | None, result: RunResult) -> list[str]:
    """Comparisons whose stated size is not the gap between the two fetched readings.

    Example: after 广州 24.2°C and 北京 23.4°C, "广州比北京高1.8°C" -> ['the answer says 广州 is
             "高" than 北京 by 1.8, but the tool results give 广州 24.2 and 北京 23.4: a gap of 0.8']
    """
    subs = claims.subjects(result)
    known = claims.names(subs)
    out = []
    for claimed, others, _, word, clause in claims.claims(normalise(answer or ""), known):
        if len(others) != 1 or claimed not in subs or others[0] not in subs:
            continue
        q = claims.quantity(word, clause, result.question or "")
        mine, theirs = (claims.reading(subs[n], q) for n in (claimed, others[0]))
        stated = _stated_gap(word, clause) if q and None not in (mine, theirs) else None
        if stated is None:
            continue
        gap = abs(mine - theirs)
        if not is_rounding(value(stated), gap):
            out.append(f'the answer says {claimed} is "{word}" than {others[0]} by {stated}, but '
                       f"the tool results give {claimed} {mine} and {others[0]} {theirs}: a gap "
                       f"of {gap.normalize():f}")
    return out


# a figure the answer calls a mean: "平均气温是 21°C", "The average humidity of the four cities
# (天津, 青岛, 哈尔滨, 昆明) is 48%"; or a total: "三地现在的气温加起来是54.6度", "The total cost of
# one share of Kweichow Moutai and one share of Tsingtao Brewery … is 778.065 CNY"
# up to 90 characters between the word and its figure: "The average temperature of Xiamen,
# Changsha, and Chongqing right now is 23.5°C" (the suite's t48) puts 61 there
_MEAN = re.compile(r"(?:平均|均值|(?i:\baverage\b|\bmean\b))[^\d。;；\n]{0,90}?(\d+(?:\.\d+)?)")
_TOTAL_WORDS = r"加起来|加在一起|总和|之和|合计|总共|一共|(?i:\btotal\b|\bsum\b|\bcombined\b|\btogether\b|altogether)"
_TOTAL = re.compile(rf"(?:{_TOTAL_WORDS})[^\d。;；\n]{{0,120}}?(\d+(?:\.\d+)?)")


def _asked_readings(result: RunResult) -> list[tuple[str, Decimal]] | None:
    """(name, reading) of every name the question asks about, in its quantity; None unless
    two or more are asked, every one fetched, and the question names the quantity."""
    subs = claims.subjects(result)
    known = claims.names(subs)
    asked = list(dict.fromkeys(n for _, _, n in claims.mentions(result.question or "", known)))
    q = claims.quantity(result.question or "")
    if len(asked) < 2 or q is None or any(n not in subs for n in asked):
        return None
    readings = [claims.reading(subs[n], q) for n in asked]
    return None if None in readings else list(zip(asked, readings))


def _stated(pattern: re.Pattern, text: str, right: Decimal) -> list[str]:
    """The figures `pattern` finds that are not a rounding of `right`; a match passes when any
    figure in the rest of its sentence is ("Average: \\(\\frac{67.4}{3} = 22.47°C\\)")."""
    out = []
    for m in pattern.finditer(text):
        rest = re.split(r"[。;；\n]|\.(?:\s|$)", text[m.start(1):m.start(1) + 120])[0]
        if not any(is_rounding(got, right) for got in map(value, figures(rest) or [m.group(1)])):
            out.append(m.group(1))
    return list(dict.fromkeys(out))


def _listing(pairs: list[tuple[str, Decimal]]) -> tuple[str, str]:
    """(the readings named, their sum's expression) for a mean's or a total's text.
    Example: _listing([("北京", Decimal("23.4")), ("上海", Decimal("19.8"))])
             -> ("北京 23.4 and 上海 19.8", "23.4 + 19.8")"""
    named = ", ".join(f"{n} {r:f}" for n, r in pairs[:-1]) + f" and {pairs[-1][0]} {pairs[-1][1]:f}"
    return named, " + ".join(f"{r:f}" for _, r in pairs)


def asked_aggregate(result: RunResult) -> tuple[str, str, str] | None:
    """(kind, the readings named, the calculator expression) when the question asks for a mean
    or a total of two or more names' readings and every one is fetched; None otherwise (a
    total only when the question gives no figure of its own, as in `aggregates`).

    Example: question "北京、上海、广州三地现在的平均气温是多少？", all three fetched ->
             ("mean", "北京 23.4, 上海 19.8 and 广州 24.2", "(23.4 + 19.8 + 24.2) / 3")
    """
    pairs = _asked_readings(result)
    if not pairs:
        return None
    question = normalise(result.question or "")
    named, plus = _listing(pairs)
    if re.search(r"平均|均值|(?i:\baverage\b|\bmean\b)", question):
        return "mean", named, f"({plus}) / {len(pairs)}"
    if re.search(_TOTAL_WORDS, question) and not figures(question):
        return "total", named, plus
    return None


def aggregates(answer: str | None, result: RunResult) -> list[tuple[str, str]]:
    """(reason, fact) for each mean or total the answer states that is not the mean or the sum
    of the fetched readings of the names the question asks about (every one fetched, two or
    more, the question naming the quantity). A calculator result does not excuse it: the
    1.5B computes `(23.4 + 19.8 + 19.8) / 3` before the third city is fetched.
    A total is checked only when the question asks for one and states no figure of its own
    ("10 shares of A and 100 of B" is not the plain sum).

    Example: after 北京 23.4, 上海 19.8 and 广州 24.2 °C, "三地的平均气温是 21°C" ->
             [('the answer gives 21 as the mean, but the mean of the fetched readings
             (23.4, 19.8, 24.2) is 22.47', 'the mean of 北京 23.4, 上海 19.8 and 广州 24.2,
             (23.4 + 19.8 + 24.2) / 3')]
    It does NOT check a mean or total of anything else (shares, days, a subset of the names).
    """
    pairs = _asked_readings(result)
    if not pairs or not answer:
        return []
    readings = [r for _, r in pairs]
    listed = ", ".join(f"{r:f}" for r in readings)
    named, plus = _listing(pairs)
    text = normalise(answer)
    total, mean = sum(readings), sum(readings) / len(readings)
    out = [((f"the answer gives {got} as the mean, but the mean of the fetched readings "
            f"({listed}) is {round(float(mean), 2):g}"),
            f"the mean of {named}: ({plus}) / {len(readings)}")
           for got in _stated(_MEAN, text, mean)]
    question = normalise(result.question or "")
    if re.search(_TOTAL_WORDS, question) and not figures(question):
        out += [((f"the answer gives {got} as the total, but the sum of the fetched readings "
                 f"({listed}) is {total:f}"), f"the sum of {named}: {plus}")
                for got in _stated(_TOTAL, text, total)]
    return out


def _day_counts(result: RunResult) -> list[Decimal]:
    """What each successful `days_between` call returned (a bare count), in order."""
    return [value(c.observation.strip()) for st in result.steps or [] for c in st.tool_calls or []
            if c.name == "days_between" and not c.error
            and re.fullmatch(r"\s*-?\d+\s*", c.observation or "")]


# an amount per day in the question: "每天存 5 元", "read 3 pages a day", "save 15 yuan every
# day", "run 5 km every one of those days"
_PER_DAY = re.compile(
    r"每(?:一)?天[^\d，,。？?；;]{0,4}?(\d+(?:\.\d+)?)"
    r"|(?<![\d.-])(\d+(?:\.\d+)?)[ \t]*(?:[A-Za-z元]+[ \t]+){0,2}?(?i:a|per|each|every)[ \t]+"
    r"(?i:one of those[ \t]+)?days?\b")
# an amount already there: "再加上已有的 500 元", "plus the 200 yuan I already have"
_START = re.compile(r"已(?:经)?有的?[ \t]*(\d+(?:\.\d+)?)|(?i:\bplus[ \t]+(?:the[ \t]+)?)(\d+(?:\.\d+)?)"
                    r"|(\d+(?:\.\d+)?)[ \t]*(?:[A-Za-z元]+[ \t]+){0,2}?(?i:I[ \t]+already[ \t]+have)")


class PerDay(NamedTuple):
    """An amount a day over a day count: `per_day_total`'s reading of a question."""

    rate: Decimal
    days: Decimal
    starts: list[Decimal]  # the amounts already there
    expr: str  # the calculator expression: "306 * 5", "353 * 8 + 200"

    @property
    def total(self) -> Decimal:
        """Example: PerDay(Decimal("8"), Decimal("353"), [Decimal("200")], "…").total -> 3024"""
        return self.days * self.rate + sum(self.starts)


def per_day_total(result: RunResult) -> PerDay | None:
    """(rate, days, the amounts already there, the calculator expression) when the question
    counts one amount per day over the days the last successful `days_between` call returned;
    None otherwise. `per_day_totals` checks an answer with it; `hints.per_day_hint` names the
    calculator call with it.

    Example: "…每天存 5 元，一共能存多少？" after days_between -> 306 ->
             PerDay(Decimal("5"), Decimal("306"), [], "306 * 5")
    """
    question = normalise(result.question or "")
    rates = [value(a or b) for a, b in _PER_DAY.findall(question)]
    days = _day_counts(result)
    if len(rates) != 1 or not days:
        return None
    rate, n = rates[0], abs(days[-1])
    starts = [value(next(g for g in m if g)) for m in _START.findall(question)]
    expr = f"{n:f} * {rate:f}" + "".join(f" + {s:f}" for s in starts)
    return PerDay(rate, n, starts, expr)


def per_day_totals(answer: str | None, result: RunResult) -> list[tuple[str, str]]:
    """(reason, expression) when the question counts an amount per day over the days a
    `days_between` call returned, and the answer does not state that total.

    Example: "到2026年9月10日还有多少天？如果每天存 10 元，一共能存多少钱？" after days_between -> 193,
             the answer "293" -> [("the question counts 10 a day over the 193 days days_between
             gave: the total is 193 * 10 = 1930, and the answer does not state it", "193 * 10")]
    It does NOT read the answer's wording: any stated figure equal to the total passes.
    """
    found = per_day_total(result)
    if found is None or not answer:
        return []
    rate, n, _, expr = found
    total = found.total
    stated = {value(f) for f in figures(answer)}
    if any(is_rounding(got, total) for got in stated):
        return []
    return [((f"the question counts {rate:f} a day over the {n:f} days days_between gave: the "
             f"total is {expr} = {total:f}, and the answer does not state it"), expr)]


def unstated_days(answer: str | None, result: RunResult) -> list[str]:
    """The day count `days_between` returned, when the question asks how many days and the
    answer does not state it (the total alone: "2680" for "还有多少天？…一共有多少钱？").

    Example: after days_between -> "109", the answer "2680" -> ["109"]
    """
    if not answer or not DAYS_ASKED.search(result.question or ""):
        return []
    days = _day_counts(result)
    if not days:
        return []
    stated = {value(f) for f in figures(answer)}
    return [] if abs(days[-1]) in stated else [f"{abs(days[-1]):f}"]


def miscounted_days(answer: str | None, result: RunResult) -> list[tuple[str, str]]:
    """(reason, count) when the question asks how many days between dates it settles (its two
    dates, or today as get_today gave it and its one date: `day_count.asked_span`) and the
    answer does not state that count, wherever its figures came from. A day count that
    `days_between` gave and the answer left out is `unstated_days`'s, and is not said twice.

    Seen on the suite's ReAct t19: after get_today -> 2026-03-01 the 1.5B wrote
    `calculator("5 * (2027-2026-1) / 3")` -> 0 and answered "还有 0 天 … 0 元": every figure
    came from a calculation, and the days to 2027-01-01 are 306.
    Example: that run -> [("the question asks how many days from 2026-03-01 to 2027-01-01:
             306, and the answer does not state it (days_between never ran)", "306")]
    It does NOT read the answer's wording: any stated figure equal to the count passes.
    """
    if not answer or (n := asked_days(result.question or "", result.steps or [])) is None:
        return []
    stated = {value(f) for f in figures(answer)}
    if Decimal(n) in stated or f"{n}" in unstated_days(answer, result):
        return []
    first, last = asked_span(result.question or "", result.steps or [])
    ran = days_between_ran(result.steps or [])
    why = (f"the question asks how many days from {first} to {last}: {n}, and the answer does "
           f"not state it{'' if ran else ' (days_between never ran)'}")
    return [(why, f"{n}")]


def wrote_own_observation(result: RunResult) -> bool:
    """A reply (not a tool result) with an `Observation:` line: the model made one up."""
    return any(s.kind in ("action", "final", "parse_error") and OWN_OBSERVATION.search(s.text or "")
               for s in result.steps or [])


def _status(result: RunResult) -> tuple[str, str] | None:
    """(mode, reason) when the run did not end with an answer of its own."""
    status, answer = result.status, result.answer or ""
    said = STATUSES.get(status, "an unknown status")
    if status in ("provider_error", "error"):  # the provider failed, or reactlab itself did
        return "provider_error", f"the run ended with {status}: {said}"
    if CALL_AS_ANSWER.search(answer):
        return "format_error", "the answer is a tool call written out as JSON, not an answer"
    if status == "loop":
        return "loop", f"the run ended with loop: {said}"
    model_steps = [s.kind for s in result.steps or [] if s.kind != "final_request"]
    bad = sum(k in ("parse_error", "empty") for k in model_steps)
    if status == "parse_errors":
        return "format_error", f"the run ended with parse_errors: {said}"
    if status in BUDGET_ENDS and model_steps and bad * 2 >= len(model_steps):
        return "format_error", (f"the run ended with {status} after {bad} of {len(model_steps)} "
                                "replies were unreadable or empty")
    if status in BUDGET_ENDS:
        return "step_limit", f"the run ended with {status}: {said}"
    if status != "final":
        return "wrong_answer", f"the run ended with status {status!r}: {said}"
    if not answer.strip():
        return "wrong_answer", "the run gave no answer"
    if echoes_question(answer, result.question):
        return "wrong_answer", "the answer repeats the question and adds nothing to it"
    if told := echoed_message(answer, result.steps or []):
        return "wrong_answer", (f"the answer repeats what the model was told after step "
                                f"{told.number} and adds nothing to it")
    if asks_back(answer):
        return "wrong_answer", "the answer asks the user for something instead of answering"
    return None


# a request to the user at the end of an answer, and the words that say a lookup failed
_ASK_BACK = re.compile(
    r"(?:could|can|would|will) you (?:please )?(?:provide|tell|give|specify|clarify|share|confirm)"
    r"|please (?:provide|specify|tell me|clarify|share|confirm)|let me know (?:the|which|what)"
    r"|请(?:您)?(?:提供|告诉我|说明|确认|补充|指定)|您能(?:否)?(?:提供|告诉)", re.IGNORECASE)
_SAYS_FAILED = re.compile(
    r"not (?:found|listed|available|in the|known)|unknown|unavailable|can't|cannot|could not|"
    r"couldn't|unable|no data|无法|未找到|没有找到|没找到|找不到|查不到|未搜到|不在|失败|没有数据|暂无",
    re.IGNORECASE)


def asks_back(answer: str | None) -> bool:
    """True when the answer's last sentence asks the user for something, the answer states no
    figure, and it does not say that a lookup failed: a reply that hands the question back
    ("To find the closing price of Beijing, I need to know the stock's name. Could you please
    provide the name of the stock?" for 中国的首都是哪座城市？, t01 of the suite's tenth round).
    Asking for a name after saying a stock was not found is an answer, and is not caught.

    Example: asks_back("Could you please provide the name of the stock?") -> True
    """
    text = normalise(answer or "").strip()
    sentences = [t for t in re.split(r"(?<=[.!?。！？])\s*", text) if t.strip()]
    return bool(sentences and _ASK_BACK.search(sentences[-1]) and not figures(text)
                and not _SAYS_FAILED.search(text))


_PUNCT = re.compile(r"[\s\W_]+")


_QUESTION_END = re.compile(r"[?？]")  # where one of the question's own questions ends


def restated(answer: str, question: str | None) -> str:
    """The answer without the question it opens with, word for word: the 1.5B sometimes starts
    its answer by copying the question, whose names and words ("which city is the warmest …
    than the coldest") would be read as claims. An answer that is only the question is kept
    (`echoes_question` judges it).

    The copy can be the question's first sentences, up to a question mark: "成都和重庆现在哪个城市
    的湿度更高？两地的湿度分别是66%和70%。" copies the first of the question's two questions, and
    its 重庆 is no answer to "which".

    Example: restated("北京热吗？北京23.4°C。", "北京热吗？") -> "北京23.4°C。"
    """
    a, q = normalise(answer).lstrip(), normalise(question or "").strip()
    ends = [m.end() for m in _QUESTION_END.finditer(q)]
    for end in sorted({*ends, len(q)}, reverse=True):  # the longest copy first
        copy = q[:end].strip()
        if len(copy) >= 4 and a.casefold().startswith(copy.casefold()) and a[len(copy):].strip():
            return a[len(copy):].lstrip()
    return answer


def echoes_question(answer: str | None, question: str | None) -> bool:
    """True when the answer is the question again and (almost) nothing else (three letters at
    most beside it, no figure): the 1.5B sometimes hands back
    the last message it read ("What do one share of Kweichow Moutai and one share of Tsingtao
    Brewery cost together at their closing prices?" as the answer to that question, t51).
    An answer that restates the question and then answers it, even in one word ("… Harbin or
    Kunming? Kunming."), is not an echo.

    Example: echoes_question("上海现在的气温是多少度？", "上海现在的气温是多少度？") -> True
    """
    a, q = _PUNCT.sub("", normalise(answer or "")).casefold(), _PUNCT.sub("", normalise(
        question or "")).casefold()
    if len(q) < 4 or q not in a:
        return False
    rest = a.replace(q, "")
    return not figures(rest) and len(rest) <= 3


def echoed_message(answer: str | None, steps: list[Step]) -> Step | None:
    """The step after which the loop sent the message this answer only repeats (`echoes_question`
    against each step's `feedback`), or None. A copied correction carries the checked fact, so
    its figures are all supported; it is still the loop's text, not the model's answer.
    Measured on 07's 北京和上海 comparison with a correction that began "The question was: …":
    the 1.5B handed that correction back as its answer, and the grader passed it.

    Example: a step whose feedback is "Checked against the tool results: 上海 19.8 …" and the
             answer "Checked against the tool results: 上海 19.8 …" -> that step
    """
    return next((s for s in reversed(steps) if s.feedback and echoes_question(answer, s.feedback)),
                None)


def _expected(answer: str, expected: Expected, known: dict) -> list[str]:
    stated = [value(f) for f in figures(answer)]
    out = []
    for fig in expected.figures:
        parts = [value(f) for f in figures(str(fig))]
        if re.fullmatch(r"\s*\d{4}-\d{1,2}-\d{1,2}\s*", str(fig)):
            ok = all(p in stated for p in parts)  # a date: its year, month and day
        else:  # at least as precise as expected: 1488 is not 1488.21
            ok = bool(parts) and any(is_rounding(parts[0], v) for v in stated)
        if not ok:
            out.append(f"the answer does not state {fig}, the expected figure")
    if expected.winner and not _names(answer, claims.home(expected.winner, known), known):
        out.append(f"the answer never names {expected.winner}, the expected winner")
    return out


# after a name, a clause that ends in a bare comparison: "茅台贵", "北京的气温高一些"
_TERSE = re.compile(r"(?:的?(?:收盘价|价格|股价|气温|温度|湿度|空气|AQI))?(?:更|较|要|还)?("
                    + "|".join(sorted(claims.BI_ADJ, key=len, reverse=True))
                    + r")(?:一些|些|了)?", re.IGNORECASE)


def _names(answer: str, name: str, known: dict[str, set[str]]) -> bool:
    """Does the answer mention `name` (an entry of `known`) in any of its spellings?"""
    return name in {n for _, _, n in claims.mentions(answer, known)}


_EDGE = " *_`\"'“”:：,，"  # markup and punctuation around a clause's words


def concluded(answer: str, known: dict[str, set[str]], winner: str) -> bool:
    """Does the answer say which one wins at all: a comparison stated in words (`claims.claims`:
    "更高", "X 比 Y 冷", "the warmest"), a clause that ends a name with a bare one ("茅台贵"),
    or a last sentence that is the winner's name alone?
    Whether it says so the right way round is `claims.comparison`'s check, not this one.
    Measured on the suite (2026-12-06): answers that listed both figures and stopped
    ("北京的气温是23.4°C, 上海的气温是19.8°C." for 哪个更冷) named the expected winner, so the
    winner check alone passed them.

    Example: concluded("青岛啤酒 67.92，贵州茅台 1488.21。", known, "贵州茅台") -> False
    """
    text = normalise(answer or "")
    if next(claims.claims(text, known), None) is not None:
        return True
    for clause in re.split(r"[，,。；;:：!！\n]+|\.(?!\d)", text):  # a terse "茅台贵"
        spans = claims.mentions(clause, known)
        if spans and _TERSE.fullmatch(clause[max(b for _, b, _ in spans):].strip(" *_`:：")):
            return True
    last = [t for t in re.split(r"[。!！\n]+|\.(?!\d)", text) if t.strip(_EDGE)]
    tail = last[-1].strip(_EDGE).casefold() if last else ""
    return tail in {w.casefold() for w in known.get(winner, {winner})}


def _invention(result: RunResult, stated: list[str], unsupported: list[str], unmet: list[str],
               wrong_owner: list, subs: dict[str, Subject]) -> list[tuple[str, str]]:
    """Made-up observations, made-up tool inputs, unsupported figures, misattributed ones."""
    out = []
    if wrote_own_observation(result):
        out.append(("invented_data" if stated else "wrong_answer",
                    ("a reply contains an Observation: line the model wrote itself (only tools "
                     "write observations)")))
    out += [("invented_data", (f"{tool} was given {', '.join(figs)}, which neither the "
                               "question nor an earlier tool result gives"))
            for tool, figs in invented_inputs(result)]
    if unsupported:
        few = ", ".join(unsupported[:6]) + (" …" if len(unsupported) > 6 else "")
        one = len(unsupported) == 1
        fetched = any(not c.error for s in result.steps or [] for c in s.tool_calls or [])
        # as in the benchmark: with every fact fetched, a figure nothing gives is a wrong answer
        # (bad arithmetic, a miscopy); with a fact missing, it is invented
        invented = unmet or not fetched or any(o not in subs for o, _, _ in wrong_owner)
        out.append(("invented_data" if invented else "wrong_answer",
                    (f"{few} {'is' if one else 'are'} not supported: no tool result or "
                     f"calculation gives {'it' if one else 'them'}")))
    for owner in dict.fromkeys(o for o, _, _ in wrong_owner):
        figs = ", ".join(dict.fromkeys(f for o, f, _ in wrong_owner if o == owner))
        whose = " and ".join(dict.fromkeys(b for o, _, bs in wrong_owner if o == owner for b in bs))
        own = (f"{owner}'s own tool result says {subs[owner].gist()}" if owner in subs
               else f"no tool result for {owner} came back")
        out.append(("wrong_answer" if owner in subs else "invented_data",
                    f"{owner} is given {whose}'s figures ({figs}): {own}"))
    return out


def _coverage(unmet: list[str], stated: list[str], wrong_owner: list, left: list[str],
              subs: dict[str, Subject]) -> list[tuple[str, str]]:
    """Parts never fetched; and, when the answer states one part's figures, parts it skips."""
    # as in the benchmark: a missing part is "incomplete" only when the answer states figures
    # (a part already named as given another's figures has said "no tool result" once)
    owners = {o for o, _, _ in wrong_owner}
    out = [("incomplete" if stated else "wrong_answer",
            f"no tool result for {p} came back, so the answer cannot cover it")
           for p in unmet if p not in owners]
    out += [("wrong_answer", (f"the answer gives no figure for {p} (its tool result: "
                              f"{subs[p].gist()})"))
            for p in left]
    return out


# the question asks for every name's own figure: "两地的湿度分别是多少？", "各是多少"
EACH_ASKED = re.compile(r"分别|各(?:是|为|自|有)|(?i:\beach\b|\brespectively\b)")


def skipped(parts: list[str], stated: list[str], wrong_owner: list,
            subs: dict[str, Subject], each: bool = False) -> list[str]:
    """The fetched parts an answer gives no figure for, when it gives another part's figures
    or, with `each` (the question asks for each one's figure: `EACH_ASKED`), whatever it
    gives; in `parts`' order. Otherwise an answer with no part's figure skips nothing here.

    Example: parts ["厦门", "长沙"], both fetched (74 % and 69 %), stated ["69%"] -> ["厦门"]
    Example: "北京、上海、广州现在的气温分别是多少？三地的平均气温是多少？", all three fetched,
             stated ["22.47"] (the mean alone: the suite's native t25) -> ["北京", "上海", "广州"]
    """
    pools = {p: subs[p].pool for p in parts if p in subs}
    values = [value(f) for f in stated]
    if len(pools) < 2 or not (each or any(pool.supports(v) for pool in pools.values()
                                          for v in values)):
        return []
    misattributed = {o for o, _, _ in wrong_owner}
    return [p for p, pool in pools.items()
            if p not in misattributed and not any(pool.supports(v) for v in values)]


_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{4,}")
_LONG_WORD = re.compile(r"[A-Za-z]{7,}")


def _quotes(answer: str, passages: list[str]) -> bool:
    """Does the answer reuse a tool result's words (4 Chinese characters in a row, or a word of
    7+ letters)? How a text answer from a document search shows it used the search.

    Example: _quotes("一盅两件。", ["[1] 广州早茶：一盅两件，…"]) -> True
    """
    text = " ".join(passages).casefold()
    for run in _CJK_RUN.findall(answer):
        if any(run[i:i + 4] in text for i in range(len(run) - 3)):
            return True
    return any(w.casefold() in text for w in _LONG_WORD.findall(answer))


def grade(result: RunResult, expected: Expected | None = None) -> Verdict:
    """Judge one run's answer against the run itself (and `expected`, where known).

    Example: a run that fetched 青岛啤酒 67.92 and 贵州茅台 1488.21 and answered
    "青岛啤酒的收盘价更高，高1420.29" -> verdict ✘ (wrong_answer): the comparison is backwards.
    """
    answer, expected = restated(result.answer or "", result.question), expected or Expected()
    wanted = [p for p in expected.parts  # parts with at least one spelling to look for
              if any(str(s).strip() for s in ([p] if isinstance(p, str) else p))]
    subs = claims.subjects(result)
    known = claims.names(subs, [*wanted, *([expected.winner] if expected.winner else [])])
    stated = list(dict.fromkeys(figures(answer)))
    unsupported = _unsupported(answer, result, tuple(map(str, expected.figures)), _readings(subs))
    parts = list(dict.fromkeys(
        [claims.home(p, known) for p in wanted] if wanted
        else claims.asked_homes(result.question or "", known)))  # a partner joins `known`
    # a part is met by its own tool result, or by a passage that is about it (a document search
    # for 广州's 早茶 answers "在广州…" without a result whose subject is 广州)
    passages = [c.observation for s in result.steps or [] for c in s.tool_calls or []
                if c.observation and not c.error]
    unmet = [p for p in parts if p not in subs
             and not any(claims.mentions(text, {p: known.get(p, {p})}) for text in passages)]
    # a part every lookup of which failed is covered by an answer that names it and gives it
    # no figure ("上海的天气数据无法获取"): that is what the tools said
    failed = claims.failed_names(result, subs, known)
    given = claims.unfetched(answer, result, subs, known)  # figures for failed names
    owned = {n for n, _, _ in given}
    told = [p for p in unmet if p in failed and p not in owned
            and claims.mentions(answer, {p: known.get(p, {p})})]
    unmet = [p for p in unmet if p not in told]
    wrong_owner = claims.misattributed(answer, result, subs, known)
    # a figure for a name whose lookup failed, unless it is already unsupported (said once)
    lost = [u for u in given if u[1] not in unsupported]

    problems = [status] if (status := _status(result)) else []  # (mode, reason), in order
    problems += _invention(result, stated, unsupported, unmet, wrong_owner, subs)
    for name in dict.fromkeys(n for n, _, _ in lost):
        figs = ", ".join(dict.fromkeys(f for n, f, _ in lost if n == name))
        why = next(w for n, _, w in lost if n == name)
        problems.append(("invented_data", (f"the lookup for {name} failed ({why}), yet the "
                                           f"answer gives {name} {figs}")))
    left = skipped(parts, stated, wrong_owner, subs,
                   each=bool(EACH_ASKED.search(normalise(result.question or ""))))
    problems += _coverage(unmet, stated, wrong_owner, left, subs)
    fetched = any(not c.error for s in result.steps or [] for c in s.tool_calls or [])
    if fetched and not stated and not claims.mentions(answer, known) and not problems \
            and not _quotes(answer, passages):
        problems.append(("wrong_answer", ("the answer uses nothing the tools returned: no "
                                          "figure and no name")))
    if compared := claims.comparison(answer, result, subs, known):
        problems.append(("wrong_answer", compared))
    problems += [("wrong_answer", f"the answer's arithmetic is wrong: {s}")
                 for s in wrong_sums(answer)]
    unmet_expected = _expected(answer, expected, known)
    # an answer that states every figure the caller expects has used what it needed
    keyed = bool(expected.figures) and not unmet_expected
    unused = [] if keyed else unused_givens(result, _readings(subs))
    if unused:
        problems.append(("wrong_answer", (f"the question gives {', '.join(unused)}, and neither "
                                          f"the answer nor any tool call uses "
                                          f"{'it' if len(unused) == 1 else 'them'}")))
    misnamed = misnamed_differences(answer, result)
    summed = aggregates(answer, result)
    gaps = wrong_differences(answer, result) + [r for r, _ in summed]
    problems += [("wrong_answer", (f"the answer calls {fig} a difference, but the calculator "
                                   f"computed it as {expr}, which subtracts nothing"))
                 for fig, expr in misnamed]
    problems += [("wrong_answer", r) for r in gaps]
    per_day = per_day_totals(answer, result)
    problems += [("wrong_answer", r) for r, _ in per_day]
    untold = unstated_days(answer, result)
    problems += [("incomplete", (f"the question asks how many days, days_between gave {n}, "
                                 "and the answer does not state it")) for n in untold]
    miscounted = miscounted_days(answer, result)
    problems += [("wrong_answer", r) for r, _ in miscounted]
    problems += [("wrong_answer", r) for r in unmet_expected]
    if expected.winner and not compared:
        winner = claims.home(expected.winner, known)
        if _names(answer, winner, known) and not concluded(answer, known, winner):
            problems.append(("incomplete", (f"the answer never says which one it is (expected: "
                                            f"{expected.winner}); it leaves the comparison to "
                                            "the reader")))
    if not problems and told and not stated:
        return Verdict(True, [(f"the lookup for {', '.join(told)} failed, and the answer says so "
                              "without giving it a figure")], [], None)
    if not problems:
        why = (f"every figure comes from a tool result, the question or a calculation "
               f"({', '.join(stated[:6])}{' …' if len(stated) > 6 else ''})" if stated else
               "the answer states no figure, and nothing in it contradicts the tool results")
        return Verdict(True, [why], [], None)
    mode = min((m for m, _ in problems), key=MODES.index)  # the benchmark's order decides
    return Verdict(False, list(dict.fromkeys(r for _, r in problems)), unsupported, mode,
                   misnamed, gaps, unused, left, lost, [e for _, e in per_day], untold,
                   [f for _, f in summed], [n for _, n in miscounted])
