"""Checks for notebook 01's exercises (one request by hand). Each reads what the learner's code
returned — a response's JSON, two counts, a function, an exception — and calls no model.

`check_3` runs the learner's `ask` against a stand-in for `requests.post` (two canned replies,
a 200 and a 400), so it needs neither a server nor the network.
Example: check_1(None) -> "… exercise 1: not attempted yet — …"
"""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import openai
import requests

from reactlab.exercises import passed, pending, require

__all__ = ["check_1", "check_2", "check_3", "check_4"]


def _as_dict(data: Any) -> Any:
    return data.model_dump() if hasattr(data, "model_dump") else data


def check_1(data: Any) -> bool | None:
    """`data`: the reply JSON (a dict, or the SDK's object) of section 1's request with
    "stop": ["。"]. Right when the reply ended on the stop string: finish_reason "stop", no "。"."""
    if data is None:
        return pending(1, 'set `answer_1` to the JSON of the request sent with "stop": ["。"]')
    data = _as_dict(data)
    require(1, isinstance(data, dict) and data.get("choices"),
            "answer_1 should be the whole reply JSON (a dict with `choices`), e.g. resp.json()")
    choice = data["choices"][0]
    text = (choice.get("message") or {}).get("content") or ""
    require(1, text.strip(), "the reply has no text; was the request the one of section 1?")
    require(1, "。" not in text, "the text still contains 。: was \"stop\": [\"。\"] in the body?")
    require(1, choice.get("finish_reason") == "stop",
            f"finish_reason is {choice.get('finish_reason')!r}; with a stop string it is 'stop'")
    return passed(1, f"cut at the stop string: {text[:40]!r}, finish_reason 'stop', no 。 in the text")


def check_2(counts: Any) -> bool | None:
    """`counts`: (chunks that carried text, completion_tokens from the usage chunk)."""
    if counts is None:
        return pending(2, "set `answer_2 = (text_chunks, completion_tokens)` from the stream")
    require(2, isinstance(counts, (tuple, list)) and len(counts) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) for n in counts),
            "answer_2 should be two whole numbers: (text_chunks, completion_tokens)")
    chunks, tokens = counts
    require(2, chunks > 0 and tokens > 0,
            "both counts should be above 0: count the chunks whose delta has content, and read "
            "usage.completion_tokens (ask for it with stream_options={'include_usage': True})")
    require(2, tokens // 2 <= chunks <= tokens + 2,
            f"{chunks} text chunks for {tokens} tokens is far off: a server sends about one chunk "
            "per token; did you count every chunk, or only those with text?")
    return passed(2, f"{chunks} text chunks for {tokens} completion tokens — close, not "
                     "necessarily equal")


def _response(status: int, body: dict) -> requests.Response:
    resp = requests.Response()
    resp.status_code, resp.encoding = status, "utf-8"
    resp._content = json.dumps(body, ensure_ascii=False).encode("utf-8")
    resp.headers["Content-Type"] = "application/json"
    return resp


OK_BODY = {"id": "chatcmpl-check", "object": "chat.completion", "model": "check",
           "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "广州是广东省的省会。"}}],
           "usage": {"prompt_tokens": 9, "completion_tokens": 8, "total_tokens": 17}}
ERROR_BODY = {"error": {"message": "'messages' must be a non-empty list", "type":
                        "invalid_request_error", "param": "messages", "code": None}}


def check_3(ask: Any) -> bool | None:
    """`ask`: the learner's function. It is called twice with `requests.post` replaced: once
    answered 200 (it must return the text), once 400 (it must raise RuntimeError with the
    server's error.message)."""
    if ask is None:
        return pending(3, "set `answer_3 = ask`, your function built on requests.post")
    require(3, callable(ask), "answer_3 should be the function itself: answer_3 = ask")
    question = [{"role": "user", "content": "广州是哪个省的省会？"}]
    with mock.patch("requests.post", return_value=_response(200, OK_BODY)) as post:
        try:
            text = ask(question)
        except Exception as exc:  # noqa: BLE001 - report any failure as advice
            require(3, False, f"on a 200 reply, ask raised {type(exc).__name__}: {exc}")
    require(3, post.called, "ask never called requests.post (the check replaces exactly that)")
    require(3, text == OK_BODY["choices"][0]["message"]["content"],
            f"on a 200 reply ask returned {text!r}; return choices[0]['message']['content']")
    with mock.patch("requests.post", return_value=_response(400, ERROR_BODY)):
        try:
            ask(question)
        except RuntimeError as exc:
            require(3, ERROR_BODY["error"]["message"] in str(exc),
                    f"the RuntimeError says {str(exc)!r}; put the server's error.message in it")
        except Exception as exc:  # noqa: BLE001
            require(3, False, f"on a 400 reply ask raised {type(exc).__name__}, not RuntimeError")
        else:
            require(3, False, "on a 400 reply ask returned normally; raise RuntimeError instead")
    return passed(3, "ask returns the text on 200 and raises RuntimeError with the server's "
                     "message on 400")


def check_4(error: Any) -> bool | None:
    """`error`: the exception the SDK raised for "temperature": "hot" (or its class)."""
    if error is None:
        return pending(4, 'set `answer_4` to the exception caught for "temperature": "hot"')
    cls = error if isinstance(error, type) else type(error)
    require(4, issubclass(cls, openai.APIStatusError),
            f"{cls.__name__} is not an openai.APIStatusError: catch `openai.APIStatusError as exc` "
            "and set answer_4 = exc")
    status = getattr(error, "status_code", None)
    require(4, status is None or 400 <= status < 500,
            f"status {status} is a server error; a bad parameter is the request's fault (4xx)")
    return passed(4, f"{cls.__name__}" + (f" (HTTP {status})" if status else "")
                  + ": a request error, the same every time — not worth a retry")
