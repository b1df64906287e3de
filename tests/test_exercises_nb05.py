"""Notebook 05's exercise checks, on hand-made answers (no model)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor, as_completed

import pytest

from reactlab.exercises import ExerciseNotDone
from reactlab.exercises.nb05 import check_1, check_2, check_3, check_4
from reactlab.runlog import RunResult, Step, ToolCallRecord

USER = {"role": "user", "content": "今天的天气怎么样？我想出去露营，需要准备什么"}
CALL = {"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_xyz789", "type": "function",
    "function": {"name": "get_current_weather", "arguments": "{\"location\": \"北京\"}"}}]}
RESULT = {"role": "tool", "tool_call_id": "call_xyz789", "content": "{\"temp\": 32}"}


def frag(index, id_=None, name=None, args=""):
    f = {"index": index, "function": {"arguments": args}}
    if id_ is not None:
        f["id"] = id_
    if name:
        f["function"]["name"] = name
    return {"choices": [{"index": 0, "delta": {"tool_calls": [f]}, "finish_reason": None}]}


INTERLEAVED = [frag(0, "call_a", "get_weather", '{"loca'), frag(1, "call_b", "get_weather", '{"location"'),
               frag(0, "", None, 'tion": "北京"}'), frag(1, "call_b", "get_weather", ': "广州"}')]


def run_in_order(calls, registry):
    out = [None] * len(calls)
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {pool.submit(registry.run, c["name"], c["arguments"]): i for i, c in enumerate(calls)}
        for fut in as_completed(futures):
            i = futures[fut]
            out[i] = {"role": "tool", "tool_call_id": calls[i]["id"], "content": fut.result()[0]}
    return out


def sequential(calls, registry):
    return [{"role": "tool", "tool_call_id": c["id"], "content": registry.run(c["name"], c["arguments"])[0]}
            for c in calls]


def finishing_order(calls, registry):
    return list(reversed(run_in_order(calls, registry)))


def stock_run(protocol="function_calling"):
    calls = [ToolCallRecord("get_closing_price", {"name": "青岛啤酒"}, "青岛啤酒 (600600.SH) closing price: 67.92 CNY"),
             ToolCallRecord("get_closing_price", {"name": "贵州茅台"}, "贵州茅台 (600519.SH) closing price: 1488.21 CNY")]
    answer = "青岛啤酒67.92元，贵州茅台1488.21元，贵州茅台更高。"
    return RunResult("青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高？", answer, "final",
                     [Step(1, "action", tool_calls=calls), Step(2, "final", answer)], protocol=protocol)


@pytest.mark.parametrize("check", [check_1, check_2, check_3, check_4])
def test_none_is_pending(check, capsys):
    assert check(None) is None
    assert "not attempted yet" in capsys.readouterr().out


def test_right_answers_pass(capsys):
    assert check_1(([USER, CALL, {**RESULT, "tool_call_id": "call_other"}], [USER, CALL]))
    assert check_2(INTERLEAVED + [{"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}])
    assert check_3(run_in_order)
    assert check_4(stock_run())
    out = capsys.readouterr().out
    assert out.count("✔ exercise") == 4 and "verdict: ✔" in out


def test_a_wrong_run_still_passes_check_4_and_shows_its_verdict(capsys):
    run = stock_run()
    run.answer = "青岛啤酒67.92元，贵州茅台1488.21元，青岛啤酒更高。"
    assert check_4(run)
    assert "verdict: ✘" in capsys.readouterr().out


@pytest.mark.parametrize("check, answer", [
    (check_1, ([USER, CALL, RESULT], [USER, CALL])),            # the first list is valid
    (check_1, ([USER, CALL, {**RESULT, "tool_call_id": "call_other"}], [USER, CALL, RESULT])),
    (check_1, [USER, CALL]),                                    # not a pair
    (check_2, INTERLEAVED[:2]),                                 # too few fragments
    (check_2, [INTERLEAVED[i] for i in (0, 2, 1, 3)]),          # not alternating
    (check_2, INTERLEAVED[:3] + [frag(1, None, None, ': "广州"}')]),  # second id not repeated
    (check_2, "chunks"),
    (check_3, sequential),                                      # in order, but not parallel
    (check_3, finishing_order),                                 # parallel, wrong order
    (check_3, run_in_order([], None)),                          # the result, not the function
    (check_4, stock_run("react")),                              # the wrong protocol
    (check_4, json.dumps({"answer": "贵州茅台"})),
])
def test_wrong_answers_raise(check, answer):
    with pytest.raises(ExerciseNotDone):
        check(answer)
