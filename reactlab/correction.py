"""Corrections: what the grounding guard tells the model about a draft answer the grader rejected.

Unlike the grader's reasons, which a learner reads ("the answer says 北京 is "冷", but …"), a
correction is written for the model and never repeats the draft. Measured on the 1.5B: shown its
own wrong draft and told why it is wrong, it repeats the draft or goes silent; given only the
checked facts after the tool results, it answers right (北京/上海 "哪个更冷", 哈尔滨/昆明, 成都/重庆
humidity: 3 of 3, against 0 of 3 with the draft shown). So a correction is one of

- `missing`: a name the question asks about has no tool result → call a tool for it (the next
  request requires a tool call);
- `compute`: a figure no tool result or calculation gives (arithmetic done in the head), or
  a comparison whose size is not the gap between the readings ("广州比北京高1.8°C" after 24.2
  and 23.4) → compute it with the calculator (the next request requires a tool call);
  When the question counts an amount a day over the days `days_between` gave ("每天存 10 元")
  and the answer does not state that total, the correction names the expression
  (`grader.per_day_totals`: "193 * 10"): measured, told only to use the calculator, the 1.5B
  wrote `193 + 10 * 10`;
- `aggregate`: a mean or a total that is not the mean or the sum of the asked names' readings
  ("平均气温是 21°C" after 23.4, 19.8 and 24.2), even one a calculator gave (`(23.4 + 19.8 +
  19.8) / 3` before 广州 was fetched) → the expression over the fetched readings
  (`grader.aggregates`), to compute with the calculator (the next request requires a tool call);
- `difference`: a mean or a sum called a difference ("相差778.065" after
  `calculator("(67.92 + 1488.21) / 2")`) → compute the difference with the calculator (the
  next request requires a tool call);
- `fact`: the comparison is backwards, or one name was given another's figures, or a name
  whose lookup failed was given a figure (a calculation on another name's price), or a name
  the answer needs was looked up twice in vain (a service down for good) or, unknown to the
  course, once → the checked fact, then answer again (no call needed; told even when no tool
  answered anything);
  Also a day count the question asks for and the answer leaves out (`grader.unstated_days`:
  "2680" alone for "还有多少天？…一共有多少钱？") → the count days_between gave, with the total
  when the question counts an amount a day (both figures it asks for);
- `cover`: the answer gives one name's figures and leaves another fetched name out ("长沙的湿度
  更低，为69%" when the question asks for both cities' humidity) → every asked name's reading,
  then answer again with all of them (no call needed).
- `days` (with `days=True`, which `Guards.days_correction` passes): a day count the question
  settles and the answer gets wrong (`grader.miscounted_days`: "还有 0 天" for the 306 days to
  2027-01-01) while days_between has not run → the days_between call with today's date
  (`hints.days_call`; the next request requires days_between).

Anything else the grader rejects gets no correction: the guard lets the answer stand (its
verdict still says ✘). Among them an amount of the question left unused ("193" for "每天存 10
元，一共能存多少钱", `figures.unused_givens`): measured, asked for the calculator with that
amount, the 1.5B wrote `193 + 10 * 10` (3 native runs, none solved). Deliberately NOT here: deciding how often to correct (`guards`), the
wording of the messages (`prompts/grounding_*.txt`), or judging the answer (`grader`).
Introduced in notebook 07 (guards).
"""

from __future__ import annotations

from dataclasses import dataclass

from reactlab import claims
from reactlab.grader import concluded, grade, per_day_total
from reactlab.hints import days_call
from reactlab.runlog import RunResult

KINDS = ("missing", "compute", "aggregate", "difference", "fact", "cover", "days")


@dataclass(frozen=True)
class Correction:
    """kind: one of KINDS; reasons: the grader's verdict, for the run's log; names: what to
    fetch (missing) or what the answer left out (cover); fact: the checked fact, in words
    (difference, fact), or every asked name's reading (cover).

    Example: Correction("fact", 'the answer says 北京 is "冷" …', fact='上海 19.8 and 北京 23.4 '
             '(temperature), so 上海 is the one that is "冷"')
    """

    kind: str
    reasons: str
    names: tuple[str, ...] = ()
    fact: str = ""
    # a `fact` that is a comparison the readings settle (`_checked`: backwards or unconcluded),
    # not a failed lookup or a day count; under `Guards.settled_wording`, `correction_text`
    # words it on its own
    settled: bool = False

    @property
    def needs_call(self) -> bool:
        """True when the fix is a tool call: the next request should require one."""
        return self.kind in ("missing", "compute", "aggregate", "difference", "days")

    @property
    def required(self) -> str | None:
        """What the next request requires: "days_between" for `days`; "calculator" for an
        expression to compute (`aggregate`, a `compute` that names one); "any" call for the
        other kinds that need one; None when the fix is an answer.

        Measured on the suite's ReAct t19 replayed: told to compute 306 * 5 with the calculator
        and offered any tool, the 1.5B called days_between again until the budget ran out."""
        if self.kind == "days":
            return "days_between"
        if self.kind == "aggregate" or (self.kind == "compute" and self.fact):
            return "calculator"
        return "any" if self.needs_call else None


def correction(result: RunResult, days: bool = False,
               conclude: bool = False) -> Correction | None:
    """The correction for `result`'s answer, or None when it passes (or none would help).
    `days`: a day count the answer gets wrong before days_between has run gets the `days`
    correction (`Guards.days_correction`); without it, what the rest of the answer earns.
    `conclude` (`Guards.conclude`): an answer the grader passes that never says which one a
    "which one" question asks for (its figures listed, no conclusion: `grader.concluded`) gets
    the comparison as the readings settle it (`fact`).

    Example: after get_weather(北京) -> 23.4 and get_weather(上海) -> 19.8, the answer
             "北京比上海更冷" -> Correction("fact", …, fact='上海 19.8 and 北京 23.4 (temperature), so 上海 …')
    """
    verdict = grade(result)
    if verdict.ok and conclude:
        return _unconcluded(result)
    if verdict.ok or verdict.mode not in ("invented_data", "incomplete", "wrong_answer"):
        return None
    reasons = "; ".join(verdict.reasons)
    answer = result.answer or ""
    subs = claims.subjects(result)
    known = claims.names(subs)
    question = claims.normalise(result.question or "")
    asked = claims.asked(result.question or "", known)
    wrong_owner = claims.misattributed(answer, result, subs, known)
    missing = [n for n in asked if n not in subs]
    missing += [o for o, _, _ in wrong_owner if o not in subs and o not in missing]
    found = claims.contradiction(answer, result, subs, known)
    if found and found.missing:
        missing += [n for n in found.missing if n not in missing]
    # a name looked up twice in vain, or a name the course has no data for looked up once (an
    # unknown stock): another try cannot help, and asked for one the 1.5B invents a figure
    # (t62: "上海 22 度" after three failures); say what the tools said instead
    course = claims.course_names()
    failed = claims.failed_names(result, subs, known)
    # (also a name the question spells in no way the grader knows, when nothing came back at
    # all and the answer gives a figure anyway: "The closing price of比亚迪 is $19.00", t58)
    lone = not subs and bool(verdict.unsupported)
    tried = {n: errors[0] for n, errors in failed.items()
             if (n in missing or lone) and (len(errors) >= 2 or n not in course)}
    missing = [n for n in missing if n not in tried]
    if missing:
        return Correction("missing", reasons, names=tuple(missing))
    if verdict.unfetched or tried:  # the first name whose lookup failed, with its error
        name, why = ((verdict.unfetched[0][0], verdict.unfetched[0][2]) if verdict.unfetched
                     else next(iter(tried.items())))
        return Correction("fact", reasons, fact=(f"the lookup for {name} failed ({why}), so "
                                                 f"there is no figure for {name}: say it was "
                                                 "not found or could not be fetched, and give "
                                                 "it no figure"))
    if days and verdict.counted and (call := days_call(result.question or "", result.steps)):
        return Correction("days", reasons, fact=call)  # a day count with no days_between
    if verdict.totals:  # an amount a day over the days days_between gave
        return Correction("compute", reasons, fact=verdict.totals[0])
    if verdict.days:  # the total alone, when the question also asks how many days
        return Correction("fact", reasons, fact=_days_and_total(verdict.days[0], result))
    if verdict.aggregates:  # a mean or total that is not the asked names' mean or sum
        return Correction("aggregate", reasons, fact=verdict.aggregates[0])
    if verdict.unsupported or verdict.gaps:
        return Correction("compute", reasons)  # a figure from nowhere, or a gap misjudged
    for fig, expr in verdict.misnamed:
        return Correction("difference", reasons, fact=f"{fig} is {expr}")
    if found and found.winner:
        return Correction("fact", reasons, fact=_checked(found, _spelled(question, known)),
                          settled=True)
    for owner in dict.fromkeys(o for o, _, _ in wrong_owner):
        return Correction("fact", reasons,
                          fact=f"{owner}'s own tool result says {subs[owner].gist()}")
    if left := verdict.skipped:
        readings = "; ".join(f"{n}: {subs[n].gist()}" for n in asked if n in subs)
        return Correction("cover", reasons, names=tuple(left), fact=readings)
    return None


def _unconcluded(result: RunResult) -> Correction | None:
    """The `fact` correction for an answer that lists a comparison's figures and never says
    which one it is, or None. The agent does not know the expected winner: the readings settle
    it (`claims.asked_comparison`). Measured on the suite (2026-12-06): six of the defaults'
    runs answered that way ("北京的气温是23.4°C, 上海的气温是19.8°C." for 哪个更冷)."""
    subs = claims.subjects(result)
    known = claims.names(subs)
    found = claims.asked_comparison(result.question or "", subs, known)
    if found is None or concluded(result.answer or "", known, found.winner):
        return None
    question = claims.normalise(result.question or "")
    return Correction("fact", f"the answer never says which one is \"{found.word}\"",
                      fact=_checked(found, _spelled(question, known)), settled=True)


def _spelled(question: str, known: dict[str, set[str]]) -> dict[str, str]:
    """Each name the question mentions -> how the question spells it (its first mention).
    Example: _spelled("Which is warmer, Harbin or Kunming?", known) -> {"哈尔滨": "Harbin", …}"""
    said_as: dict[str, str] = {}
    for start, end, name in claims.mentions(question, known):
        said_as.setdefault(name, question[start:end])
    return said_as


def _days_and_total(days: str, result: RunResult) -> str:
    """The fact for an answer that left out the day count: the count, and, when the question
    also counts an amount a day, the total with it (both figures the question asks for).
    Measured on the suite's native t56: told only "days_between gave 353 days, and the
    question asks how many days" after answering "3024", the 1.5B answered "353".

    Example: "…还有多少天？如果每天存 8 元，再加上已有的 200 元…" after days_between -> 353 ->
             "days_between gave 353 days, and 353 * 8 + 200 = 3024: the question asks for both,
             the days and the total"
    """
    if (found := per_day_total(result)) is None:
        return f"days_between gave {days} days, and the question asks how many days"
    return (f"days_between gave {days} days, and {found.expr} = {found.total:f}: the question "
            "asks for both, the days and the total")


def _checked(found: claims.Contradiction, said_as: dict[str, str] | None = None) -> str:
    """The comparison as the readings settle it, with the names spelled as the question spells
    them (measured: told '昆明 22.1 … so 昆明 is the one that is "warmer"' after "Which is
    warmer, Harbin or Kunming?", the 1.5B wrote "Harbin is warmer" twice more).

    Example: '上海 19.8 and 北京 23.4 (temperature), so 上海 is the one that is "冷"'
    """
    said_as = said_as or {}
    values = sorted(found.values, key=lambda nv: nv[0] != found.winner)  # the winner first
    listed = " and ".join(f"{said_as.get(n, n)} {v}" for n, v in values)
    scale = " (a lower AQI is better)" if found.quantity == "AQI" else ""
    what = f" ({found.quantity})" if found.quantity and found.quantity != "AQI" else ""
    winner = said_as.get(found.winner, found.winner)
    return f'{listed}{what}{scale}, so {winner} is the one that is "{found.word}"'


__all__ = ["KINDS", "Correction", "correction"]
