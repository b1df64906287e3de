"""Three agent frameworks against the real server on loopback, the replay engine scripted to fail.

Each framework runs on its documented OpenAI-compatible path (LangChain `ChatOpenAI.bind_tools`,
smolagents `ToolCallingAgent` + `OpenAIServerModel`, the OpenAI Agents SDK with
`OpenAIChatCompletionsModel`), with the course's weather tool wrapped by `ToolRecorder` and
the run graded. The script is what the 1.5B model was seen to do: repeat the call it already
has a result for, or write nothing. With the server's help on, the run succeeds; with it off
(`--no-help` or `"reactlab_help": false`), the failure reaches the framework. Each test skips
when its framework (the `frameworks` extra) is not installed.
"""

from __future__ import annotations

import pytest

from reactlab.grader import Expected, grade
from reactlab.recorder import ToolRecorder
from reactlab.server.replay import ReplayEngine, serve_replay
from reactlab.tools.weather import get_weather

Q = "广州现在多少度？"
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "广州"}}\n</tool_call>'
ANSWER = '{"answer": "广州现在 24.2°C。"}'  # what the constrained retry writes
PLAIN = "广州现在 24.2°C。"
RIGHT = Expected(figures=("24.2",), parts=("广州",))


@pytest.fixture(scope="module")
def servers():
    """help -> (engine, base_url): one replay server with the help on, one started with it off.
    The help's more calls (tests/test_server_more_calls.py) are left off here: each would take
    a scripted text of its own."""
    on, off = ReplayEngine([]), ReplayEngine([])
    with serve_replay(on, more_calls=False) as url_on, serve_replay(off, help=False) as url_off:
        yield {True: (on, url_on), False: (off, url_off)}


# --- LangChain --------------------------------------------------------------------------

def langchain_round_trip(servers, help, texts, stream=False, extra_body=None):
    """bind_tools, one tool round, the second reply: (RunResult, the last AI message)."""
    pytest.importorskip("langchain_openai")
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    engine, url = servers[help]
    engine.reset(texts)
    rec = ToolRecorder()
    weather = tool(rec.wrap(get_weather))
    llm = ChatOpenAI(base_url=url, api_key="unused", model=engine.model, temperature=0,
                     max_retries=0, extra_body=extra_body).bind_tools([weather])

    def reply(messages):
        if not stream:
            return llm.invoke(messages)
        whole = None
        for chunk in llm.stream(messages):  # AIMessageChunks add up, tool_call_chunks too
            whole = chunk if whole is None else whole + chunk
        return whole

    messages = [HumanMessage(Q)]
    ai = reply(messages)
    messages.append(ai)
    messages += [weather.invoke(call) for call in ai.tool_calls]
    final = reply(messages)
    answer = final.content if not final.tool_calls else ""
    return rec.result(Q, answer, framework="langchain"), final


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
def test_langchain_repeat_is_helped(servers, stream):
    run, final = langchain_round_trip(servers, True, [CALL, CALL, ANSWER], stream=stream)
    assert final.content == PLAIN and not final.tool_calls
    assert grade(run, RIGHT).ok, grade(run, RIGHT)


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
def test_langchain_repeat_without_help_ends_empty(servers, stream):
    run, final = langchain_round_trip(servers, False, [CALL, CALL], stream=stream)
    assert final.content == "" and [c["args"] for c in final.tool_calls] == [{"location": "广州"}]
    if stream:  # the streamed tool-call chunks carried the repeated call
        assert [c["name"] for c in final.tool_call_chunks] == ["get_weather"]
    verdict = grade(run, RIGHT)
    assert not verdict.ok and "no answer" in str(verdict)


def test_langchain_empty_reply_is_retried(servers):
    run, final = langchain_round_trip(servers, True, [CALL, "", PLAIN])
    assert final.content == PLAIN and grade(run, RIGHT).ok
    run, final = langchain_round_trip(servers, True, [CALL, ""],
                                      extra_body={"reactlab_help": False})
    assert final.content == "" and not grade(run, RIGHT).ok


def test_langchain_streamed_first_call_arrives_as_tool_call_chunks(servers):
    pytest.importorskip("langchain_openai")
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    engine, url = servers[True]
    engine.reset(["我来查一下。\n" + CALL])
    llm = ChatOpenAI(base_url=url, api_key="unused", model=engine.model, temperature=0,
                     max_retries=0).bind_tools([tool(get_weather.func)])
    chunks = list(llm.stream(Q))
    whole = chunks[0]
    for chunk in chunks[1:]:
        whole += chunk
    assert sum(bool(c.tool_call_chunks) for c in chunks) >= 2  # the arguments come in pieces
    assert whole.content.strip() == "我来查一下。"  # the newline before the call streamed too
    assert [(c["name"], c["args"]) for c in whole.tool_calls] == [("get_weather",
                                                                    {"location": "广州"})]


# --- smolagents -------------------------------------------------------------------------

SMOL_CALL = '{"name": "get_weather", "arguments": {"location": "广州"}}'
SMOL_FINAL = '{"name": "final_answer", "arguments": {"answer": "广州现在 24.2°C。"}}'


def smolagents_run(servers, help, texts):
    pytest.importorskip("smolagents")
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    engine, url = servers[help]
    engine.reset(texts)
    rec = ToolRecorder()
    model = OpenAIServerModel(model_id=engine.model, api_base=url, api_key="unused")
    agent = ToolCallingAgent(tools=[tool(rec.wrap(get_weather))], model=model, max_steps=4,
                             verbosity_level=0)
    answer = agent.run(Q)
    return rec.result(Q, str(answer), framework="smolagents"), engine


@pytest.mark.parametrize("help", [True, False], ids=["help", "no-help"])
def test_smolagents_forces_every_call_so_the_help_never_acts(servers, help):
    # ToolCallingAgent sends tool_choice="required" and the results as "Observation:" text:
    # the server's constrained decoding gives it a valid call every time, help on or off.
    run, engine = smolagents_run(servers, help, [SMOL_CALL, SMOL_FINAL])
    assert run.answer == PLAIN and grade(run, RIGHT).ok
    assert all(c["json_schema"] for c in engine.calls) and len(engine.calls) == 2
    assert "Observation:" in engine.calls[1]["prompt"]


def test_smolagents_repeat_is_passed_through(servers):
    run, _ = smolagents_run(servers, True, [SMOL_CALL, SMOL_CALL, SMOL_FINAL])
    assert len(run.steps) == 3 and grade(run, RIGHT).ok  # a wasted step, no wrong answer


# --- the OpenAI Agents SDK --------------------------------------------------------------

def agents_run(servers, help, texts):
    pytest.importorskip("agents")
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    set_tracing_disabled(True)  # no traces sent anywhere
    engine, url = servers[help]
    engine.reset(texts)
    rec = ToolRecorder()
    client = AsyncOpenAI(base_url=url, api_key="unused", max_retries=0)
    agent = Agent(name="weather", instructions="Answer the question; use the tools.",
                  tools=[function_tool(rec.wrap(get_weather))],
                  model=OpenAIChatCompletionsModel(model=engine.model, openai_client=client))
    result = Runner.run_sync(agent, Q, max_turns=6)
    return rec.result(Q, str(result.final_output or ""), framework="openai-agents"), rec


def test_agents_sdk_repeat_is_helped(servers):
    run, rec = agents_run(servers, True, [CALL, CALL, ANSWER])
    assert run.answer == PLAIN and len(rec.calls) == 1
    assert grade(run, RIGHT).ok, grade(run, RIGHT)


def test_agents_sdk_without_help_repeats_three_times_and_ends_empty(servers):
    run, rec = agents_run(servers, False, [CALL, CALL, CALL, ""])
    assert run.answer == "" and rec.repeats() == {'get_weather({"location":"广州"})': 3}
    verdict = grade(run, RIGHT)
    assert not verdict.ok and "no answer" in str(verdict)


def test_agents_sdk_empty_reply_is_retried(servers):
    run, _ = agents_run(servers, True, [CALL, "", PLAIN])
    assert run.answer == PLAIN and grade(run, RIGHT).ok
