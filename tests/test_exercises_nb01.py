"""Notebook 01's exercise checks, without a model: None is pending, a right result passes, a
wrong one raises ExerciseNotDone."""

from __future__ import annotations

import httpx
import openai
import pytest
import requests

from reactlab.exercises import ExerciseNotDone
from reactlab.exercises.nb01 import check_1, check_2, check_3, check_4


def reply(text, finish="stop"):
    return {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": finish}]}


def test_none_is_pending(capsys):
    for check in (check_1, check_2, check_3, check_4):
        assert check(None) is None
    assert capsys.readouterr().out.count("not attempted yet") == 4


def test_check_1():
    assert check_1(reply("北京是中华人民共和国的首都"))
    with pytest.raises(ExerciseNotDone, match="。"):
        check_1(reply("北京是中国的首都。"))
    with pytest.raises(ExerciseNotDone, match="length"):
        check_1(reply("北京是", "length"))


def test_check_2():
    assert check_2((47, 48))
    with pytest.raises(ExerciseNotDone):
        check_2((200, 48))
    with pytest.raises(ExerciseNotDone):
        check_2("47")


def good_ask(messages):
    resp = requests.post("http://unused/v1/chat/completions", json={"messages": messages})
    if resp.status_code >= 400:
        raise RuntimeError(f"HTTP {resp.status_code}: {resp.json()['error']['message']}")
    return resp.json()["choices"][0]["message"]["content"]


def no_raise_ask(messages):
    resp = requests.post("http://unused/v1/chat/completions", json={"messages": messages})
    return resp.text


def test_check_3_runs_the_function_against_canned_replies():
    assert check_3(good_ask)
    with pytest.raises(ExerciseNotDone):
        check_3(no_raise_ask)
    with pytest.raises(ExerciseNotDone, match="function"):
        check_3("ask")


def test_check_4():
    body = {"error": {"message": "'temperature' must be a number"}}
    resp = httpx.Response(400, json=body, request=httpx.Request("POST", "http://x"))
    exc = openai.BadRequestError("bad", response=resp, body=body)
    assert check_4(exc)
    assert check_4(openai.BadRequestError)
    with pytest.raises(ExerciseNotDone):
        check_4(ValueError("hot"))
