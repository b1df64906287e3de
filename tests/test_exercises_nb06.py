"""Notebook 06's exercise checks, without a model: a rendered prompt, parser inputs, a canned
reply and two hand-made runs."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from reactlab.exercises import ExerciseNotDone
from reactlab.exercises.nb06 import check_1, check_2, check_3, check_4
from reactlab.runlog import RunResult, Step

PROMPT = ("<|im_start|>system\n<tools>\n{}\n</tools> use <tool_call></tool_call><|im_end|>\n"
          "<|im_start|>user\n北京今天天气怎么样？<|im_end|>\n<|im_start|>assistant\n<tool_call>\n"
          '{"name": "get_weather", "arguments": {"location": "北京"}}\n</tool_call><|im_end|>\n'
          "<|im_start|>user\n<tool_response>\n北京: 晴\n</tool_response><|im_end|>\n"
          "<|im_start|>assistant\n")


def test_none_is_pending(capsys):
    for check in (check_1, check_2, check_3, check_4):
        assert check(None) is None
    assert capsys.readouterr().out.count("not attempted yet") == 4


def test_check_1():
    assert check_1(PROMPT)
    with pytest.raises(ExerciseNotDone, match="tool_response"):
        check_1(PROMPT.split("<|im_start|>user\n<tool_response>")[0])


def test_check_2():
    assert check_2({"a": "{'name': 'get_weather'}", "b": "prose", "c": "more prose"})
    calls = '{"name": "get_weather", "arguments": {"location": "北京"}}'
    with pytest.raises(ExerciseNotDone):
        check_2({"a": calls, "b": calls, "c": calls})
    with pytest.raises(ExerciseNotDone):
        check_2({"a": "x"})


def response(name):
    call = NS(function=NS(name=name, arguments='{"expression": "306 * 5"}'))
    return NS(choices=[NS(message=NS(tool_calls=[call], content=None))])


def test_check_3():
    assert check_3(response("calculator"))
    with pytest.raises(ExerciseNotDone):
        check_3(response("get_weather"))
    with pytest.raises(ExerciseNotDone):
        check_3(NS(choices=[NS(message=NS(tool_calls=None, content="1530"))]))


def run(tokens):
    answer = "JSON 是一种文本数据格式。"
    return RunResult("用一句话解释什么是 JSON。", answer, "final", [Step(1, "final", text=answer)],
                     usage={"prompt_tokens": tokens, "completion_tokens": 20})


def test_check_4():
    assert check_4({"react": run(900), "native": run(300), "more_tokens": "react"})
    with pytest.raises(ExerciseNotDone, match="usage"):
        check_4({"react": run(900), "native": run(300), "more_tokens": "native"})
    with pytest.raises(ExerciseNotDone):
        check_4({"react": "run"})
