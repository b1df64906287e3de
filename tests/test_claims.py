"""reactlab.claims: names in a run, whom a figure is about, comparisons against the readings."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactlab import claims
from reactlab.figures import figures
from reactlab.runlog import RunResult, Step, ToolCallRecord

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


def run(question: str, *calls: tuple, answer: str = "") -> RunResult:
    steps = [Step(i + 1, "action", tool_calls=[ToolCallRecord(n, a, o)])
             for i, (n, a, o) in enumerate(calls)]
    return RunResult(question=question, answer=answer, status="final", steps=steps)


WEATHER = run("北京和广州今天的天气怎么样？", ("get_weather", {"location": "Beijing"}, BJ),
              ("get_weather", {"location": "广州"}, GZ))
STOCKS = run("青岛啤酒和贵州茅台的收盘价哪个更高？高多少？",
             ("get_closing_price", {"name": "青岛啤酒"}, QD),
             ("get_closing_price", {"name": "贵州茅台"}, MT),
             ("calculator", {"expression": "1488.21 - 67.92"}, "1420.29"))


def test_subjects_come_from_successful_tool_results():
    subs = claims.subjects(WEATHER)
    assert set(subs) == {"北京", "广州"} and "Beijing" in subs["北京"].spellings
    assert subs["广州"].gist() == "广州: 24.2°C (feels like 27.1°C), humidity 79%"
    assert set(claims.subjects(STOCKS)) == {"青岛啤酒", "贵州茅台"}  # "1420.29" names nobody
    failed = RunResult("q", "a", "final", [Step(1, "action", tool_calls=[
        ToolCallRecord("get_weather", {"location": "北京"}, "Error: timeout", error=True),
        ToolCallRecord("search_docs", {"query": "x"}, "search_docs: 3 sections matched")])])
    assert claims.subjects(failed) == {}


def test_mentions_prefer_the_longest_name_and_skip_short_aliases():
    known = claims.names({})
    assert [n for *_, n in claims.mentions("青岛啤酒和青岛", known)] == ["青岛啤酒", "青岛"]
    assert [n for *_, n in claims.mentions("Kunming is warmer than Harbin", known)] == [
        "昆明", "哈尔滨"]
    assert claims.mentions("Kweichow Moutai (600519.SH)", known)[-1][2] == "贵州茅台"
    assert all(n != "上海" for *_, n in claims.mentions("600519.SH", known))  # not "sh"
    assert claims.home(("北京", "Peking"), known) == "北京"
    assert claims.home("火星", known) == "火星" and "火星" in known


def test_misattributed_finds_one_citys_figures_next_to_the_other():
    subs = claims.subjects(WEATHER)
    known = claims.names(subs)

    def wrong(answer):
        return claims.misattributed(answer, WEATHER, subs, known)

    assert wrong("北京今天23.4°C，湿度43%；广州今天23.4°C，湿度43%。") == [
        ("广州", "23.4", ["北京"]), ("广州", "43", ["北京"])]
    assert wrong("北京今天23.4°C，湿度43%；广州今天24.2°C，湿度79%。") == []
    assert wrong("It is 23.4°C in Beijing and 24.2°C in Guangzhou.") == []  # not checked
    assert wrong("两地气压都是1005 hPa，降水0.0 mm。广州 1005 hPa") == []  # shared figures


def test_comparisons_are_checked_against_the_readings():
    subs = claims.subjects(STOCKS)
    known = claims.names(subs)

    def problem(answer, result=STOCKS):
        return claims.comparison(answer, result, claims.subjects(result), known)

    said = problem("青岛啤酒的收盘价是67.92元，贵州茅台的收盘价是1488.21元，青岛啤酒的收盘价更高，高1420.29元。")
    assert said == ('the answer says 青岛啤酒 is "更高" (closing price), but the tool results give '
                    "青岛啤酒 67.92 and 贵州茅台 1488.21, so it is 贵州茅台, not 青岛啤酒, that is "
                    '"更高"')
    assert problem("贵州茅台的收盘价更高，高1420.29元。") is None
    assert problem("贵州茅台比青岛啤酒高1420.29元") is None
    assert "青岛啤酒 is \"高\"" in problem("青岛啤酒比贵州茅台高1420.29元")
    assert problem("青岛啤酒更便宜") is None and problem("Tsingtao is cheaper than Moutai") is None
    assert problem("贵州茅台比较贵") is None  # 比较 is "rather", not a comparison with B
    assert problem("青岛啤酒不比贵州茅台贵") is None  # negated
    assert problem("哪个更高？贵州茅台。") is None  # a question echoed back
    assert problem("北京更暖和") == ('the answer says 北京 is "更暖和", but no tool result for 北京 '
                                 "came back")


def test_quantities_and_readings():
    subs = claims.subjects(WEATHER)
    assert claims.quantity("更高", "湿度更高") == "humidity"
    assert claims.quantity("warmer") == "temperature" and claims.quantity("更高") is None
    assert claims.reading(subs["广州"], "temperature") == Decimal("24.2")
    assert claims.reading(subs["广州"], "humidity") == Decimal(79)
    assert claims.reading(subs["广州"], "AQI") is None
    assert claims.reading(subs["广州"], None) == Decimal("24.2")  # the first figure


@given(st.lists(st.sampled_from(figures(BJ)), min_size=1, max_size=5),
       st.lists(st.sampled_from(figures(GZ)), min_size=1, max_size=5),
       st.sampled_from(["，", "。", "; ", "\n", ". "]), st.booleans())
def test_each_citys_own_figures_are_never_misattributed(bj, gz, cut, english):
    a, b = ("Beijing", "Guangzhou") if english else ("北京", "广州")
    answer = f"{a} {' '.join(bj)}{cut}{b} {' '.join(gz)}"
    subs = claims.subjects(WEATHER)
    assert claims.misattributed(answer, WEATHER, subs, claims.names(subs)) == []
    swapped = f"{a} 24.2°C, humidity 79%{cut}{b} 23.4°C, humidity 43%"
    found = claims.misattributed(swapped, WEATHER, subs, claims.names(subs))
    assert [(n, f) for n, f, _ in found] == [("北京", "24.2"), ("北京", "79"), ("广州", "23.4"),
                                             ("广州", "43")]


THREE = run("Of Xi'an, Wuhan and Nanjing, which city is the warmest right now?",
            ("get_weather", {"location": "Xi'an"}, "西安: 18.3°C [snapshot]"),
            ("get_weather", {"location": "Wuhan"}, "武汉: 16.0°C [snapshot]"),
            ("get_weather", {"location": "Nanjing"}, "南京: 14.6°C [snapshot]"))


@pytest.mark.parametrize("result, answer, wrong", [
    (STOCKS, "青岛啤酒的收盘价为67.92元，远低于贵州茅台的1488.21元。", False),
    (STOCKS, "贵州茅台的收盘价为1488.21元，青岛啤酒为67.92元，前者更高。", False),
    (STOCKS, "贵州茅台的收盘价为1488.21元，青岛啤酒为67.92元，后者更高。", True),
    (STOCKS, "相比之下，贵州茅台更贵。", False),
    (STOCKS, "青岛啤酒比贵州茅台便宜得多。", False),
    (STOCKS, "Moutai's closing price is higher than Tsingtao's.", False),
    (STOCKS, "Tsingtao Brewery is more expensive than Kweichow Moutai.", True),
    (WEATHER, "北京比广州冷，北京的温度低于广州。", False),
    (WEATHER, "广州的湿度（79%）高于北京（43%）。", False),
    (WEATHER, "北京的湿度更高。", True),
    (WEATHER, "北京和广州哪个更热？广州更热。", False),
    (THREE, "Xi'an is the warmest at 18.3°C, 3.7°C warmer than Nanjing, the coldest.", False),
    (THREE, "Wuhan is the warmest right now.", True),
    (THREE, "Nanjing is the coldest, Xi'an the warmest.", False),
])
def test_comparison_phrasings(result, answer, wrong):
    subs = claims.subjects(result)
    said = claims.comparison(answer, result, subs, claims.names(subs))
    assert (said is not None) == wrong, said
