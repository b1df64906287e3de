"""The agent task suite: questions over the course tools, each with a checker.

A task is a question (Chinese or English) whose answer can be checked mechanically: the final
answer must contain the right numbers (within a stated tolerance) and the right names. The
expected values are the bundled teaching data of `reactlab.course_tools` with the date pinned
by `REACTLAB_TODAY=2026-03-01` (TODAY below); `tests/test_benchmarks.py` recomputes every one of
them from the tools, so a change in the data cannot silently break the checkers.

`needs` lists the facts that only a tool can give (an observation that must contain a string,
e.g. get_weather's "北京: 23.4°C …" must contain "北京"). The failure classifier uses it to tell
*invented data* (the model answered without ever fetching the fact) from a *wrong answer*
(it fetched the fact and still answered wrongly).

Deliberately NOT checked: wording, language, politeness, or whether a comparison's conclusion
is phrased right — only numbers and names. A wrong conclusion that still quotes the right
numbers and names the right winner passes; the comparison tasks therefore also ask for a
difference wherever one is natural. Used by notebook 06 and benchmarks/run_agents.py.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import unicodedata
from dataclasses import asdict, dataclass

from reactlab import figures

TODAY = "2026-03-01"  # REACTLAB_TODAY for every benchmark run: seed 001's date (306 days to 2027)


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
    """A name the answer must contain, any of the spellings. Example: Name("广州", "Guangzhou")."""

    spellings: tuple[str, ...]

    def __init__(self, *spellings: str) -> None:
        object.__setattr__(self, "spellings", tuple(spellings))

    def describe(self) -> str:
        return "/".join(self.spellings)


@dataclass(frozen=True)
class Date:
    """A calendar date in any common form. Example: Date("2026-03-01") matches "2026年3月1日"."""

    iso: str

    def describe(self) -> str:
        return self.iso


@dataclass(frozen=True)
class Task:
    id: str
    question: str
    lang: str  # "zh" | "en"
    calls: int  # tool calls in a natural solution (0 = answerable without tools)
    expect: tuple = ()  # Num / Name / Date anchors; all must be present
    needs: tuple[tuple[str, str], ...] = ()  # (tool, text its observation must contain)
    fail_once: str | None = None  # this tool raises on its first call in the run
    kind: str = ""  # "no_tool", "1_call" … "4_calls", "docs", "fails_once" (for tables)
    note: str = ""

    def digest(self) -> str:
        """A short hash of everything that defines the task: a changed task is run again."""
        blob = json.dumps(asdict(self), ensure_ascii=False, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:10]


W = ("get_weather",)
P = ("get_closing_price",)
T = ("get_today",)

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
         needs=(P + ("青岛啤酒",), P + ("贵州茅台",)), kind="2_calls",
         note="seed 002's headline task"),
    Task("t15_harbin_kunming_en", "Which is warmer right now, Harbin or Kunming? Give both "
         "temperatures.", "en", 2, (Num(14.8), Num(22.1), Name("Kunming", "昆明")),
         needs=(W + ("哈尔滨",), W + ("昆明",)), kind="2_calls"),
    Task("t16_days_to_oct_zh", "今天距离2026年10月1日还有多少天？", "zh", 2, (Num(214),),
         needs=(T + (TODAY,),), kind="2_calls"),
    Task("t17_tsingtao_100_en", "How much do 100 shares of Tsingtao Brewery cost at its closing "
         "price?", "en", 2, (Num(6792),), needs=(P + ("青岛啤酒",),), kind="2_calls"),
    Task("t18_humidity_cd_cq_zh", "成都和重庆现在哪个城市的湿度更高？两地的湿度分别是多少？", "zh", 2,
         (Num(66), Num(70), Name("重庆", "Chongqing")),
         needs=(W + ("成都",), W + ("重庆",)), kind="2_calls"),
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
         needs=(W + ("西安",), W + ("武汉",), W + ("南京",)), kind="4_calls"),
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
]

TASKS_BY_ID = {t.id: t for t in TASKS}
# A small, varied subset for `--quick`: no tool, 1-4 calls, both languages, a failing tool.
QUICK_IDS = ("t01_capital_zh", "t06_weather_sh_en", "t13_weather_bj_gz_zh", "t14_qd_vs_mt_zh",
             "t19_savings_zh", "t26_warmest_en", "t28_gz_flaky_zh", "t29_tsingtao_flaky_en")


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


def _present(anchor, answer: str, nums: list[float]) -> bool:
    if isinstance(anchor, Num):
        if any(abs(n - anchor.value) <= anchor.tol for n in nums):
            return True
        low = answer.casefold()
        return any(w.casefold() in low for w in anchor.words)
    if isinstance(anchor, Name):
        low = unicodedata.normalize("NFKC", answer).casefold()
        return any(unicodedata.normalize("NFKC", s).casefold() in low for s in anchor.spellings)
    if isinstance(anchor, Date):
        return anchor.iso in dates(answer)
    raise TypeError(f"unknown anchor {anchor!r}")


def check(task: Task, answer: str | None) -> tuple[bool, list[str]]:
    """(passed, what was missing). Example: check(TASKS_BY_ID["t07_price_qd_zh"],
    "青岛啤酒的收盘价是67.92元。") -> (True, [])"""
    if not answer or not answer.strip():
        return False, ["(no answer)"]
    nums = numbers(answer)
    missing = [a.describe() for a in task.expect if not _present(a, answer, nums)]
    return not missing, missing


# --- the tools a task runs with --------------------------------------------------------------

FAIL_MESSAGE = ("the data service did not answer in time (a temporary failure; the same call "
                "usually works when retried)")


def registry_for(task: Task):
    """The course tools for one run: a fresh default_registry(), with `task.fail_once` made to
    raise TimeoutError on its first call (then behave normally)."""
    from reactlab.tools import Tool, ToolRegistry, default_registry

    registry = default_registry()
    if not task.fail_once:
        return registry
    original = registry.get(task.fail_once)
    state = {"calls": 0}

    def flaky(**kwargs):
        state["calls"] += 1
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
    "numbers",
    "registry_for",
    "suite_digest",
    "to_json",
]
