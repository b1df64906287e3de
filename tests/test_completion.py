"""reactlab.completion: the provider boundary reads any reply or raises one ProviderError."""

from __future__ import annotations

import httpx
import openai
import pytest
from fakes import RecordingConn, Reply, tool_call
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab.completion import complete
from reactlab.http import ProviderError


def completion(message: dict, usage=None, finish="stop") -> dict:
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage}


def ask(response, stream=False):
    return complete(RecordingConn(lambda _: response), {"model": "m", "messages": []},
                    stream=stream)


def test_a_plain_reply_and_a_tool_call_reply():
    reply = ask(Reply("北京晴。").completion())
    assert (reply.content, reply.tool_calls, reply.finish_reason) == ("北京晴。", [], "stop")
    assert reply.usage["total_tokens"] == 110
    calls = ask(Reply(None, [tool_call("c1", "get_today", "{}")]).completion()).tool_calls
    assert calls == [tool_call("c1", "get_today", "{}")]


def test_content_parts_are_joined_and_lone_surrogates_replaced():
    parts = [{"type": "text", "text": "北京"}, {"type": "image_url"}, {"type": "text", "text": "晴"}]
    assert ask(completion({"role": "assistant", "content": parts})).content == "北京晴"
    assert ask(completion({"role": "assistant", "content": "晴\ud83d"})).content == "晴\ufffd"


@pytest.mark.parametrize("response,words", [
    ("<html>502 Bad Gateway</html>", "not a chat completion"),
    (12, "not a chat completion"),
    ({"choices": []}, "no choices"),
    ({"choices": "x"}, "no choices"),
    ({"choices": [{"index": 0}]}, "no message"),
    (completion({"role": "assistant", "content": 1530}), "content is a int"),
    (completion({"role": "assistant", "content": {"text": "x"}}), "content is a dict"),
    (completion({"role": "assistant", "content": None, "tool_calls": "get_today"}), "not a list"),
    (completion({"role": "assistant", "content": None, "tool_calls": [7]}), "not an object"),
])
def test_a_reply_that_is_not_a_chat_completion_is_a_provider_error(response, words):
    with pytest.raises(ProviderError, match=words):
        ask(response)


def test_unreadable_usage_counts_as_zero_and_ids_are_made_unique():
    message = {"role": "assistant", "content": None, "tool_calls": [
        tool_call("", "get_weather", '{"location": "北京"}'),
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}},
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": None}}]}
    reply = ask(completion(message, usage={"prompt_tokens": "n/a", "completion_tokens": None}))
    assert reply.usage == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0,
                           "cached_tokens": 0}
    assert [c["id"] for c in reply.tool_calls] == ["call_0", "c", "c_"]
    assert reply.tool_calls[1]["function"]["arguments"] == '{"a": 1}'
    assert reply.tool_calls[2]["function"]["arguments"] == ""


@pytest.mark.parametrize("exc,words", [
    (openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:1")),
     "Is it running"),
    (RuntimeError("the client broke"), "RuntimeError: the client broke"),
    (httpx.ReadTimeout("slow"), "ReadTimeout"),
])
def test_anything_the_client_raises_is_a_provider_error(exc, words):
    def respond(_):
        raise exc
    with pytest.raises(ProviderError, match=words):
        complete(RecordingConn(respond), {"model": "m", "messages": []})


def test_a_status_error_keeps_the_providers_message():
    response = httpx.Response(401, request=httpx.Request("POST", "http://x"))
    exc = openai.AuthenticationError("Error code: 401", response=response,
                                     body={"error": {"message": "Incorrect API key provided"}})
    with pytest.raises(ProviderError, match="HTTP 401.*Incorrect API key") as info:
        ask_raises(exc)
    assert info.value.status == 401


def ask_raises(exc):
    def respond(_):
        raise exc
    return complete(RecordingConn(respond), {"model": "m", "messages": []})


def test_a_stream_is_assembled_and_a_cut_stream_is_an_error():
    chunks = Reply("北京晴。", [tool_call("c1", "get_weather", '{"location": "北京"}')]).chunks()
    reply = ask(iter(chunks), stream=True)
    assert reply.content == "北京晴。" and reply.tool_calls[0]["id"] == "c1"
    cut = [c for c in chunks if not any(ch.finish_reason for ch in c.choices)]
    with pytest.raises(ProviderError, match="stream ended before the model finished"):
        ask(iter(cut), stream=True)
    with pytest.raises(ProviderError):
        ask(12, stream=True)  # not iterable


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from(["choices", "message", "content", "usage",
                                                       "tool_calls", "function", "id", "name",
                                                       "arguments", "finish_reason", "text"]),
                                      inner, max_size=5), max_leaves=30))
def test_any_garbage_gives_a_reply_or_a_provider_error(garbage):
    try:
        reply = ask(garbage)
    except ProviderError:
        return
    assert isinstance(reply.content, str) and isinstance(reply.tool_calls, list)
