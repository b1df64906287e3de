"""reactlab.correction: the notebooks' real wrong answers get the correction a small model can
act on (the checked fact, the missing name, or "use the calculator"), never their own draft;
right answers and runs the grader cannot help with get none; it never raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grader import BJ, MT, QD, SAVINGS, SH_FULL, run, stocks, weather

from reactlab.correction import KINDS, Correction, correction
from reactlab.grader import grade, misnamed_differences, wrong_differences
from reactlab.guards import correction_text


def test_the_stock_answer_backwards_gets_the_checked_fact():
    fix = correction(stocks("青岛啤酒的收盘价更高，高1420.29"))
    assert fix.kind == "fact" and not fix.needs_call
    assert fix.fact == ('贵州茅台 1488.21 and 青岛啤酒 67.92 (closing price), so 贵州茅台 is the '
                        'one that is "更高"')
    assert "青岛啤酒的收盘价更高" not in correction_text(fix, "哪个更高？")  # no draft in it


def test_1600_yuan_from_a_made_up_expression_goes_to_the_calculator():
    r = run(SAVINGS, "还有306天，一共能存1600元。",
            ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
            ("days_between", {"date1": "2026-03-01", "date2": "2027-01-01"}, "306"),
            ("calculator", {"expression": "5 * (2027-2026-11-30)"}, "-200"))
    fix = correction(r)
    assert fix.kind == "compute" and fix.needs_call and "1600" in fix.reasons
    # the question counts 5 元 a day over the 306 days: the correction names that expression
    assert fix.fact == "306 * 5"
    assert correction_text(fix, SAVINGS).startswith("The question asks for a total: its amount "
                                                    "a day times the days days_between gave "
                                                    "is 306 * 5. Compute 306 * 5 with the calculator")


def test_guangzhou_given_beijings_figures_gets_its_own_result():
    fix = correction(weather("北京23.4°C，湿度43%；广州23.4°C，湿度43%。"))
    assert fix.kind == "fact" and fix.fact.startswith("广州's own tool result says 广州: 24.2°C")


def test_a_city_never_fetched_is_asked_for_by_name():
    fix = correction(weather("北京23.4°C，广州25°C。", "北京"))
    assert fix.kind == "missing" and fix.names == ("广州",) and fix.needs_call
    text = correction_text(fix, "北京和广州今天的天气怎么样？")
    assert text.startswith("There is no tool result for 广州 yet: call a tool for 广州 now")


def test_right_answers_and_runs_without_an_answer_get_none():
    assert correction(stocks("贵州茅台的收盘价更高，高1420.29元。")) is None
    assert correction(weather("北京23.4°C，广州24.2°C。")) is None
    assert correction(run("北京天气？", None, ("get_weather", {"location": "北京"}, BJ),
                          status="max_steps", extra_steps=[])) is None


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=120))
def test_correction_never_raises_and_names_a_known_kind(answer):
    fix = correction(weather(answer))
    assert fix is None or (isinstance(fix, Correction) and fix.kind in KINDS)
    if fix is not None:
        assert correction_text(fix, "北京和广州今天的天气怎么样？")



def test_a_mean_called_a_difference_goes_back_to_the_calculator():
    # Seed 002's real native run: the mean of the two prices, answered as 相差.
    result = run("青岛啤酒和贵州茅台的收盘价哪个更高？高多少？", "青岛啤酒和贵州茅台的收盘价相差778.065 CNY。",
                 ("get_closing_price", {"name": "青岛啤酒"}, "青岛啤酒 (600600.SH) closing price: 67.92 CNY"),
                 ("get_closing_price", {"name": "贵州茅台"}, "贵州茅台 (600519.SH) closing price: 1488.21 CNY"),
                 ("calculator", {"expression": "(67.92 + 1488.21) / 2"}, "778.065"))
    verdict = grade(result)
    assert not verdict.ok and verdict.mode == "wrong_answer"
    assert ("the answer calls 778.065 a difference, but the calculator computed it as "
            "(67.92 + 1488.21) / 2, which subtracts nothing") in verdict.reasons
    fix = correction(result)
    assert fix.kind == "difference" and fix.needs_call and fix.fact == "778.065 is (67.92 + 1488.21) / 2"
    text = correction_text(fix, result.question)
    assert text.startswith("Checked against the calculator: 778.065 is (67.92 + 1488.21) / 2")
    assert "778.065 CNY" not in text  # the draft is not repeated


@pytest.mark.parametrize("answer", ["贵州茅台更高，高1420.29。", "贵州茅台 is higher by 1420.29.",
                                    "两者相差 1420.29 元", "平均是778.065"])
def test_a_real_difference_or_a_mean_called_a_mean_passes(answer):
    result = run("青岛啤酒和贵州茅台的收盘价哪个更高？高多少？", answer,
                 ("get_closing_price", {"name": "青岛啤酒"}, "青岛啤酒 (600600.SH) closing price: 67.92 CNY"),
                 ("get_closing_price", {"name": "贵州茅台"}, "贵州茅台 (600519.SH) closing price: 1488.21 CNY"),
                 ("calculator", {"expression": "1488.21 - 67.92"}, "1420.29"),
                 ("calculator", {"expression": "(67.92 + 1488.21) / 2"}, "778.065"))
    assert misnamed_differences(answer, result) == []


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="相差高低多少贵by 0123456789.,:：-元", max_size=60))
def test_misnamed_differences_never_raises(answer):
    result = stocks(answer)  # its only calculator result is a subtraction
    assert misnamed_differences(answer, result) == []


def test_a_misjudged_gap_goes_to_the_calculator():
    # t42's real answer, in both protocols: 24.2 − 23.4 is 0.8, not 1.8.
    result = weather("广州现在的气温比北京高1.8°C。")
    result.question = "广州现在的气温比北京高几度？"
    assert wrong_differences(result.answer, result) == [(
        'the answer says 广州 is "高" than 北京 by 1.8, but the tool results give 广州 24.2 and '
        "北京 23.4: a gap of 0.8")]
    assert not grade(result).ok
    assert correction(result).kind == "compute"


@pytest.mark.parametrize("answer", ["广州现在的气温比北京高0.8°C。", "广州比北京高 1°C。",
                                    "Guangzhou is 0.8°C warmer than Beijing.",
                                    "广州更热，24.2°C，比北京的23.4°C高。"])
def test_a_right_gap_or_none_stated_passes(answer):
    result = weather(answer)
    result.question = "广州现在的气温比北京高几度？"
    assert wrong_differences(answer, result) == []


@pytest.mark.parametrize("answer", ["Guangzhou is 1.8°C warmer than Beijing.",
                                    "Guangzhou is warmer than Beijing by 1.8 degrees.",
                                    "广州比北京高出1.8度"])
def test_a_misjudged_gap_is_caught_in_either_language(answer):
    result = weather(answer)
    result.question = "广州现在的气温比北京高几度？"
    (reason,) = wrong_differences(answer, result)
    assert reason.endswith("by 1.8, but the tool results give 广州 24.2 and 北京 23.4: a gap of 0.8")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="广州北京比高低warmer than by 0123456789.°C，。", max_size=60))
def test_wrong_differences_never_raises(answer):
    result = weather(answer)
    assert isinstance(wrong_differences(answer, result), list)


def test_an_answer_that_leaves_a_fetched_city_out_gets_every_reading():
    # t39 of the suite, a real ReAct answer: 长沙 named and its figure given, 厦门's 74% left out
    question = "厦门和长沙现在哪个城市的湿度更低？两地的湿度分别是多少？"
    r = run(question, "长沙的湿度更低，为69%。",
            ("get_weather", {"location": "厦门"}, "厦门: 23.5°C (feels like 25.0°C), humidity 74%"),
            ("get_weather", {"location": "长沙"}, "长沙: 22.4°C (feels like 23.3°C), humidity 69%"))
    fix = correction(r)
    assert fix.kind == "cover" and fix.names == ("厦门",) and not fix.needs_call
    assert "74%" in fix.fact and "69%" in fix.fact
    text = correction_text(fix, question)
    assert "厦门 got no figure" in text and "为69%" not in text  # the draft is not repeated
    assert text.endswith(question)


def test_an_answer_with_every_reading_needs_no_cover():
    question = "厦门和长沙现在哪个城市的湿度更低？两地的湿度分别是多少？"
    r = run(question, "长沙的湿度更低，为69%；厦门为74%。",
            ("get_weather", {"location": "厦门"}, "厦门: 23.5°C (feels like 25.0°C), humidity 74%"),
            ("get_weather", {"location": "长沙"}, "长沙: 22.4°C (feels like 23.3°C), humidity 69%"))
    assert correction(r) is None


T24 = "今天到2026年6月18日还有多少天？如果每天存 20 元，再加上已有的 500 元，到那天一共有多少钱？"
TODAY = ("get_today", {}, "2026-03-01 (Sunday, 星期日)")
DAYS_109 = ("days_between", {"date1": "2026-03-01", "date2": "2026-06-18"}, "109")


def test_an_amount_the_question_leaves_unused_gets_the_total_s_expression():
    # t24 of the suite, a real native answer: 20 × 109 = 2180 worked in the head, the 500 left
    # out. Measured: asked for the calculator with the unused amount alone, the 1.5B wrote
    # "193 + 10 * 10" (3 native runs, none solved); so the correction names the expression the
    # question's amount a day, the days and the amount already there make.
    answer = "Total Amount = 20 yuan/day × 109 days = 2180 yuan. So you will have **2180 yuan**."
    r = run(T24, answer, TODAY, DAYS_109)
    v = grade(r)
    assert not v.ok and v.unused == ["500"] and v.totals == ["109 * 20 + 500"]
    assert "the question gives 500, and neither the answer nor any tool call uses it" in str(v)
    fix = correction(r)
    assert fix.kind == "compute" and fix.fact == "109 * 20 + 500" and fix.needs_call


def test_an_amount_left_unused_outside_a_total_per_day_gets_no_correction():
    # "买 100 股" answered with the price alone: the 100 is unused, and no expression is known
    r = run("青岛啤酒的收盘价是多少？买 100 股要多少钱？", "青岛啤酒的收盘价是67.92元。",
            ("get_closing_price", {"name": "青岛啤酒"}, QD))
    v = grade(r)
    assert not v.ok and v.unused == ["100"] and v.totals == []
    assert correction(r) is None
    # the days alone leave both amounts out
    assert grade(run(T24, "There are 109 days left.", TODAY, DAYS_109)).unused == ["20", "500"]


def test_amounts_used_in_a_call_or_in_the_answer_need_nothing():
    worked = run(T24, "还有109天，一共有2680元。", TODAY, DAYS_109,
                 ("calculator", {"expression": "20 * 109 + 500"}, "2680"))
    assert correction(worked) is None and grade(worked).ok
    # the seed's savings answered in the head, right: 1530 = 306 × 5 uses the 5
    seed = run(SAVINGS, "还有306天，一共能存1530元。", TODAY,
               ("days_between", {"date1": "2026-03-01", "date2": "2027-01-01"}, "306"))
    assert grade(seed).ok
    # a date's digits are not the question's amounts: "03" in 2026-03-01 is not "3 pages"
    pages = run("How many days are left until 2026-12-31? If I read 3 pages a day, how many pages?",
                "You will have read 0 pages by then.", TODAY,
                ("days_between", {"date1": "2026-03-01", "date2": "2026-12-31"}, "305"))
    assert grade(pages).unused == ["3"]


def test_a_figure_for_a_stock_not_found_gets_the_failed_lookup_as_the_fact():
    from test_grader import catl
    r = catl("青岛啤酒和宁德时代的收盘价分别是67.92 CNY和33.96 CNY。",
             ("calculator", {"expression": "(67.92 + 0) / 2"}, "33.96"))
    c = correction(r)
    assert c.kind == "fact" and not c.needs_call
    assert "the lookup for 宁德时代 failed" in c.fact and "give it no figure" in c.fact
    assert "33.96" not in correction_text(c, r.question)  # the draft's figure is not repeated


DOWN = ("Error: get_weather failed: ConnectionError: the data service is down for the rest of "
        "this session (a lasting failure: retrying will not help). Tell the user that the data "
        "could not be fetched.")


def test_a_name_looked_up_twice_in_vain_gets_the_failure_as_the_fact_not_a_third_try():
    # t62, the seventh round: get_weather(上海) failed three times, then "22 degrees"
    twice = run("上海现在的气温是多少度？", "The current temperature in Shanghai is 22 degrees Celsius.",
                ("get_weather", {"location": "上海"}, DOWN, True),
                ("get_weather", {"location": "上海"}, DOWN, True))
    c = correction(twice)
    assert c.kind == "fact" and not c.needs_call
    assert c.fact.startswith("the lookup for 上海 failed (the data service is down")
    assert "not found or could not be fetched" in c.fact
    # the guard tells it even though no tool answered anything (it asks for no call)
    from reactlab.guards import Guards
    assert Guards.on().ground(twice.question, twice.answer, twice.steps[:-1]) == c
    # one failure: a second try may work (a flaky tool), so the name is asked for again
    once = run(twice.question, twice.answer, ("get_weather", {"location": "上海"}, DOWN, True))
    assert correction(once).kind == "missing"
    assert Guards.on().ground(once.question, once.answer, once.steps[:-1]) is None


def test_a_figure_when_nothing_came_back_gets_the_failed_lookup_as_the_fact():
    # t58, the seventh round's native run: 比亚迪 is no course name, both lookups failed
    nf = ("Error: get_closing_price failed: ValueError: no closing price for '比亚迪'. Known "
          "stocks: 青岛啤酒 (600600.SH), 贵州茅台 (600519.SH).")
    r = run("比亚迪的收盘价是多少？", "The closing price of比亚迪 is $19.00.",
            ("get_closing_price", {"name": "比亚迪"}, nf, True))
    c = correction(r)
    assert c.kind == "fact" and c.fact.startswith("the lookup for 比亚迪 failed (no closing price")
    from reactlab.guards import Guards
    assert Guards.on().ground(r.question, r.answer, r.steps[:-1]) == c
    # an honest answer gets nothing
    r.answer = "未搜到该股票：比亚迪。"
    assert correction(r) is None


def test_the_checked_fact_spells_the_names_as_the_question_does():
    # the real native run (suite task t15): told in Chinese names, the model kept "Harbin"
    hrb = ("哈尔滨: 14.8°C (feels like 12.9°C), humidity 29%, wind 西南风 5.8 m/s, precipitation "
           "0.0 mm, pressure 1010 hPa [snapshot]")
    km = ("昆明: 22.1°C (feels like 20.7°C), humidity 35%, wind 西南风 3.0 m/s, precipitation "
          "0.0 mm, pressure 1010 hPa [snapshot]")
    r = run("Which is warmer right now, Harbin or Kunming? Give both temperatures.",
            "Harbin is warmer than Kunming right now: 14.8°C against 22.1°C.",
            ("get_weather", {"location": "哈尔滨"}, hrb), ("get_weather", {"location": "昆明"}, km))
    c = correction(r)
    assert c.kind == "fact"
    assert c.fact == ('Kunming 22.1 and Harbin 14.8 (temperature), so Kunming is the one that '
                      'is "warmer"')
    # a Chinese question keeps the Chinese names (test_the_stock_answer_backwards_…)


def test_a_missed_total_per_day_gets_its_expression_and_requires_the_calculator():
    from test_grader import T54, days_run
    r = days_run(T54, "293", "193", ("calculator", {"expression": "193 + 10 * 10"}, "293"))
    c = correction(r)
    assert c.kind == "compute" and c.needs_call and c.fact == "193 * 10"
    text = correction_text(c, r.question)
    assert "Compute 193 * 10 with the calculator" in text and "293" not in text


def test_a_day_count_left_out_gets_it_as_the_checked_fact():
    from test_grader import days_run
    t24 = "今天到2026年6月18日还有多少天？如果每天存 20 元，再加上已有的 500 元，到那天一共有多少钱？"
    r = days_run(t24, "2680", "109", ("calculator", {"expression": "(20 * 109) + 500"}, "2680"))
    c = correction(r)
    assert c.kind == "fact" and not c.needs_call
    # both figures the question asks for (the suite's native t56, told the count alone,
    # answered with the count alone)
    assert c.fact == ("days_between gave 109 days, and 109 * 20 + 500 = 2680: the question "
                      "asks for both, the days and the total")
    assert "2680" in correction_text(c, r.question) and "109 days" in correction_text(c, r.question)


def test_a_day_count_left_out_of_a_question_with_no_amount_gets_the_count_alone():
    from test_grader import days_run
    q = "今天到2026年6月18日还有多少天？那天是星期几？"
    r = days_run(q, "那天是星期四。", "109")
    c = correction(r)
    assert c is not None and c.kind == "fact"
    assert c.fact == "days_between gave 109 days, and the question asks how many days"


def test_a_miscounted_day_count_gets_the_days_between_call_only_when_asked():
    """ReAct t19: get_today, calculator("5 * (2027-2026-1) / 3") -> 0, "还有 0 天 … 0 元"."""
    r = run(SAVINGS, "今天是2026-03-01，到2027-01-01还有0天，一共能存0元。",
            ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
            ("calculator", {"expression": "5 * (2027-2026-1) / 3"}, "0"))
    fix = correction(r, days=True)
    assert fix.kind == "days" and fix.required == "days_between"
    assert fix.fact == 'days_between({"date1": "2026-03-01", "date2": "2027-01-01"})'
    assert correction(r) is None  # every figure a calculation gave: nothing else to correct
    # once days_between has run, its count is the model's to use: no days correction
    ran = run(SAVINGS, "还有59天。", ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
              ("days_between", {"date1": "2026-01-01", "date2": "2026-03-01"}, "59"))
    assert (correction(ran, days=True) or Correction("none", "")).kind != "days"


# --- the conclusion correction (`conclude`): a "which one" answered with the figures only ---


COLDER_Q = "北京和上海现在哪个更冷？请给出两地的气温。"


def colder_run(answer):
    return run(COLDER_Q, answer, ("get_weather", {"location": "北京"}, BJ),
               ("get_weather", {"location": "上海"}, SH_FULL))


def test_an_unconcluded_comparison_gets_the_settled_fact_only_when_asked():
    listed = colder_run("北京的气温是23.4°C, 上海的气温是19.8°C.")  # the suite's t32, ReAct
    assert correction(listed) is None  # the grader, told no winner, passes it
    fix = correction(listed, conclude=True)
    assert fix.kind == "fact" and not fix.needs_call
    assert fix.fact == '上海 19.8 and 北京 23.4 (temperature), so 上海 is the one that is "更冷"'
    assert "更冷" in fix.reasons


@pytest.mark.parametrize("answer", ["上海更冷：北京23.4°C，上海19.8°C。",
                                    "北京23.4°C，上海19.8°C，上海比北京冷。"])
def test_a_concluded_comparison_is_left_alone(answer):
    assert correction(colder_run(answer), conclude=True) is None


def test_no_conclusion_correction_without_a_which_question_or_a_reading():
    from reactlab.correction import _unconcluded

    no_which = run("北京和上海的气温分别是多少，更冷的那个穿什么？", "北京23.4°C，上海19.8°C。",
                   ("get_weather", {"location": "北京"}, BJ),
                   ("get_weather", {"location": "上海"}, SH_FULL))
    assert _unconcluded(no_which) is None  # no 哪/which: not a "which one" question
    one_fetched = run(COLDER_Q, "北京的气温是23.4°C。", ("get_weather", {"location": "北京"}, BJ))
    fix = correction(one_fetched, conclude=True)
    assert fix is None or fix.kind == "missing"  # 上海 is still to fetch, not a conclusion


def test_the_english_stock_question_is_settled_by_the_closing_prices():
    q = "Whose closing price is higher, Tsingtao Brewery's or Kweichow Moutai's? Give both prices."
    r = run(q, "The closing price of Tsingtao Brewery is 67.92 CNY, and the closing price of "
               "Kweichow Moutai is 1488.21 CNY.",  # the suite's t34, native
            ("get_closing_price", {"name": "青岛啤酒"}, QD),
            ("get_closing_price", {"name": "贵州茅台"}, MT))
    fix = correction(r, conclude=True)
    assert fix.kind == "fact" and fix.fact.startswith("Kweichow Moutai 1488.21 and Tsingtao")


def test_the_guard_passes_conclude_through():
    from reactlab.guards import Guards

    steps = colder_run("x").steps[:-1]
    draft = "北京的气温是23.4°C, 上海的气温是19.8°C."
    fix = Guards.on().ground(COLDER_Q, draft, steps)  # on by default since the twentieth round
    assert fix is not None and fix.kind == "fact"
    assert Guards.basic().ground(COLDER_Q, draft, steps) is None  # the levers off
    assert Guards.on().__class__(conclude=False).ground(COLDER_Q, draft, steps) is None


def test_a_settled_comparison_gets_its_own_wording_only_when_asked():
    from dataclasses import replace

    from reactlab.guards import Guards

    steps = colder_run("x").steps[:-1]
    draft = "北京的气温是23.4°C, 上海的气温是19.8°C."  # unconcluded: the settled comparison
    assert correction(colder_run(draft), conclude=True).settled
    default = Guards.on().ground(COLDER_Q, draft, steps)
    assert default.settled and not Guards.on().settled_wording  # off by default:
    # it reads like any other fact
    assert correction_text(default, COLDER_Q, Guards.on().settled_wording).endswith(COLDER_Q)
    worded = replace(Guards.on(), settled_wording=True).ground(COLDER_Q, draft, steps)
    assert worded.settled and worded.fact == default.fact
    text = correction_text(worded, COLDER_Q, settled_wording=True)
    assert text.startswith("Checked against the tool results: 上海 19.8")
    assert COLDER_Q in text and not text.endswith(COLDER_Q)  # the instruction comes last
    backwards = colder_run("北京更冷：北京23.4°C，上海19.8°C。")
    assert correction(backwards).settled  # a backwards comparison is settled too


def test_a_failed_lookup_keeps_the_plain_fact_wording_under_settled_wording():
    from dataclasses import replace

    from reactlab.guards import Guards

    twice = run("上海现在的气温是多少度？", "The current temperature in Shanghai is 22 degrees Celsius.",
                ("get_weather", {"location": "上海"}, DOWN, True),
                ("get_weather", {"location": "上海"}, DOWN, True))
    fix = replace(Guards.on(), settled_wording=True).ground(twice.question, twice.answer,
                                                            twice.steps[:-1])
    assert fix.kind == "fact" and not fix.settled  # the twenty-first round's loss: t62
    assert correction_text(fix, twice.question, settled_wording=True).endswith(twice.question)
