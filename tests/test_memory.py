"""Unit tests for reactlab.memory with a scripted agent function (no model, no real agent)."""

from __future__ import annotations

from fakes import ScriptedConn

from reactlab.memory import (
    SUMMARY_PREFIX,
    Conversation,
    answer_text,
    estimate_tokens,
    history_tokens,
    model_summarizer,
    truncation_summary,
)
from reactlab.runlog import RunResult, Step, ToolCallRecord

ANSWERS = {"北京今天天气怎么样？": "北京晴，3°C。", "那广州呢？": "广州多云，18°C。",
           "哪里更热？": "广州更热。", "再说一遍？": None}


class FakeAgent:
    """Behaves like run_function_calling: system + history + question + tool traffic."""

    def __init__(self):
        self.calls = []

    def __call__(self, question, history=None, **kwargs):
        self.calls.append({"question": question, "history": history, **kwargs})
        obs = "天气快照 " + "很长的观测 " * 200
        messages = [{"role": "system", "content": "You are a tool user."}, *history,
                    {"role": "user", "content": question},
                    {"role": "assistant", "content": None, "tool_calls": [
                        {"id": "c1", "type": "function",
                         "function": {"name": "get_weather", "arguments": '{"location": "x"}'}}]},
                    {"role": "tool", "tool_call_id": "c1", "content": obs}]
        answer = ANSWERS[question]
        if answer:
            messages.append({"role": "assistant", "content": answer})
        step = Step(1, "action", tool_calls=[ToolCallRecord("get_weather", {"location": "x"}, obs)],
                    prompt_tokens=100 + 10 * len(history))
        return RunResult(question, answer, "final" if answer else "max_steps", [step],
                         messages=messages, protocol="function_calling",
                         meta={"question_at": 1 + len(history)})  # as the agents record it


def test_estimates():
    assert estimate_tokens("北京天气") == 4
    assert estimate_tokens("weather in Beijing") == 5
    assert estimate_tokens("") == 0
    assert history_tokens([{"role": "user", "content": "北京天气"}]) == 8
    calls = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    assert history_tokens([{"role": "assistant", "content": None, "tool_calls": calls}]) == 4 + 4 + 1


def test_next_turn_gets_questions_and_answers_but_no_tool_traffic():
    agent = FakeAgent()
    chat = Conversation(agent, tools="TOOLS", conn="CONN")
    chat.ask("北京今天天气怎么样？")
    chat.ask("那广州呢？")
    assert agent.calls[0]["history"] == []
    assert agent.calls[1]["history"] == [{"role": "user", "content": "北京今天天气怎么样？"},
                                         {"role": "assistant", "content": "北京晴，3°C。"}]
    assert agent.calls[1]["tools"] == "TOOLS" and agent.calls[1]["conn"] == "CONN"
    assert all("tool_calls" not in m and m["role"] != "tool" for m in chat.history)
    assert len(chat.turns) == 2 and chat.turns[1].history_sent == agent.calls[1]["history"]


def test_savings_compare_memory_with_naive_full_history():
    chat = Conversation(FakeAgent())
    for q in ("北京今天天气怎么样？", "那广州呢？", "哪里更热？"):
        chat.ask(q)
    full = chat.full_history()
    assert sum(m["role"] == "tool" for m in full) == 3
    assert not any(m["role"] == "system" for m in full)
    assert [m["content"] for m in full if m["role"] == "user"] == \
        ["北京今天天气怎么样？", "那广州呢？", "哪里更热？"]
    s = chat.savings()
    assert s["turns"] == 3 and s["memory_tokens"] == history_tokens(chat.history)
    assert s["full_tokens"] > 10 * s["memory_tokens"] and s["saved_pct"] > 90


def test_a_run_without_answer_is_remembered_as_a_note():
    chat = Conversation(FakeAgent())
    chat.ask("再说一遍？")
    assert chat.history[1] == {"role": "assistant",
                               "content": "(no answer: the run ended with status 'max_steps')"}
    # the naive history still ends with an assistant message
    assert chat.full_history()[-1]["role"] == "assistant"
    assert answer_text(RunResult("q", "  好 ", "final")) == "好"


def test_keep_turns_folds_older_turns_into_one_summary_once():
    folds = []

    def summarize(turns):
        folds.append(list(turns))
        return truncation_summary(turns)

    agent = FakeAgent()
    chat = Conversation(agent, keep_turns=1, summarize=summarize)
    for q in ("北京今天天气怎么样？", "那广州呢？", "哪里更热？"):
        chat.ask(q)
    history = chat.history
    assert history[0]["role"] == "user" and history[0]["content"].startswith(SUMMARY_PREFIX)
    assert "- Q: 北京今天天气怎么样？ → A: 北京晴，3°C。" in history[0]["content"]
    assert "- Q: 那广州呢？ → A: 广州多云，18°C。" in history[0]["content"]
    assert history[1:] == [{"role": "user", "content": "哪里更热？"},
                           {"role": "assistant", "content": "广州更热。"}]
    chat.history  # noqa: B018 - reading again must not summarise again
    assert [len(f) for f in folds] == [1, 2]
    # the third turn was given the first turn's summary plus the second turn verbatim
    assert agent.calls[2]["history"][0]["content"].startswith(SUMMARY_PREFIX)
    assert agent.calls[2]["history"][1:] == [{"role": "user", "content": "那广州呢？"},
                                             {"role": "assistant", "content": "广州多云，18°C。"}]


def test_keep_turns_zero_and_reset():
    chat = Conversation(FakeAgent(), keep_turns=0)
    chat.ask("北京今天天气怎么样？")
    assert len(chat.history) == 1
    chat.reset()
    assert chat.history == [] and chat.turns == []


def test_truncation_summary_shortens_long_turns():
    text = truncation_summary([("问" * 200, "答" * 200)], chars=20)
    assert text.splitlines()[1] == "- Q: " + "问" * 19 + "… → A: " + "答" * 19 + "…"


def test_report_has_one_row_per_turn():
    chat = Conversation(FakeAgent())
    chat.ask("北京今天天气怎么样？")
    chat.ask("那广州呢？")
    rows = chat.report().splitlines()
    assert rows[0].startswith("| turn | question | status | steps | history msgs | history tok |")
    assert len(rows) == 4
    assert rows[2].startswith("| 1 | 北京今天天气怎么样？ | final | 1 | 0 | 0 | 0 | 100 |")
    assert rows[3].startswith("| 2 | 那广州呢？ | final | 1 | 2 |")


def test_model_summarizer_uses_the_model_and_falls_back_on_failure():
    conn = ScriptedConn("用户问了北京天气：晴，3°C。", model="m")
    summarize = model_summarizer(conn, max_tokens=50)
    assert summarize([("北京？", "晴")]) == f"{SUMMARY_PREFIX}\n用户问了北京天气：晴，3°C。"
    assert conn.requests[0]["max_tokens"] == 50 and conn.requests[0]["temperature"] == 0
    assert "Q: 北京？\nA: 晴" in conn.requests[0]["messages"][1]["content"]
    broken = model_summarizer(ScriptedConn(ConnectionError("offline"), model="m"))
    assert broken([("北京？", "晴")]) == truncation_summary([("北京？", "晴")])
    empty = model_summarizer(ScriptedConn("", model="m"))
    assert empty([("北京？", "晴")]) == truncation_summary([("北京？", "晴")])
