"""reactlab.figures: reading figures, rounding, support, written-out arithmetic, made-up inputs."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.figures import (
    Pool,
    figure_spans,
    figures,
    invented_inputs,
    is_rounding,
    known_inputs,
    made_up,
    normalise,
    unsupported_figures,
    unused_givens,
    wrong_sums,
)
from reactlab.runlog import RunResult, Step, ToolCallRecord


def run(question: str, *calls: tuple, answer: str = "") -> RunResult:
    """A final run with one action step per (tool, arguments, observation[, error]) call."""
    steps = [Step(i + 1, "action", tool_calls=[ToolCallRecord(c[0], c[1], c[2],
                                                               error=c[3] if len(c) > 3 else False)])
             for i, c in enumerate(calls)]
    return RunResult(question=question, answer=answer, status="final", steps=steps)


SAVINGS = "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？"
NOV30 = run(SAVINGS, ("get_today", {}, "2026-11-30 (Monday, 星期一)"),
            ("days_between", {"date1": "2026-11-30", "date2": "2027-01-01"}, "32"),
            ("calculator", {"expression": "5 * (2027-2026-11-30)"}, "-200"))


def test_figures_are_read_like_people_write_them():
    assert normalise("１,488.21元") == "1488.21元"
    assert figures("1. 共1,530元，24.2°C，-3.7") == ["1530", "24.2", "3.7"]
    assert figures("收盘价：１４８８．２１元") == ["1488.21"]
    assert figures(None) == [] and figures("十二个月") == []
    assert figure_spans("北京 1,530元") == [(3, 7, "1530")]
    # a numbered plan's markers are not figures, but "**3.** answer 19°C" keeps 19
    assert figures("I'll do this:\n1. **get_weather**\n  2. compare\n**3.** answer 19°C") == ["19"]


def test_rounding_is_to_fewer_decimal_places_only():
    d = Decimal
    assert is_rounding(d("22.47"), d("22.4666666667"))
    assert is_rounding(d("22.5"), d("22.4666666667"))
    assert is_rounding(d("1488"), d("1488.21"))
    assert is_rounding(d("1530.0"), d("1530"))  # the same value
    assert not is_rounding(d("22.4"), d("22.4666666667"))  # truncated, not rounded
    assert not is_rounding(d("1600"), d("160"))
    assert not is_rounding(d("22.0"), d("22.4"))  # "22.0" claims a decimal it does not have
    assert not is_rounding(d("1500"), d("1530"))  # roundings to hundreds are not checked
    pool = Pool({d("22.4666666667"), d("67.92")})
    assert pool.supports(d("22.47")) and pool.supports(d("67.92")) and not pool.supports(d("68.1"))


def test_the_1600_after_a_wrong_calculation_is_unsupported():
    answer = "今天是2026年11月30日，到2027年1月01日还有32天。如果这些天每天存5元，一共能存1600元。"
    assert unsupported_figures(answer, NOV30) == ["1600"]
    # 32 × 5 is one step from two stated figures: supported without the calculator
    assert unsupported_figures(answer.replace("1600", "160"), NOV30) == []


def test_figures_in_any_format_and_dates_count():
    r = run(SAVINGS, ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
            ("days_between", {"date1": "2026-03-01", "date2": "2027-01-01"}, "306"),
            ("calculator", {"expression": "306 * 5"}, "1530"))
    for answer in ["今天是2026年3月1日，还有306天，一共1,530元", "1530.0 元", "１５３０元",
                   "Today is 2026-03-01: 306 days, 1530 yuan."]:
        assert unsupported_figures(answer, r) == [], answer
    assert unsupported_figures("一共1600 元", r) == ["1600"]
    # a simplification, pinned: small figures are one step away from many pairs (5 − 3 = 2),
    # so a wrong day of the month passes; the grader does not read calendars
    assert unsupported_figures("今天是2026年3月2日", r) == []


def test_failed_calls_are_not_data_and_vouched_figures_are():
    r = run("北京现在几度？", ("get_weather", {"location": "北京"}, "Error: 23.4 is not a city", True))
    assert unsupported_figures("北京 23.4°C", r) == ["23.4"]
    assert unsupported_figures("There are 7 days in a week.", run("How many days in a week?"),
                               vouched=("7",)) == []
    assert unsupported_figures("10.5", run("How much warmer?"),
                               operands=(Decimal("26.1"), Decimal("15.6"))) == []


def test_wrong_sums_checks_only_arithmetic_written_out():
    assert wrong_sums("平均 (23.4 + 19.8 + 24.2) / 3 = 23.4°C") == [
        "(23.4 + 19.8 + 24.2) / 3 = 23.4 (is 22.4666666667)"]
    assert wrong_sums("306 × 5 = 1530元，1488.21 - 67.92 = 1420.29") == []
    assert wrong_sums("平均 (23.4 + 19.8 + 24.2) / 3 = 22.47") == []  # a rounding
    assert wrong_sums("20 x 18 = 3600") == ["20 x 18 = 3600 (is 360)"]
    assert wrong_sums("日期 2026-03-01 = 今天, 1 / 0 = 5, a = 3") == []  # nothing to evaluate


def test_invented_inputs_are_figures_nothing_before_the_call_gives():
    q = "今天到2026年6月18日还有多少天？如果每天存 20 元，再加上已有的 500 元，到那天一共有多少钱？"
    made_up = run(q, ("days_between", {"date1": "2026-06-18", "date2": "2025-10-01"}, "260"),
                  ("calculator", {"expression": "260 * 20 + 500"}, "5700"))
    assert invented_inputs(made_up) == [("days_between", ["2025-10-01"])]
    honest = run(q, ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
                 ("days_between", {"date1": "2026-03-01", "date2": "2026-06-18"}, "109"),
                 ("calculator", {"expression": "109 * 20 + 500"}, "2680"),
                 ("calculator", "(23.4 + 19.8 + 24.2) / 3", "x"))  # small constants are fine
    assert invented_inputs(honest) == [("calculator", ["23.4", "19.8", "24.2"])]
    assert invented_inputs(run(q)) == []


def test_a_date_argument_is_one_figure_and_must_be_a_date_some_text_names():
    # suite t64, native, 2026-12-04: get_today never called, a "today" made of the question's
    # own figures (2026, 12, and 10, a small number), and the grader said ✔ for "还有9天"
    q = "今天距离2026年12月1日还有多少天？"
    guessed = run(q, ("days_between", {"date1": "2026-12-01", "date2": "2026-12-10"}, "9"))
    assert invented_inputs(guessed) == [("days_between", ["2026-12-10"])]
    told = run(q, ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
               ("days_between", {"date1": "2026-03-01", "date2": "2026-12-01"}, "275"))
    assert invented_inputs(told) == []
    # a month and day the question names take a year a result gives; in English too
    for question in ["今天到12月25日还有多少天？", "How many days from today to Dec 25th?"]:
        xmas = run(question, ("get_today", {}, "2026-03-01"),
                   ("days_between", {"date1": "2026-03-01", "date2": "2026-12-25"}, "299"))
        assert invented_inputs(xmas) == []
    before_today = run("今天到12月25日还有多少天？",
                       ("days_between", {"date1": "2026-03-01", "date2": "2026-12-25"}, "299"))
    assert invented_inputs(before_today) == [("days_between", ["2026-03-01", "2026-12-25"])]
    # an expression is not a date: its figures are judged one by one, as before
    assert made_up({"expression": "5 * (2027-2026-11-30)"},
                   known_inputs("今天是2026-03-01。到 2027-01-01 还有多少天？", [])) == ["11", "30"]
    assert made_up({"date": "2026-3-1"}, Pool({Decimal(2026), Decimal(3)})) == ["1"]  # bare Pool: figures


# --- properties ---------------------------------------------------------------------------

_decimals = st.decimals(min_value=0, max_value=10**6, places=2, allow_nan=False)


def _written(d: Decimal, style: int) -> str:
    """One of the ways a model writes a figure it copied."""
    text = f"{d:f}"
    whole, _, frac = text.partition(".")
    return [text, f"{int(whole):,}" + (f".{frac}" if frac else ""), text + "元",
            text + "°C", text + "%", f"约{text}"][style]


@given(st.lists(_decimals, min_size=1, max_size=8), st.data())
def test_any_figure_copied_from_an_observation_is_supported(values, data):
    obs = "北京: " + ", ".join(f"{v:f}" for v in values) + " [snapshot]"
    picked = data.draw(st.lists(st.sampled_from(values), min_size=1, max_size=4))
    styles = data.draw(st.lists(st.integers(0, 5), min_size=len(picked), max_size=len(picked)))
    answer = "，".join(_written(v, s) for v, s in zip(picked, styles, strict=True))
    assert unsupported_figures(answer, run("北京怎么样？", ("get_weather", {"location": "北京"}, obs),
                                           answer=answer)) == []


@given(st.lists(st.integers(2, 99), max_size=6), st.lists(st.integers(2, 99), max_size=3),
       st.integers(10_000, 10**7), st.sampled_from(["", ".5", ".25", ".125", ".375"]))
def test_a_number_not_in_the_run_and_not_derivable_is_unsupported(obs, question, whole, frac):
    # sources are 2..99: sums < 200, products < 10,000, quotients < 50; a figure of 10,000 or
    # more that no source states can be neither a copy, a rounding nor a one-step result
    figure = f"{whole}{frac}"
    r = run("问题 " + " ".join(map(str, question)),
            ("calculator", {"expression": "1+1"}, " ".join(map(str, obs))))
    assert unsupported_figures(f"答案是{figure}。", r) == [figure]


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80),
       st.dictionaries(st.sampled_from(["expression", "date1", "n"]), st.text(max_size=20),
                       max_size=2))
def test_unused_givens_never_raises_and_names_only_question_figures(question, answer, args):
    run = RunResult(question, answer, "final",
                    steps=[Step(1, "action", tool_calls=[ToolCallRecord("calculator", args, "42")])])
    out = unused_givens(run)
    assert set(out) <= set(figures(question))
    assert unused_givens(RunResult(question, answer, "final", steps=[])) == []  # no tool answered
