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
# event in the run record. Seed 001 ends on the point of this notebook: once an agent takes
# several steps, the log is the only torch in the dark room. We use `run_function_calling` (05)
# and the record types of `reactlab.runlog` (04).
#
# > "日志就是唯一的手电筒"：每一步的思考、工具调用、观察结果、耗时和 token 都记录下来。
# > 多轮对话的记忆只保留每轮的问题和最终回答，丢掉上一轮的工具调用过程。

# %% [markdown]
# ## Setup

# %%
# NBVAL_IGNORE_OUTPUT
import tempfile
import time
from pathlib import Path

from IPython.display import Markdown, display

import reactlab
from reactlab.fc_agent import run_function_calling
from reactlab.guards import Guards
from reactlab.tools import ToolRegistry, default_registry, tool

conn = reactlab.connect()
course = default_registry()

# %% [markdown]
# ## 1. One run, recorded
#
# Seed 001's savings question once more — three dependent look-ups (date, day count, arithmetic),
# so the run has several steps to read. Each model call becomes one `Step` in the result; each
# tool call inside it one `ToolCallRecord`.

# %%
# NBVAL_IGNORE_OUTPUT
savings_tools = ToolRegistry([course.get(n) for n in ("get_today", "days_between", "calculator")])
question = "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？"
run = run_function_calling(question, tools=savings_tools, conn=conn, guards=Guards.on(),
                           max_steps=5, max_tokens=250)
print(run.status, "|", len(run.steps), "steps |", run.answer)

# %% [markdown]
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
# what did the guards do:

# %%
# NBVAL_IGNORE_OUTPUT
for step in back.steps:
    for call in step.tool_calls:
        mark = "FAILED" if call.error else "ok"
        print(f"step {step.number}: {call.name}({call.arguments}) {mark} -> {call.observation[:70]}")
    for event in step.events:
        print(f"step {step.number}: guard event: {event}")

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
# A chat has several turns: "北京今天天气怎么样？" then "那广州呢？" then "哪个更暖和？". Each
# turn is a fresh agent run; what it knows about earlier turns is whatever history we pass in.
#
# ### Watch it break: no memory at all
#
# Turn two on its own:

# %%
# NBVAL_IGNORE_OUTPUT
weather_tools = ToolRegistry([course.get("get_weather")])
alone = run_function_calling("那广州呢？", tools=weather_tools, conn=conn, max_steps=3,
                             max_tokens=150)
calls = [f"{c.name}({c.arguments})" for s in alone.steps for c in s.tool_calls]
print("calls:", calls or "none")
print("answer:", alone.answer)

# %% [markdown]
# "那广州呢？" — *what about Guangzhou?* — only means something after the first question. Above
# is what the model made of it without that context: perhaps a weather look-up by luck, perhaps
# a question back, perhaps something else. Either way the agent is guessing.
#
# The naive fix is to pass *everything* from earlier turns: questions, tool calls, tool results,
# answers. Seed 001 §6.1 warns against it — the old observations answered the old question and
# only cost tokens and attention now. Its advice: keep each turn's question and final answer,
# drop the tool traffic. By hand that is a few lines:

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
# the accounts):

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.memory import Conversation

chat = Conversation(run_function_calling, tools=weather_tools, conn=conn, max_steps=3,
                    max_tokens=200)
for q in ["北京今天天气怎么样？", "那广州呢？", "哪个城市更暖和？"]:
    t0 = time.perf_counter()
    r = chat.ask(q)
    calls = [f"{c.name}({c.arguments})" for s in r.steps for c in s.tool_calls]
    print(f"Q: {q}  [{r.status}, {time.perf_counter() - t0:.0f} s, calls: {calls or 'none'}]")
    print(f"A: {r.answer}\n")

# %% [markdown]
# Before trusting those answers, check them the way notebook 07 did: which figures in each answer
# appear in no tool result of the conversation so far? A turn that made no call can only have
# taken its figures from the history — or made them up.

# %%
# NBVAL_IGNORE_OUTPUT
import re

seen = ""
for turn in chat.turns:
    r = turn.result
    seen += " ".join(c.observation for s in r.steps for c in s.tool_calls)
    calls = sum(len(s.tool_calls) for s in r.steps)
    unbacked = [n for n in re.findall(r"\d+(?:\.\d+)?", r.answer or "")
                if n not in seen and n not in r.question]
    print(f"{r.question:<10} calls: {calls}   figures in no tool result: {unbacked or 'none'}")

# %% [markdown]
# A "那广州呢？" turn with no call and a list of figures is a fabricated observation wearing the
# shape of turn one's answer: the history showed the model what a weather answer looks like, and
# it filled the pattern in. A comparison turn that lists a figure may be doing arithmetic on
# real numbers (check it) or repeating an invented one. Memory is not the cause — the model
# skipped the tool — but it is what makes the skip easy to miss: with the tool traffic dropped,
# the history looks equally confident either way. Only the per-turn log tells the two apart.

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

# %% [markdown]
# The answer alone cannot tell you whether it is right. The log can: each tool call's arguments
# and observation are there, so compare them with the data the tool should have used.

# %%
# NBVAL_IGNORE_OUTPUT
for step in air.steps:
    for c in step.tool_calls:
        asked = c.arguments.get("city") if isinstance(c.arguments, dict) else c.arguments
        expected = AQI.get(str(asked).strip().removesuffix("市"))
        verdict = "matches" if expected is not None and f"AQI {expected}" in c.observation else (
            "DOES NOT MATCH the data" if expected is not None else "no reference value")
        print(f"step {step.number}: {c.name}({asked!r}) -> {c.observation!r}  "
              f"(data: {expected}) {verdict}")

# %% [markdown]
# If the model asked for 广州, the log shows the tool answering with the wrong figure: the bug is
# in the tool, not the model, and no prompt change would have fixed it. If the model never asked
# for 广州 (or sent both cities in one call and got the tool's error back), that is the first
# thing the log tells you — a different bug, in the plan or in the arguments. Either way
# the answer was only as good as the observations, and the observations are in the log.
#
# ## Recap
#
# Everything after `remember` was package code used as is — `runlog` (records, JSONL,
# `summary_table`, `step_rows`, `compare_table`, `plot_context_growth`), `widgets.show_trace`,
# and `memory.Conversation` — because observability is only useful if it is always on. Both
# agents fill the same record, so every tool above works on a text-ReAct run too.
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
#
# ## Exercises
#
# 1. **Compare two runs.** Run seed 002's question "青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高，
#    高多少？" (tools `get_closing_price`, `calculator`) with `Guards.on()` and with `Guards.off()`,
#    and print `compare_table({"on": …, "off": …})`. Which columns differ, and why?
# 2. **A latency budget.** From `step_rows`, write `slowest_step(run)` returning the step number
#    and the share of the run's model time it took.
# 3. **Summarised memory.** Re-run section 4 with `Conversation(..., keep_turns=1)`. What does
#    the third turn receive? Did it still know which cities were compared?
# 4. **Capstone.** Add a tool of your own (a unit converter, a tiny dictionary lookup, a
#    "next holiday" date tool…) with `@tool`, run a question that needs it together with one of
#    the course tools, and use the log — `summary_table`, `step_rows`, `show_trace` — to answer:
#    did the model call your tool with the right arguments, did the tool return what you meant,
#    and did the answer use it? Then fix the `get_air_quality` bug above and show that the log
#    now matches the data.
#
# Solutions: [solutions/08_observability_and_memory_solutions.ipynb](solutions/08_observability_and_memory_solutions.ipynb)
#
# ---
# Prev: [07 · Pitfalls](07_pitfalls.ipynb) | Index: [README](../README.md) | Next: the end of the series — back to the [README](../README.md)
