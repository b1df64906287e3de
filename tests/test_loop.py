"""reactlab.loop: both protocols on the one loop, against clients and models that misbehave.

Every run returns a RunResult with a status and a reason; nothing raises.
"""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from fakes import RecordingConn, Reply, ScriptedConn, tool_call

from reactlab.fc_agent import run_function_calling
from reactlab.loop import AgentError, EmptyReply, FormatError
from reactlab.react_agent import run_react
from reactlab.tools import default_registry

AGENTS = {"react": run_react, "native": run_function_calling}


def completion(message: dict, usage=None) -> dict:
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage}


GARBAGE = {
    "content is a number": completion({"role": "assistant", "content": 1530}),
    "content is an object": completion({"role": "assistant", "content": {"a": 1}}),
    "body is not JSON": "<html>502 Bad Gateway</html>",
    "no choices": {"choices": []},
    "a bare number": 42,
}


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("what", GARBAGE)
def test_a_reply_that_is_not_a_chat_completion_ends_with_provider_error(agent, what):
    r = AGENTS[agent]("北京天气？", conn=RecordingConn(lambda _: GARBAGE[what]))
    assert r.status == "provider_error" and "step 1" in r.error and r.answer is None


@pytest.mark.parametrize("agent", AGENTS)
def test_content_parts_are_read_as_text(agent):
    parts = [{"type": "text", "text": "Final Answer: 北京晴。" if agent == "react" else "北京晴。"}]
    r = AGENTS[agent]("北京天气？", conn=RecordingConn(
        lambda _: completion({"role": "assistant", "content": parts})))
    assert r.status == "final" and r.answer == "北京晴。"


@pytest.mark.parametrize("agent", AGENTS)
def test_unreadable_usage_never_ends_a_run(agent):
    text = "Final Answer: 北京晴。" if agent == "react" else "北京晴。"
    r = AGENTS[agent]("北京天气？", conn=RecordingConn(lambda _: completion(
        {"role": "assistant", "content": text}, usage={"prompt_tokens": "n/a",
                                                       "completion_tokens": [1]})))
    assert r.status == "final" and r.usage["total_tokens"] == 0


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("exc", [
    RuntimeError("the client broke"),
    openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:1")),
    ValueError("a client that raises the wrong thing"),
])
def test_a_client_that_raises_ends_with_provider_error(agent, exc):
    r = AGENTS[agent]("北京天气？", conn=ScriptedConn(exc))
    assert r.status == "provider_error" and type(exc).__name__ in r.error


@pytest.mark.parametrize("agent", AGENTS)
def test_no_server_is_the_same_status_for_both_agents(agent, monkeypatch):
    def no_server(*_, **__):
        raise ConnectionError("nothing listens on 127.0.0.1:9")
    monkeypatch.setattr("reactlab.loop.connect", no_server)
    r = AGENTS[agent]("北京天气？", conn=None)
    assert r.status == "provider_error" and "Could not connect" in r.error


@pytest.mark.parametrize("arguments", ["[" * 5000, "{" * 5000, json.dumps(
    json.loads("[" * 500 + "]" * 500)), '{"location": ' * 500])
def test_arguments_nested_deep_are_a_bad_call_not_a_crash(arguments):
    conn = ScriptedConn(Reply(None, [tool_call("c1", "get_weather", arguments)]),
                        Reply(None, [tool_call("c2", "get_weather", '{"location": "北京"}')]),
                        "北京晴。")
    r = run_function_calling("北京天气？", conn=conn, tools=default_registry())
    assert r.status == "final"
    assert r.steps[0].tool_calls[0].error
    # the bad call is answered by a tool message; the fetch hint (北京 has no result) follows
    sent = conn.requests[1]["messages"]
    assert [m["role"] for m in sent[-2:]] == ["tool", "user"] and sent[-2]["tool_call_id"] == "c1"
    assert r.steps[0].events[-1] == "fetch hint: get_weather for 北京"


def test_react_arguments_nested_deep_are_a_bad_call_not_a_crash():
    text = 'Action: {"action": "get_weather", "action_input": ' + "[" * 3000 + "}"
    r = run_react("北京天气？", conn=ScriptedConn(text, "Final Answer: 晴"))
    assert r.status in ("final", "parse_errors", "max_steps")


def test_agent_errors_carry_kind_error_and_feedback():
    assert EmptyReply(feedback="say something").kind == "empty"
    e = FormatError(error="two actions", feedback=None)
    assert (e.kind, e.error, str(e)) == ("parse_error", "two actions", "two actions")
    assert issubclass(FormatError, AgentError) and issubclass(EmptyReply, AgentError)


@pytest.mark.parametrize("agent", AGENTS)
def test_the_budget_end_is_named_on_the_closing_step(agent):
    conn = ScriptedConn("", "", "", "", "", "")  # silence, then the closing request
    r = AGENTS[agent]("北京天气？", conn=conn, max_steps=4)
    assert r.status == "parse_errors" or r.status == "max_steps"
    closing = [s for s in r.steps if s.kind == "final_request"]
    assert r.steps[-1].kind == "final_request" and len(closing) == 2  # empty: asked once more
    assert closing[0].events[0].startswith(f"budget: {r.status}")
    assert closing[1].events == ["closing request again: the closing reply was empty"]
