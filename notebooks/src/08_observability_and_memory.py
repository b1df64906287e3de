# %% [markdown]
# # 08 · Observability and memory
# *Read a run like a flight recorder — step by step, with milliseconds and tokens — and carry a conversation over several turns without carrying its tool traffic.*
#
# **After this notebook you can:**
# - read a run's record as a summary table, export it as JSON Lines and load it back;
# - step through a run in the trace viewer, and account for latency and tokens per step (including the prompt cache);
# - keep a multi-turn chat's memory to questions and final answers, and measure what that saves;
# - debug a run with a tool of your own from its log alone (the capstone).
#
# **Where we are:** notebook 07 fenced in the pitfalls with `reactlab.guards`; every guard left an
# event in the run record. The point of this notebook: once an agent takes several steps, the
# log is the only torch in the dark room. We use `run_function_calling` (05), the record types
# of `reactlab.runlog` (04), and the grader's verdict (00, 04) under every live run.
#
# > "日志就是唯一的手电筒"：每一步的思考、工具调用、观察结果、耗时和 token 都记录下来。
# > 多轮对话的记忆只保留每轮的问题和最终回答，丢掉上一轮的工具调用过程。

# %% [markdown]
# ## Setup

# %%
# NBVAL_IGNORE_OUTPUT
import os
import re
import tempfile
import time
from pathlib import Path

from IPython.display import Markdown, display

import reactlab
from reactlab.fc_agent import run_function_calling
from reactlab.grader import Expected, grade
from reactlab.guards import Guards
from reactlab.tools import ToolRegistry, default_registry, tool

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
course = default_registry()

# %% [markdown]
# ## 1. One run, recorded
#
# The savings agent's question once more — three dependent look-ups (date, day count,
# arithmetic), so the run has several steps to read. Each model call becomes one `Step` in the
# result; each tool call inside it one `ToolCallRecord`. With today pinned to 2026-03-01 the right
# answer is 306 days and 306 × 5 = 1530 元.

# %%
# NBVAL_IGNORE_OUTPUT
savings_tools = ToolRegistry([course.get(n) for n in ("get_today", "days_between", "calculator")])
question = "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？"
run = run_function_calling(question, tools=savings_tools, conn=conn, guards=Guards.on(),
                           max_steps=5, max_tokens=250)
print(run.status, "|", len(run.steps), "steps |", run.answer)
verdict = grade(run, Expected(figures=("306", "1530")))
print(verdict)
print("this run is", "right" if verdict.ok else "wrong — the sections below show where")

# %% [markdown]
# Sections 1 to 3 read this one run's record, right or wrong: a ✔ run's record shows how the
# three look-ups chain; a ✘ run's record is as good to read — better, in a way, because it is
# where you find out *where* the run went wrong (a day count that is off, a calculator expression
# that does not use it, a budget that ran out).
#
# `summary_table` turns the record into one Markdown table — a row per model call, the tool calls
# it asked for, how much observation the model was shown, milliseconds, tokens, guard events:

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.report import summary_table

display(Markdown(summary_table(run)))

# %% [markdown]
# ### Export: one run per line
#
# JSON Lines is the format of choice for logs: append-only, one record per line, greppable, and
# every language reads it. `to_jsonl` writes the whole run (steps nested, Chinese kept readable);
# `read_jsonl` brings it back as `RunResult` objects.

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.runlog import read_jsonl, to_jsonl

log_path = Path(tempfile.gettempdir()) / "reactlab_08_runs.jsonl"
to_jsonl({"savings": run}, log_path)
line = log_path.read_text(encoding="utf-8").splitlines()[0]
print(f"{log_path.name}: {len(line):,} characters on one line; it starts:")
print(line[:300], "…")
back = read_jsonl(log_path)[0]
print("\nround trip:", back.status, len(back.steps), "steps, label", back.meta.get("label"))

# %% [markdown]
# Reading a log is querying it. Two questions you will ask often — which tool calls failed, and
# what did the guards do — and one for this run: which tool result, if any, gave the two figures
# the right answer needs?

# %%
# NBVAL_IGNORE_OUTPUT
for step in back.steps:
    for call in step.tool_calls:
        mark = "FAILED" if call.error else "ok"
        print(f"step {step.number}: {call.name}({call.arguments}) {mark} -> {call.observation[:70]}")
    for event in step.events:
        print(f"step {step.number}: guard event: {event}")
print()
for fig in ("306", "1530"):
    where = [s.number for s in back.steps for c in s.tool_calls
             if not c.error and re.search(rf"(?<![\d.]){fig}(?:\.0+)?(?![\d.])", c.observation)]
    print(f"{fig}: in the tool result of step {where}" if where else f"{fig}: no tool result gives it")

# %% [markdown]
# ## 2. The trace viewer
#
# `show_trace` draws a small viewer in JupyterLab: a slider over the steps, Thought → Action →
# Observation for the current one, and a bar per step for prompt tokens. Where widgets cannot be
# drawn (a terminal, a static render of this page, the test runner) it prints the same trace as
# text — which is what you see below if this page was rendered without a live kernel.

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.widgets import show_trace

show_trace(run)

# %% [markdown]
# ## 3. Where the time and the tokens go
#
# `step_rows` flattens the record into one dict per step. Two derived columns make it readable:
# **new prompt tokens** (prompt − cached: what the engine actually had to read this step) and
# **ms per completion token**. On the local server, `cached_tokens` comes from the engine's
# prefix cache: an agent re-sends the same growing conversation, so each step only has to read
# what was appended since the last one. `latency_ms` is wall time as the client saw it: on a
# shared server it also contains time spent waiting in the queue behind other users' requests.

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.report import step_rows

rows = step_rows(run)
print(f"{'step':>4} {'kind':<13} {'ms':>6} {'prompt':>6} {'cached':>6} {'new':>5} {'compl':>5} "
      f"{'ms/compl tok':>12}")
for r in rows:
    new = r["prompt_tokens"] - r["cached_tokens"]
    per = r["latency_ms"] / r["completion_tokens"] if r["completion_tokens"] else float("nan")
    print(f"{r['step']:>4} {r['kind']:<13} {r['latency_ms']:>6} {r['prompt_tokens']:>6} "
          f"{r['cached_tokens']:>6} {new:>5} {r['completion_tokens']:>5} {per:>12.0f}")
total_ms = sum(r["latency_ms"] for r in rows)
print(f"\nmodel time {total_ms / 1000:.1f} s over {len(rows)} calls; usage totals: {run.usage}")

# %% [markdown]
# A chart of the same numbers per step: the part of each prompt that came from the cache, the
# part read fresh, and the reply.

# %%
# NBVAL_IGNORE_OUTPUT
import matplotlib.pyplot as plt

steps = [r["step"] for r in rows]
cached = [r["cached_tokens"] for r in rows]
fresh = [r["prompt_tokens"] - r["cached_tokens"] for r in rows]
completion = [r["completion_tokens"] for r in rows]
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(steps, cached, label="prompt, from cache")
ax.bar(steps, fresh, bottom=cached, label="prompt, read fresh")
ax.bar(steps, completion, bottom=[a + b for a, b in zip(cached, fresh)], label="completion")
ax.set_xlabel("step")
ax.set_ylabel("tokens")
ax.set_xticks(steps)
ax.legend()
ax.set_title("Tokens per step")
plt.show()

# %% [markdown]
# The shape to look for: prompts grow a little at every step (the conversation gets longer),
# while the freshly read part stays small when the cache works. Latency follows the fresh and
# completion tokens far more than the total. Cloud providers report and bill the same way —
# many charge cached prompt tokens at a discount — so these columns are also your cost sheet.
#
# ## 4. Memory across turns
#
# A chat has several turns: "哈尔滨今天多少度？" then "那广州比它高多少度？" then "哪个城市更暖和？".
# Each turn is a fresh agent run; what it knows about earlier turns is whatever history we pass
# in. First the facts, straight from the tool, so every answer below can be checked against them:

# %%
weather_tools = ToolRegistry([course.get("get_weather")])


def temperature(city: str) -> float:
    """The °C figure get_weather gives for one city."""
    return float(re.search(r"(-?\d+(?:\.\d+)?)°C", course.call("get_weather", {"location": city}))[1])


t_harbin, t_guangzhou = temperature("哈尔滨"), temperature("广州")
gap = round(t_guangzhou - t_harbin, 1)
warmer = "广州" if t_guangzhou > t_harbin else "哈尔滨"
print(f"哈尔滨 {t_harbin}°C, 广州 {t_guangzhou}°C: 广州 − 哈尔滨 = {gap:g} degrees; warmer: {warmer}")
first_q, follow_up, last_q = "哈尔滨今天多少度？", "那广州比它高多少度？", "哪个城市更暖和？"
expected = [Expected(figures=(f"{t_harbin:g}",), parts=("哈尔滨",)),
            Expected(figures=(f"{abs(gap):g}",), parts=("广州", "哈尔滨")),
            Expected(winner=warmer, parts=("哈尔滨", "广州"))]

# %% [markdown]
# ### Watch it break: no memory at all
#
# Turn one on its own is an ordinary question:

# %%
# NBVAL_IGNORE_OUTPUT
first = run_function_calling(first_q, tools=weather_tools, conn=conn, max_steps=3, max_tokens=150)
print("calls:", [f"{c.name}({c.arguments})" for s in first.steps for c in s.tool_calls] or "none")
print("answer:", first.answer)
print(grade(first, expected[0]))

# %% [markdown]
# Turn two, "那广州比它高多少度？" — *how many degrees warmer is Guangzhou than it?* — needs turn
# one: "它" (it) is 哈尔滨, and only turn one says so. Sent on its own, as a fresh run without
# history:

# %%
# NBVAL_IGNORE_OUTPUT
# demo: break
alone = run_function_calling(follow_up, tools=weather_tools, conn=conn, max_steps=3,
                             max_tokens=150)
print("calls:", [f"{c.name}({c.arguments})" for s in alone.steps for c in s.tool_calls] or "none")
print("answer:", alone.answer)
print(grade(alone, expected[1]))
print("the answer names 哈尔滨, the city of turn one:", "哈尔滨" in (alone.answer or ""))

# %% [markdown]
# Without turn one, "它" points at nothing. The calls, the answer and the verdict above show what
# the model made of that — a question back, a guessed city, an answer about 广州 alone, or a
# number from nowhere. Whatever it did, it could only have been right by guessing 哈尔滨: the
# information was not in the request.
#
# The naive fix is to pass *everything* from earlier turns: questions, tool calls, tool results,
# answers. The usual advice is against it — the old observations answered the old question and
# only cost tokens and attention now. Keep each turn's question and final answer, drop the tool
# traffic. By hand that is a few lines:

# %%
def remember(history: list[dict], run) -> list[dict]:
    """Memory after one turn: the old history plus this turn's question and final answer."""
    answer = (run.answer or "").strip() or f"(no answer: the run ended with status {run.status!r})"
    return history + [{"role": "user", "content": run.question},
                      {"role": "assistant", "content": answer}]


# %% [markdown]
# ### This now lives in the package
#
# `reactlab.memory.Conversation` runs each turn through an agent with the remembered history,
# then remembers the turn the same way (it can also fold old turns into a summary, and it keeps
# the accounts).
#
# Grading a turn needs one more thought. A turn that answers from the history fetched nothing
# itself, so its own run has no tool result to back its figures. We grade each turn against every
# tool result the *conversation* has fetched so far — the figures in the history came from there,
# or from nowhere:

# %%
from dataclasses import replace

from reactlab.memory import Conversation


def with_earlier_results(chat, i: int):
    """Turn i's run, with every earlier turn's steps (and so their tool results) put first."""
    earlier = [step for turn in chat.turns[:i] for step in turn.result.steps]
    return replace(chat.turns[i].result, steps=earlier + chat.turns[i].result.steps)


# %%
# NBVAL_IGNORE_OUTPUT
chat = Conversation(run_function_calling, tools=weather_tools, conn=conn, max_steps=3,
                    max_tokens=200)
for i, q in enumerate([first_q, follow_up, last_q]):
    t0 = time.perf_counter()
    r = chat.ask(q)
    calls = [f"{c.name}({c.arguments})" for s in r.steps for c in s.tool_calls]
    print(f"Q: {q}  [{r.status}, {time.perf_counter() - t0:.0f} s, calls: {calls or 'none'}]")
    print(f"A: {r.answer}")
    print(f"   {grade(with_earlier_results(chat, i), expected[i])}\n")

# %% [markdown]
# Part of what each verdict checked, by hand: which figures in each answer appear in no tool
# result of the conversation so far? A turn that made no call can only have taken its figures
# from the history — or made them up. (A difference the model worked out, such as 广州 − 哈尔滨,
# is in no tool result either: the grader accepts one calculation step from fetched figures,
# this quick check does not, so read such a figure against the facts printed above.)

# %%
# NBVAL_IGNORE_OUTPUT
seen = ""
for turn in chat.turns:
    r = turn.result
    seen += " ".join(c.observation for s in r.steps for c in s.tool_calls)
    calls = sum(len(s.tool_calls) for s in r.steps)
    unbacked = [n for n in re.findall(r"\d+(?:\.\d+)?", r.answer or "")
                if n not in seen and n not in r.question]
    print(f"{r.question:<10} calls: {calls}   figures in no tool result: {unbacked or 'none'}")

# %% [markdown]
# If a turn made no call and still states a figure for 广州, that figure is made up — a
# fabricated observation wearing the shape of turn one's answer: the history showed the model
# what a weather answer looks like, and it filled the pattern in. A comparison turn that lists
# figures may be doing arithmetic on real numbers or repeating an invented one; the verdicts
# above say which. Memory is not the cause of such a skip, but it makes the skip easy to miss:
# with the tool traffic dropped, the history looks equally confident either way. Only the
# per-turn log tells the two apart.

# %% [markdown]
# What the next turn would receive, message by message — no `tool` messages, no `tool_calls` —
# and the check that it is what `remember` builds by hand:

# %%
# NBVAL_IGNORE_OUTPUT
for m in chat.history:
    print(f"{m['role']:>9}: {m['content'][:90]}")
by_hand: list[dict] = []
for turn in chat.turns:
    by_hand = remember(by_hand, turn.result)
print("\nsame as remember():", by_hand == chat.history)

# %% [markdown]
# And the bill. `report()` has a row per turn: the history it was given (in estimated tokens)
# against what carrying all earlier tool traffic would have cost, plus the real prompt size of
# the turn's first model call. `savings()` sums it up for the history as it stands now.

# %%
# NBVAL_IGNORE_OUTPUT
display(Markdown(chat.report()))
print(chat.savings())

# %% [markdown]
# The estimate is a rule of thumb (one token per Chinese character, one per four other
# characters); good for comparing two histories, while `usage["prompt_tokens"]` is the real count.
# The saving grows with every turn whose tools returned a lot — with `search_docs` from notebook
# 07 in the mix, it would dominate. Dropping the traffic has a price too: if turn three needed a
# number that only appeared in a tool result and not in the answer, it is gone. Keep answers
# specific and that rarely bites; `keep_turns=` plus a summary folds very old turns further.
#
# ## 5. Debugging a run from its log
#
# Here is a new tool with a bug in it — the kind of bug you will write yourself one day. Run the
# agent, then find the bug from the log alone.

# %%
AQI = {"北京": 82, "广州": 35, "上海": 57}  # made-up teaching values, not measurements


@tool
def get_air_quality(city: str) -> str:
    """Get today's air quality index (AQI, lower is better) of one Chinese city.

    Args:
        city: one city name, e.g. 北京
    """
    key = "上海" if city.startswith("广") else city  # BUG (deliberate): a bad alias table
    return f"{city}: AQI {AQI[key]}"


air_tools = ToolRegistry([get_air_quality])

# %%
# NBVAL_IGNORE_OUTPUT
air = run_function_calling("北京和广州今天哪里空气更好？", tools=air_tools, conn=conn,
                           max_steps=4, max_tokens=200)
display(Markdown(summary_table(air)))
print(grade(air, Expected(winner="广州", parts=("北京", "广州"))))

# %% [markdown]
# The verdict checks the answer against the observations: the figures it states, and which city
# it calls better (a lower AQI is better). Here the right answer is 广州 (35 against 北京's 82).
# But the answer and the verdict cannot tell you whether the observations themselves were right.
# The log can: each tool call's arguments and observation are there, so compare them with the
# data the tool should have used.

# %%
# NBVAL_IGNORE_OUTPUT
shown = {}  # city -> the AQI the model was shown
for step in air.steps:
    for c in step.tool_calls:
        asked = c.arguments.get("city") if isinstance(c.arguments, dict) else c.arguments
        want = AQI.get(str(asked).strip().removesuffix("市"))
        found = re.search(r"AQI (\d+)", c.observation)
        if found and not c.error:
            shown[str(asked).strip().removesuffix("市")] = int(found[1])
        match = "matches" if want is not None and f"AQI {want}" in c.observation else (
            "DOES NOT MATCH the data" if want is not None else "no reference value")
        print(f"step {step.number}: {c.name}({asked!r}) -> {c.observation[:70]!r}  "
              f"(data: {want}) {match}")
pair = ("北京", "广州")
print("\nthe observations say:", shown or "nothing fetched", "-> better air:",
      min(pair, key=shown.get) if all(k in shown for k in pair) else "(needs both cities)")
print("the data says:       ", {k: AQI[k] for k in pair}, "-> better air:", min(pair, key=AQI.get))
print("the answer:", air.answer)

# %% [markdown]
# Read the three last lines together. If the model asked for 广州, the log shows the tool
# answering with the wrong figure (上海's 57): the bug is in the tool, not the model, and no prompt
# change would have fixed it. If the model never asked for 广州 (or sent both cities in one call
# and got the tool's error back), that is the first thing the log tells you — a different bug, in
# the plan or in the arguments. And the answer may get the comparison wrong on its own, calling
# the city with the higher AQI the better one; the verdict flags that. Note what the verdict
# cannot flag: an answer "广州空气更好，AQI 57" agrees with the observation and still states a
# wrong figure — the tool's bug passes through a checker that trusts tool results. The answer is
# only as good as the observations, and the observations are in the log.
#
# ## Recap
#
# Apart from `remember` and two small helpers, everything here was package code used as is —
# `runlog` (records, JSONL, `summary_table`, `step_rows`, `compare_table`,
# `plot_context_growth`), `widgets.show_trace`, `memory.Conversation` and `grader.grade` —
# because observability is only useful if it is always on. Both agents fill the same record, so
# every tool above works on a text-ReAct run too.
#
# **The agent as a design pattern.** Step back from the details and the series has built one
# shape, five parts: a **loop** (ask the model, run what it asks for, feed the result back, until
# it answers or a budget ends it — notebooks 04 and 05), **tools** (functions with a description
# the model can read, from notebook 02 on; JSON schemas in 05), **memory** (what carries over
# between turns — here), **guards** (budgets, compaction, loop detection, errors as
# observations — 07) and **observation** (the run record, the trace, the verdict — here). The
# weather agent, the savings agent and the stock agent are this shape with different tools and
# prompts; the streamed round trip is one turn of its loop, seen on the wire. Agent frameworks (LangChain, LlamaIndex, the OpenAI Agents SDK, AutoGen …) implement
# the same five parts behind their own names; knowing the shape, you can read any of them — and
# when one misbehaves, you know which part to look at.
#
# | term | meaning |
# |---|---|
# | run log | one record per model call: text, thought, tool calls, observations, ms, tokens, events |
# | JSON Lines | one JSON object per line; append-friendly log format (`to_jsonl`, `read_jsonl`) |
# | trace viewer | step-through display of a run (`show_trace`), plain text where widgets cannot draw |
# | prompt / completion tokens | what the model read / wrote in one call |
# | cached tokens | prompt tokens served from the prefix cache instead of being read again |
# | short-term memory | earlier turns' questions and final answers passed as history |
# | tool traffic | assistant `tool_calls` and `tool` messages of a turn; dropped from memory |
# | agent (design pattern) | loop + tools + memory + guards + observation; what every agent framework implements |
#
# ## Exercises
#
# Each exercise has a starter cell (`answer_N = None`: replace it with your code) and a check
# cell that says ✔, "not attempted yet", or what is still wrong. The checks never call the
# model: they read what your code returned, or try your function on a made-up run.
#
# 1. **Compare two runs.** Run the stock agent's question "青岛啤酒和贵州茅台的收盘价分别是多少？
#    哪个更高，高多少？" (tools `get_closing_price`, `calculator`) with `Guards.on()` and with
#    `Guards.off()`, print each run's verdict (`Expected(figures=("1420.29",), winner="贵州茅台")`)
#    and `compare_table({"on": …, "off": …})`. Which columns differ, and why? `answer_1`: the
#    dict of the two runs.
# 2. **A latency budget.** From `step_rows`, write `slowest_step(run)` returning the step number
#    and the share (a fraction between 0 and 1) of the run's model time it took. `answer_2`: the
#    function itself.
# 3. **Summarised memory.** Re-run section 4's three turns with `Conversation(..., keep_turns=1)`,
#    printing each turn's verdict. What does the third turn receive? Did it still know which
#    cities were compared? `answer_3`: the Conversation after its three turns.
# 4. **Capstone.** Add a tool of your own (a unit converter, a tiny dictionary lookup, a
#    "next holiday" date tool…) with `@tool`, run a question that needs it together with one of
#    the course tools, and use the log — `summary_table`, `step_rows`, `show_trace` — to answer:
#    did the model call your tool with the right arguments, did the tool return what you meant,
#    and did the answer use it? Then fix the `get_air_quality` bug above and show that the log
#    now matches the data. `answer_4`: your fixed `get_air_quality`.

# %%
from reactlab.exercises.nb08 import check_1, check_2, check_3, check_4

answer_1 = None  # your code: {"on": run_with_guards_on, "off": run_with_guards_off}

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: your function slowest_step (the function itself, not called)

# %%
check_2(answer_2)

# %%
answer_3 = None  # your code: Conversation(..., keep_turns=1) after section 4's three questions

# %%
check_3(answer_3)

# %%
answer_4 = None  # your code: the fixed get_air_quality tool

# %%
check_4(answer_4)

# %% [markdown]
# Solutions: [solutions/08_observability_and_memory_solutions.ipynb](solutions/08_observability_and_memory_solutions.ipynb)
#
# ---
# Prev: [07 · Pitfalls](07_pitfalls.ipynb) | Index: [README](../README.md) | Next: the end of the series — back to the [README](../README.md)
