"""The agent task suite: questions over the course tools, each with a checker.

A task is a question (Chinese or English) whose answer can be checked mechanically: the final
answer must contain the right numbers (within a stated tolerance) and the right names. The
expected values are the bundled teaching data of the course tools (`reactlab.tools`), date pinned
by `REACTLAB_TODAY=2026-03-01` (TODAY below); `tests/test_benchmarks.py` recomputes every one of
them from the tools, so a change in the data cannot silently break the checkers.

`needs` lists the facts that only a tool can give (an observation that must contain a string,
e.g. get_weather's "北京: 23.4°C …" must contain "北京"). The failure classifier uses it to tell
*invented data* (the model answered without ever fetching the fact) from a *wrong answer*
(it fetched the fact and still answered wrongly).

A run is solved when the answer has the task's anchors AND `reactlab.grader` finds it
supported by the run (`grade(result, expected(task, answer))`, applied in benchmarks/scoring.py):
no invented figure, each figure about the right name, every part covered, and a comparison
that comes out with the task's `winner` the right way round ("青岛啤酒更贵" after 67.92 and
1488.21 fails even though both numbers are there).

Some tasks cannot be answered with data: an unknown stock (get_closing_price says it has no
price for it) or a tool that `fails` on every call. Their names are `unavailable`: the right
answer says the data was not found or could not be fetched (anchors NOT_FOUND, NO_DATA) and
states no figure for them.

Deliberately NOT checked: wording, language, politeness, units. Used by
benchmarks/run_agents.py; notebook 06 quotes the benchmark's report.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import unicodedata
from dataclasses import asdict, dataclass

from reactlab import figures
from reactlab.grader import Expected

TODAY = "2026-03-01"  # REACTLAB_TODAY for every benchmark run: the course's date (306 days to 2027-01-01)


W = ("get_weather",)
P = ("get_closing_price",)
T = ("get_today",)

# --- what an answer must contain ----------------------------------------------------------

@dataclass(frozen=True)
class Num:
    """A number the answer must state. Example: Num(23.4) matches "北京 23.4°C" and "23.40"."""

    value: float
    tol: float = 0.011  # prices have 2 decimals; "1488.21" must not pass as "1488"
    words: tuple[str, ...] = ()  # spelled-out forms that also count, e.g. ("七", "seven")

    def describe(self) -> str:
        return f"{self.value:g}"


@dataclass(frozen=True)
class Name:
    """A name the answer must contain, any of the spellings. Example: Name("广州", "Guangzhou").

    `later`: spellings added after runs were stored. They only score a run, so `Task.digest`
    leaves them out and the stored runs are re-scored rather than run again.
    """

    spellings: tuple[str, ...]
    later: tuple[str, ...] = ()

    def __init__(self, *spellings: str, later: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "spellings", tuple(spellings))
        object.__setattr__(self, "later", tuple(later))

    @property
    def every(self) -> tuple[str, ...]:
        return self.spellings + self.later

    def describe(self) -> str:
        return "/".join(self.every)


@dataclass(frozen=True)
class Date:
    """A calendar date in any common form. Example: Date("2026-03-01") matches "2026年3月1日"."""

    iso: str

    def describe(self) -> str:
        return self.iso


# what the answer of a task without data must say, in any of these words
NOT_FOUND = Name("未搜到", "没搜到", "未找到", "没有找到", "没找到", "找不到", "查不到", "未查到",
                 "没有查到", "查无", "没有该股票", "没有这只股票", "不在", "not found",
                 "no closing price", "couldn't find", "could not find", "cannot find",
                 "can't find", "not in the", "no data", "no price", "not available",
                 "unavailable", "unknown",
                 # the Chinese for "no data", "unknown", "unavailable" (t60: "…和没有数据")
                 later=("没有数据", "无数据", "未知", "无法获取", "无法获得"))
NO_DATA = Name("无法获取", "未能获取", "没能获取", "获取失败", "无法查询", "无法获得", "未能查询",
               "查询失败", "暂时无法", "无法提供", "暂无", "could not be fetched",
               "couldn't be fetched", "could not fetch", "couldn't fetch", "could not get",
               "couldn't get", "could not retrieve", "couldn't retrieve", "unable to",
               "not able to", "not available", "unavailable", "failed", "no data",
               later=("没有数据", "无数据"))


@dataclass(frozen=True)
class Task:
    id: str
    question: str
    lang: str  # "zh" | "en"
    calls: int  # tool calls in a natural solution (0 = answerable without tools)
    expect: tuple = ()  # Num / Name / Date anchors; all must be present
    needs: tuple[tuple[str, str], ...] = ()  # (tool, text its observation must contain)
    fail_once: str | None = None  # this tool raises on its first call in the run
    kind: str = ""  # "no_tool", "1_call" … "5_calls", "docs", "fails_once", … (KINDS)
    note: str = ""
    fails: str | None = None  # this tool raises on every call: the data cannot be fetched
    unavailable: tuple[str, ...] = ()  # names no tool gives data for (see the module doc)
    winner: str | None = None  # the name a comparison must come out with

    @property
    def parts(self) -> tuple[str, ...]:
        """The names the answer must cover: those of the weather and price facts it needs,
        unavailable ones left out. Example: t13 -> ("北京", "广州")"""
        return tuple(text for tool, text in self.needs
                     if tool in W + P and text not in self.unavailable)

    def digest(self) -> str:
        """A short hash of what defines a run of the task: a changed task is run again.

        `winner` and `unavailable` only score a run, so they are left out (a stored run is
        re-scored, not re-run); `fails`, added later, counts only when set, so the older tasks
        keep the digests their stored runs carry.
        """
        d = asdict(self)
        del d["winner"], d["unavailable"]
        for anchor in d["expect"]:
            if isinstance(anchor, dict):
                anchor.pop("later", None)
        if d["fails"] is None:
            del d["fails"]
        blob = json.dumps(d, ensure_ascii=False, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:10]


TASKS: list[Task] = [
    # --- no tool needed --------------------------------------------------------------------
    Task("t01_capital_zh", "中国的首都是哪座城市？", "zh", 0, (Name("北京", "Beijing"),),
         kind="no_tool"),
    Task("t02_week_en", "How many days are there in a week?", "en", 0,
         (Num(7, words=("seven",)),), kind="no_tool"),
    Task("t03_months_zh", "一年有几个月？", "zh", 0, (Num(12, words=("十二",)),), kind="no_tool"),
    Task("t04_guangdong_en", "Which city is the capital of Guangdong province?", "en", 0,
         (Name("Guangzhou", "广州", "Canton"),), kind="no_tool"),
    # --- one call --------------------------------------------------------------------------
    Task("t05_weather_bj_zh", "北京现在的天气怎么样？气温是多少度？", "zh", 1, (Num(23.4),),
         needs=(W + ("北京",),), kind="1_call", note="seed 000"),
    Task("t06_weather_sh_en", "What is the temperature in Shanghai right now?", "en", 1,
         (Num(19.8),), needs=(W + ("上海",),), kind="1_call"),
    Task("t07_price_qd_zh", "青岛啤酒的收盘价是多少？", "zh", 1, (Num(67.92),),
         needs=(P + ("青岛啤酒",),), kind="1_call", note="seed 002"),
    Task("t08_price_mt_en", "What was Kweichow Moutai's closing price?", "en", 1, (Num(1488.21),),
         needs=(P + ("贵州茅台",),), kind="1_call"),
    Task("t09_today_zh", "今天是几号？", "zh", 1, (Date(TODAY),), needs=(T + (TODAY,),),
         kind="1_call"),
    Task("t10_calc_en", "Use the calculator: what is 37 * 49 + 12?", "en", 1, (Num(1825),),
         kind="1_call", note="no data tool: a correct answer from memory also counts"),
    Task("t11_humidity_hrb_zh", "哈尔滨现在的相对湿度是多少？", "zh", 1, (Num(29),),
         needs=(W + ("哈尔滨",),), kind="1_call"),
    Task("t12_days_en", "How many days are there between 2026-01-15 and 2026-12-25?", "en", 1,
         (Num(344),), kind="1_call"),
    # --- two calls -------------------------------------------------------------------------
    Task("t13_weather_bj_gz_zh", "北京和广州今天的天气怎么样？请给出两地的气温。", "zh", 2,
         (Name("北京", "Beijing"), Num(23.4), Name("广州", "Guangzhou"), Num(24.2)),
         needs=(W + ("北京",), W + ("广州",)), kind="2_calls", note="seed 000's headline task"),
    Task("t14_qd_vs_mt_zh", "青岛啤酒和贵州茅台的收盘价分别是多少？哪个贵？", "zh", 2,
         (Num(67.92), Num(1488.21), Name("茅台", "Moutai")),
         needs=(P + ("青岛啤酒",), P + ("贵州茅台",)), kind="2_calls", winner="贵州茅台",
         note="seed 002's headline task"),
    Task("t15_harbin_kunming_en", "Which is warmer right now, Harbin or Kunming? Give both "
         "temperatures.", "en", 2, (Num(14.8), Num(22.1), Name("Kunming", "昆明")),
         needs=(W + ("哈尔滨",), W + ("昆明",)), kind="2_calls", winner="昆明"),
    Task("t16_days_to_oct_zh", "今天距离2026年10月1日还有多少天？", "zh", 2, (Num(214),),
         needs=(T + (TODAY,),), kind="2_calls"),
    Task("t17_tsingtao_100_en", "How much do 100 shares of Tsingtao Brewery cost at its closing "
         "price?", "en", 2, (Num(6792),), needs=(P + ("青岛啤酒",),), kind="2_calls"),
    Task("t18_humidity_cd_cq_zh", "成都和重庆现在哪个城市的湿度更高？两地的湿度分别是多少？", "zh", 2,
         (Num(66), Num(70), Name("重庆", "Chongqing")),
         needs=(W + ("成都",), W + ("重庆",)), kind="2_calls", winner="重庆"),
    # --- three calls -----------------------------------------------------------------------
    Task("t19_savings_zh", "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？",
         "zh", 3, (Date(TODAY), Num(306), Num(1530)), needs=(T + (TODAY,),), kind="3_calls",
         note="seed 001's headline task"),
    Task("t20_sz_qd_diff_en", "How many degrees warmer is Shenzhen than Qingdao right now?", "en",
         3, (Num(10.5, tol=0.051),), needs=(W + ("深圳",), W + ("青岛",)), kind="3_calls"),
    Task("t21_mt_minus_qd_zh", "贵州茅台的收盘价比青岛啤酒高多少元？", "zh", 3, (Num(1420.29),),
         needs=(P + ("青岛啤酒",), P + ("贵州茅台",)), kind="3_calls"),
    Task("t22_pages_en", "How many days are left from today until 2026-12-31? If I read 3 pages "
         "a day, how many pages will I have read by then?", "en", 3, (Num(305), Num(915)),
         needs=(T + (TODAY,),), kind="3_calls"),
    Task("t23_portfolio_en", "I buy 10 shares of Kweichow Moutai and 100 shares of Tsingtao "
         "Brewery at their closing prices. What is the total cost?", "en", 3, (Num(21674.1),),
         needs=(P + ("青岛啤酒",), P + ("贵州茅台",)), kind="3_calls"),
    Task("t24_savings_500_zh", "今天到2026年6月18日还有多少天？如果每天存 20 元，再加上已有的 500 元，"
         "到那天一共有多少钱？", "zh", 3, (Num(109), Num(2680)), needs=(T + (TODAY,),),
         kind="3_calls"),
    # --- four calls ------------------------------------------------------------------------
    Task("t25_avg_three_zh", "北京、上海、广州现在的气温分别是多少？三地的平均气温是多少？", "zh", 4,
         (Num(23.4), Num(19.8), Num(24.2), Num(22.47, tol=0.051)),
         needs=(W + ("北京",), W + ("上海",), W + ("广州",)), kind="4_calls",
         note="average 22.4667: 22.47 and 22.5 both pass"),
    Task("t26_warmest_en", "Of Xi'an, Wuhan and Nanjing, which city is the warmest right now, and "
         "how many degrees warmer is it than the coldest of the three?", "en", 4,
         (Name("Xi'an", "Xian", "西安"), Num(3.7, tol=0.051)),
         needs=(W + ("西安",), W + ("武汉",), W + ("南京",)), kind="4_calls", winner="西安"),
    # --- a long document (the context-bloat tool) -----------------------------------------
    Task("t27_manual_batteries_en", "Search the docs: according to the weather-station manual, how "
         "many AA batteries does the outdoor sensor use, and how many months do alkaline "
         "batteries last?", "en", 1, (Num(3, words=("three",)), Num(12, words=("twelve",))),
         needs=(("search_docs", "3 × AA"),), kind="docs",
         note="search_docs returns ~7,000-11,000 characters: compaction keeps the head"),
    # --- the tool fails once (a temporary error; retrying works) ---------------------------
    Task("t28_gz_flaky_zh", "广州现在的气温是多少度？", "zh", 1, (Num(24.2),),
         needs=(W + ("广州",),), fail_once="get_weather", kind="fails_once"),
    Task("t29_tsingtao_flaky_en", "What was Tsingtao Brewery's closing price, and how much would "
         "200 shares cost?", "en", 2, (Num(67.92), Num(13584)), needs=(P + ("青岛啤酒",),),
         fail_once="get_closing_price", kind="fails_once"),
    Task("t30_days_flaky_zh", "今天距离2026年5月1日还有多少天？", "zh", 2, (Num(61),),
         needs=(T + (TODAY,),), fail_once="get_today", kind="fails_once"),
    # === added with the grader (t31-t67): the ids above stay, their stored runs refer to them ===
    # --- comparisons, asked both ways: the winner must be the right one --------------------
    Task("t31_bj_sh_warmer_en", "Which is warmer right now, Beijing or Shanghai? Give both "
         "temperatures.", "en", 2, (Num(23.4), Num(19.8), Name("Beijing", "北京", "Peking")),
         needs=(W + ("北京",), W + ("上海",)), kind="2_calls", winner="北京"),
    Task("t32_bj_sh_colder_zh", "北京和上海现在哪个更冷？请给出两地的气温。", "zh", 2,
         (Num(23.4), Num(19.8), Name("上海", "Shanghai")),
         needs=(W + ("北京",), W + ("上海",)), kind="2_calls", winner="上海"),
    Task("t33_qd_mt_lower_zh", "青岛啤酒和贵州茅台的收盘价分别是多少？哪个更低？", "zh", 2,
         (Num(67.92), Num(1488.21), Name("青岛啤酒", "青啤", "Tsingtao")),
         needs=(P + ("青岛啤酒",), P + ("贵州茅台",)), kind="2_calls", winner="青岛啤酒"),
    Task("t34_mt_qd_higher_en", "Whose closing price is higher, Tsingtao Brewery's or Kweichow "
         "Moutai's? Give both prices.", "en", 2,
         (Num(67.92), Num(1488.21), Name("Moutai", "茅台")),
         needs=(P + ("青岛啤酒",), P + ("贵州茅台",)), kind="2_calls", winner="贵州茅台"),
    Task("t35_gz_sz_humid_zh", "广州和深圳现在哪个城市的湿度更高？两地的湿度分别是多少？", "zh", 2,
         (Num(79), Num(78), Name("广州", "Guangzhou")),
         needs=(W + ("广州",), W + ("深圳",)), kind="2_calls", winner="广州",
         note="79 % vs 78 %: one point apart"),
    Task("t36_xa_km_drier_en", "Which is less humid right now, Xi'an or Kunming? Give both "
         "humidity readings.", "en", 2, (Num(31), Num(35), Name("Xi'an", "Xian", "西安")),
         needs=(W + ("西安",), W + ("昆明",)), kind="2_calls", winner="西安"),
    Task("t37_hz_nj_warmer_zh", "杭州和南京现在哪个更暖和？两地的气温分别是多少？", "zh", 2,
         (Num(21.5), Num(20.9), Name("杭州", "Hangzhou")),
         needs=(W + ("杭州",), W + ("南京",)), kind="2_calls", winner="杭州"),
    Task("t38_tj_cd_colder_en", "Which city is colder right now, Tianjin or Chengdu? Give both "
         "temperatures.", "en", 2, (Num(21.2), Num(20.3), Name("Chengdu", "成都")),
         needs=(W + ("天津",), W + ("成都",)), kind="2_calls", winner="成都"),
    Task("t39_xm_cs_drier_zh", "厦门和长沙现在哪个城市的湿度更低？两地的湿度分别是多少？", "zh", 2,
         (Num(74), Num(69), Name("长沙", "Changsha")),
         needs=(W + ("厦门",), W + ("长沙",)), kind="2_calls", winner="长沙"),
    Task("t40_coldest_three_en", "Of Harbin, Qingdao and Kunming, which city is the coldest right "
         "now? Give all three temperatures.", "en", 3,
         (Num(14.8), Num(15.6), Num(22.1), Name("Harbin", "哈尔滨")),
         needs=(W + ("哈尔滨",), W + ("青岛",), W + ("昆明",)), kind="3_calls", winner="哈尔滨"),
    Task("t41_hottest_three_zh", "重庆、武汉、长沙三地现在哪个最热？三地的气温分别是多少？", "zh", 3,
         (Num(23.8), Num(22.7), Num(22.4), Name("重庆", "Chongqing")),
         needs=(W + ("重庆",), W + ("武汉",), W + ("长沙",)), kind="3_calls", winner="重庆"),
    # --- differences -----------------------------------------------------------------------
    Task("t42_gz_bj_diff_zh", "广州现在的气温比北京高几度？", "zh", 3, (Num(0.8, tol=0.051),),
         needs=(W + ("广州",), W + ("北京",)), kind="3_calls", note="24.2 - 23.4"),
    Task("t43_qd_xa_humidity_diff_en", "How many percentage points more humid is Qingdao than "
         "Xi'an right now?", "en", 3, (Num(50),), needs=(W + ("青岛",), W + ("西安",)),
         kind="3_calls", note="81 - 31"),
    Task("t44_sh_hrb_diff_zh", "上海和哈尔滨现在的气温相差多少度？", "zh", 3, (Num(5),),
         needs=(W + ("上海",), W + ("哈尔滨",)), kind="3_calls", note="19.8 - 14.8"),
    Task("t45_mt_qd_ratio_en", "Kweichow Moutai's closing price is how many times Tsingtao "
         "Brewery's? Round to one decimal.", "en", 3, (Num(21.9, tol=0.051),),
         needs=(P + ("青岛啤酒",), P + ("贵州茅台",)), kind="3_calls",
         note="1488.21 / 67.92 = 21.911"),
    # --- sums and averages over 3-4 fetches ------------------------------------------------
    Task("t46_avg_humidity_en", "What is the average humidity of Beijing, Shanghai and Guangzhou "
         "right now?", "en", 4, (Num(61.33, tol=0.051),),
         needs=(W + ("北京",), W + ("上海",), W + ("广州",)), kind="4_calls",
         note="(43 + 62 + 79) / 3 = 61.333: 61.33 and 61.3 both pass"),
    Task("t47_avg_four_zh", "深圳、杭州、成都、南京四地现在的平均气温是多少？", "zh", 5, (Num(22.2),),
         needs=(W + ("深圳",), W + ("杭州",), W + ("成都",), W + ("南京",)), kind="5_calls",
         note="88.8 / 4; not 武汉: its 22.7 is a rounding of that set's mean 22.65"),
    Task("t48_avg_xm_cs_cq_en", "What is the average temperature of Xiamen, Changsha and "
         "Chongqing right now?", "en", 4, (Num(23.23, tol=0.051),),
         needs=(W + ("厦门",), W + ("长沙",), W + ("重庆",)), kind="4_calls",
         note="69.7 / 3 = 23.233"),
    Task("t49_avg_humidity_four_zh", "天津、青岛、哈尔滨、昆明四个城市现在的平均湿度是多少？", "zh", 5,
         (Num(48.25, tol=0.051),),
         needs=(W + ("天津",), W + ("青岛",), W + ("哈尔滨",), W + ("昆明",)), kind="5_calls",
         note="193 / 4 = 48.25"),
    Task("t50_sum_three_zh", "北京、天津、青岛三地现在的气温加起来是多少度？", "zh", 4,
         (Num(60.2, tol=0.051),), needs=(W + ("北京",), W + ("天津",), W + ("青岛",)),
         kind="4_calls", note="23.4 + 21.2 + 15.6"),
    Task("t51_portfolio_sum_en", "What do one share of Kweichow Moutai and one share of Tsingtao "
         "Brewery cost together at their closing prices?", "en", 3, (Num(1556.13),),
         needs=(P + ("青岛啤酒",), P + ("贵州茅台",)), kind="3_calls"),
    # --- date spans and savings with other amounts and dates -------------------------------
    Task("t52_days_to_xmas_en", "How many days are left from today until 2026-12-25?", "en", 2,
         (Num(299),), needs=(T + (TODAY,),), kind="2_calls"),
    Task("t53_days_since_zh", "从2025年12月25日到今天过去了多少天？", "zh", 2, (Num(66),),
         needs=(T + (TODAY,),), kind="2_calls"),
    Task("t54_savings_10_zh", "今天到2026年9月10日还有多少天？如果每天存 10 元，一共能存多少钱？", "zh", 3,
         (Num(193), Num(1930)), needs=(T + (TODAY,),), kind="3_calls"),
    Task("t55_savings_15_en", "If I save 15 yuan every day from today until 2026-08-08, how many "
         "days is that and how much will I have saved?", "en", 3, (Num(160), Num(2400)),
         needs=(T + (TODAY,),), kind="3_calls"),
    Task("t56_savings_200_zh", "今天距离2027年2月17日还有多少天？如果每天存 8 元，再加上已有的 200 元，"
         "到那天一共有多少钱？", "zh", 3, (Num(353), Num(3024)), needs=(T + (TODAY,),),
         kind="3_calls"),
    Task("t57_running_en", "How many days are there from today until 2026-07-01? If I run 5 km "
         "every one of those days, how many km will I have run?", "en", 3, (Num(122), Num(610)),
         needs=(T + (TODAY,),), kind="3_calls"),
    # --- an unknown stock: the tool says so; the answer says so and invents no price ------
    Task("t58_byd_unknown_zh", "比亚迪的收盘价是多少？", "zh", 1, (NOT_FOUND,),
         needs=(P + ("比亚迪",),), unavailable=("比亚迪",), kind="unknown"),
    Task("t59_tencent_unknown_en", "What was Tencent's closing price?", "en", 1, (NOT_FOUND,),
         needs=(P + ("Tencent",),), unavailable=("Tencent",), kind="unknown"),
    Task("t60_qd_catl_zh", "青岛啤酒和宁德时代的收盘价分别是多少？", "zh", 2, (Num(67.92), NOT_FOUND),
         needs=(P + ("青岛啤酒",), P + ("宁德时代",)), unavailable=("宁德时代",), kind="unknown"),
    Task("t61_moutai_pingan_en", "What were the closing prices of Kweichow Moutai and Ping An "
         "Insurance?", "en", 2, (Num(1488.21), NOT_FOUND),
         needs=(P + ("贵州茅台",), P + ("Ping An",)), unavailable=("Ping An",), kind="unknown"),
    # --- the tool fails for good: the answer says the data could not be fetched -----------
    Task("t62_sh_down_zh", "上海现在的气温是多少度？", "zh", 1, (NO_DATA,), needs=(W + ("上海",),),
         fails="get_weather", unavailable=("上海",), kind="fails_always"),
    Task("t63_moutai_down_en", "What was Kweichow Moutai's closing price?", "en", 1, (NO_DATA,),
         needs=(P + ("贵州茅台",),), fails="get_closing_price", unavailable=("贵州茅台",),
         kind="fails_always"),
    Task("t64_today_down_zh", "今天距离2026年12月1日还有多少天？", "zh", 2, (NO_DATA,),
         needs=(T + (TODAY,),), fails="get_today", kind="fails_always"),
    # --- the tool fails once (retrying works) ----------------------------------------------
    Task("t65_sz_flaky_en", "What is the humidity in Shenzhen right now?", "en", 1, (Num(78),),
         needs=(W + ("深圳",),), fail_once="get_weather", kind="fails_once"),
    Task("t66_moutai_flaky_zh", "贵州茅台的收盘价是多少？买 5 股要多少钱？", "zh", 2,
         (Num(1488.21), Num(7441.05)), needs=(P + ("贵州茅台",),),
         fail_once="get_closing_price", kind="fails_once"),
    # --- no tool needed --------------------------------------------------------------------
    Task("t67_japan_en", "What is the capital of Japan?", "en", 0, (Name("Tokyo", "东京"),),
         kind="no_tool"),
    Task("t68_hours_zh", "一天有多少个小时？", "zh", 0, (Num(24, words=("二十四",)),), kind="no_tool"),
    Task("t69_boiling_en", "At sea level, at how many degrees Celsius does water boil?", "en", 0,
         (Num(100, words=("one hundred", "a hundred")),), kind="no_tool"),
    Task("t70_river_zh", "中国最长的河流是哪一条？", "zh", 0, (Name("长江", "Yangtze", "扬子江"),),
         kind="no_tool"),
    Task("t71_minutes_en", "How many minutes are there in an hour?", "en", 0,
         (Num(60, words=("sixty",)),), kind="no_tool"),
    Task("t72_leap_feb_zh", "闰年的二月有多少天？", "zh", 0, (Num(29, words=("二十九",)),),
         kind="no_tool"),
]

TASKS_BY_ID = {t.id: t for t in TASKS}
# A small, varied subset for `--quick`: no tool, 1-4 calls, both languages, a comparison asked
# the other way round, an unknown stock, a tool that fails once and one that fails for good.
QUICK_IDS = ("t01_capital_zh", "t06_weather_sh_en", "t13_weather_bj_gz_zh", "t14_qd_vs_mt_zh",
             "t19_savings_zh", "t26_warmest_en", "t28_gz_flaky_zh", "t29_tsingtao_flaky_en",
             "t32_bj_sh_colder_zh", "t58_byd_unknown_zh", "t63_moutai_down_en")


def suite_digest(tasks: list[Task] | None = None) -> str:
    """One hash for the whole suite (shown in the report)."""
    return hashlib.sha256("".join(t.digest() for t in tasks or TASKS).encode()).hexdigest()[:10]


# --- checking an answer -----------------------------------------------------------------------

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_MONTHS = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1)}


def normalise(text: str) -> str:
    """Full-width to ASCII, thousands separators dropped, as the grader reads figures
    (`reactlab.figures.normalise`). Example: "１,488.21元" -> "1488.21元"; "67.92，100股" keeps
    both figures."""
    return figures.normalise(text)


def numbers(text: str) -> list[float]:
    """Every number written in `text`, signs ignored. Example: "-3.7°C, 1,530元" -> [3.7, 1530.0]."""
    return [float(n) for n in _NUMBER.findall(normalise(text))]


def dates(text: str) -> set[str]:
    """ISO dates written in any common form. Example: "2026年3月1日" -> {"2026-03-01"}."""
    s = normalise(text)
    found = set()
    for y, m, d in re.findall(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})", s):
        found.add((int(y), int(m), int(d)))
    month = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
    for mon, d, y in re.findall(month + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", s, re.IGNORECASE):
        found.add((int(y), _MONTHS[mon.lower()], int(d)))
    for d, mon, y in re.findall(r"(\d{1,2})(?:st|nd|rd|th)?\s+" + month + r",?\s+(\d{4})", s, re.IGNORECASE):
        found.add((int(y), _MONTHS[mon.lower()], int(d)))
    out = set()
    for y, m, d in found:
        try:
            out.add(dt.date(y, m, d).isoformat())
        except ValueError:
            pass
    return out


# Wordings that say the same as a NOT_FOUND / NO_DATA spelling, folded onto it before matching
# (here, not in the anchors, so the tasks' digests and their stored runs stay valid):
# "I can't fetch" is "I could not fetch", "is not listed" is "not found".
_SAME_AS = ((re.compile(r"\b(?:can ?not|can't|can’t|couldn’t|am unable to|was unable to)\s+"),
             "could not "),
            (re.compile(r"\b(?:is not|isn't|isn’t|not) listed\b"), "not found"))


def _present(anchor, answer: str, nums: list[float]) -> bool:
    """Example: _present(NO_DATA, "I'm sorry, but I can't fetch it right now.", []) -> True"""
    if isinstance(anchor, Num):
        if any(abs(n - anchor.value) <= anchor.tol for n in nums):
            return True
        low = answer.casefold()
        return any(w.casefold() in low for w in anchor.words)
    if isinstance(anchor, Name):
        low = unicodedata.normalize("NFKC", answer).casefold()
        for pattern, same in _SAME_AS:
            low = pattern.sub(same, low)
        return any(unicodedata.normalize("NFKC", s).casefold() in low for s in anchor.every)
    if isinstance(anchor, Date):
        return anchor.iso in dates(answer)
    raise TypeError(f"unknown anchor {anchor!r}")


def check(task: Task, answer: str | None) -> tuple[bool, list[str]]:
    """(passed, what was missing): the anchors only; benchmarks/scoring.py adds the grader.

    Example: check(TASKS_BY_ID["t07_price_qd_zh"], "青岛啤酒的收盘价是67.92元。") -> (True, [])
    """
    if not answer or not answer.strip():
        return False, ["(no answer)"]
    nums = numbers(answer)
    missing = [a.describe() for a in task.expect if not _present(a, answer, nums)]
    return not missing, missing


def expected(task: Task, answer: str | None, vouched: tuple[str, ...] = ()) -> Expected:
    """What the grader is told about the task: its figures, its winner and its parts.

    A number anchor goes in as the answer writes it when that is within the anchor's tolerance
    (22.5 for an average of 22.4667: the grader would want 22.47), else as the task's value, so
    that the two never disagree on precision; one written in words ("seven") and dates are the
    checker's alone. `vouched`: more figures the grader is to count as supported.
    Example: expected(TASKS_BY_ID["t14_qd_vs_mt_zh"], "67.92 元，1,488.21 元，茅台贵") ->
             Expected(figures=("67.92", "1488.21"), winner="贵州茅台", parts=("青岛啤酒", "贵州茅台"))
    """
    stated = figures.figures(answer)
    wanted = []
    for anchor in task.expect:
        if not isinstance(anchor, Num):
            continue
        near = [f for f in stated if abs(float(f) - anchor.value) <= anchor.tol]
        if near:
            wanted.append(near[0])
        elif not _present(anchor, answer or "", []):
            wanted.append(repr(anchor.value).removesuffix(".0"))
    return Expected(figures=tuple(dict.fromkeys([*wanted, *vouched])), winner=task.winner,
                    parts=task.parts)


# --- the tools a task runs with --------------------------------------------------------------

FAIL_MESSAGE = ("the data service did not answer in time (a temporary failure; the same call "
                "usually works when retried)")
DOWN_MESSAGE = ("the data service is down for the rest of this session (a lasting failure: "
                "retrying will not help). Tell the user that the data could not be fetched.")


def registry_for(task: Task):
    """The course tools for one run: a fresh default_registry(), with `task.fail_once` made to
    raise TimeoutError on its first call (then behave normally), and `task.fails` made to raise
    ConnectionError on every call."""
    from reactlab.tools import Tool, ToolRegistry, default_registry

    registry = default_registry()
    name = task.fails or task.fail_once
    if not name:
        return registry
    original = registry.get(name)
    state = {"calls": 0}

    def flaky(**kwargs):
        state["calls"] += 1
        if task.fails:
            raise ConnectionError(DOWN_MESSAGE)
        if state["calls"] == 1:
            raise TimeoutError(FAIL_MESSAGE)
        return original.func(**kwargs)

    wrapped = Tool(name=original.name, description=original.description,
                   parameters=original.parameters, func=flaky,
                   side_effects=original.side_effects, max_chars=original.max_chars)
    return ToolRegistry(wrapped if t.name == original.name else t for t in registry)


def to_json(tasks: list[Task] | None = None) -> list[dict]:
    """The suite as plain data (for notebooks and the report)."""
    out = []
    for t in tasks or TASKS:
        d = {k: v for k, v in asdict(t).items() if k != "expect"}
        d["expect"] = [f"{type(a).__name__}({a.describe()})" for a in t.expect]
        d["digest"] = t.digest()
        out.append(d)
    return out


__all__ = [
    "NOT_FOUND",
    "NO_DATA",
    "QUICK_IDS",
    "TASKS",
    "TASKS_BY_ID",
    "TODAY",
    "Date",
    "Name",
    "Num",
    "Task",
    "check",
    "dates",
    "expected",
    "numbers",
    "registry_for",
    "suite_digest",
    "to_json",
]
