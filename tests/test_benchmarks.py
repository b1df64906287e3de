"""The benchmark's own logic, without a model: task checkers, expected values, failure modes,
the constrained-decoding wrapper, the report and the parser-comparison judge.

The expected values in benchmarks/tasks.py are recomputed here from the course tools, so a
change in the bundled data shows up as a failing test instead of a silently wrong benchmark.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import parsers_compare, report, run_agents, scoring, tasks
from benchmarks.tasks import TASKS, TASKS_BY_ID, TODAY, check
from reactlab.runlog import RunResult, Step, ToolCallRecord


@pytest.fixture(autouse=True)
def pinned_date(monkeypatch):
    monkeypatch.setenv("REACTLAB_TODAY", TODAY)
    monkeypatch.setenv("REACTLAB_WEATHER", "snapshot")


# --- the suite ------------------------------------------------------------------------------

def test_suite_shape():
    assert len(TASKS) >= 24
    assert len(TASKS_BY_ID) == len(TASKS), "task ids must be unique"
    assert {t.lang for t in TASKS} == {"zh", "en"}
    assert {t.calls for t in TASKS} >= {0, 1, 2, 3, 4}
    assert sum(t.calls == 0 for t in TASKS) >= 2
    assert sum(bool(t.fail_once) for t in TASKS) >= 2
    assert all(t.expect for t in TASKS)
    assert set(tasks.QUICK_IDS) <= set(TASKS_BY_ID)


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
}


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_expected_values_come_from_the_tools(task):
    assert task.id in REFERENCE, "every task needs a reference answer in this test"
    ok, missing = check(task, REFERENCE[task.id]())
    assert ok, f"{task.id}: the tools' own answer misses {missing}"


@pytest.mark.parametrize("task", [t for t in TASKS if t.needs], ids=lambda t: t.id)
def test_needs_are_found_in_real_observations(task):
    reg = _reg()
    args = {"get_weather": "location", "get_closing_price": "name", "search_docs": "query"}
    for tool, text in task.needs:
        if tool == "get_today":
            obs = reg.call("get_today", {})
        elif tool == "search_docs":
            obs = reg.call(tool, {"query": "battery"})
        else:
            obs = reg.call(tool, {args[tool]: text})
        assert text in obs


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
            out.append({"config": cfg, "task": t.id, "task_digest": t.digest(), "lang": t.lang,
                        "kind": t.kind, "success": solved, "mode": mode, "missing": [],
                        "status": "final", "after_budget": False, "answer": answer, "steps": 2,
                        "prompt_tokens": 900, "completion_tokens": 60, "cached_tokens": 700,
                        "total_tokens": 960, "wall_s": 12.5, "needs_unmet": unmet,
                        "trace": [{"n": 1, "kind": "final", "text": "Final Answer: x",
                                   "calls": [], "error": None, "events": []}]})
    out.append({**out[0], "task_digest": "old"})  # a record of a task that has since changed
    return out


def test_report_on_fake_records(tmp_path):
    text = report.build(_fake_records(), tmp_path)
    assert "## Success per configuration" in text and "## Failure modes" in text
    assert "`react-json · guards on · CD off · 1.5b` | 24/30 | **80 %**" in text
    assert "`native · guards on · CD off · 1.5b` | 20/30 | **67 %**" in text
    assert "1 older records" in text and "## Machine and versions" in text
    assert "**wrong_answer**" in text
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
