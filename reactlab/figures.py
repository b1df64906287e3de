"""Figures: the numbers an answer states, and whether anything in the run gives them.

A figure of the answer is *supported* when it equals (or is a simple rounding of) a figure in
a successful tool result, in the question, or one the caller vouches for; or when it is one
+ − × ÷ step away from two supported figures (the answer's own, the question's, or readings
the grader passes in): "还有32天……每天存5元，一共能存160元" is 32 × 5. Figures are compared by
value: "1,530", "1530.0", "1530元" and "１５３０" are the same figure; 22.47 and 22.5 are
roundings of 22.4666666667; in an answer a date such as 2026-03-01 is the figures 2026, 03
and 01, but a call's argument that is a whole date is one figure (`made_up`): 2026-12-10 is
made up unless a text names that month and day, however small its parts.
`wrong_sums` checks arithmetic the answer writes out ("(23.4 + 19.8 + 24.2) / 3 = 23.4").

Deliberately NOT here: Chinese numerals (十二), words (seven), units and signs ("-3.7°C" is
the figure 3.7: a dash in a date is not a minus), roundings to tens or hundreds (约1500 is not
a rounding of 1530), and derivations of more than one step unless the answer writes each
intermediate figure. `reactlab.grader` builds its verdict on this module; notebook 04 introduces the grader,
and notebook 08 checks a run's figures against its observations by hand.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal, DivisionByZero, InvalidOperation

from reactlab.day_count import QUESTION_DATE
from reactlab.runlog import RunResult

# "1,530" and "12,345.6", but not "23.4,100" (two figures) or "306,5"
_THOUSANDS = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?!\d)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# "1." "2." opening the lines of a numbered plan are not figures
_LIST_MARKER = re.compile(r"(?m)^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?\d+\.(?:\*\*)?[ \t]")
MAX_OPERANDS = 40  # the one-step search is quadratic: later figures are not operands
MAX_STEPS = 3  # "109 × 20 = 2180, 2180 + 500 = 2680": steps an answer writes out
SMALL = 10  # whole numbers up to this are constants an expression may use ("/ 3" for 三地)
_SUM = re.compile(r"([\d.+\-*/×÷xX()\s]{3,200}?)\s*=\s*(\d+(?:\.\d+)?)")


def normalise(text: str) -> str:
    """Full-width to ASCII, thousands separators dropped. Example: "１,488.21元" -> "1488.21元".

    The Chinese comma stays: "23.4，100" is two figures, not 23,4100.
    """
    text = "，".join(unicodedata.normalize("NFKC", part) for part in (text or "").split("，"))
    return _THOUSANDS.sub(lambda m: m.group().replace(",", ""), text)


def figure_spans(text: str | None) -> list[tuple[int, int, str]]:
    """(start, end, figure) for each figure, positions in `normalise(text)`.

    Example: figure_spans("北京 1,530元") -> [(3, 7, "1530")]
    """
    s = _LIST_MARKER.sub(lambda m: " " * len(m.group()), normalise(text or ""))
    return [(m.start(), m.end(), m.group()) for m in _NUMBER.finditer(s)]


def figures(text: str | None) -> list[str]:
    """The figures written in `text`, in order, list markers skipped.

    Example: figures("1. 共1,530元，24.2°C，-3.7") -> ["1530", "24.2", "3.7"]
    """
    return [f for _, _, f in figure_spans(text)]


def value(figure: str) -> Decimal:
    """A figure as a Decimal (exact: 67.92 stays 67.92). Example: value("1530.0") -> 1530.0"""
    return Decimal(figure)


def _places(d: Decimal) -> int:
    exponent = d.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _round(d: Decimal, places: int) -> Decimal | None:
    try:
        return d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    except InvalidOperation:  # too many digits to quantize: not a rounding we can check
        return None


def is_rounding(figure: Decimal, source: Decimal) -> bool:
    """`figure` is `source` itself or `source` rounded (half up) to fewer decimal places.

    Example: is_rounding(Decimal("22.47"), Decimal("22.4666666667")) -> True;
             is_rounding(Decimal("1600"), Decimal("160")) -> False
    """
    places = _places(figure)
    return figure == source or (places < _places(source) and _round(source, places) == figure)


class Pool:
    """Supported values that also answer "is x one of them, or a rounding of one?" quickly."""

    def __init__(self, values: set[Decimal]) -> None:
        self.values = values
        self._rounded: dict[int, set[Decimal | None]] = {}

    def supports(self, figure: Decimal) -> bool:
        if figure in self.values:
            return True
        places = _places(figure)
        if places not in self._rounded:
            self._rounded[places] = {_round(v, places) for v in self.values
                                     if _places(v) > places}
        return figure in self._rounded[places]


def _one_step(operands: list[Decimal]) -> set[Decimal]:
    """Every a + b, |a − b|, a × b, a ÷ b and b ÷ a for two different operands."""
    ops = operands[:MAX_OPERANDS]
    out = set()
    for i, a in enumerate(ops):
        for b in ops[i + 1:]:
            out |= {a + b, abs(a - b), a * b}
            out |= {a / b} if b else set()
            out |= {b / a} if a else set()
    return out


def run_sources(result: RunResult) -> list[str]:
    """The texts a figure may come from: every successful tool result the model was shown,
    then the question. A failed call's message is not data, so it is left out."""
    shown = [c.observation or "" for s in result.steps or [] for c in s.tool_calls or []
             if not c.error]
    return [*shown, result.question or ""]


def unsupported_figures(answer: str | None, result: RunResult, vouched: tuple[str, ...] = (),
                        operands: tuple[Decimal, ...] = (), steps: int = MAX_STEPS) -> list[str]:
    """The answer's figures that nothing in the run supports (each once, in order).

    `vouched`: figures the caller knows are right (an expected "7" for "days in a week", which
    no tool gives). `operands`: figures a calculation may start from or end at (the grader
    passes each fetched reading, so 26.1 − 15.6 = 10.5 counts without a calculator, and the
    mean of three cities' temperatures).
    `steps`: how many rounds of derivation (0: copies and roundings only).
    Example: after days_between -> "32" and calculator -> "-200", the answer
    "……还有32天。如果这些天每天存5元，一共能存1600元" -> ["1600"]; "……一共能存160元" -> [].
    """
    sources = {value(f) for text in run_sources(result) for f in figures(text)}
    pool = Pool(sources | {value(f) for v in vouched for f in figures(str(v))})
    stated = list(dict.fromkeys(figures(answer)))
    good = {f for f in stated if pool.supports(value(f))}
    start = [*(value(f) for f in figures(result.question)), *operands]
    written = sums(answer)
    for _ in range(steps):  # a derived figure may be the operand of the next step
        # 0 and 1 are no operands: "306 + 1" would excuse every off-by-one day count
        ops = [v for v in dict.fromkeys([*start, *(value(f) for f in stated if f in good)])
               if v not in (0, 1)]
        derived = Pool(_one_step(ops) | set(operands))
        new = {f for f in stated if f not in good and derived.supports(value(f))}
        for expr, result_figure, got in written:  # "(23.4 + 19.8 + 24.2) / 3 = 22.47"
            inputs = [f for f in figures(expr) if value(f) > SMALL]
            if _right(result_figure, got) and all(f in good for f in inputs):
                new |= {f for f in [result_figure, *figures(expr)] if f not in good}
        if not new:
            break
        good |= new
    return [f for f in stated if f not in good]


def argument_text(arguments: object) -> str:
    """Every value in a call's arguments as one text. Example: {"a": 1, "b": [2]} -> "1 2" """
    return " ".join(str(v) for v in _leaves(arguments))


def _leaves(arguments: object) -> list:
    if isinstance(arguments, dict):
        return [leaf for v in arguments.values() for leaf in _leaves(v)]
    if isinstance(arguments, (list, tuple)):
        return [leaf for v in arguments for leaf in _leaves(v)]
    return [arguments]


# a month and day: 12月1日, Dec 1, December 1st (a full date: day_count.QUESTION_DATE)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_DAY = re.compile(r"(?<![\d.])(\d{1,2})\s*月\s*(\d{1,2})(?!\d)"
                        r"|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+"
                        r"(\d{1,2})(?!\d)", re.IGNORECASE)
_DATE_VALUE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*")  # an argument that is a date


def _month_days(text: str) -> set[tuple[int, int]]:
    out = {(int(m[2]), int(m[3])) for m in QUESTION_DATE.finditer(text)}
    for m in _MONTH_DAY.finditer(text):
        month = int(m[1]) if m[1] else _MONTHS.index(m[3].lower()[:3]) + 1
        out.add((month, int(m[2] or m[4])))
    return out


class Known(Pool):
    """What a call may be fed (`known_inputs`): a pool of figures, plus the dates the texts
    name, so a date argument is judged as one date, not as three small figures."""

    def __init__(self, values: set[Decimal], texts: Iterable[str]) -> None:
        super().__init__(values)
        texts = [normalise(t) for t in texts]
        self.month_days = {md for t in texts for md in _month_days(t)}

    def supports_date(self, year: int, month: int, day: int) -> bool:
        """A date a text names: its month and day are written somewhere (2026年12月1日, 12月1日,
        Dec 1) and its year is a known figure. Example: after "今天距离2026年12月1日…",
        2026-12-01 -> True and 2026-12-10 -> False."""
        return (month, day) in self.month_days and self.supports(Decimal(year))


def known_inputs(question: str, steps: Iterable) -> Known:
    """The figures a call may be fed once `steps` are done: the question's, small whole numbers
    (0 to SMALL: "/ 3" for an average of three cities, the question may say 三) and every
    successful tool result of `steps`; and the dates those texts name.

    Example: known_inputs("每天存 5 元", [days_between -> "306"]).supports(Decimal(306)) -> True
    """
    seen = {value(f) for f in figures(question)} | {Decimal(n) for n in range(SMALL + 1)}
    results = [c.observation or "" for step in steps for c in step.tool_calls or [] if not c.error]
    seen |= {value(f) for text in results for f in figures(text)}
    return Known(seen, [question or "", *results])


def made_up(arguments: object, known: Pool) -> list[str]:
    """The figures in a call's arguments that `known` does not support. An argument that is a
    whole date (2026-12-10) is one figure: a date no text names is made up even when its year,
    month and day each appear somewhere (a "today" guessed from the question's own date).

    Example: made_up({"expression": "100 * 67.5"}, known_inputs("买100股", [])) -> ["67.5"];
             made_up({"date1": "2026-12-01", "date2": "2026-12-10"},
                     known_inputs("今天距离2026年12月1日还有多少天？", [])) -> ["2026-12-10"]
    """
    out: list[str] = []
    for leaf in _leaves(arguments):
        text = str(leaf)
        date = _DATE_VALUE.fullmatch(text) if isinstance(known, Known) else None
        if date:
            y, m, d = (int(g) for g in date.groups())
            if not known.supports_date(y, m, d):
                out.append(text.strip())
            continue
        out += [f for f in figures(text) if not known.supports(value(f))]
    return list(dict.fromkeys(out))


# dates and years in a question: what days_between and get_today deal with, not an amount
_DATES = re.compile(r"\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\s*[日号]?"
                    r"|\d{1,2}\s*月\s*\d{1,2}\s*[日号]?|(?<!\d)(?:19|20)\d{2}(?!\d)\s*年?"
                    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}"
                    r"(?:st|nd|rd|th)?", re.IGNORECASE)


def unused_givens(result: RunResult, operands: tuple[Decimal, ...] = ()) -> list[str]:
    """The amounts the question gives (figures outside its dates and years) that neither the
    answer nor any successful call's arguments use, once a tool has answered: "再加上已有的
    500 元" answered "109天，2180元" (20 × 109, the 500 left out). An amount counts as used when
    an answer figure needs it (`unsupported_figures` with `operands` finds one more figure
    unsupported without it: "1530元" after days_between -> 306 uses the 5 of 每天存 5 元).
    [] before any tool result.

    Example: question "…如果每天存 20 元，再加上已有的 500 元，…", days_between -> 109, answer
             "2180元" -> ["500"]
    """
    calls = [c for st in result.steps or [] for c in st.tool_calls or [] if not c.error]
    if not calls:
        return []
    question = normalise(result.question or "")
    given = list(dict.fromkeys(figures(_DATES.sub(" ", question))))
    undated = [_DATES.sub(" ", normalise(t)) for t in [result.answer or "", *(
        argument_text(c.arguments) for c in calls)]]  # a date's 03 is not the question's 3
    used = {value(f) for t in undated for f in figures(t)}
    unused = [f for f in given if value(f) not in used]
    if not unused:
        return []
    base = set(unsupported_figures(result.answer, result, operands=operands))

    def needed(g: str) -> bool:
        without = re.sub(rf"(?<![\d.]){re.escape(g)}(?![\d]|\.\d)", " ", question)
        run = RunResult(without, result.answer, result.status, steps=result.steps)
        return bool(set(unsupported_figures(result.answer, run, operands=operands)) - base)

    return [f for f in unused if not needed(f)]


def invented_inputs(result: RunResult) -> list[tuple[str, list[str]]]:
    """(tool, figures) for calls whose arguments hold figures that neither the question nor an
    earlier successful tool result gives (`known_inputs`): the model made up an input. Calls
    that failed (or were held back) are left out: their result never reached the answer.

    Example: days_between(date1="2025-10-01", date2="2026-06-18") with no get_today before it
    -> [("days_between", ["2025", "10"])]
    """
    steps, out = list(result.steps or []), []
    for i, step in enumerate(steps):
        # results of the same step are not inputs of its own calls (parallel calls)
        known = known_inputs(result.question, steps[:i])
        out += [(c.name, bad) for c in step.tool_calls or []
                if not c.error and (bad := made_up(c.arguments, known))]
    return out


def _evaluate(node: ast.AST) -> Decimal:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return Decimal(repr(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _evaluate(node.operand)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _evaluate(node.left), _evaluate(node.right)
        ops = {ast.Add: a.__add__, ast.Sub: a.__sub__, ast.Mult: a.__mul__, ast.Div: a.__truediv__}
        return ops[type(node.op)](b)
    raise ValueError("not plain arithmetic")


def sums(answer: str | None) -> list[tuple[str, str, Decimal]]:
    """(expression, stated result, true result) for each calculation the answer writes out.

    Only + − × ÷ and parentheses on plain numbers; anything else is left alone.
    Example: sums("共 306 × 5 = 1530 元") -> [("306 * 5", "1530", Decimal("1530"))]
    """
    out = []
    for m in _SUM.finditer(normalise(answer or "").replace("×", "*").replace("÷", "/")):
        words = m.group(1).split()
        for i in range(len(words)):  # the longest tail that is an expression: "是 3 * 5"
            expr = " ".join(words[i:])
            if i and re.match(r"[+*/xX]", expr):
                continue  # the tail of a cut expression ("+ 19.8 + 24.2"), not a calculation
            if (extra := expr.count("(") - expr.count(")")) > 0 and expr.startswith("(" * extra):
                expr = expr[extra:]  # "\(23.4 + 19.8 + 24.2 = 67.4\)": LaTeX's opening paren
            if not re.search(r"\d\s*[-+*/xX]\s*[\d(]", expr) or expr.count("(") > 20:
                continue
            try:
                got = _evaluate(ast.parse(expr.replace("x", "*").replace("X", "*"), mode="eval"))
            except (SyntaxError, ValueError, ArithmeticError, DivisionByZero, RecursionError):
                continue
            out.append((expr, m.group(2), got))
            break
    return out


def _right(stated: str, got: Decimal) -> bool:
    return is_rounding(value(stated), got) or is_rounding(value(stated), abs(got))


def wrong_sums(answer: str | None) -> list[str]:
    """Calculations the answer writes out wrongly, as "expression = stated (is right)".

    Example: wrong_sums("平均 (23.4 + 19.8 + 24.2) / 3 = 23.4°C")
             -> ["(23.4 + 19.8 + 24.2) / 3 = 23.4 (is 22.4666666667)"]
    """
    out = []
    for expr, stated, got in sums(answer):
        if not _right(stated, got):
            shown = _round(got, 10) or got
            out.append(f"{expr} = {stated} (is {shown.normalize():f})")
    return out
