"""The benchmark's own logic, without a model: task checkers, expected values, failure modes,
the constrained-decoding wrapper, the report and the parser-comparison judge.

The expected values in benchmarks/tasks.py are recomputed here from the course tools, so a
change in the bundled data shows up as a failing test instead of a silently wrong benchmark.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import demos, parsers_compare, report, run_agents, scoring, tasks
from benchmarks.tasks import TASKS, TASKS_BY_ID, TODAY, check
from reactlab import grader
from reactlab.grader import Expected
from reactlab.runlog import RunResult, Step, ToolCallRecord


@pytest.fixture(autouse=True)
def pinned_date(monkeypatch):
    monkeypatch.setenv("REACTLAB_TODAY", TODAY)
    monkeypatch.setenv("REACTLAB_WEATHER", "snapshot")


# --- the suite ------------------------------------------------------------------------------

def test_suite_shape():
    assert len(TASKS) >= 60
    assert len(TASKS_BY_ID) == len(TASKS), "task ids must be unique"
    assert {t.lang for t in TASKS} == {"zh", "en"}
    assert abs(sum(t.lang == "zh" for t in TASKS) - len(TASKS) / 2) <= 3, "about half each"
    assert {t.calls for t in TASKS} >= {0, 1, 2, 3, 4, 5}
    assert sum(t.calls == 0 for t in TASKS) >= 8
    assert sum(bool(t.fail_once) for t in TASKS) >= 4
    assert sum(bool(t.fails) for t in TASKS) >= 3
    assert sum(t.kind == "unknown" for t in TASKS) >= 3
    assert sum(bool(t.winner) for t in TASKS) >= 12
    assert all(t.expect for t in TASKS)
    assert {t.kind for t in TASKS} <= set(report.KINDS), "every kind needs a report column"
    assert set(tasks.QUICK_IDS) <= set(TASKS_BY_ID)
    quick = [TASKS_BY_ID[i] for i in tasks.QUICK_IDS]
    assert len(quick) <= 12 and {"unknown", "fails_always"} <= {t.kind for t in quick}
    assert any(t.winner and t.id > "t30" for t in quick)


def test_the_first_30_tasks_keep_their_ids_and_digests():
    # the stored runs are keyed by (configuration, task, digest): the new fields must not
    # change the older tasks' digests, or every stored run would count as stale
    path = ROOT / "benchmarks" / "results" / "agents_runs.jsonl"
    if not path.exists():
        pytest.skip("no stored runs")
    stored = {(r["task"], r["task_digest"]) for r in run_agents.load_records(path)}
    assert len({t for t, _ in stored}) >= 30
    assert all(t in TASKS_BY_ID and TASKS_BY_ID[t].digest() == d for t, d in stored)
    assert [t.id for t in TASKS[:30]] == sorted(t for t, _ in stored)[:30]


def test_later_spellings_score_an_answer_but_leave_the_digest_alone():
    t60 = TASKS_BY_ID["t60_qd_catl_zh"]
    assert tasks.check(t60, "青岛啤酒和宁德时代的收盘价分别是67.92 CNY和没有数据。")[0]
    bare = dataclasses.replace(t60, expect=(t60.expect[0], tasks.Name(*tasks.NOT_FOUND.spellings)))
    assert bare.digest() == t60.digest() and not tasks.check(bare, "宁德时代没有数据，67.92")[0]


def _reg():
    from reactlab.tools import default_registry

    return default_registry()


def _temp(city: str) -> tuple[str, float]:
    obs = _reg().call("get_weather", {"location": city})
    return obs, float(re.search(r"(-?\d+(?:\.\d+)?)°C", obs).group(1))


def _humidity(city: str) -> float:
    obs = _reg().call("get_weather", {"location": city})
    return float(re.search(r"humidity (\d+(?:\.\d+)?)%", obs).group(1))


def _price(name: str) -> float:
    obs = _reg().call("get_closing_price", {"name": name})
    return float(re.search(r"closing price: (\d+(?:\.\d+)?)", obs).group(1))


def _calc(expr: str) -> str:
    return _reg().call("calculator", {"expression": expr})


def _days(a: str, b: str) -> int:
    return int(_reg().call("days_between", {"date1": a, "date2": b}))


def _today() -> str:
    return _reg().call("get_today", {})[:10]


def _t(city: str) -> float:
    return _temp(city)[1]


def _not_found(name: str) -> str:
    """The real tool's answer for an unknown stock, as an honest answer would report it."""
    obs, error = _reg().run("get_closing_price", {"name": name})
    assert error and "no closing price" in obs
    return f"未搜到该股票：{name}没有收盘价数据。"


ARGS = {"get_weather": "location", "get_closing_price": "name", "search_docs": "query"}


def _args(tool: str, text: str) -> dict:
    """The arguments that fetch a needed fact.

    Example: _args("get_weather", "北京") -> {"location": "北京"}
    """
    if tool == "search_docs":
        return {"query": "battery"}
    return {ARGS[tool]: text} if tool in ARGS else {}


def _down(task_id: str) -> str:
    task = TASKS_BY_ID[task_id]
    reg = tasks.registry_for(task)
    for tool, text in task.needs:  # every call fails, the first as the second
        for _ in range(2):
            obs, error = reg.run(tool, _args(tool, text))
            assert error and "could not be fetched" in obs
    return "抱歉，数据服务出错，无法获取。" if task_id.endswith("_zh") else (
        "Sorry, the data could not be fetched: the service is down.")


# Comparisons: the names, how to read each one from the tools, and which end wins.
WINNERS = {
    "t14_qd_vs_mt_zh": (("青岛啤酒", "贵州茅台"), _price, max),
    "t15_harbin_kunming_en": (("哈尔滨", "昆明"), _t, max),
    "t18_humidity_cd_cq_zh": (("成都", "重庆"), _humidity, max),
    "t26_warmest_en": (("西安", "武汉", "南京"), _t, max),
    "t31_bj_sh_warmer_en": (("北京", "上海"), _t, max),
    "t32_bj_sh_colder_zh": (("北京", "上海"), _t, min),
    "t33_qd_mt_lower_zh": (("青岛啤酒", "贵州茅台"), _price, min),
    "t34_mt_qd_higher_en": (("青岛啤酒", "贵州茅台"), _price, max),
    "t35_gz_sz_humid_zh": (("广州", "深圳"), _humidity, max),
    "t36_xa_km_drier_en": (("西安", "昆明"), _humidity, min),
    "t37_hz_nj_warmer_zh": (("杭州", "南京"), _t, max),
    "t38_tj_cd_colder_en": (("天津", "成都"), _t, min),
    "t39_xm_cs_drier_zh": (("厦门", "长沙"), _humidity, min),
    "t40_coldest_three_en": (("哈尔滨", "青岛", "昆明"), _t, min),
    "t41_hottest_three_zh": (("重庆", "武汉", "长沙"), _t, max),
}


def _compare(task_id: str, word: str, unit: str) -> str:
    names, read, pick = WINNERS[task_id]
    return f"{pick(names, key=read)}{word}：" + "，".join(f"{n} {read(n):g}{unit}" for n in names)


# The calculations of a natural solution, from the tools' own figures (the reference answer
# is the calculator's result; the fake runs below make the same calls).
CALC = {
    "t10_calc_en": lambda: "37 * 49 + 12",
    "t17_tsingtao_100_en": lambda: f"{_price('Tsingtao')} * 100",
    "t20_sz_qd_diff_en": lambda: f"{_t('深圳')} - {_t('青岛')}",
    "t21_mt_minus_qd_zh": lambda: f"{_price('贵州茅台')} - {_price('青岛啤酒')}",
    "t23_portfolio_en": lambda: f"{_price('贵州茅台')} * 10 + {_price('青岛啤酒')} * 100",
    "t25_avg_three_zh": lambda: f"({_t('北京')} + {_t('上海')} + {_t('广州')}) / 3",
    "t26_warmest_en": lambda: (f"{max(_t(c) for c in ('西安', '武汉', '南京'))} - "
                               f"{min(_t(c) for c in ('西安', '武汉', '南京'))}"),
    "t29_tsingtao_flaky_en": lambda: f"{_price('青岛啤酒')} * 200",
    "t42_gz_bj_diff_zh": lambda: f"{_t('广州')} - {_t('北京')}",
    "t43_qd_xa_humidity_diff_en": lambda: f"{_humidity('青岛'):g} - {_humidity('西安'):g}",
    "t44_sh_hrb_diff_zh": lambda: f"{_t('上海')} - {_t('哈尔滨')}",
    "t45_mt_qd_ratio_en": lambda: f"{_price('贵州茅台')} / {_price('青岛啤酒')}",
    "t46_avg_humidity_en": lambda: "(" + " + ".join(
        f"{_humidity(c):g}" for c in ("北京", "上海", "广州")) + ") / 3",
    "t47_avg_four_zh": lambda: "(" + " + ".join(
        str(_t(c)) for c in ("深圳", "杭州", "成都", "南京")) + ") / 4",
    "t48_avg_xm_cs_cq_en": lambda: "(" + " + ".join(
        str(_t(c)) for c in ("厦门", "长沙", "重庆")) + ") / 3",
    "t49_avg_humidity_four_zh": lambda: "(" + " + ".join(
        f"{_humidity(c):g}" for c in ("天津", "青岛", "哈尔滨", "昆明")) + ") / 4",
    "t50_sum_three_zh": lambda: " + ".join(str(_t(c)) for c in ("北京", "天津", "青岛")),
    "t51_portfolio_sum_en": lambda: f"{_price('贵州茅台')} + {_price('青岛啤酒')}",
    "t54_savings_10_zh": lambda: f"{_days(_today(), '2026-09-10')} * 10",
    "t55_savings_15_en": lambda: f"{_days(_today(), '2026-08-08')} * 15",
    "t56_savings_200_zh": lambda: f"{_days(_today(), '2027-02-17')} * 8 + 200",
    "t57_running_en": lambda: f"{_days(_today(), '2026-07-01')} * 5",
    "t66_moutai_flaky_zh": lambda: f"{_price('贵州茅台')} * 5",
}
# The date spans of a natural solution: (from, to), "today" for get_today's date.
SPANS = {
    "t12_days_en": ("2026-01-15", "2026-12-25"), "t16_days_to_oct_zh": ("today", "2026-10-01"),
    "t19_savings_zh": ("today", "2027-01-01"), "t22_pages_en": ("today", "2026-12-31"),
    "t24_savings_500_zh": ("today", "2026-06-18"), "t30_days_flaky_zh": ("today", "2026-05-01"),
    "t52_days_to_xmas_en": ("today", "2026-12-25"), "t53_days_since_zh": ("2025-12-25", "today"),
    "t54_savings_10_zh": ("today", "2026-09-10"), "t55_savings_15_en": ("today", "2026-08-08"),
    "t56_savings_200_zh": ("today", "2027-02-17"), "t57_running_en": ("today", "2026-07-01"),
}


# A reference answer per task, built from the tools' real output: the checker must accept it.
REFERENCE = {
    "t01_capital_zh": lambda: "北京",
    "t02_week_en": lambda: "There are 7 days in a week.",
    "t03_months_zh": lambda: "一年有十二个月。",
    "t04_guangdong_en": lambda: "Guangzhou",
    "t05_weather_bj_zh": lambda: _temp("北京")[0],
    "t06_weather_sh_en": lambda: _temp("Shanghai")[0],
    "t07_price_qd_zh": lambda: f"{_price('青岛啤酒')} 元",
    "t08_price_mt_en": lambda: f"{_price('Kweichow Moutai')} CNY",
    "t09_today_zh": lambda: f"今天是{_today()}",
    "t10_calc_en": lambda: _calc("37 * 49 + 12"),
    "t11_humidity_hrb_zh": lambda: f"{_humidity('哈尔滨'):g}%",
    "t12_days_en": lambda: f"{_days('2026-01-15', '2026-12-25')} days",
    "t13_weather_bj_gz_zh": lambda: _temp("北京")[0] + "\n" + _temp("广州")[0],
    "t14_qd_vs_mt_zh": lambda: f"青岛啤酒 {_price('青岛啤酒')}，贵州茅台 {_price('贵州茅台')}，茅台贵。",
    "t15_harbin_kunming_en": lambda: (
        f"Kunming {_temp('Kunming')[1]}°C is warmer than Harbin {_temp('Harbin')[1]}°C"),
    "t16_days_to_oct_zh": lambda: f"还有{_days(_today(), '2026-10-01')}天",
    "t17_tsingtao_100_en": lambda: _calc(f"{_price('Tsingtao')} * 100"),
    "t18_humidity_cd_cq_zh": lambda: (
        f"重庆更高：重庆 {_humidity('重庆'):g}%，成都 {_humidity('成都'):g}%"),
    "t19_savings_zh": lambda: (
        f"今天是{_today()}，还有{_days(_today(), '2027-01-01')}天，"
        f"共{_calc(str(_days(_today(), '2027-01-01')) + ' * 5')}元"),
    "t20_sz_qd_diff_en": lambda: _calc(f"{_temp('深圳')[1]} - {_temp('青岛')[1]}"),
    "t21_mt_minus_qd_zh": lambda: _calc(f"{_price('贵州茅台')} - {_price('青岛啤酒')}"),
    "t22_pages_en": lambda: (f"{_days(_today(), '2026-12-31')} days, "
                             f"{_calc(str(_days(_today(), '2026-12-31')) + ' * 3')} pages"),
    "t23_portfolio_en": lambda: _calc(f"{_price('贵州茅台')} * 10 + {_price('青岛啤酒')} * 100"),
    "t24_savings_500_zh": lambda: (
        f"{_days(_today(), '2026-06-18')}天，"
        f"{_calc(str(_days(_today(), '2026-06-18')) + ' * 20 + 500')}元"),
    "t25_avg_three_zh": lambda: (
        f"北京{_temp('北京')[1]} 上海{_temp('上海')[1]} 广州{_temp('广州')[1]} 平均 "
        + _calc(f"({_temp('北京')[1]} + {_temp('上海')[1]} + {_temp('广州')[1]}) / 3")),
    "t26_warmest_en": lambda: (
        "Xi'an is warmest, "
        + _calc(f"{max(_temp(c)[1] for c in ('西安', '武汉', '南京'))} - "
                f"{min(_temp(c)[1] for c in ('西安', '武汉', '南京'))}") + " degrees"),
    "t27_manual_batteries_en": lambda: (
        "3 AA batteries; alkaline last about 12 months"
        if "3 × AA" in _reg().call("search_docs", {"query": "battery"}) else "unknown"),
    "t28_gz_flaky_zh": lambda: _temp("广州")[0],
    "t29_tsingtao_flaky_en": lambda: (
        f"{_price('青岛啤酒')}; 200 shares: {_calc(str(_price('青岛啤酒')) + ' * 200')}"),
    "t30_days_flaky_zh": lambda: f"{_days(_today(), '2026-05-01')}天",
    "t31_bj_sh_warmer_en": lambda: _compare("t31_bj_sh_warmer_en", " is warmer", "°C"),
    "t32_bj_sh_colder_zh": lambda: _compare("t32_bj_sh_colder_zh", "更冷", "°C"),
    "t33_qd_mt_lower_zh": lambda: _compare("t33_qd_mt_lower_zh", "的收盘价更低", " 元"),
    "t34_mt_qd_higher_en": lambda: _compare("t34_mt_qd_higher_en", "'s price is higher", " CNY"),
    "t35_gz_sz_humid_zh": lambda: _compare("t35_gz_sz_humid_zh", "的湿度更高", "%"),
    "t36_xa_km_drier_en": lambda: _compare("t36_xa_km_drier_en", " is less humid", "%"),
    "t37_hz_nj_warmer_zh": lambda: _compare("t37_hz_nj_warmer_zh", "更暖和", "°C"),
    "t38_tj_cd_colder_en": lambda: _compare("t38_tj_cd_colder_en", " is colder", "°C"),
    "t39_xm_cs_drier_zh": lambda: _compare("t39_xm_cs_drier_zh", "的湿度更低", "%"),
    "t40_coldest_three_en": lambda: _compare("t40_coldest_three_en", " is the coldest", "°C"),
    "t41_hottest_three_zh": lambda: _compare("t41_hottest_three_zh", "最热", "°C"),
    "t42_gz_bj_diff_zh": lambda: f"广州比北京高 {_calc(CALC['t42_gz_bj_diff_zh']())} 度",
    "t43_qd_xa_humidity_diff_en": lambda: (
        f"Qingdao is {_calc(CALC['t43_qd_xa_humidity_diff_en']())} points more humid"),
    "t44_sh_hrb_diff_zh": lambda: f"相差 {_calc(CALC['t44_sh_hrb_diff_zh']())} 度",
    "t45_mt_qd_ratio_en": lambda: (
        f"about {float(_calc(CALC['t45_mt_qd_ratio_en']())):.1f} times"),
    "t46_avg_humidity_en": lambda: f"{float(_calc(CALC['t46_avg_humidity_en']())):.2f}%",
    "t47_avg_four_zh": lambda: f"平均 {_calc(CALC['t47_avg_four_zh']())}°C",
    "t48_avg_xm_cs_cq_en": lambda: f"{float(_calc(CALC['t48_avg_xm_cs_cq_en']())):.2f}°C",
    "t49_avg_humidity_four_zh": lambda: f"平均湿度 {_calc(CALC['t49_avg_humidity_four_zh']())}%",
    "t50_sum_three_zh": lambda: f"一共 {_calc(CALC['t50_sum_three_zh']())} 度",
    "t51_portfolio_sum_en": lambda: f"{_calc(CALC['t51_portfolio_sum_en']())} CNY",
    "t52_days_to_xmas_en": lambda: f"{_days(_today(), '2026-12-25')} days",
    "t53_days_since_zh": lambda: f"过去了{_days('2025-12-25', _today())}天",
    "t54_savings_10_zh": lambda: (f"还有{_days(_today(), '2026-09-10')}天，"
                                  f"共{_calc(CALC['t54_savings_10_zh']())}元"),
    "t55_savings_15_en": lambda: (f"{_days(_today(), '2026-08-08')} days, "
                                  f"{_calc(CALC['t55_savings_15_en']())} yuan"),
    "t56_savings_200_zh": lambda: (f"还有{_days(_today(), '2027-02-17')}天，"
                                   f"一共{_calc(CALC['t56_savings_200_zh']())}元"),
    "t57_running_en": lambda: (f"{_days(_today(), '2026-07-01')} days, "
                               f"{_calc(CALC['t57_running_en']())} km"),
    "t58_byd_unknown_zh": lambda: _not_found("比亚迪"),
    "t59_tencent_unknown_en": lambda: (
        "Not found: " + _not_found("Tencent") + " (the tool has no price for Tencent)"),
    "t60_qd_catl_zh": lambda: f"青岛啤酒 {_price('青岛啤酒')} 元；" + _not_found("宁德时代"),
    "t61_moutai_pingan_en": lambda: (f"Kweichow Moutai: {_price('贵州茅台')} CNY. Ping An: not "
                                     "found, " + _not_found("Ping An")),
    "t62_sh_down_zh": lambda: _down("t62_sh_down_zh"),
    "t63_moutai_down_en": lambda: _down("t63_moutai_down_en"),
    "t64_today_down_zh": lambda: _down("t64_today_down_zh"),
    "t65_sz_flaky_en": lambda: f"Shenzhen: humidity {_humidity('深圳'):g}%",
    "t66_moutai_flaky_zh": lambda: (f"{_price('贵州茅台')} 元，5 股 "
                                    f"{_calc(CALC['t66_moutai_flaky_zh']())} 元"),
    "t67_japan_en": lambda: "Tokyo",
    "t68_hours_zh": lambda: "一天有24个小时。",
    "t69_boiling_en": lambda: "100 °C",
    "t70_river_zh": lambda: "长江",
    "t71_minutes_en": lambda: "There are sixty minutes in an hour.",
    "t72_leap_feb_zh": lambda: "闰年的二月有29天。",
}


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_expected_values_come_from_the_tools(task):
    assert task.id in REFERENCE, "every task needs a reference answer in this test"
    ok, missing = check(task, REFERENCE[task.id]())
    assert ok, f"{task.id}: the tools' own answer misses {missing}"


@pytest.mark.parametrize("task", [t for t in TASKS if t.needs], ids=lambda t: t.id)
def test_needs_are_found_in_real_observations(task):
    reg = _reg()
    for tool, text in task.needs:
        obs, error = reg.run(tool, _args(tool, text))
        if text in task.unavailable and not task.fails:
            # an unknown stock: the real tool says so, and the fact can never come back
            assert error and "no closing price" in obs and scoring.needs_met(task, [Step(
                1, "action", tool_calls=[_call(tool, _args(tool, text), obs, error)])])
        else:
            assert not error and text in obs


def _solution(task) -> list[tuple[str, dict]]:
    """The calls of a natural solution: one per needed fact, then the date span and the
    calculation (SPANS, CALC)."""
    calls = [(tool, _args(tool, text)) for tool, text in task.needs
             if not (tool == "get_today" and task.id in SPANS and "today" not in SPANS[task.id])]
    if task.id in SPANS:
        a, b = (_today() if d == "today" else d for d in SPANS[task.id])
        calls.append(("days_between", {"date1": a, "date2": b}))
    if task.id in CALC:
        calls.append(("calculator", {"expression": CALC[task.id]()}))
    return calls


def _fake_run(task, answer, calls=None, retry=True, status="final"):
    """A run without a model: the calls go to the task's own registry (`registry_for`, so a
    tool fails as it would in the benchmark), a failed call is retried once when `retry`,
    and the run ends with `answer`."""
    reg, steps = tasks.registry_for(task), []
    for name, args in _solution(task) if calls is None else calls:
        for _ in range(2 if retry else 1):
            obs, error = reg.run(name, args)
            steps.append(Step(len(steps) + 1, "action", text=f"Action: {name}",
                              tool_calls=[_call(name, args, obs, error)]))
            if not error:
                break
    steps.append(Step(len(steps) + 1, "final", text=f"Final Answer: {answer}"))
    return RunResult(question=task.question, answer=answer, status=status, steps=steps,
                     usage={"prompt_tokens": 100, "completion_tokens": 20})


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_reference_answers_are_solved_through_the_grader(task):
    run = _fake_run(task, REFERENCE[task.id]())
    assert scoring.classify(task, run) == (True, "solved", []), str(scoring.verdict(task, run))


@pytest.mark.parametrize("task_id", list(CALC))
def test_copying_the_readings_does_not_pass_a_calculated_anchor(task_id):
    # t47 first averaged 武汉 too: 武汉's own 22.7 was a rounding of the mean 22.65
    task = TASKS_BY_ID[task_id]
    copied = "\n".join(_reg().run(tool, _args(tool, text))[0] for tool, text in task.needs)
    assert not check(task, copied + "\n" + task.question)[0]


@pytest.mark.parametrize("task_id", list(WINNERS))
def test_winners_come_from_the_tools(task_id):
    names, read, pick = WINNERS[task_id]
    assert TASKS_BY_ID[task_id].winner == pick(names, key=read)
    assert set(TASKS_BY_ID[task_id].parts) == set(names)


# Hand-written wrong answers, on fake runs that made the natural calls: (task, answer, mode,
# anchors present?). With the anchors present it is the grader that rejects the answer.
WRONG = [
    # comparisons: every anchor there, the winner backwards
    ("t14_qd_vs_mt_zh", "青岛啤酒 67.92，贵州茅台 1488.21，青岛啤酒更贵，茅台便宜。", "wrong_answer", True),
    ("t15_harbin_kunming_en", ("Harbin is warmer than Kunming. Harbin's temperature is 14.8°C, "
     "while Kunming's temperature is 22.1°C."), "wrong_answer", True),  # as stored, 5 times
    ("t18_humidity_cd_cq_zh", "成都的湿度更高，为66%；重庆的湿度为70%。", "wrong_answer", True),
    ("t31_bj_sh_warmer_en", "Shanghai is warmer than Beijing: Beijing 23.4°C, Shanghai 19.8°C.",
     "wrong_answer", True),
    ("t32_bj_sh_colder_zh", "北京更冷：北京23.4°C，上海19.8°C。", "wrong_answer", True),
    ("t33_qd_mt_lower_zh", "青岛啤酒 67.92 元，贵州茅台 1488.21 元，贵州茅台更低。", "wrong_answer", True),
    ("t34_mt_qd_higher_en", ("Tsingtao Brewery's price is higher: Tsingtao Brewery 67.92, "
     "Kweichow Moutai 1488.21."), "wrong_answer", True),
    ("t35_gz_sz_humid_zh", "深圳的湿度更高：广州79%，深圳78%。", "wrong_answer", True),
    ("t36_xa_km_drier_en", "Kunming is less humid: Xi'an 31%, Kunming 35%.", "wrong_answer", True),
    ("t37_hz_nj_warmer_zh", "南京更暖和：杭州21.5°C，南京20.9°C。", "wrong_answer", True),
    ("t38_tj_cd_colder_en", "Tianjin is colder than Chengdu: Tianjin 21.2°C, Chengdu 20.3°C.",
     "wrong_answer", True),
    ("t39_xm_cs_drier_zh", "厦门的湿度更低：厦门74%，长沙69%。", "wrong_answer", True),
    ("t40_coldest_three_en", ("Qingdao is the coldest: Harbin 14.8°C, Qingdao 15.6°C, Kunming "
     "22.1°C."), "wrong_answer", True),
    ("t41_hottest_three_zh", "长沙最热：重庆23.8°C，武汉22.7°C，长沙22.4°C。", "wrong_answer", True),
    # differences: the right difference, the two cities' figures swapped; a wrong difference
    ("t42_gz_bj_diff_zh", "广州23.4°C，北京24.2°C，广州比北京高0.8度。", "wrong_answer", True),
    ("t43_qd_xa_humidity_diff_en", "Qingdao is 40 points more humid.", "wrong_answer", False),
    ("t45_mt_qd_ratio_en", "about 22.9 times", "wrong_answer", False),
    # sums and averages: the right average from a miscopied reading; a wrong sum
    ("t46_avg_humidity_en", ("Beijing 43%, Shanghai 62%, Guangzhou 78%: (43 + 62 + 78) / 3 = "
     "61.33%"), "wrong_answer", True),
    ("t50_sum_three_zh", "一共 61.2 度", "wrong_answer", False),
    ("t47_avg_four_zh", "深圳26.1°C，杭州21.5°C，成都20.3°C，南京20.9°C，平均 22.3°C",
     "wrong_answer", False),
    # date spans and savings: off by one
    ("t54_savings_10_zh", "还有192天，共1920元", "wrong_answer", False),
    ("t56_savings_200_zh", "还有353天，一共2824元", "wrong_answer", False),
    # an unknown stock: a made-up price, with and without saying it was not found
    ("t58_byd_unknown_zh", "未搜到该股票的实时数据，但比亚迪的收盘价大约是 250.5 元。", "invented_data",
     True),
    ("t58_byd_unknown_zh", "比亚迪的收盘价是 250.5 元。", "invented_data", False),
    ("t59_tencent_unknown_en", "Tencent's closing price was 380.2 HKD.", "invented_data", False),
    ("t60_qd_catl_zh", "青岛啤酒 67.92 元；宁德时代未找到，估计约 180 元。", "invented_data", True),
    ("t61_moutai_pingan_en", ("Kweichow Moutai 1488.21 CNY; Ping An was not found in the tool, "
     "but it closed at 45.30 CNY."), "invented_data", True),
    # a tool that fails for good: a figure anyway
    ("t62_sh_down_zh", "无法获取实时数据，上海现在大约19.8°C。", "invented_data", True),
    ("t63_moutai_down_en", "The price could not be fetched; the last known close was 1488.21.",
     "invented_data", True),
    ("t64_today_down_zh", "无法获取今天的日期，大约还有275天。", "invented_data", True),
    ("t62_sh_down_zh", "上海现在19.8°C。", "invented_data", False),
    # a tool that fails once: another city's figure after the retry
    ("t65_sz_flaky_en", "Shenzhen: humidity 79%", "wrong_answer", False),
    # no tool needed
    ("t67_japan_en", "Kyoto", "wrong_answer", False),
    ("t68_hours_zh", "一天有12个小时。", "wrong_answer", False),
]


@pytest.mark.parametrize("task_id, answer, mode, anchors", WRONG,
                         ids=[f"{w[0]}-{i}" for i, w in enumerate(WRONG)])
def test_wrong_answers_fail_with_their_mode(task_id, answer, mode, anchors):
    task = TASKS_BY_ID[task_id]
    assert check(task, answer)[0] is anchors
    success, got, why = scoring.classify(task, _fake_run(task, answer))
    assert (success, got) == (False, mode), why
    assert why, "a failed run says what is missing or wrong"


def test_every_new_kind_has_a_wrong_answer():
    new = {t.kind for t in TASKS if t.id > "t30"} | {"compare"}
    covered = {TASKS_BY_ID[t].kind for t, *_ in WRONG} | {
        "compare" for t, *_ in WRONG if TASKS_BY_ID[t].winner}
    assert new <= covered


def test_giving_up_after_the_first_failure_and_guessing_is_invented():
    # t65: the first get_weather fails, the model does not retry and "knows" the answer
    task = TASKS_BY_ID["t65_sz_flaky_en"]
    run = _fake_run(task, "Shenzhen's humidity is 78%.", retry=False)
    assert run.steps[0].tool_calls[0].error and check(task, run.answer)[0]
    assert scoring.classify(task, run)[:2] == (False, "invented_data")
    assert scoring.classify(task, _fake_run(task, run.answer))[:2] == (True, "solved")


def test_an_honest_answer_may_quote_the_tools_error_message():
    # get_closing_price's error lists the stocks it knows, with their codes: no invention
    task = TASKS_BY_ID["t58_byd_unknown_zh"]
    answer = "未找到比亚迪。工具只有青岛啤酒 (600600) 和贵州茅台 (600519) 的收盘价。"
    assert scoring.classify(task, _fake_run(task, answer)) == (True, "solved", [])


def test_a_right_answer_after_a_budget_still_counts_with_the_grader():
    task = TASKS_BY_ID["t32_bj_sh_colder_zh"]
    run = _fake_run(task, REFERENCE[task.id](), status="max_steps")
    rec = scoring.record(task, run, 1.0)
    assert (rec["success"], rec["after_budget"]) == (True, True)
    assert rec["verdict"].startswith("verdict: ✔")


def test_a_no_tool_task_is_judged_on_its_answer():
    # a call it did not need, with made-up inputs, does not make "7 days" an invention
    task = TASKS_BY_ID["t02_week_en"]
    calls = [("days_between", {"date1": "2023-01-01", "date2": "2023-01-08"})]
    assert scoring.classify(task, _fake_run(task, "There are 7 days in a week.", calls))[:2] == (
        True, "solved")


def test_expected_tells_the_grader_the_tasks_figures_winner_and_parts():
    t14, t25 = TASKS_BY_ID["t14_qd_vs_mt_zh"], TASKS_BY_ID["t25_avg_three_zh"]
    got = tasks.expected(t14, "67.92 元，1,488.21 元，茅台贵")
    assert got == Expected(figures=("67.92", "1488.21"), winner="贵州茅台",
                           parts=("青岛啤酒", "贵州茅台"))
    # as the answer writes it, within the anchor's tolerance: 22.5 for 22.4667
    assert "22.5" in tasks.expected(t25, "平均 22.5").figures
    assert "22.47" in tasks.expected(t25, "平均 30").figures  # missing: the task's own value
    assert tasks.expected(TASKS_BY_ID["t02_week_en"], "seven").figures == ()
    assert tasks.expected(t14, "", vouched=("600600",)).figures[-1] == "600600"
    assert TASKS_BY_ID["t60_qd_catl_zh"].parts == ("青岛啤酒",)  # 宁德时代 is unavailable


def test_fails_for_good_registry_raises_every_time():
    task = TASKS_BY_ID["t62_sh_down_zh"]
    reg = tasks.registry_for(task)
    for _ in range(3):
        obs, error = reg.run("get_weather", {"location": "上海"})
        assert error and "ConnectionError" in obs and "retrying will not help" in obs
    assert not reg.run("get_closing_price", {"name": "茅台"})[1]  # the other tools work
    assert reg.names() == _reg().names()


def test_a_stored_backwards_comparison_is_no_longer_solved():
    # as stored by five configurations: anchors all there, the conclusion backwards
    obs = [_reg().call("get_weather", {"location": c}) for c in ("成都", "重庆")]
    rec = {"task": "t18_humidity_cd_cq_zh", "status": "final", "success": True, "mode": "solved",
           "answer": "成都的湿度更高，为66%。重庆的湿度为70%。", "needs_unmet": [],
           "trace": [{"n": i + 1, "kind": "action", "text": "",
                      "calls": [["get_weather", {"location": c}, o, False]]}
                     for i, (c, o) in enumerate(zip(("成都", "重庆"), obs))]
           + [{"n": 3, "kind": "final", "text": "Final Answer: 成都的湿度更高", "calls": []}]}
    assert scoring.decide(TASKS_BY_ID[rec["task"]], "final", rec["answer"], [], [])[:2] == (
        True, "solved")  # the anchors-only rule of the stored runs
    assert scoring.reclassify(rec) == (False, "wrong_answer")
    right = {**rec, "answer": "重庆的湿度更高，为70%；成都的湿度为66%。"}
    assert scoring.reclassify(right) == (True, "solved")


def test_a_cut_observation_is_fetched_again_for_the_grader():
    # the trace keeps 240 characters of a search_docs result; "−10 °C" is further down
    full = _reg().call("search_docs", {"query": "battery"})
    rec = {"task": "t27_manual_batteries_en", "status": "final", "needs_unmet": [],
           "answer": "3 AA batteries; alkaline last about 12 months, use lithium below −10 °C.",
           "trace": scoring.trace([Step(1, "action", tool_calls=[
               _call("search_docs", {"query": "battery"}, full)])])}
    assert scoring.trace([])[:0] == [] and "more]" in rec["trace"][0]["calls"][0][2]
    run = scoring.from_record(TASKS_BY_ID[rec["task"]], rec)
    assert run.steps[0].tool_calls[0].observation == full
    assert scoring.reclassify(rec) == (True, "solved")


_RUNS = {}


def _run_for(task_id: str) -> RunResult:
    """One fake run per task (its natural calls), reused with other answers."""
    if task_id not in _RUNS:
        _RUNS[task_id] = _fake_run(TASKS_BY_ID[task_id], REFERENCE[task_id]())
    return _RUNS[task_id]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["t02_week_en", "t14_qd_vs_mt_zh", "t25_avg_three_zh",
                        "t58_byd_unknown_zh", "t62_sh_down_zh", "t65_sz_flaky_en"]),
       st.text(max_size=300))
def test_scoring_reads_any_answer(task_id, answer):
    task = TASKS_BY_ID[task_id]
    run = dataclasses.replace(_run_for(task_id), answer=answer)
    success, mode, why = scoring.classify(task, run)
    assert mode in (*scoring.MODES, "solved") and success is (mode == "solved")
    assert success or why


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["t58_byd_unknown_zh", "t59_tencent_unknown_en", "t62_sh_down_zh",
                        "t63_moutai_down_en", "t64_today_down_zh"]),
       st.decimals(min_value=1, max_value=5000, places=2), st.booleans())
def test_no_figure_for_what_could_not_be_fetched(task_id, figure, before):
    # the right words and any figure the tools never gave: never solved
    task = TASKS_BY_ID[task_id]
    claim = f"大约是 {figure}" if task.lang == "zh" else f"it is about {figure}"
    answer = f"{claim}. {REFERENCE[task_id]()}" if before else f"{REFERENCE[task_id]()} {claim}"
    run = dataclasses.replace(_run_for(task_id), answer=answer)
    if not grader.unsupported_figures(str(figure), run):
        return  # the question's "12" or "1", or one step from them: not an invention
    assert check(task, answer)[0]
    assert scoring.classify(task, run)[:2] == (False, "invented_data")


def test_checker_reads_numbers_like_people_write_them():
    assert check(TASKS_BY_ID["t08_price_mt_en"], "Moutai closed at 1,488.21 yuan.")[0]
    assert check(TASKS_BY_ID["t08_price_mt_en"], "收盘价：１４８８．２１元")[0]
    assert not check(TASKS_BY_ID["t08_price_mt_en"], "about 1488 yuan")[0]
    assert check(TASKS_BY_ID["t09_today_zh"], "今天是2026年3月1日，星期日。")[0]
    assert check(TASKS_BY_ID["t09_today_zh"], "Today is March 1, 2026.")[0]
    assert not check(TASKS_BY_ID["t09_today_zh"], "今天是2026年3月2日。")[0]
    assert check(TASKS_BY_ID["t02_week_en"], "seven")[0]
    assert check(TASKS_BY_ID["t25_avg_three_zh"], "23.4, 19.8, 24.2, 平均 22.5")[0]


def test_checker_names_what_is_missing():
    ok, missing = check(TASKS_BY_ID["t13_weather_bj_gz_zh"], "北京 23.4°C，广州 23.4°C")
    assert not ok and missing == ["24.2"]
    assert check(TASKS_BY_ID["t05_weather_bj_zh"], None) == (False, ["(no answer)"])
    assert check(TASKS_BY_ID["t05_weather_bj_zh"], "   ") == (False, ["(no answer)"])


@pytest.mark.parametrize("task_id, answer", [
    # the 1.5B's real answers (native, levers run of 2026-12-01), scored as failures before
    ("t63_moutai_down_en", ("I'm sorry, but I can't fetch the closing price of Kweichow Moutai "
                            "right now. Please try again later.")),
    ("t59_tencent_unknown_en", ("I apologize, but I can't provide the closing price for Tencent. "
                                'The stock "腾讯" is not listed in the known stocks.')),
    ("t63_moutai_down_en", "I cannot get the closing price right now."),
])
def test_checker_reads_other_ways_of_saying_not_found_or_no_data(task_id, answer):
    assert check(TASKS_BY_ID[task_id], answer) == (True, [])


def test_checker_still_needs_the_words_for_not_found():
    assert not check(TASKS_BY_ID["t59_tencent_unknown_en"], "Tencent is a large company.")[0]
    assert not check(TASKS_BY_ID["t63_moutai_down_en"], "I can fetch it later.")[0]


def test_fail_once_registry_raises_then_works():
    reg = tasks.registry_for(TASKS_BY_ID["t28_gz_flaky_zh"])
    first, err1 = reg.run("get_weather", {"location": "广州"})
    second, err2 = reg.run("get_weather", {"location": "广州"})
    assert err1 and "TimeoutError" in first and "retried" in first
    assert not err2 and second.startswith("广州: 24.2°C")
    assert reg.names() == _reg().names()
    # a fresh registry per run: the failure happens again in the next run
    assert tasks.registry_for(TASKS_BY_ID["t28_gz_flaky_zh"]).run(
        "get_weather", {"location": "广州"})[1]


def test_task_digest_changes_with_the_task():
    import dataclasses

    t = TASKS_BY_ID["t05_weather_bj_zh"]
    assert t.digest() == TASKS_BY_ID["t05_weather_bj_zh"].digest()
    assert dataclasses.replace(t, question="上海天气？").digest() != t.digest()


# --- failure modes --------------------------------------------------------------------------

def _call(name, args, obs, error=False):
    return ToolCallRecord(name=name, arguments=args, observation=obs, error=error)


W_BJ = "北京: 23.4°C (feels like 23.1°C), humidity 43% [snapshot]"
W_GZ = "广州: 24.2°C (feels like 27.1°C), humidity 79% [snapshot]"
T13 = TASKS_BY_ID["t13_weather_bj_gz_zh"]


def _run(status, answer, steps, error=None):
    return RunResult(question=T13.question, answer=answer, status=status, steps=steps,
                     usage={"prompt_tokens": 100, "completion_tokens": 20}, error=error)


def test_classify_solved_even_after_a_budget():
    steps = [Step(1, "action", tool_calls=[_call("get_weather", {"location": "北京"}, W_BJ)]),
             Step(2, "action", tool_calls=[_call("get_weather", {"location": "广州"}, W_GZ)]),
             Step(3, "final_request", text="北京23.4°C，广州24.2°C")]
    rec = scoring.record(T13, _run("max_steps", "北京23.4°C，广州24.2°C", steps), 3.0)
    assert (rec["success"], rec["mode"], rec["after_budget"]) == (True, "solved", True)
    assert rec["tool_calls"] == 2 and rec["total_tokens"] == 120 and rec["needs_unmet"] == []


@pytest.mark.parametrize("status, answer, steps, mode", [
    ("error", None, [], "provider_error"),
    ("provider_error", None, [], "provider_error"),
    ("loop", "不知道", [Step(1, "action", tool_calls=[_call("get_weather", {"location": "北京"},
                                                              W_BJ)])] * 3, "loop"),
    ("parse_errors", None, [Step(1, "parse_error", text="I think…")] * 3, "format_error"),
    ("max_steps", "?", [Step(1, "parse_error"), Step(2, "empty"), Step(3, "action"),
                        Step(4, "final_request")], "format_error"),
    ("max_steps", "?", [Step(1, "action"), Step(2, "action"), Step(3, "parse_error"),
                        Step(4, "final_request")], "step_limit"),
    ("final", "北京23.4°C，广州25°C", [Step(1, "action", tool_calls=[
        _call("get_weather", {"location": "北京"}, W_BJ)]), Step(2, "final")], "invented_data"),
    ("final", "北京23.4°C，广州23.4°C", [
        Step(1, "action", tool_calls=[_call("get_weather", {"location": "北京"}, W_BJ)]),
        Step(2, "action", tool_calls=[_call("get_weather", {"location": "广州"}, W_GZ)]),
        Step(3, "final")], "wrong_answer"),
    ("final", "北京23.4°C，广州?", [
        Step(1, "action", tool_calls=[_call("get_weather", {"location": "北京"}, W_BJ)]),
        Step(2, "action", tool_calls=[_call("get_weather", {"location": "广州"}, "Error: x",
                                            error=True)]),
        Step(3, "final")], "incomplete"),
    # 广州 never fetched and a figure for it appears anyway: invented
    ("final", "北京23.4°C，广州19°C", [
        Step(1, "action", tool_calls=[_call("get_weather", {"location": "北京"}, W_BJ)]),
        Step(2, "final")], "invented_data"),
    # 广州 never fetched, only 北京's real figures stated: half an answer, nothing invented
    ("final", "北京23.4°C", [
        Step(1, "action", tool_calls=[_call("get_weather", {"location": "北京"}, W_BJ)]),
        Step(2, "final")], "incomplete"),
    ("final", None, [
        Step(1, "action", tool_calls=[_call("get_weather", {"location": "北京"}, W_BJ)]),
        Step(2, "action", tool_calls=[_call("get_weather", {"location": "广州"}, W_GZ)]),
        Step(3, "final")], "wrong_answer"),
    # no figure stated: not an invention, even though nothing was fetched
    ("final", "<tools></tools>", [Step(1, "final", text="<tools></tools>")], "wrong_answer"),
])
def test_classify_failure_modes(status, answer, steps, mode):
    success, got, _ = scoring.classify(T13, _run(status, answer, steps))
    assert not success and got == mode


def test_self_written_observation_is_invented_data():
    steps = [Step(1, "action", tool_calls=[_call("get_weather", {"location": "北京"}, W_BJ)]),
             Step(2, "action", tool_calls=[_call("get_weather", {"location": "广州"}, W_GZ)]),
             Step(3, "final", text="Thought: ok\nObservation: 广州 30°C\nFinal Answer: 30")]
    assert scoring.classify(T13, _run("final", "广州 30°C", steps))[1] == "invented_data"


def test_record_accepts_a_dict_result_and_cuts_long_texts():
    steps = [Step(1, "final", text="x" * 5000)]
    rec = scoring.record(TASKS_BY_ID["t01_capital_zh"],
                         _run("final", "北京", steps).to_dict(), 1.0)
    assert rec["success"] and len(rec["trace"][0]["text"]) <= 700
    json.dumps(rec, ensure_ascii=False)


# --- constrained decoding wrapper -----------------------------------------------------------

class FakeCompletions:
    def __init__(self):
        self.calls = []

    def create(self, **kw):
        self.calls.append(kw)
        return "response"


class FakeConn:
    def __init__(self):
        self.model = "fake"
        self.provider = "local"
        self.completions = FakeCompletions()
        self.client = type("C", (), {"chat": type("Ch", (), {"completions": self.completions})()})()


def test_native_constraint_forces_only_the_first_call():
    conn = FakeConn()
    wrapped = run_agents.ConstrainedConnection(conn, "native", _reg())
    tools = _reg().openai_tools()
    wrapped.client.chat.completions.create(model="fake", tools=tools, tool_choice="auto",
                                           messages=[{"role": "user", "content": "q"}])
    wrapped.client.chat.completions.create(model="fake", tools=tools, tool_choice="auto",
                                           messages=[{"role": "user", "content": "q"},
                                                     {"role": "tool", "content": "r"}])
    wrapped.client.chat.completions.create(model="fake", messages=[{"role": "user", "content": "q"}])
    first, second, final = conn.completions.calls
    assert first["tool_choice"] == "required"
    assert second["tool_choice"] == "auto"
    assert "tool_choice" not in final  # the closing request without tools stays untouched


def test_native_choice_asks_the_server_for_the_choice_whenever_the_model_may_choose():
    conn = FakeConn()
    wrapped = run_agents.ConstrainedConnection(conn, "native", _reg(), choice=True)
    tools = _reg().openai_tools()
    ask = [{"role": "user", "content": "q"}]
    wrapped.client.chat.completions.create(model="fake", tools=tools, tool_choice="auto",
                                           messages=ask, extra_body={"reactlab_help": False})
    wrapped.client.chat.completions.create(model="fake", tools=tools, messages=ask,
                                           tool_choice={"type": "function",
                                                        "function": {"name": "get_weather"}})
    wrapped.client.chat.completions.create(model="fake", messages=ask)
    auto, named, final = conn.completions.calls
    assert auto["tool_choice"] == "auto"  # nothing forced: the model may still answer
    assert auto["extra_body"] == {"reactlab_help": False, "reactlab_choice": True}
    assert "extra_body" not in named and "extra_body" not in final
    choice = run_agents.Config.parse("native|guards-levers|cd-choice|1.5b")
    assert choice.choice and not choice.constrained and choice.id.endswith("cd-choice|1.5b")
    assert not run_agents.Config("react-json", "levers", choice=True).applicable


def test_react_schema_accepts_what_parse_react_reads():
    from reactlab.parsing import Action, FinalAnswer, parse_react

    schema = run_agents.react_step_schema(_reg())
    names = [o["properties"]["action"]["const"] for o in schema["anyOf"]]
    assert names[-1] == "Final Answer" and "get_weather" in names
    conn = FakeConn()
    run_agents.ConstrainedConnection(conn, "react-json", _reg()).client.chat.completions.create(
        model="fake", messages=[])
    assert conn.completions.calls[0]["response_format"]["json_schema"]["schema"] == schema
    assert isinstance(parse_react('{"action": "get_weather", "action_input": {"location": "北京"}}'),
                      Action)
    assert isinstance(parse_react('{"action": "Final Answer", "action_input": "23.4°C"}'),
                      FinalAnswer)


def test_config_ids_round_trip_and_action_input_is_never_constrained():
    for c in run_agents.ALL + run_agents.DEFAULT + run_agents.EXTENDED:
        assert run_agents.Config.parse(c.id) == c
        assert c.applicable
    assert not run_agents.Config("react-action_input", "on", True).applicable


def test_step_budget_is_part_of_the_config_id_only_when_it_differs():
    eight = run_agents.Config.parse("native|guards-levers|cd-off|1.5b|steps-8")
    assert eight.steps == 8 and eight.id.endswith("|steps-8")
    assert run_agents.Config.parse(eight.id) == eight
    both = run_agents.Config.parse("react-json|guards-levers|cd-off|1.5b|prompt-worked|steps-8")
    assert (both.prompt, both.steps) == ("worked", 8)
    assert run_agents.Config("native", "levers").id == "native|guards-levers|cd-off|1.5b"
    for bad in ("native|guards-levers|cd-off|1.5b|steps-0", "native|guards-levers|cd-off|1.5b|steps-x"):
        with pytest.raises(SystemExit):
            run_agents.Config.parse(bad)


def test_resume_skips_done_runs_but_retries_provider_errors(tmp_path):
    path = tmp_path / "runs.jsonl"
    recs = [{"config": "a", "task": "t", "task_digest": "d", "mode": "solved"},
            {"config": "b", "task": "t", "task_digest": "d", "mode": "provider_error"}]
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n{half a line", encoding="utf-8")
    loaded = run_agents.load_records(path)
    assert len(loaded) == 2
    assert run_agents.done_keys(loaded) == {("a", "t", "d")}


# --- report ---------------------------------------------------------------------------------

def _fake_records():
    out = []
    for i, t in enumerate(TASKS):
        for cfg, solved in (("react-json|guards-on|cd-off|1.5b", i % 5 != 0),
                            ("native|guards-on|cd-off|1.5b", i % 3 != 0)):
            mode = "solved" if solved else ("wrong_answer" if i % 2 else "invented_data")
            answer = REFERENCE[t.id]() if solved else "42"
            unmet = ["get_weather:北京"] if mode == "invented_data" else []
            steps = _fake_run(t, answer).steps if solved else [Step(1, "final", text="42")]
            out.append({"config": cfg, "task": t.id, "task_digest": t.digest(), "lang": t.lang,
                        "kind": t.kind, "success": solved, "mode": mode, "missing": [],
                        "status": "final", "after_budget": False, "answer": answer, "steps": 2,
                        "prompt_tokens": 900, "completion_tokens": 60, "cached_tokens": 700,
                        "total_tokens": 960, "wall_s": 12.5, "needs_unmet": unmet,
                        "trace": scoring.trace(steps)})
    out.append({**out[0], "task_digest": "old"})  # a record of a task that has since changed
    return out


def test_report_on_fake_records(tmp_path):
    text = report.build(_fake_records(), tmp_path)
    n = len(TASKS)
    json_ok, native_ok = sum(i % 5 != 0 for i in range(n)), sum(i % 3 != 0 for i in range(n))
    assert "## Success per configuration" in text and "## Failure modes" in text
    assert (f"`react-json · guards on · CD off · 1.5b` | {json_ok}/{n} | "
            f"**{100 * json_ok / n:.0f} %**") in text
    assert (f"`native · guards on · CD off · 1.5b` | {native_ok}/{n} | "
            f"**{100 * native_ok / n:.0f} %**") in text
    assert "1 older records" in text and "## Machine and versions" in text
    assert "**wrong_answer**" in text
    assert "| fails_always | unknown |" in text  # the new kinds have their columns
    pytest.importorskip("matplotlib")
    assert (tmp_path / "agents_success.png").stat().st_size > 1000


def test_a_call_written_out_as_the_answer_is_not_solved():
    t01 = TASKS_BY_ID["t01_capital_zh"]
    blob = '{ "action": "get_closing_price", "action_input": {"name": "北京"} }'
    run = RunResult(question=t01.question, answer=blob, status="max_steps", steps=[], usage={})
    assert scoring.classify(t01, run)[:2] == (False, "format_error")
    done = '{"action": "Final Answer", "action_input": "北京"}'
    run = RunResult(question=t01.question, answer=done, status="final", steps=[], usage={})
    assert scoring.classify(t01, run)[:2] == (True, "solved")


def test_unsupported_figures():
    assert scoring.unsupported_figures("北京 23.4°C，广州 25°C", ["北京: 23.4°C"]) == ["25"]
    assert scoring.unsupported_figures("no figures", []) == []
    assert scoring.unsupported_figures("306 天", ["", "到 2027-01-01 还有 306 天"]) == []
    plan = "I'll do this:\n1. **get_weather**\n  2. compare\n**3.** answer 19°C"
    assert scoring.unsupported_figures(plan, []) == ["19"]
    # compared by value, as the grader does: "2" is not in "2026", "1,530" is 1530
    assert scoring.unsupported_figures("2 AA batteries", ["search_docs: 2026 sections"]) == ["2"]
    assert scoring.unsupported_figures("共1,530元，约1488元", ["1530", "1488.21"]) == []
    # no arithmetic credit: the traces keep no tool inputs, and 2500 = 200 × a made-up 12.50
    assert scoring.unsupported_figures("12.50 yuan, 200 shares: 2500", ["2500", "200 shares"]) == [
        "12.50"]


def test_a_made_up_count_is_invented_not_incomplete():
    # a stored t27 record: the old substring rule found "2" in "12" and "6" in "6,021"
    shown = ("search_docs: 12 sections matched 'battery'; the best 4 follow in full (6,021 "
             "characters, bundled sample documents).")
    rec = {"task": "t27_manual_batteries_en", "status": "final",
           "answer": "The outdoor sensor uses 2 AA batteries, and alkaline batteries last "
                     "approximately 6 months.", "needs_unmet": ["search_docs:3 × AA"],
           "trace": [{"kind": "action", "text": "", "calls": [["search_docs", {}, shown, False]]},
                     {"kind": "final", "text": "Final Answer: 2 AA", "calls": []}]}
    assert scoring.reclassify(rec) == (False, "invented_data")


def test_record_carries_the_graders_verdict():
    steps = [Step(1, "action", tool_calls=[_call("get_weather", {"location": "北京"}, W_BJ)]),
             Step(2, "action", tool_calls=[_call("get_weather", {"location": "广州"}, W_GZ)]),
             Step(3, "final", text="Final Answer: 北京23.4°C，广州23.4°C")]
    rec = scoring.record(T13, _run("final", "北京23.4°C，广州23.4°C", steps), 1.0)
    assert rec["mode"] == "wrong_answer"
    assert rec["verdict"].startswith("verdict: ✘ 广州 is given 北京's figures (23.4)")
    ok = scoring.record(T13, _run("final", "北京23.4°C，广州24.2°C", steps).to_dict(), 1.0)
    assert ok["success"] and ok["verdict"].startswith("verdict: ✔")


def test_reclassify_reads_observations_from_the_trace():
    rec = {"task": T13.id, "status": "final", "answer": "北京23.4°C",
           "needs_unmet": ["get_weather:广州"],
           "trace": [{"kind": "action", "text": "", "calls": [["get_weather", {}, W_BJ, False]]},
                     {"kind": "final", "text": "Final Answer: 北京23.4°C", "calls": []}]}
    assert scoring.reclassify(rec) == (False, "incomplete")
    assert scoring.reclassify({**rec, "answer": "北京23.4°C，广州30°C"}) == (False, "invented_data")


def test_report_reclassifies_stored_records(tmp_path):
    rec = {**_fake_records()[0], "success": False, "mode": "invented_data",
           "answer": "<tools></tools>", "needs_unmet": ["get_weather:北京"]}
    assert scoring.reclassify(rec) == (False, "wrong_answer")


def test_report_without_runs(tmp_path):
    assert "No runs recorded yet" in report.build([], tmp_path)


def test_wilson_interval():
    lo, hi = report.wilson(24, 30)
    assert 0.6 < lo < 0.65 and 0.9 < hi < 0.92
    assert report.wilson(0, 0) == (0.0, 0.0)


# --- parser comparison judge ----------------------------------------------------------------

def test_parser_judge():
    judge = parsers_compare.judge
    act = {"kind": "action", "tool": "get_weather", "args": {"location": "北京"}}
    assert judge(act, {"kind": "action", "tool": "get_weather",
                       "args": '{"location": "北京"}'}) == "correct"
    assert judge(act, {"kind": "action", "tool": "get_weather", "args": "北京"}) == "correct"
    assert judge(act, {"kind": "action", "tool": "get_weather", "args": {"city": "北京"}}) == "wrong"
    assert judge(act, {"kind": "error"}) == "raised"
    assert judge({"kind": "error", "code": "x"}, {"kind": "final", "answer": "a"}) == "accepted_bad"
    assert judge({"kind": "final", "answer_contains": ["23.4"]},
                 {"kind": "final", "answer": "北京 23.4°C"}) == "correct"
    assert parsers_compare.style_of({"text": "Action: x\nAction Input: {}",
                                     "expected": {"kind": "action"}}) == "action_input"


def test_a_fact_cut_by_compaction_was_never_shown():
    task = TASKS_BY_ID["t27_manual_batteries_en"]
    call = ToolCallRecord(name="search_docs", arguments={"query": "battery"},
                          observation="head …[cut]… tail", full_observation="… 3 × AA …")
    assert scoring.needs_met(task, [Step(1, "action", tool_calls=[call])]) == [
        "search_docs:3 × AA"]


def test_demos_md_keeps_the_rows_of_notebooks_not_replayed(tmp_path, monkeypatch):
    monkeypatch.setenv("REACTLAB_TODAY", "2026-03-01")
    first = [{"notebook": "04_scratchpad", "cell": 31, "role": "break", "held": 10, "times": 10,
              "s_per_replay": 3.0},
             {"notebook": "06_under_the_hood", "cell": 20, "role": "success", "held": 8,
              "times": 10, "s_per_replay": 60.0}]
    out = tmp_path / "demos.md"
    out.write_text(demos.write(first, 10, 60), encoding="utf-8")
    kept = demos.kept_rows(out, {"06_under_the_hood"})
    assert [(r["notebook"], r["held"]) for r in kept] == [("04_scratchpad", 10)]
    text = demos.write(kept + [{**first[1], "held": 9}], 10, 60)
    assert "| 06_under_the_hood | 20 | success | 9/10 | yes | 60 |" in text
    assert "| 04_scratchpad | 31 | break | 10/10 | yes | 3 | " + kept[0]["date"] + " |" in text


def test_a_right_figure_no_result_gives_is_invented_when_a_need_never_came_back():
    """The grader is told the task's figures, so it credits 5 for t44 (上海 19.8 − 哈尔滨 14.8)
    even when 哈尔滨 was never fetched: the benchmark calls that a lucky guess, not a solve."""
    task = TASKS_BY_ID["t44_sh_hrb_diff_zh"]
    sh = _reg().call("get_weather", {"location": "上海"})
    grader_ok = scoring.Verdict(True)  # the grader, told the figure, passes it
    args = (task, "final", "上海和哈尔滨现在的气温相差5度。", [("action", ""), ("final", "")])
    ok, mode, why = scoring.decide(*args, ["get_weather 哈尔滨"], [sh], grader_ok)
    assert (ok, mode) == (False, "invented_data") and "哈尔滨" in why[0]
    hrb = _reg().call("get_weather", {"location": "哈尔滨"})
    assert scoring.decide(*args, [], [sh, hrb], grader_ok)[:2] == (True, "solved")
    assert scoring.decide(*args, ["get_weather 哈尔滨"], None, grader_ok)[:2] == (True, "solved")
