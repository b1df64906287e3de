"""reactlab.grader: the notebooks' real wrong answers are ✘ for the right reason, the matching
right answers are ✔, every status and guard has its mode, and grade never raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab import day_count
from reactlab.grader import (
    MODES,
    Expected,
    Verdict,
    aggregates,
    comparison_problem,
    echoed_message,
    echoes_question,
    grade,
    unsupported_figures,
    wrote_own_observation,
)
from reactlab.runlog import STATUSES, RunResult, Step, ToolCallRecord

BJ = ("北京: 23.4°C (feels like 23.1°C), humidity 43%, wind 西南风 2.7 m/s (微风), precipitation "
      "0.0 mm, pressure 1005 hPa [snapshot of 2025-04-26 15:00, bundled teaching data, not live "
      "weather]")
GZ = ("广州: 24.2°C (feels like 27.1°C), humidity 79%, wind 东北风 1.3 m/s (微风), precipitation "
      "0.0 mm, pressure 1005 hPa [snapshot of 2025-04-26 15:00, bundled teaching data, not live "
      "weather]")
QD = ("青岛啤酒 (600600.SH) closing price: 67.92 CNY [example figure from the course's source "
      "article, not live market data]")
MT = ("贵州茅台 (600519.SH) closing price: 1488.21 CNY [example figure from the course's source "
      "article, not live market data]")
SAVINGS = "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？"


def run(question, answer, *calls, status="final", extra_steps=()):
    """A run: one action step per (tool, arguments, observation[, error]), then a final step."""
    steps = [Step(i + 1, "action", tool_calls=[ToolCallRecord(c[0], c[1], c[2],
                                                               error=c[3] if len(c) > 3 else False)])
             for i, c in enumerate(calls)]
    steps += list(extra_steps) or [Step(len(steps) + 1, "final", text=f"Final Answer: {answer}")]
    return RunResult(question=question, answer=answer, status=status, steps=steps)


def stocks(answer):
    return run("青岛啤酒和贵州茅台的收盘价哪个更高？高多少？", answer,
               ("get_closing_price", {"name": "青岛啤酒"}, QD),
               ("get_closing_price", {"name": "贵州茅台"}, MT),
               ("calculator", {"expression": "1488.21 - 67.92"}, "1420.29"))


def weather(answer, *cities):
    obs = {"北京": BJ, "广州": GZ}
    return run("北京和广州今天的天气怎么样？", answer,
               *[("get_weather", {"location": c}, obs[c]) for c in cities or ("北京", "广州")])


def air(answer):
    return run("北京和广州今天哪里空气更好？", answer,
               ("get_air_quality", {"city": "北京"}, "北京: AQI 82"),
               ("get_air_quality", {"city": "广州"}, "广州: AQI 57"))


# --- the notebooks' real answers ----------------------------------------------------------

def test_stocks_backwards_comparison_is_wrong():
    # notebook 06, both agents: the figures are right, the conclusion is backwards
    v = grade(stocks("青岛啤酒的收盘价是67.92元，贵州茅台的收盘价是1488.21元，青岛啤酒的收盘价更高，高1420.29元。"))
    assert not v.ok and v.mode == "wrong_answer" and v.unsupported == []
    assert str(v) == ('verdict: ✘ the answer says 青岛啤酒 is "更高" (closing price), but the tool '
                      "results give 青岛啤酒 67.92 and 贵州茅台 1488.21, so it is 贵州茅台, not 青岛啤酒, "
                      'that is "更高"')
    right = grade(stocks("青岛啤酒的收盘价是67.92元，贵州茅台的收盘价是1488.21元，贵州茅台的收盘价更高，高1420.29元。"))
    assert right.ok and right.mode is None
    assert str(right) == ("verdict: ✔ every figure comes from a tool result, the question or a "
                          "calculation (67.92, 1488.21, 1420.29)")
    assert grade(stocks("贵州茅台比青岛啤酒高1420.29元。")).ok


def _nov30(answer, status="final"):
    # notebook 05/08: get_today -> 2026-11-30, days_between -> 32, calculator garbled to -200
    return run(SAVINGS, answer, ("get_today", {}, "2026-11-30 (Monday, 星期一)"),
               ("days_between", {"date1": "2026-11-30", "date2": "2027-01-01"}, "32"),
               ("calculator", {"expression": "5 * (2027-2026-11-30)"}, "-200"), status=status)


def test_savings_1600_after_the_budget_is_unsupported():
    answer = "今天是2026年11月30日，到2027年1月01日还有32天。如果这些天每天存5元，一共能存1600元。"
    v = grade(_nov30(answer, "max_steps"))
    assert not v.ok and v.mode == "step_limit" and v.unsupported == ["1600"]
    assert v.reasons == ["the run ended with max_steps: the step budget ran out",
                         "1600 is not supported: no tool result or calculation gives it",
                         ("the question counts 5 a day over the 32 days days_between gave: the "
                         "total is 32 * 5 = 160, and the answer does not state it")]
    assert unsupported_figures(answer, _nov30(answer)) == ["1600"]
    # every fact was fetched: a figure nothing gives is bad arithmetic, as in the benchmark
    assert grade(_nov30(answer)).mode == "wrong_answer"
    assert grade(_nov30(answer.replace("1600", "160"))).ok  # 32 × 5


@pytest.mark.parametrize("answer", ["今天是2026-03-01，还有306天，一共能存1530元。",
                                    "还有306天，一共能存 1,530 元", "306天，共1530.0元",
                                    "306 × 5 = 1530 元"])
def test_savings_on_the_pinned_date(answer):
    r = run(SAVINGS, answer, ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
            ("days_between", {"date1": "2026-03-01", "date2": "2027-01-01"}, "306"),
            ("calculator", {"expression": "306 * 5"}, "1530"))
    assert grade(r).ok
    # the total alone leaves "还有多少天" unanswered
    r.answer = "一共能存 1,530 元"
    assert grade(r).mode == "incomplete" and grade(r).days == ["306"]
    r.answer = answer
    r.answer = answer.replace("1530", "1600").replace("1,530", "1,600")
    assert not grade(r).ok and [float(f) for f in grade(r).unsupported] == [1600]


def test_guangzhou_with_figures_it_never_fetched():
    # notebook 08's memory turn: 广州's result says 24.2°C / 79 %, the answer 22.1°C / 45 %
    v = grade(weather("北京今天23.4°C，湿度43%。广州今天的天气是22.1°C（感觉温度为21.8°C），湿度为45%。"))
    assert not v.ok and v.unsupported == ["22.1", "21.8", "45"] and v.mode == "wrong_answer"
    assert "22.1, 21.8, 45 are not supported" in str(v)
    assert "the answer gives no figure for 广州" in str(v)
    # nothing fetched at all: the same figures are invented
    alone = run("那广州呢？", "广州今天的天气是22.1°C，湿度为45%。")
    assert grade(alone).mode == "invented_data"


def test_guangzhou_given_beijings_figures():
    v = grade(weather("北京今天23.4°C，湿度43%；广州今天23.4°C，湿度43%。"))
    assert not v.ok and v.mode == "wrong_answer" and v.unsupported == []
    assert v.reasons == [("广州 is given 北京's figures (23.4, 43): 广州's own tool result says "
                         "广州: 24.2°C (feels like 27.1°C), humidity 79%")]
    assert grade(weather("北京今天23.4°C，湿度43%；广州今天24.2°C，湿度79%。")).ok
    assert grade(weather("It is 23.4°C in Beijing and 24.2°C in Guangzhou.")).ok
    # 广州 never fetched, 北京's figure put next to it: invented
    assert grade(weather("北京23.4°C，广州23.4°C", "北京")).mode == "invented_data"


def test_air_quality_lower_aqi_is_better():
    v = grade(air("The air quality in Beijing is better than in Guangzhou."))
    assert not v.ok and v.mode == "wrong_answer"
    assert str(v) == ('verdict: ✘ the answer says 北京 is "better" (AQI), but the tool results '
                      "give 北京 82 and 广州 57 (a lower AQI is better), so it is 广州, not 北京, that "
                      'is "better"')
    for right in ["The air quality in Guangzhou is better than in Beijing.", "广州的空气更好（AQI 57，北京 82）。",
                  "北京的空气更差", "Beijing's air is not better than Guangzhou's."]:
        assert grade(air(right)).ok, right


def test_other_comparisons_from_the_benchmark():
    hk = run("Which is warmer right now, Harbin or Kunming? Give both temperatures.",
             "Harbin is warmer than Kunming. Harbin's temperature is 14.8°C, while Kunming's "
             "temperature is 22.1°C.",
             ("get_weather", {"location": "Harbin"}, "哈尔滨: 14.8°C (feels like 12.9°C) [snapshot]"),
             ("get_weather", {"location": "Kunming"}, "昆明: 22.1°C (feels like 20.7°C) [snapshot]"))
    assert grade(hk).mode == "wrong_answer" and "哈尔滨 is \"warmer\"" in str(grade(hk))
    hk.answer = "Kunming (22.1°C) is warmer than Harbin (14.8°C)."
    assert grade(hk).ok
    hk.answer = "Kunming is 7.3°C warmer than Harbin."  # 22.1 − 14.8 without the calculator
    assert grade(hk).ok
    cq = run("成都和重庆现在哪个城市的湿度更高？两地的湿度分别是多少？", "成都的湿度更高，为66%。重庆的湿度为70%。",
             ("get_weather", {"location": "成都"}, "成都: 17.2°C, humidity 66% [snapshot]"),
             ("get_weather", {"location": "重庆"}, "重庆: 20.5°C, humidity 70% [snapshot]"))
    assert "成都 is \"更高\" (humidity)" in str(grade(cq))
    cq.answer = "重庆更高：重庆 70%，成都 66%"
    assert grade(cq).ok


# --- statuses and guards -------------------------------------------------------------------

@pytest.mark.parametrize("status, answer, steps, mode, reason", [
    ("error", None, [], "provider_error", "the run ended with error"),
    ("loop", "不知道", [Step(1, "action")] * 3, "loop", "kept repeating the same call"),
    ("parse_errors", None, [Step(1, "parse_error")] * 3, "format_error", "parse_errors"),
    ("max_steps", "?", [Step(1, "parse_error"), Step(2, "empty"), Step(3, "action"),
                        Step(4, "final_request")], "format_error", "2 of 3 replies"),
    ("max_tokens", "?", [Step(1, "action"), Step(2, "final_request")], "step_limit",
     "token budget"),
    ("final", None, [Step(1, "final")], "wrong_answer", "the run gave no answer"),
    ("final", "   ", [Step(1, "final")], "wrong_answer", "the run gave no answer"),
    ("cancelled", "x", [], "wrong_answer", "status 'cancelled': an unknown status"),
])
def test_statuses_are_failures_with_their_reason(status, answer, steps, mode, reason):
    v = grade(RunResult("北京现在几度？", answer, status, steps))
    assert not v.ok and v.mode == mode and reason in str(v)


@pytest.mark.parametrize("answer", [
    '{"action": "get_closing_price", "action_input": {"name": "北京"}}',
    '{"name": "get_closing_price", "arguments": {"name": "Tsingtao Brewery"}}'])
def test_a_tool_call_written_out_as_the_answer(answer):
    v = grade(RunResult("中国的首都是哪座城市？", answer, "final", [Step(1, "final")]))
    assert v.mode == "format_error" and "tool call written out" in str(v)
    ok = '{"action": "Final Answer", "action_input": "北京"}'
    assert grade(RunResult("中国的首都是哪座城市？", ok, "final", [Step(1, "final")])).ok


def test_an_observation_the_model_wrote_itself_is_invented():
    steps = [Step(1, "action", text="Thought: ok\nObservation: 广州 30°C\nFinal Answer: 30")]
    r = weather("广州 30°C", "北京")
    r.steps += steps
    assert wrote_own_observation(r) and grade(r).mode == "invented_data"
    assert "Observation: line the model wrote itself" in str(grade(r))
    # the same made-up line without a figure in the answer: wrong, not invented
    r.answer = "不知道"
    assert grade(r).mode == "wrong_answer"


def test_a_part_never_fetched_is_incomplete_or_invented():
    v = grade(weather("北京今天23.4°C。", "北京"))
    assert v.mode == "incomplete"
    assert v.reasons == ["no tool result for 广州 came back, so the answer cannot cover it"]
    assert grade(weather("北京23.4°C，广州19°C", "北京")).mode == "invented_data"
    # the lookup failed: an answer that names the city and gives it no figure says what the
    # tools said; one that names nothing, or gives a figure, does not
    gz = ("get_weather", {"location": "广州"}, "Error: TimeoutError", True)
    told = grade(run("广州现在的气温是多少度？", "I can't provide the weather for Guangzhou right now.", gz))
    assert told.ok and told.reasons == [("the lookup for 广州 failed, and the answer says so "
                                        "without giving it a figure")]
    assert grade(run("广州现在的气温是多少度？", "Sorry, I can't help.", gz)).mode == "wrong_answer"
    assert grade(run("广州现在的气温是多少度？", "广州现在22度。", gz)).mode == "invented_data"


def test_a_name_joined_to_a_known_one_is_a_part_of_the_question():
    # t60, the seventh round's native run: 宁德时代 (no data in the course) never looked up
    q = "青岛啤酒和宁德时代的收盘价分别是多少？"
    v = grade(run(q, "青岛啤酒的收盘价是67.92元。", ("get_closing_price", {"name": "青岛啤酒"}, QD)))
    assert v.mode == "incomplete" and "no tool result for 宁德时代 came back" in v.reasons[0]
    nf = ("Error: get_closing_price failed: ValueError: no closing price for '宁德时代'. Known "
          "stocks: 青岛啤酒 (600600.SH), 贵州茅台 (600519.SH).")
    both = run(q, "青岛啤酒的收盘价是67.92元，宁德时代未搜到该股票。",
               ("get_closing_price", {"name": "青岛啤酒"}, QD),
               ("get_closing_price", {"name": "宁德时代"}, nf, True))
    assert grade(both).ok


@pytest.mark.parametrize("question,found", [
    ("青岛啤酒和宁德时代的收盘价分别是多少？", ["宁德时代"]),
    ("What were the closing prices of Kweichow Moutai and Ping An Insurance?", ["Ping An Insurance"]),
    ("北京和巴黎现在哪个更热？", ["巴黎"]),
    ("北京和广州现在的天气怎么样？", []),  # both known
    ("北京和今天的天气", []),  # a time word is not a name
    ("比亚迪的收盘价是多少？", []),  # nothing known to join it to
    ("How is the weather in Beijing and Shanghai today?", []),
])
def test_partners_reads_a_name_after_a_known_one_and_a_conjunction(question, found):
    from reactlab import claims
    assert claims.partners(question, claims.names({})) == found


@pytest.mark.parametrize("question,found", [
    ("五粮液和贵州茅台的收盘价分别是多少？", ["五粮液"]),  # notebook 07's question
    ("请问五粮液和贵州茅台哪个贵？", ["五粮液"]),  # the words that open a question are cut
    ("比较五粮液与青岛啤酒", ["五粮液"]),
    ("What were the closing prices of Ping An Insurance and Kweichow Moutai?",
     ["Ping An Insurance"]),
    ("Which is higher, Tencent or Kweichow Moutai?", ["Tencent"]),
    ("Compare Tencent and Kweichow Moutai.", ["Tencent"]),
    ("今天和明天北京的天气？", []),  # time words
    ("北京、上海和广州的平均气温", []),  # all known
    ("What and Kweichow Moutai", []),  # a question word alone is no name
    ("Is Shenzhen or Beijing warmer?", []),
])
def test_partners_reads_a_name_before_a_known_one_at_the_start_of_a_clause(question, found):
    from reactlab import claims
    assert claims.partners(question, claims.names({})) == found


def test_a_stock_named_first_and_never_looked_up_is_a_part_left_out():
    # notebook 07: "分别是1488.21" after only 贵州茅台 was fetched passed while 五粮液 was a
    # name the grader could not see in the question
    v = grade(run("五粮液和贵州茅台的收盘价分别是多少？", "五粮液和贵州茅台的收盘价分别是1488.21 CNY。",
                  ("get_closing_price", {"name": "贵州茅台"}, MT)))
    assert not v.ok and "五粮液" in str(v), str(v)


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=60))
def test_partners_before_a_known_name_never_raises(text):
    from reactlab import claims
    assert isinstance(claims.partners(text + "和贵州茅台", claims.names({})), list)


def test_asked_lists_the_mentions_then_the_partners_once_each():
    from reactlab import claims
    assert claims.asked("青岛啤酒和宁德时代的收盘价分别是多少？青岛啤酒呢？", claims.names({})) == [
        "青岛啤酒", "宁德时代"]


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=60))
def test_partners_never_raises(text):
    from reactlab import claims
    assert isinstance(claims.partners("北京和" + text, claims.names({})), list)


def test_made_up_tool_inputs_and_wrong_sums():
    q = "今天到2026年6月18日还有多少天？如果每天存 20 元，再加上已有的 500 元，到那天一共有多少钱？"
    r = run(q, "260天，一共5700元", ("days_between", {"date1": "2026-06-18", "date2": "2025-10-01"},
                                   "260"), ("calculator", {"expression": "260 * 20 + 500"}, "5700"))
    v = grade(r)
    assert v.mode == "invented_data" and "days_between was given 2025" in str(v)
    avg = run("北京、上海、广州现在的气温分别是多少？三地的平均气温是多少？",
              "北京 23.4，上海 19.8，广州 24.2，平均 (23.4 + 19.8 + 24.2) / 3 = 23.4°C",
              ("get_weather", {"location": "北京"}, "北京: 23.4°C [snapshot]"),
              ("get_weather", {"location": "上海"}, "上海: 19.8°C [snapshot]"),
              ("get_weather", {"location": "广州"}, "广州: 24.2°C [snapshot]"))
    assert "arithmetic is wrong: (23.4 + 19.8 + 24.2) / 3 = 23.4 (is 22.4666666667)" in str(grade(avg))
    avg.answer = avg.answer.replace("= 23.4°C", "= 22.47°C")
    assert grade(avg).ok
    avg.answer = "北京 23.4°C，上海 19.8°C，广州 24.2°C，三地平均约22.5°C。"  # in its head: fine
    assert grade(avg).ok
    avg.answer = "北京 23.4°C，上海 19.8°C，广州 24.2°C，三地平均约23.5°C。"
    assert grade(avg).unsupported == ["23.5"]


def test_an_answer_that_uses_nothing_fetched():
    v = grade(run(SAVINGS, "I'm sorry, but I need a tool call to proceed.",
                  ("get_today", {}, "2026-03-01 (Sunday, 星期日)")))
    assert v.mode == "wrong_answer" and "uses nothing the tools returned" in str(v)


# --- expected facts ------------------------------------------------------------------------

def test_expected_figures_winner_and_parts():
    week = RunResult("How many days are there in a week?", "There are 7 days in a week.", "final")
    assert not grade(week).ok  # common knowledge has no tool result …
    assert grade(week, Expected(figures=("7",))).ok  # … unless the caller vouches for it
    v = grade(stocks("青岛啤酒 67.92，贵州茅台 1488"), Expected(figures=("1488.21",), winner="贵州茅台"))
    assert v.reasons == ["the answer does not state 1488.21, the expected figure",
                         "the answer never names 贵州茅台, the expected winner"] or not v.ok
    assert "does not state 1488.21" in str(v)
    right = stocks("茅台贵：1488.21 元，青岛啤酒 67.92 元")
    assert grade(right, Expected(figures=("1488.21",), winner="贵州茅台")).ok
    today = run("今天是几号？", "今天是2026年3月1日", ("get_today", {}, "2026-03-01 (Sunday, 星期日)"))
    assert grade(today, Expected(figures=("2026-03-01",))).ok
    assert not grade(today, Expected(figures=("2026-03-02",))).ok
    english = weather("Beijing 23.4°C, Guangzhou 24.2°C")
    assert grade(english, Expected(parts=(("北京", "Beijing"), ("广州", "Guangzhou")))).ok
    assert grade(weather("Beijing 23.4°C"), Expected(parts=("北京", "广州"))).mode == "wrong_answer"
    assert grade(english, Expected(parts=((), "", (" ",)))).ok  # nothing to look for: no part


def test_verdict_shows_itself():
    v = Verdict(False, ["a", "b"], ["1600"], "step_limit")
    assert str(v) == "verdict: ✘ a; b"
    assert v._repr_markdown_() == "**verdict: ✘** (step_limit)\n\n- a\n- b"
    assert str(Verdict(True, ["fine"])) == "verdict: ✔ fine"
    assert comparison_problem(None, stocks("")) is None


# --- properties ----------------------------------------------------------------------------

_bits = ["北京", "广州", "Beijing", "青岛啤酒", "贵州茅台", "Tsingtao", "更高", "更低", "better",
         "than", "比", "高", "AQI", " ", "，", "。", "?", "\n", "Observation:", "=", "+", "/", "(",
         ")", "1,530", "23.4", "0", "-", "%", "°C", "2026-03-01", ": ", "not", "{", '"action"']
_text = st.one_of(st.text(max_size=80), st.lists(st.sampled_from(_bits), max_size=30).map("".join))
_args = st.one_of(_text, st.dictionaries(st.text(max_size=8), st.one_of(_text, st.integers()),
                                         max_size=3))
_call = st.builds(ToolCallRecord, name=_text, arguments=_args, observation=_text,
                  error=st.booleans())
_step = st.builds(Step, number=st.integers(0, 9),
                  kind=st.sampled_from(["action", "final", "parse_error", "empty",
                                        "final_request", "?"]),
                  text=_text, tool_calls=st.lists(_call, max_size=3))
_run = st.builds(RunResult, question=_text, answer=st.one_of(st.none(), _text),
                 status=st.sampled_from([*STATUSES, "odd"]), steps=st.lists(_step, max_size=4))


@settings(max_examples=300, deadline=None)
@given(_run, st.one_of(st.none(), st.builds(
    Expected, figures=st.lists(_text, max_size=2).map(tuple), winner=st.one_of(st.none(), _text),
    parts=st.lists(st.one_of(_text, st.lists(_text, min_size=1, max_size=2).map(tuple)),
                   max_size=2).map(tuple))))
def test_grade_never_raises(result, expected):
    v = grade(result, expected)
    assert isinstance(v, Verdict) and v.reasons
    assert (v.mode is None) if v.ok else (v.mode in MODES)
    assert str(v).startswith("verdict: ✔ " if v.ok else "verdict: ✘ ")
    assert set(v.unsupported) <= set(unsupported_figures(result.answer, result)) or expected
    comparison_problem(result.answer, result)


def test_a_provider_failure_is_a_provider_error_whichever_status_name():
    for status in ("provider_error", "error"):
        v = grade(RunResult("北京天气？", None, status, error="HTTP 500 from the provider"))
        assert not v.ok and v.mode == "provider_error"


def test_qingdao_beer_is_the_stock_not_the_city():
    # an English answer naming the stock "Qingdao Beer" is about 青岛啤酒, not the city 青岛
    v = grade(stocks("Qingdao Beer (600600.SH) closed at 67.92 and Kweichow Moutai at 1488.21; "
                     "Moutai is higher by 1420.29."))
    assert v.ok, str(v)


def test_a_document_passage_about_a_city_covers_it():
    passage = ("[1] 广州早茶：一盅两件，叩指礼表示感谢，揭开壶盖表示要加水。")
    r = run("在广州喝早茶有什么讲究？", "一盅两件；用叩指礼表示感谢；揭开壶盖表示要加水。",
            ("search_docs", {"query": "早茶"}, passage))
    v = grade(r)
    assert v.ok, str(v)
    # an answer that uses none of the passage is still "nothing the tools returned"
    assert not grade(run("在广州喝早茶有什么讲究？", "我来查一下资料。",
                         ("search_docs", {"query": "早茶"}, passage))).ok


@pytest.mark.parametrize("answer, ok", [
    ("青岛啤酒的收盘价是67.92元，贵州茅台的收盘价是1488.21元。青岛啤酒的收盘价贵。", False),
    ("青岛啤酒的收盘价是67.92元，贵州茅台的收盘价是1488.21元。贵州茅台的收盘价贵。", True),
    ("贵州茅台的收盘价更贵，高1420.29元。", True),
    ("青岛啤酒的收盘价便宜。", True),
    ("贵州茅台的收盘价高1420.29元。", True),  # a difference, not a bare adjective
])
def test_a_bare_adjective_after_the_quantity_is_a_comparison(answer, ok):
    # the benchmark's t14, native: "青岛啤酒的收盘价贵" was graded ✔ before
    assert grade(stocks(answer)).ok is ok, str(grade(stocks(answer)))


def test_names_and_figures_given_respectively_are_not_misattributed():
    # a real native answer: the three cities and their temperatures in one "分别" sentence
    assert grade(weather("北京、广州现在的气温分别是23.4°C和24.2°C。")).ok
    assert not grade(weather("北京23.4°C，广州23.4°C。")).ok  # without 分别 it still is


def test_a_call_that_did_not_run_is_no_invented_input():
    # a calculator call held back (or failed) never fed the answer
    r = weather("北京23.4°C，广州24.2°C。")
    r.steps[0].tool_calls.append(ToolCallRecord("calculator", {"expression": "8 * 125"},
                                                "Not run: …", error=True))
    assert grade(r).ok


TJ = "天津: 21.2°C (feels like 19.8°C), humidity 48%, wind 东南风 4.1 m/s (3级)"
CD = "成都: 20.3°C (feels like 20.6°C), humidity 66%, wind 北风 1.1 m/s (微风)"
COLDER = "Which city is colder right now, Tianjin or Chengdu? Give both temperatures."


def colder(answer):
    return run(COLDER, answer, ("get_weather", {"location": "天津"}, TJ),
               ("get_weather", {"location": "成都"}, CD))


def test_figures_ahead_of_the_next_name_belong_to_the_name_before():
    # t38, a real ReAct answer the grader had marked "天津 is given 成都's figures"
    right = ("Chengdu is colder right now, with a temperature of 20.3°C (feels like 20.6°C) "
             "compared to Tianjin's 21.2°C (feels like 19.8°C).")
    assert grade(colder(right)).ok
    # the same sentence backwards is still caught, and so is a plain swap
    backwards = ("Tianjin is colder right now, with a temperature of 20.3°C (feels like 20.6°C) "
                 "compared to Chengdu's 21.2°C (feels like 19.8°C).")
    assert not grade(colder(backwards)).ok
    assert "天津 is given 成都's figures" in str(grade(colder("天津20.3°C，成都21.2°C，成都更冷。")))


def test_a_latex_sum_is_read_whole():
    from reactlab.figures import wrong_sums
    # t25, a real native answer: "\(23.4 + 19.8 + 24.2 = 67.4°C\)" had been read as "+ 19.8 + 24.2"
    answer = ("Sum of temperatures: \\(23.4 + 19.8 + 24.2 = 67.4°C\\)\n\nAverage temperature: "
              "\\(\\frac{67.4}{3} = 22.47°C\\)")
    assert wrong_sums(answer) == []
    assert wrong_sums("\\(23.4 + 19.8 + 24.2 = 68.4°C\\)") == ["23.4 + 19.8 + 24.2 = 68.4 (is 67.4)"]


SH = "上海: 19.8°C (feels like 19.5°C), humidity 62%"
AVG = "北京、上海、广州三地现在的平均气温是多少？"


def three(answer):
    return run(AVG, answer, ("get_weather", {"location": "北京"}, BJ),
               ("get_weather", {"location": "上海"}, SH), ("get_weather", {"location": "广州"}, GZ))


def test_a_mean_worked_out_wrongly_in_the_head_is_caught():
    # t25, a real ReAct answer: the three readings right, their mean "21°C" (it is 22.47)
    v = grade(three("北京: 23.4°C, 上海: 19.8°C, 广州: 24.2°C, 三地的平均气温是 21°C."))
    assert not v.ok and v.gaps == [("the answer gives 21 as the mean, but the mean of the "
                                    "fetched readings (23.4, 19.8, 24.2) is 22.47")]
    from reactlab.correction import correction
    fix = correction(three("三地的平均气温是 21°C。"))
    assert fix.kind == "aggregate" and fix.needs_call
    assert fix.fact == "the mean of 北京 23.4, 上海 19.8 and 广州 24.2: (23.4 + 19.8 + 24.2) / 3"


def test_a_mean_from_a_calculator_fed_the_wrong_figures_is_still_wrong():
    # t25, the seventh round's ReAct run: (23.4 + 19.8 + 19.8) / 3 -> 21 before 广州 was fetched
    answer = "北京: 23.4°C, 上海: 19.8°C, 广州: 24.2°C, 三地的平均气温是 21°C."
    r = run(AVG, answer, ("get_weather", {"location": "北京"}, BJ),
            ("get_weather", {"location": "上海"}, SH),
            ("calculator", {"expression": "(23.4 + 19.8 + 19.8) / 3"}, "21"),
            ("get_weather", {"location": "广州"}, GZ))
    v = grade(r)
    assert not v.ok and v.aggregates == [
        "the mean of 北京 23.4, 上海 19.8 and 广州 24.2: (23.4 + 19.8 + 24.2) / 3"]


TJW = "天津: 21.2°C (feels like 19.8°C), humidity 52%"
QDW = "青岛: 15.6°C (feels like 14.2°C), humidity 81%"
SUM = "北京、天津、青岛三地现在的气温加起来是多少度？"


def test_a_total_that_is_not_the_sum_of_the_readings_is_caught():
    calls = (("get_weather", {"location": "北京"}, BJ), ("get_weather", {"location": "天津"}, TJW),
             ("get_weather", {"location": "青岛"}, QDW))
    v = grade(run(SUM, "三地现在的气温加起来是54.6度。", *calls))
    assert not v.ok and v.gaps == [("the answer gives 54.6 as the total, but the sum of the "
                                   "fetched readings (23.4, 21.2, 15.6) is 60.2")]
    assert v.aggregates == ["the sum of 北京 23.4, 天津 21.2 and 青岛 15.6: 23.4 + 21.2 + 15.6"]
    assert grade(run(SUM, "加起来是60.2度。", *calls)).ok
    # the sum written out: the rest of the sentence states it
    assert grade(run(SUM, "加起来是 23.4 + 21.2 + 15.6 = 60.2 度。", *calls)).ok


def test_a_mean_called_a_total_is_caught_in_english():
    # t51, the seventh round's native run: (1488.21 + 67.92) / 2 -> 778.065 called the total
    q = ("What do one share of Kweichow Moutai and one share of Tsingtao Brewery cost together "
         "at their closing prices?")
    answer = ("The total cost of one share of Kweichow Moutai and one share of Tsingtao Brewery "
              "at their closing prices is 778.065 CNY.")
    r = run(q, answer, ("get_closing_price", {"name": "Kweichow Moutai"}, MT),
            ("get_closing_price", {"name": "Tsingtao Brewery"}, QD),
            ("calculator", {"expression": "(1488.21 + 67.92) / 2"}, "778.065"))
    v = grade(r)
    assert not v.ok and "the sum of the fetched readings (1488.21, 67.92) is 1556.13" in v.gaps[0]


def test_a_total_is_not_checked_when_the_question_gives_its_own_figures():
    # "10 shares of A and 100 shares of B" is not the plain sum of the two prices
    q = "How much do 10 shares of Kweichow Moutai and 100 shares of Tsingtao Brewery cost in total?"
    r = run(q, "The total cost is 21674.1 CNY.",
            ("get_closing_price", {"name": "Kweichow Moutai"}, MT),
            ("get_closing_price", {"name": "Tsingtao Brewery"}, QD),
            ("calculator", {"expression": "10 * 1488.21 + 100 * 67.92"}, "21674.1"))
    assert aggregates(r.answer, r) == []


def test_a_right_mean_passes_rounded_or_written_out():
    assert grade(three("三地的平均气温约为22.5°C。")).ok
    latex = ("Sum: \\(23.4 + 19.8 + 24.2 = 67.4°C\\)\n\nAverage temperature: "
             "\\(\\frac{67.4}{3} = 22.47°C\\)")
    assert aggregates(latex, three(latex)) == []
    # a name not fetched yet: the missing name is the problem, not the mean
    assert aggregates("平均 21°C", run(AVG, "平均 21°C", ("get_weather", {"location": "北京"}, BJ))) == []


XM = "厦门: 23.5°C (feels like 25.0°C), humidity 74%"
CS = "长沙: 22.4°C (feels like 23.3°C), humidity 69%"
CQ = "重庆: 23.8°C (feels like 25.1°C), humidity 70%"


def test_a_mean_far_from_its_word_is_still_read_as_the_mean():
    # t48, a real answer in both protocols: one city's reading given as the mean, 61 characters
    # after "average"; the correction then names the expression, not another city's figures
    q = "What is the average temperature of Xiamen, Changsha and Chongqing right now?"
    answer = ("The average temperature of Xiamen, Changsha, and Chongqing right now is 23.5°C "
              "(feels like 25.0°C).")
    r = run(q, answer, ("get_weather", {"location": "Xiamen"}, XM),
            ("get_weather", {"location": "Changsha"}, CS),
            ("get_weather", {"location": "Chongqing"}, CQ))
    v = grade(r)
    assert not v.ok and v.aggregates == [
        "the mean of 厦门 23.5, 长沙 22.4 and 重庆 23.8: (23.5 + 22.4 + 23.8) / 3"]
    from reactlab.correction import correction
    assert correction(r).kind == "aggregate"


EACH = "北京、上海、广州现在的气温分别是多少？三地的平均气温是多少？"


def each(answer, *more):
    return run(EACH, answer, ("get_weather", {"location": "北京"}, BJ),
               ("get_weather", {"location": "上海"}, SH), ("get_weather", {"location": "广州"}, GZ),
               *more)


def test_the_mean_alone_skips_the_figures_a_question_asks_for_each():
    # t25, a real native answer: the right mean, and none of the three readings "分别" asks for
    mean = ("calculator", {"expression": "(23.4 + 19.8 + 24.2) / 3"}, "22.4666666667")
    v = grade(each("The average temperature of Beijing, Shanghai, and Guangzhou is 22.47°C.", mean))
    assert not v.ok and v.skipped == ["北京", "上海", "广州"]
    from reactlab.correction import correction
    fix = correction(each("三地的平均气温是22.47°C。", mean))
    assert fix.kind == "cover" and fix.names == ("北京", "上海", "广州")
    # all three and the mean: nothing skipped; without "分别", the mean alone answers
    assert grade(each("北京23.4°C，上海19.8°C，广州24.2°C，平均22.47°C。", mean)).ok
    assert grade(three("三地的平均气温是22.47°C。")).ok


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80))
def test_aggregates_never_raises(answer):
    assert isinstance(aggregates(answer, three(answer)), list)


# --- a figure for a name whose lookup failed (claims.unfetched) ------------------------------

NO_CATL = ("Error: get_closing_price failed: ValueError: no closing price for '宁德时代'. Known "
           "stocks: 青岛啤酒 (600600), 贵州茅台 (600519). Ask for one stock per call.")
NO_PINGAN = ("Error: get_closing_price failed: ValueError: no closing price for 'Ping An "
             "Insurance'. Known stocks: 青岛啤酒 (600600), 贵州茅台 (600519). Ask for one stock "
             "per call.")


def catl(answer, *more):
    return run("青岛啤酒和宁德时代的收盘价分别是多少？", answer,
               ("get_closing_price", {"name": "青岛啤酒"}, QD),
               ("get_closing_price", {"name": "宁德时代"}, NO_CATL, True), *more)


def test_a_calculated_price_for_a_stock_that_was_not_found_is_invented():
    # the real ReAct run (suite task t60): a "price" for 宁德时代 computed from 青岛啤酒's
    v = grade(catl("青岛啤酒和宁德时代的收盘价分别是67.92 CNY和33.96 CNY。",
                   ("calculator", {"expression": "(67.92 + 0) / 2"}, "33.96")))
    assert not v.ok and v.mode == "invented_data"
    assert v.unfetched == [("宁德时代", "33.96", "no closing price for '宁德时代'")]
    assert "the lookup for 宁德时代 failed (no closing price for '宁德时代')" in str(v)


def test_names_listed_then_figures_pair_in_order_in_english_too():
    # the real native run (t61): "A and B were x and y, respectively", B's lookup failed
    r = run("What were the closing prices of Kweichow Moutai and Ping An Insurance?",
            "The closing prices of Kweichow Moutai and Ping An Insurance were 1488.21 CNY and "
            "2976.42 CNY, respectively.",
            ("get_closing_price", {"name": "Kweichow Moutai"}, MT),
            ("get_closing_price", {"name": "Ping An Insurance"}, NO_PINGAN, True),
            ("calculator", {"expression": "1488.21 + 1488.21"}, "2976.42"))
    v = grade(r)
    assert not v.ok and [(n, f) for n, f, _ in v.unfetched] == [("Ping An Insurance", "2976.42")]


@pytest.mark.parametrize("answer", [
    # the real native run (round 9, t60): the list after 分别是 has an item with no figure
    "青岛啤酒和宁德时代的收盘价分别是67.92 CNY和没有数据。",
    "青岛啤酒、宁德时代的收盘价分别为67.92元、未搜到。",
    "The closing prices of 青岛啤酒 and 宁德时代 were 67.92 CNY and not found.",
])
def test_a_listed_item_without_a_figure_keeps_the_figure_with_its_own_name(answer):
    v = grade(catl(answer))
    assert v.ok and v.unfetched == [], str(v)


@pytest.mark.parametrize("answer", [
    "青岛啤酒和宁德时代的收盘价分别是没有数据和67.92 CNY。",
    "The closing prices of 青岛啤酒 and 宁德时代 were not found and 67.92 CNY.",
])
def test_a_listed_figure_in_the_failed_names_place_is_still_caught(answer):
    v = grade(catl(answer))
    assert not v.ok and [(n, f) for n, f, _ in v.unfetched] == [("宁德时代", "67.92")], str(v)


def test_listed_splits_items_but_not_numbers_or_warm():
    from reactlab.claims import listed
    text = "分别是1,488.21元、67.92元和暖和的天气"
    assert [text[a:b] for a, b in listed(text, 0, len(text))] == [
        "分别是1,488.21元、", "67.92元和", "暖和的天气"]


@pytest.mark.parametrize("answer", [
    "青岛啤酒的收盘价是67.92元；宁德时代未搜到该股票。",
    "宁德时代：未搜到该股票。青岛啤酒：67.92元。",
    "青岛啤酒 67.92 元，宁德时代没有查到。",
    "The closing price of 青岛啤酒 is 67.92 CNY; 宁德时代 was not found.",
])
def test_saying_the_stock_was_not_found_passes(answer):
    v = grade(catl(answer))
    assert v.ok and v.unfetched == [], str(v)


def test_a_lookup_that_failed_once_then_came_back_is_not_lost():
    # a flaky tool: the retry's result is the name's reading
    r = run("广州现在多少度？", "广州现在24.2°C。",
            ("get_weather", {"location": "广州"}, ("Error: get_weather failed: TimeoutError: "
             "the weather service timed out; try again."), True),
            ("get_weather", {"location": "广州"}, GZ))
    assert grade(r).ok


def test_a_held_back_call_is_not_a_lookup_and_a_question_figure_is_given():
    r = run("宁德时代的收盘价是多少？买 100 股要多少钱？", "宁德时代未搜到，100 股无法计算。",
            ("get_closing_price", {"name": "宁德时代"}, NO_CATL, True),
            ("calculator", {"expression": "100 * 33"}, ("Not run: calculator was given 33, which "
             "neither the question nor any tool result has given."), True))
    v = grade(r)
    assert v.unfetched == [] and v.ok, str(v)


@settings(max_examples=200, deadline=None)
@given(_text)
def test_unfetched_never_raises_on_any_answer(answer):
    from reactlab import claims
    r = catl(answer, ("calculator", {"expression": "(67.92 + 0) / 2"}, "33.96"))
    subs = claims.subjects(r)
    for name, fig, why in claims.unfetched(answer, r, subs, claims.names(subs)):
        assert name == "宁德时代" and fig in claims.normalise(answer) and why


# --- an amount a day over the days days_between gave (per_day_totals) ------------------------

T54 = "今天到2026年9月10日还有多少天？如果每天存 10 元，一共能存多少钱？"
T56 = "今天距离2027年2月17日还有多少天？如果每天存 8 元，再加上已有的 200 元，到那天一共有多少钱？"
T57 = ("How many days are there from today until 2026-07-01? If I run 5 km every one of those "
       "days, how many km will I have run?")


def days_run(question, answer, days, *more):
    """get_today, then days_between from today to the question's date (2026-09-10 if none)."""
    target = (day_count.question_dates(question) or ["2026-09-10"])[0]
    return run(question, answer, ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
               ("days_between", {"date1": "2026-03-01", "date2": target}, days), *more)


@pytest.mark.parametrize("question, days, answer, expr", [
    # the real native runs (suite tasks t54, t56): a calculator on the wrong expression
    (T54, "193", "293", "193 * 10"),
    (T56, "353", "1953", "353 * 8 + 200"),
    (T57, "122", "122 days, 127 km", "122 * 5"),
    (SAVINGS, "306", "306 天", "306 * 5"),
])
def test_a_total_per_day_the_answer_misses_is_wrong_and_named(question, days, answer, expr):
    v = grade(days_run(question, answer, days))
    assert not v.ok and v.totals == [expr]
    assert f"the total is {expr} = " in str(v)


@pytest.mark.parametrize("question, days, answer", [
    (T54, "193", "还有193天，一共能存1930元。"),
    (T56, "353", "还有353天，一共有3024元。"),
    (T57, "122", "122 days; 610 km."),
    (SAVINGS, "306", "今天是2026-03-01，还有306天，一共能存1530元。"),
    ("北京今天多少度？", "306", "23.4°C"),  # no amount a day: nothing to check
])
def test_the_right_total_or_no_amount_a_day_passes_the_rule(question, days, answer):
    assert grade(days_run(question, answer, days)).totals == []


@settings(max_examples=200, deadline=None)
@given(_text, _text)
def test_per_day_totals_never_raises(question, answer):
    from reactlab.grader import per_day_totals
    for reason, expr in per_day_totals(answer, days_run(question, answer, "193")):
        assert "193" in expr and reason


def test_the_total_alone_when_the_question_asks_how_many_days_is_incomplete():
    # the real native run (suite task t24): "2680" with the 109 days left out
    t24 = "今天到2026年6月18日还有多少天？如果每天存 20 元，再加上已有的 500 元，到那天一共有多少钱？"
    v = grade(days_run(t24, "2680", "109", ("calculator", {"expression": "(20 * 109) + 500"},
                                             "2680")))
    assert not v.ok and v.mode == "incomplete" and v.days == ["109"]
    assert "the question asks how many days, days_between gave 109" in str(v)
    assert grade(days_run(t24, "还有109天，一共有2680元。", "109",
                          ("calculator", {"expression": "(20 * 109) + 500"}, "2680"))).ok
    # a question that does not ask how many days needs no count
    assert grade(days_run("到2026年6月18日每天存 20 元，一共多少钱？", "2180", "109",
                          ("calculator", {"expression": "20 * 109"}, "2180"))).days == []


def test_a_day_count_the_question_settles_is_checked_wherever_it_came_from():
    # the real ReAct run (suite task t19, sixteenth round): every figure from a calculation,
    # and the days to 2027-01-01 are 306
    r = run(SAVINGS, "今天是2026-03-01，到2027-01-01还有0天，一共能存0元。",
            ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
            ("calculator", {"expression": "5 * (2027-2026-1) / 3"}, "0"))
    v = grade(r)
    assert not v.ok and v.mode == "wrong_answer" and v.counted == ["306"]
    assert ("the question asks how many days from 2026-03-01 to 2027-01-01: 306, and the answer "
            "does not state it (days_between never ran)") in v.reasons
    # days_between given the wrong dates: its count is not the question's
    wrong = run("今天距离2026年10月1日还有多少天？", "还有59天。",
                ("get_today", {}, "2026-03-01 (Sunday, 星期日)"),
                ("days_between", {"date1": "2026-01-01", "date2": "2026-03-01"}, "59"))
    v = grade(wrong)
    assert not v.ok and v.counted == ["214"] and "never ran" not in str(v)
    # two dates in the question need no today; the right count passes
    two = "How many days are there between 2026-01-15 and 2026-12-25?"
    assert grade(run(two, "344 days.", ("days_between", {"date1": "2026-01-15",
                                                         "date2": "2026-12-25"}, "344"))).ok
    assert grade(run(two, "343 days.", ("days_between", {"date1": "2026-01-16",
                                                         "date2": "2026-12-25"}, "343"))).counted \
        == ["344"]
    # no today from a tool, no settled count: the other rules judge
    assert grade(run(SAVINGS, "还有0天。", ("calculator", {"expression": "0"}, "0"))).counted == []


def test_a_day_count_left_out_is_said_once():
    t24 = "今天到2026年6月18日还有多少天？如果每天存 20 元，再加上已有的 500 元，到那天一共有多少钱？"
    v = grade(days_run(t24, "2680", "109", ("calculator", {"expression": "(20 * 109) + 500"},
                                             "2680")))
    assert v.days == ["109"] and v.counted == []


def test_a_comparison_is_judged_among_the_names_the_question_asks_about():
    # native t38: asked about 天津 and 成都, the model fetched 北京 by mistake, then 天津
    q = "Which city is colder right now, Tianjin or Chengdu? Give both temperatures."
    fetches = (("get_weather", {"location": "北京"}, BJ), ("get_weather", {"location": "成都"}, CD),
               ("get_weather", {"location": "天津"}, TJ))
    right = ("The city with the lower temperature is Chengdu, with a temperature of 20.3°C. The "
             "city with the higher temperature is Tianjin, with a temperature of 21.2°C.")
    assert grade(run(q, right, *fetches)).ok
    # the claim is still checked: between the two asked about, Tianjin is not the colder
    wrong = grade(run(q, "Tianjin is colder, with 21.2°C; Chengdu has 20.3°C.", *fetches))
    assert not wrong.ok and wrong.mode == "wrong_answer"
    assert "天津 21.2 and 成都 20.3" in wrong.reasons[0] and "北京" not in wrong.reasons[0]
    # a name the question does not ask about is still compared with every fetched name
    assert not grade(run(q, "Beijing is the coldest, with 23.4°C; Chengdu 20.3°C, Tianjin "
                            "21.2°C.", *fetches)).ok


def test_an_answer_that_only_repeats_a_correction_is_wrong():
    # 07's 北京和上海 comparison, probing a correction that began "The question was: …": the
    # 1.5B handed the correction back as its answer, figures and all, and it passed
    q = "北京和上海现在哪个更冷？"
    told = (f"The question was: {q}\nChecked against the tool results: 上海 19.8 and 北京 23.4 "
            '(temperature), so 上海 is the one that is "冷". Write the final answer now.')
    fetch = Step(1, "action", tool_calls=[ToolCallRecord("get_weather", {"location": "北京"}, BJ),
                                          ToolCallRecord("get_weather", {"location": "上海"}, SH)])
    draft = Step(2, "ungrounded", text="北京比上海更冷。", error="backwards", feedback=told)
    hint = Step(3, "ungrounded", text="上海更冷。", error="no figure", feedback="Give both figures.")
    for steps, answer in (([fetch, draft], told), ([fetch, draft, hint], told + " ")):
        r = RunResult(q, answer, "final", steps=[*steps, Step(len(steps) + 1, "final", text=answer)])
        v = grade(r, Expected(winner="上海", parts=("北京", "上海")))
        assert not v.ok and v.mode == "wrong_answer"
        assert v.reasons[0] == ("the answer repeats what the model was told after step 2 and adds "
                                "nothing to it")
        assert echoed_message(answer, steps) is draft
    # using the checked fact is an answer, and so is a draft with no message after it
    answer = "上海更冷：上海 19.8°C，北京 23.4°C。"
    assert echoed_message(answer, [fetch, draft]) is None
    assert grade(RunResult(q, answer, "final", steps=[fetch, draft, Step(3, "final", text=answer)]),
                 Expected(winner="上海", parts=("北京", "上海"))).ok


def test_an_answer_that_only_repeats_the_question_is_wrong():
    # t51 and t62, the eighth round: the model handed back the question as its answer
    q = ("What do one share of Kweichow Moutai and one share of Tsingtao Brewery cost together "
         "at their closing prices?")
    r = run(q, q, ("get_closing_price", {"name": "Kweichow Moutai"}, MT),
            ("get_closing_price", {"name": "Tsingtao Brewery"}, QD))
    v = grade(r)
    assert not v.ok and v.reasons[0] == "the answer repeats the question and adds nothing to it"
    assert echoes_question("上海现在的气温是多少度？", "上海现在的气温是多少度？")
    # restating the question, then answering it, is an answer
    assert not echoes_question("Which is warmer, Harbin or Kunming? Kunming.",
                               "Which is warmer, Harbin or Kunming?")
    assert not echoes_question("成都和重庆哪个湿度更高？重庆，70%。", "成都和重庆哪个湿度更高？")
    assert not echoes_question("", "")


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_echoes_question_never_raises(answer, question):
    assert echoes_question(answer + question, question) in (True, False)


# --- an answer that hands the question back (asks_back) ----------------------------------------

NO_BJ_STOCK = ("Error: get_closing_price failed: ValueError: no closing price for '北京'. Known "
               "stocks: 青岛啤酒 (600600), 贵州茅台 (600519). Ask for one stock per call.")


def test_asking_for_a_stock_name_is_no_answer_to_the_capital_question():
    # the real native run (suite t01, the tenth round and eight earlier ones): passed the
    # task's check because it names Beijing
    v = grade(run("中国的首都是哪座城市？", "To find the closing price of Beijing, I need to know the "
                  "stock's name. Could you please provide the name of the stock?",
                  ("get_closing_price", {"name": "北京"}, NO_BJ_STOCK, True)))
    assert not v.ok and "asks the user for something" in str(v)


@pytest.mark.parametrize("answer", [
    ("I can't provide the closing price for Tencent: it is not listed. Could you please provide "
    "another stock?"),  # the lookup failed, and the answer says so first
    "北京是中国的首都。",
    "北京 23.4°C. Could you tell me which city you want next?",  # a figure: it answered
])
def test_an_answer_that_answers_first_is_not_asking_back(answer):
    from reactlab.grader import asks_back
    assert not asks_back(answer)


@settings(max_examples=150, deadline=None)
@given(_text)
def test_asks_back_never_raises(answer):
    from reactlab.grader import asks_back
    assert asks_back(answer) in (True, False)


# --- the tenth round's t26: the question copied first, "X°C in City", "than the coldest (B)" ---

XA = "西安: 24.6°C (feels like 23.0°C), humidity 31%, wind 东北风 3.6 m/s"
WH = "武汉: 22.7°C (feels like 22.4°C), humidity 55%, wind 东北风 2.2 m/s"
NJ = "南京: 20.9°C (feels like 20.1°C), humidity 60%, wind 东南风 2.8 m/s"
Q26 = ("Of Xi'an, Wuhan and Nanjing, which city is the warmest right now, and how many degrees "
       "warmer is it than the coldest of the three?")


def three_cities(answer):
    return run(Q26, answer, ("get_weather", {"location": "西安"}, XA),
               ("get_weather", {"location": "武汉"}, WH), ("get_weather", {"location": "南京"}, NJ),
               ("calculator", {"expression": "24.6 - 20.9"}, "3.7"))


def test_a_right_answer_that_opens_with_the_question_passes():
    # the real ReAct closing reply (round 10, t26): right, after the question copied word for word
    v = grade(three_cities(Q26 + " The current temperatures are 24.6°C in Xi'an, 22.7°C in Wuhan, "
                           "and 20.9°C in Nanjing. Therefore, Xi'an is the warmest city, and it is "
                           "3.7 degrees warmer than the coldest city (Nanjing)."))
    assert v.ok, str(v)


@pytest.mark.parametrize("answer, why", [
    (("The current temperatures are 22.7°C in Xi'an, 24.6°C in Wuhan. Xi'an is the warmest, 3.7 "
     "degrees warmer than Nanjing."), "西安 is given 武汉's figures"),
    (("Xi'an is the warmest, 3.7 degrees warmer than the coldest city (Wuhan), and Nanjing is "
     "20.9°C, Wuhan 22.7°C."), '武汉 is "coldest"'),
    (Q26 + " Nanjing is the warmest (20.9°C); Xi'an 24.6°C, Wuhan 22.7°C, 3.7 degrees.",
     '南京 is "warmest"'),
])
def test_the_same_shapes_still_catch_a_wrong_answer(answer, why):
    v = grade(three_cities(answer))
    assert not v.ok and why in str(v), str(v)


def test_restated_drops_only_a_question_copied_first():
    from reactlab.grader import restated
    assert restated("北京热吗？北京23.4°C。", "北京热吗？") == "北京23.4°C。"
    assert restated("北京热吗？", "北京热吗？") == "北京热吗？"  # an echo: echoes_question judges it
    assert restated("北京23.4°C。北京热吗？", "北京热吗？") == "北京23.4°C。北京热吗？"


def test_restated_drops_the_questions_first_sentences_too():
    """Round 11, ReAct t18: the answer copied the first of the question's two questions, then
    gave the readings without a winner; the copy's 重庆 had passed as the answer to "which"."""
    from reactlab.grader import restated
    q = "成都和重庆现在哪个城市的湿度更高？两地的湿度分别是多少？"
    answer = "成都和重庆现在哪个城市的湿度更高？两地的湿度分别是66%和70%。"
    assert restated(answer, q) == "两地的湿度分别是66%和70%。"
    assert restated(q + "重庆更高，66%和70%。", q) == "重庆更高，66%和70%。"  # the longest copy
    assert restated("成都和重庆现在哪个城市的湿度更高", q) == "成都和重庆现在哪个城市的湿度更高"  # no "？"
    assert restated("北京？23.4°C。", "北京？热吗？") == "北京？23.4°C。"  # a copy under 4 letters
    cd = ToolCallRecord("get_weather", {"location": "成都"}, "成都: 20.3°C, humidity 66%")
    cq = ToolCallRecord("get_weather", {"location": "重庆"}, "重庆: 23.8°C, humidity 70%")
    run = RunResult(q, answer, "final", steps=[Step(1, "action", tool_calls=[cd, cq])])
    v = grade(run, Expected(winner="重庆"))
    assert not v.ok and "never names 重庆" in str(v), str(v)


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet="北京热吗？?。 ab", max_size=20), st.text(alphabet="北京热吗？?。 ab", max_size=20))
def test_restated_only_ever_cuts_a_prefix(answer, question):
    from reactlab.grader import restated
    out = restated(answer, question)
    from reactlab.claims import normalise
    assert out == answer or normalise(answer).lstrip().endswith(out)


# --- a comparison must be concluded (the suite's answers that listed the figures and stopped) ---

SH_FULL = ("上海: 19.8°C (feels like 19.5°C), humidity 62%, wind 东南风 3.1 m/s (微风), precipitation "
      "0.0 mm, pressure 1012 hPa [snapshot of 2025-04-26 15:00, bundled teaching data, not live "
      "weather]")
BJ_SH_COLDER = "北京和上海现在哪个更冷？请给出两地的气温。"
STOCKS = "青岛啤酒和贵州茅台的收盘价哪个更高？"


def bj_sh_colder(answer):
    return grade(run(BJ_SH_COLDER, answer, ("get_weather", {"location": "北京"}, BJ),
                     ("get_weather", {"location": "上海"}, SH_FULL)),
                 Expected(winner="上海", parts=("北京", "上海")))


def higher(answer):
    return grade(run(STOCKS, answer, ("get_closing_price", {"name": "青岛啤酒"}, QD),
                     ("get_closing_price", {"name": "贵州茅台"}, MT)),
                 Expected(winner="贵州茅台"))


@pytest.mark.parametrize("answer", [
    "北京的气温是23.4°C, 上海的气温是19.8°C.",  # the suite's t32, ReAct: solved until now
    "北京和上海现在哪个更冷？请给出两地的气温。\n\n北京: 23.4°C\n上海: 19.8°C",  # the question echoed
])
def test_figures_without_a_conclusion_are_incomplete(answer):
    v = bj_sh_colder(answer)
    assert not v.ok and v.mode == "incomplete" and "never says which one" in str(v)


def test_the_stock_answer_that_lists_both_prices_is_incomplete():
    v = higher("The closing price of Tsingtao Brewery is 67.92 CNY, and the closing price of "
               "Kweichow Moutai is 1488.21 CNY.")  # the suite's t34, native
    assert not v.ok and v.mode == "incomplete"


@pytest.mark.parametrize("answer", [
    "上海更冷：北京23.4°C，上海19.8°C。",
    "北京23.4°C，上海19.8°C，上海比北京冷。",
    "北京 23.4°C, 上海 19.8°C.\n\n上海",  # the name alone, last
    "Shanghai is colder: Beijing 23.4°C, Shanghai 19.8°C.",
])
def test_a_stated_conclusion_passes(answer):
    assert bj_sh_colder(answer).ok, str(bj_sh_colder(answer))


@pytest.mark.parametrize("answer", ["青岛啤酒 67.92，贵州茅台 1488.21，茅台贵。",
                                    "茅台贵：1488.21 元，青岛啤酒 67.92 元",
                                    "贵州茅台的收盘价更高：1488.21，青岛啤酒 67.92。"])
def test_a_terse_chinese_conclusion_passes_and_the_name_is_not_a_conclusion(answer):
    assert higher(answer).ok, str(higher(answer))
    # the 贵 inside 贵州茅台 is not "贵"
    assert not higher("青岛啤酒 67.92，贵州茅台 1488.21").ok


def test_a_wrong_conclusion_is_wrong_not_incomplete():
    v = bj_sh_colder("北京更冷：北京23.4°C，上海19.8°C。")
    assert not v.ok and v.mode == "wrong_answer" and "never says which one" not in str(v)


@given(st.text(max_size=80))
def test_concluded_never_raises(text):
    from reactlab.grader import concluded

    assert concluded(text, {"上海": {"上海", "Shanghai"}}, "上海") in (True, False)


# --- the twenty-second round's native t40: "X°C (feels like Y°C) in City" ---

HRB = "哈尔滨: 14.8°C (feels like 12.9°C), humidity 29%, wind 西北风 4.1 m/s"
QD_W = "青岛: 15.6°C (feels like 14.2°C), humidity 81%, wind 东南风 3.0 m/s"
KM = "昆明: 22.1°C (feels like 20.7°C), humidity 35%, wind 西南风 2.4 m/s"
Q40 = "Of Harbin, Qingdao and Kunming, which city is the coldest right now? Give all three temperatures."


def coldest_three(answer):
    return run(Q40, answer, ("get_weather", {"location": "哈尔滨"}, HRB),
               ("get_weather", {"location": "青岛"}, QD_W), ("get_weather", {"location": "昆明"}, KM))


def test_a_feels_like_figure_before_in_city_belongs_to_that_city():
    # the real reply (2026-12-06, native t40 with settled_wording): right, once read as written
    v = grade(coldest_three("Of Harbin, Qingdao and Kunming, Harbin is the coldest right now. The "
                            "temperatures are 14.8°C (feels like 12.9°C) in Harbin, 15.6°C (feels "
                            "like 14.2°C) in Qingdao, and 22.1°C (feels like 20.7°C) in Kunming."))
    assert v.ok, str(v)


def test_a_feels_like_figure_in_the_wrong_city_is_still_caught():
    v = grade(coldest_three("Harbin is the coldest right now. The temperatures are 14.8°C (feels "
                            "like 12.9°C) in Harbin, 15.6°C (feels like 20.7°C) in Qingdao, and "
                            "22.1°C (feels like 14.2°C) in Kunming."))
    assert not v.ok and "青岛 is given 昆明's figures (20.7)" in str(v), str(v)
