"""Hints: the call a run can make now that a tool has answered what an earlier call lacked.

Four hints, each for a failure the 1.5B repeats until its step budget runs out, and a note
after a hinted call has run.

The date hint is for its commonest failure on date questions. It writes a date call
before it knows today's date (the target date twice, `days_between("2026-10-01",
"2026-10-01")`, or a "today" it imagined, 2025-10-01), the call fails or is held back, and
after `get_today` has answered it still does not put that date into the call: it narrates
"call get_today first" until the step budget runs out. Once `get_today` has answered and such
a call is pending, the step's feedback names that call with today's date in it
(`prompts/date_hint.txt`), and the next request requires that tool. Once per run.

Before `get_today` has answered, the same failure gets the today hint: a date call that
failed or was held back is followed by "call get_today first", with get_today required (the
1.5B otherwise narrates "I'll use days_between" and retries the same two dates). Once per run;
the date hint then puts the answer into the call.

The fetch hint is for questions about several cities or stocks: the model writes the
calculator first with figures it imagined (`calculator("(32 + 29 + 26 + 22) / 4")`), or merges
the cities into one argument, or gives up after one timeout; the call is held back or fails,
and it writes the same call again. When a reply's call failed or was held back and the question
names a city or stock that no tool result covers yet, the step's feedback names the first such
name with the tool that fetches it (`prompts/fetch_hint.txt`), and the next request requires
that tool. Once per name, so a tool that fails for good is asked for once more, not forever.

The inside hint is for a calculator that calls a tool inside its expression
(`calculator("get_closing_price('Kweichow Moutai') / get_closing_price('Tsingtao Brewery')")`),
which the registry refuses with "call get_closing_price first". The 1.5B fetches both prices,
then writes the same expression again. Once every tool call inside it has a result, the step's
feedback gives the expression with those results' figures in place
(`calculator({"expression": "1488.21 / 67.92"})`, `prompts/inside_hint.txt`), and the next
request requires the calculator. Once per run.

Two levers the eleventh round kept, on by default (`Guards.basic()` turns them off). With
`Guards.fetch_chain` the fetch hint also follows the hinted fetch itself, so the names
still missing are fetched one after another (`chained`; with `Guards.free_fetches` up to 4 of
those fetches do not count as steps). With `Guards.aggregate_hints` a calculator call that failed or was
held back, once every reading of a mean or a total the question asks for is in, is followed by
the calculator call over those readings (`aggregate_hint`, `prompts/aggregate_hint.txt`; the
expression comes from `grader.asked_aggregate`). Once per run. With `Guards.per_day_hints`
(on by default since the sixteenth round) the same for a question that counts an amount per
day, once `days_between` has given the days: the calculator call `days * amount (+ what is
already there)` (`per_day_hint`, `prompts/per_day_hint.txt`; from `grader.per_day_total`).
Once per run.

After the call a date, inside, aggregate or per-day hint required has run, the step's feedback
is a short note instead (`done_note`, `prompts/hint_done.txt`): that call has run, do not
make it again, go on with the question. Without it the hint's "Make that call now" stays the
last thing a native request says, and the 1.5B made the call again until the loop detector
stopped it.

Unlike the corrections (`reactlab.correction`), which judge an answer, a hint repairs a call:
it replaces exactly one date argument (the one no result gives, or the first of two equal
ones) and gives up when that is ambiguous; the fetch hint names the name and the tool, and the
model writes the call. Deliberately NOT here: running the call for the model, dates written in
words (明年元旦), any tool without date arguments, names the course data does not know (an
unknown stock is the model's to report). Used by the loop's
`run_tools`: the date and today hints under `Guards(date_hints=True)`, the fetch and inside
hints under `Guards(fetch_hints=True)`. Notebook 07 (section 6) introduces them in words;
benchmarks/results/levers.md measures it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from reactlab import claims
from reactlab.day_count import DATE, asked_span, days_between_ran, question_dates, today_from
from reactlab.figures import known_inputs, made_up
from reactlab.folding import HELD_BACK_OPENING
from reactlab.prompts import render_template
from reactlab.runlog import RunResult, Step

EVENT = "date hint"  # the step event that marks a run's one hint
TODAY_EVENT = "today hint"  # the step event of the run's one today hint
FETCH_EVENT = "fetch hint"  # the step event of a fetch hint: "fetch hint: get_weather for 深圳"
INSIDE_EVENT = "inside hint"  # the step event of the run's one inside hint
AGGREGATE_EVENT = "aggregate hint"  # the step event of the run's one aggregate hint
PER_DAY_EVENT = "per-day hint"  # the step event of the run's one per-day hint
DONE_EVENT = "hint done"  # the step event of the note after a hinted call has run
# a tool called inside an expression: get_weather('厦门')['temperature'], get_weather("x").humidity
_INSIDE = re.compile("(" + "|".join(t for _, _, t in claims.COURSE_DATA) + ")"  # the fetching tools
                     r"""\(\s*(?:\w+\s*=\s*)?(['"])([^'"]{1,40})\2"""
                     r"""\s*\)(?:\s*\[\s*['"]([\w ]{1,30})['"]\s*\]|\.(\w{1,30}))?""")
# which figure of a result a field name asks for (the first figure is the default)
_FIELDS = (("humid", r"humidity (-?\d+(?:\.\d+)?)%"), ("feel", r"feels like (-?\d+(?:\.\d+)?)°C"),
           ("wind", r"(\d+(?:\.\d+)?) m/s"), ("precip", r"precipitation (\d+(?:\.\d+)?) mm"),
           ("press", r"pressure (\d+(?:\.\d+)?) hPa"), ("", r"[:：]\s*(-?\d+(?:\.\d+)?)"))


def _given(steps: list[Step], event: str) -> bool:
    """Has a step of this run an event of this hint already? (the once-per-run bound)"""
    return any(e.startswith(event) for s in steps for e in s.events)


def with_today(arguments: Any, today: str, question: str, earlier: list[Step]) -> dict | None:
    """The arguments with today's date in place of the one date argument that is wrong: a
    value that is not a date ("today", "今天"), a date no result or the question gives, or the
    first of two equal dates. None when no single argument is wrong, or the fix leaves two
    equal dates.

    Example: with_today({"date1": "2025-10-01", "date2": "2026-06-18"}, "2026-03-01",
             "今天到2026年6月18日还有多少天？", []) -> {"date1": "2026-03-01", "date2": "2026-06-18"}
    """
    if not isinstance(arguments, dict):
        return None
    texts = {k: v for k, v in arguments.items()  # the date arguments: by value or by name
             if isinstance(v, str) and (DATE.fullmatch(v.strip()) or "date" in k.lower())}
    if len(texts) < 2:
        return None
    known = known_inputs(question, earlier)
    wrong = [k for k, v in texts.items() if not DATE.fullmatch(v.strip()) or made_up(v, known)]
    if not wrong and len(set(texts.values())) == 1:
        wrong = [next(iter(texts))]  # the target date twice: today goes first
    if len(wrong) != 1:
        return None
    fixed = {**arguments, wrong[0]: today}
    dates = [v for k, v in fixed.items() if k in texts]
    return fixed if len(set(dates)) == len(dates) else None


def date_hint(question: str, steps: list[Step]) -> tuple[str, str] | None:
    """(feedback, tool to require) once get_today has answered and a call with date
    arguments failed or was held back, with no successful call of that tool since; None
    otherwise, and after the run's first hint.

    Example: days_between("2026-10-01", "2026-10-01") failed, then get_today -> 2026-03-01:
             ('Today is 2026-03-01 (get_today\\'s result). … days_between({"date1":
             "2026-03-01", "date2": "2026-10-01"}). Make that call now.', "days_between")
    """
    if _given(steps, EVENT):
        return None
    today = today_from(steps)
    if today is None:
        return None
    for i in range(len(steps) - 1, -1, -1):
        for c in reversed(steps[i].tool_calls):
            if c.name == "get_today" or not c.error:
                continue
            later = [d for s in steps[i + 1:] for d in s.tool_calls if d.name == c.name]
            if any(not d.error for d in later):
                return None  # it ran since: nothing pending
            fixed = with_today(c.arguments, today, question, steps[:i])
            if fixed is None:
                continue
            call = f"{c.name}({json.dumps(fixed, ensure_ascii=False)})"
            return render_template("date_hint", today=today, call=call), c.name
    return None


def today_hint(steps: list[Step], tools: list[str] | tuple[str, ...]) -> tuple[str, str] | None:
    """(feedback, "get_today") when the last step's call with date arguments failed or was
    held back and get_today has not answered yet; None otherwise, and after the run's first.

    Example: days_between("2026-12-25", "2026-12-25") failed, no get_today yet ->
             ("… call get_today now …", "get_today")
    """
    if (not steps or "get_today" not in tools or today_from(steps) is not None
            or _given(steps, TODAY_EVENT)):
        return None
    for c in steps[-1].tool_calls:
        dated = isinstance(c.arguments, dict) and any(
            isinstance(v, str) and (DATE.fullmatch(v.strip()) or "date" in str(k).lower())
            for k, v in c.arguments.items())
        if c.error and c.name != "get_today" and dated:
            return render_template("today_hint", tool=c.name), "get_today"
    return None


def fetchers() -> dict[str, str]:
    """Course name -> the tool whose result covers it, from the bundled teaching data.

    Example: fetchers()["广州"] -> "get_weather"; fetchers()["贵州茅台"] -> "get_closing_price"
    """
    return {name: tool for name, (tool, _) in claims.course_entries().items()}


def unfetched(question: str, steps: list[Step]) -> list[str]:
    """The course names the question asks about that no successful tool result covers yet,
    in the question's order.

    Example: "深圳、杭州、成都、南京四地现在的平均气温是多少？" after get_weather(深圳) -> 24.1
             -> ["杭州", "成都", "南京"]
    """
    subs = claims.subjects(RunResult(question, None, "final", steps=list(steps)))
    known = claims.names(subs)
    asked = dict.fromkeys(n for _, _, n in claims.mentions(question, known))
    fetch = fetchers()
    return [n for n in asked if n not in subs and n in fetch]


def fetch_hint(question: str, steps: list[Step], tools: list[str] | tuple[str, ...],
               chain: bool = False) -> tuple[str, str, str] | None:
    """(feedback, tool to require, name) when the last step's call failed or was held back and a
    name the question asks about has no tool result yet; None otherwise, and for a name
    already hinted once in this run. With `chain`, also right after the call a fetch hint
    asked for has run (`chained`), so the names still missing are fetched one after another
    before the model is free again.

    Example: question "深圳、杭州、成都、南京四地现在的平均气温是多少？", step 1
             calculator("(32 + 29 + 26 + 22) / 4") held back ->
             ("No tool result has covered 深圳, 杭州, 成都, 南京 yet … Call get_weather for
             深圳 now …", "get_weather", "深圳")
    """
    if not steps or not (any(c.error for c in steps[-1].tool_calls)
                         or (chain and chained(steps))):
        return None
    hinted = {e.rsplit(" for ", 1)[-1] for s in steps for e in s.events
              if e.startswith(FETCH_EVENT)}
    names, fetch = unfetched(question, steps), fetchers()
    for name in names:
        tool = fetch[name]
        if name not in hinted and tool in tools:
            return render_template("fetch_hint", names=", ".join(names), first=name,
                                   tool=tool), tool, name
    return None


def chained(steps: list[Step]) -> bool:
    """Has the last step run, without an error, the call the fetch hint before it asked for?

    Measured on the suite's averages over four cities (t47, t49): after the hinted fetch the
    model went back to its calculator call with made-up readings, was held back again, and was
    hinted the next city: two steps per city, and the step budget ran out before the fourth.
    """
    if len(steps) < 2 or not any(e.startswith(FETCH_EVENT) for e in steps[-2].events):
        return False
    return any(c.name == steps[-2].require_call and not c.error for c in steps[-1].tool_calls)


def _figure(result: str, field: str) -> str | None:
    """The figure of a tool result that `field` names. Example: _figure("厦门: 23.5°C (feels
    like 25.0°C), humidity 74%, …", "humidity") -> "74"; field "" -> "23.5" (the first)"""
    for key, pattern in _FIELDS:
        if key in field.lower() and (m := re.search(pattern, result)):
            return m.group(1)
    return None


def with_figures(expression: str, steps: list[Step]) -> str | None:
    """`expression` with each tool call inside it replaced by the figure its result gave, or
    None when one of them has no result yet (or there is none).

    Example: with_figures("get_closing_price('Kweichow Moutai') / get_closing_price('Tsingtao
             Brewery')", steps with both prices) -> "1488.21 / 67.92"
    """
    subs = claims.subjects(RunResult("", None, "final", steps=list(steps)))
    known = claims.names(subs)
    pieces, last, found = [], 0, 0
    for m in _INSIDE.finditer(expression):
        named = [n for _, _, n in claims.mentions(m.group(3), known) if n in subs]
        figure = _figure(subs[named[0]].texts[0], m.group(4) or m.group(5) or "") if named else None
        if figure is None:
            return None
        pieces += [expression[last:m.start()], figure]
        last, found = m.end(), found + 1
    return "".join([*pieces, expression[last:]]) if found else None


def inside_hint(steps: list[Step]) -> tuple[str, str] | None:
    """(feedback, "calculator") when the last step's calculator call was refused for calling a
    tool inside its expression and every such call now has a result; None otherwise, for a
    calculator call held back (not run), and after the run's first inside hint.

    Example: calculator("get_closing_price('Kweichow Moutai') / get_closing_price('Tsingtao
             Brewery')") refused, both prices fetched -> ('… calculator({"expression":
             "1488.21 / 67.92"}). Make that call now.', "calculator")
    """
    if not steps or _given(steps, INSIDE_EVENT):
        return None
    for c in steps[-1].tool_calls:
        expr = c.arguments.get("expression") if isinstance(c.arguments, dict) else c.arguments
        if c.name != "calculator" or not c.error or not isinstance(expr, str):
            continue
        if (c.observation or "").startswith(HELD_BACK_OPENING):
            # held back, not refused: written beside the fetches it needs, often before the
            # model knew which operation the question wants (a mean for "高多少", notebook 06):
            # the model writes the next calculator call itself, from the results
            continue
        if (fixed := with_figures(expr, steps)) is not None:
            call = _calculator(fixed)
            return render_template("inside_hint", call=call), "calculator"
    return None


def aggregate_hint(question: str, steps: list[Step]) -> tuple[str, str] | None:
    """(feedback, "calculator") when the last step's calculator call failed or was held back,
    the question asks for a mean or a total of two or more names' readings, and every one of
    them is in (`grader.asked_aggregate`); None otherwise, and after the run's first one.

    Measured on the eleventh round's ReAct t47: with all four cities fetched, the model wrote
    its first made-up calculator call, "(32 + 24 + 26 + 22) / 4", three more times, each held
    back, until the budget ran out.

    Example: calculator("(32 + 24 + 26 + 22) / 4") held back after 深圳 26.1, 杭州 21.5, 成都 20.3
             and 南京 20.9 -> ('Every reading the question asks about is in: 深圳 26.1, … The
             mean is calculator({"expression": "(26.1 + 21.5 + 20.3 + 20.9) / 4"}). Make that
             call now.', "calculator")
    """
    from reactlab.grader import asked_aggregate  # the grader's reading of the question

    run = _after_failed_calculator(question, steps, AGGREGATE_EVENT)
    if run is None or (found := asked_aggregate(run)) is None:
        return None
    kind, named, expression = found
    return render_template("aggregate_hint", named=named, kind=kind,
                           call=_calculator(expression)), "calculator"


# a full date in a question: 2027-01-01, 2026年6月18日, 2026/6/18
def days_call(question: str, steps: list[Step]) -> str | None:
    """The `days_between` call a question that asks how many days needs, when get_today has
    answered, no days_between call has run, and the question names exactly one full date
    (other than today); None otherwise. The correction `days` names it
    (`Guards.days_correction`, on by default since the seventeenth round).

    Seen on the suite's ReAct t19: after get_today the 1.5B wrote `calculator("5 *
    (2027-2026-1) / 3")` and answered "还有 365 天"; told to compute with the calculator, it
    called get_today again, then answered "18 天".

    Example: "…到 2027-01-01 还有多少天？…", get_today -> 2026-03-01 ->
             'days_between({"date1": "2026-03-01", "date2": "2027-01-01"})'
    """
    if len(question_dates(question)) != 1 or days_between_ran(steps):
        return None
    span = asked_span(question, steps)  # today and the question's date, once get_today answered
    return None if span is None else (
        f"days_between({json.dumps({'date1': span[0], 'date2': span[1]})})")


def per_day_hint(question: str, steps: list[Step]) -> tuple[str, str] | None:
    """(feedback, "calculator") when the last step's calculator call failed or was held back,
    the question counts an amount per day, and a `days_between` call has returned the days
    (`grader.per_day_total`); None otherwise, and after the run's first one.

    Seen on seed 001's question in notebook 05: the 1.5B writes `days_between` and
    `calculator("5 * (2027-2026-03+1)")` in one reply; the calculator is held back, and the
    model then writes a plan, or the same guess again, and multiplies in its head.

    Example: days_between -> 306 and calculator("5 * (2027-2026)") held back, question "…每天存
             5 元，一共能存多少？" -> ('days_between gave 306 days, and the question counts 5 a
             day. The total is calculator({"expression": "306 * 5"}). Make that call now.',
             "calculator")
    """
    from reactlab.grader import per_day_total  # the grader's reading of the question

    run = _after_failed_calculator(question, steps, PER_DAY_EVENT)
    if run is None or (found := per_day_total(run)) is None:
        return None
    rate, days, starts, expression = found
    start = f", plus {' + '.join(f'{s:f}' for s in starts)} already there" if starts else ""
    return render_template("per_day_hint", days=f"{days:f}", rate=f"{rate:f}", start=start,
                           call=_calculator(expression)), "calculator"


def _after_failed_calculator(question: str, steps: list[Step], event: str) -> RunResult | None:
    """The run so far, for the grader to read, when its last step's calculator call failed or
    was held back and the run has had no hint of this `event` yet; None otherwise."""
    if not steps or _given(steps, event):
        return None
    if not any(c.name == "calculator" and c.error for c in steps[-1].tool_calls):
        return None
    return RunResult(question, None, "final", steps=list(steps))


def _calculator(expression: str) -> str:
    """The calculator call a hint names: calculator({"expression": "306 * 5"})."""
    return f"calculator({json.dumps({'expression': expression}, ensure_ascii=False)})"


def done_note(question: str, steps: list[Step]) -> str | None:
    """The note after the call a date, inside, aggregate or per-day hint required has run: its
    result is in, do not make it again, go on with the question. None otherwise, and after a
    fetch hint.

    Measured on native calls: the hint is the last user message, so after the hinted call's
    result the model read "Make that call now" again and repeated the call until the loop
    detector stopped it, then answered with the days alone (t24, t54, t56 of the suite).

    Example: step 2 required days_between (date hint), step 3 ran days_between -> 193 ->
             'days_between({"date1": …}) has run: its result is above. Do not make that call
             again. Go on with the question: …'
    """
    if len(steps) < 2 or not steps[-2].require_call:
        return None
    if not any(e.startswith((EVENT, INSIDE_EVENT, AGGREGATE_EVENT, PER_DAY_EVENT))
               for e in steps[-2].events):
        return None  # not after a fetch hint: measured, the restated question made the
        # native model start over and fetch everything again (t29, t45 of the fifth round)
    for c in steps[-1].tool_calls:
        if c.name == steps[-2].require_call and not c.error:
            args = json.dumps(c.arguments, ensure_ascii=False) if isinstance(
                c.arguments, dict) else json.dumps({"input": c.arguments}, ensure_ascii=False)
            return render_template("hint_done", call=f"{c.name}({args})", question=question)
    return None


__all__ = [
    "AGGREGATE_EVENT",
    "DATE",
    "DONE_EVENT",
    "EVENT",
    "FETCH_EVENT",
    "INSIDE_EVENT",
    "PER_DAY_EVENT",
    "aggregate_hint",
    "chained",
    "date_hint",
    "days_call",
    "done_note",
    "fetch_hint",
    "fetchers",
    "inside_hint",
    "per_day_hint",
    "today_from",
    "unfetched",
    "with_figures",
    "with_today",
]
