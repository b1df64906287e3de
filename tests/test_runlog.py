"""Unit tests for reactlab.runlog: records, usage arithmetic, the JSONL round trip."""

from __future__ import annotations

import json

import pytest
from openai.types.chat import ChatCompletionMessage
from sample_runs import BIG, sample_run

from reactlab.runlog import (
    RunResult,
    Step,
    add_usage,
    read_jsonl,
    to_jsonl,
)


def test_add_usage_accepts_dicts_and_sdk_objects():
    from openai.types import CompletionUsage

    total = add_usage({}, {"prompt_tokens": 10, "completion_tokens": 2,
                           "prompt_tokens_details": {"cached_tokens": 8}})
    add_usage(total, CompletionUsage(prompt_tokens=5, completion_tokens=1, total_tokens=6))
    add_usage(total, None)
    assert total == {"prompt_tokens": 15, "completion_tokens": 3, "total_tokens": 18,
                     "cached_tokens": 8}


def test_jsonl_round_trip(tmp_path):
    run = sample_run()
    # an SDK object in the messages (an agent may echo the response message as-is)
    run.messages.append(ChatCompletionMessage(role="assistant", content="好的"))
    path = to_jsonl(run, tmp_path / "run.jsonl")
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") == 1 and "北京今天天气怎么样" in text  # one line, Chinese readable
    (back,) = read_jsonl(path)
    assert back.steps == run.steps
    assert back.steps[0].tool_calls[0].full_observation == BIG
    assert back.usage == run.usage and back.status == "final"
    assert back.messages[-1] == {"role": "assistant", "content": "好的", "refusal": None,
                                 "annotations": None, "audio": None, "function_call": None,
                                 "tool_calls": None}


def test_jsonl_several_runs_labels_and_append(tmp_path):
    path = tmp_path / "runs.jsonl"
    to_jsonl({"guards on": sample_run(), "guards off": sample_run(growth=9000)}, path)
    to_jsonl([sample_run("react")], path, append=True)
    runs = read_jsonl(path)
    assert [r.meta.get("label") for r in runs] == ["guards on", "guards off", None]
    assert runs[2].protocol == "react"


def test_read_jsonl_ignores_unknown_keys_and_reports_bad_lines(tmp_path):
    record = sample_run().to_dict()
    record["from_the_future"] = 1
    record["steps"][0]["new_field"] = 2
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n\n", encoding="utf-8")
    assert read_jsonl(path)[0].steps[0].number == 1
    path.write_text("not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1 is not a JSON run record"):
        read_jsonl(path)



def test_add_usage_reads_whatever_a_provider_sends_as_zero_when_unreadable():
    total = add_usage({}, {"prompt_tokens": "n/a", "completion_tokens": "12",
                           "prompt_tokens_details": "none"})
    assert total == {"prompt_tokens": 0, "completion_tokens": 12, "total_tokens": 12,
                     "cached_tokens": 0}
    assert add_usage({}, {"prompt_tokens": float("nan"), "completion_tokens": -3}) == {
        "prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "cached_tokens": 0}
    assert add_usage({"prompt_tokens": 1}, "garbage") == {"prompt_tokens": 1}


def test_jsonl_writes_a_lone_surrogate_as_a_replacement_character(tmp_path):
    run = RunResult("北京天气", "晴\ud83d", "final", [Step(1, "final", text="\ud83d")])
    path = to_jsonl(run, tmp_path / "runs.jsonl")
    back = read_jsonl(path)[0]
    assert back.answer == "晴\ufffd" and back.steps[0].text == "\ufffd"
