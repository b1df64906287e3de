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
# **Where we are:** notebook 07 fenced in the pitfalls with `reactlab.guards`; every guard left a
# trace in the run record (an event, or a step of kind `ungrounded` for a correction). The point of this notebook: once an agent takes several steps, the
# log is the only torch in the dark room. We use `run_function_calling` (05), the record types
# of `reactlab.runlog` (04), and the grader's verdict (00, 04) under every live run.
#
# > "日志就是唯一的手电筒"：每一步的思考、工具调用、观察结果、耗时和 token 都记录下来。
# > 多轮对话的记忆只保留每轮的问题和最终回答，丢掉上一轮的工具调用过程。

# %% [markdown] lang="zh-CN"
# # 08 · 可观测性与记忆
# *像读飞行记录仪一样读一次运行——一步一步地看，精确到毫秒和 token；在多轮对话中延续上下文，却不必把每一轮的工具往来都带上。*
#
# **学完这一课，你能：**
# - 把一次运行的记录读成一张汇总表，导出为 JSON Lines 再读回来；
# - 在轨迹查看器里逐步查看一次运行，并逐步核算延迟和 token（包括提示词缓存）；
# - 让多轮对话的记忆只保留问题和最终回答，并测量这样能省下多少；
# - 只凭日志调试一次用到你自己写的工具的运行（综合练习）。
#
# **我们在哪儿：** 第 07 课用 `reactlab.guards` 兜住了各种坑；每个护栏都在运行记录里留下了痕迹（一个事件；更正则是一个类型为 `ungrounded` 的步骤）。本课的要点是：一旦智能体要走好几步，日志就是黑屋子里唯一的手电筒。我们会用到 `run_function_calling`（第 05 课）、`reactlab.runlog` 的记录类型（第 04 课），并在每次真实运行下面打印评分器的判定（第 00、04 课）。
#
# > “日志就是唯一的手电筒”：每一步的思考、工具调用、观察结果、耗时和 token 都记录下来。多轮对话的记忆只保留每轮的问题和最终回答，丢掉上一轮的工具调用过程。

# %% [markdown]
# ## Setup

# %% [markdown] lang="zh-CN"
# ## 准备工作

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

# %% [markdown] lang="zh-CN"
# ## 1. 把一次运行记录下来
#
# 再来一次储蓄智能体的问题——三次环环相扣的查询（日期、天数、算术），所以这次运行有好几步可读。每次模型调用在结果里对应一个 `Step`；其中的每个工具调用对应一个 `ToolCallRecord`。把“今天”固定为 2026-03-01 时，正确答案是 306 天，306 × 5 = 1530 元。

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
# that does not use it, a budget that ran out). Read the answer's words as well as its
# verdict: the grader checks figures, not units or claims about calls, so an answer in dollars
# for a question in 元, or one saying it used the calculator when no calculator call ran,
# can still carry the right figures.
#
# `summary_table` turns the record into one Markdown table — a row per model call, the tool calls
# it asked for, how much observation the model was shown, milliseconds, tokens, guard events:

# %% [markdown] lang="zh-CN"
# 第 1 到 3 节读的都是这一次运行的记录，不管它是对是错：✔ 的运行，记录展示了三次查询如何一环扣一环；✘ 的运行，记录同样值得一读——某种意义上更值得，因为正是在这里你能找到运行*在哪里*出了错（天数算错了、计算器表达式没用上它、预算用完了）。除了判定，也要读答案的措辞：评分器核对的是数字，不是单位，也不是答案对调用的描述，所以一个把元说成美元的答案，或者声称用了计算器、其实计算器一次都没运行的答案，数字照样可以是对的。
#
# `summary_table` 把记录变成一张 Markdown 表格——每次模型调用一行，列出它请求的工具调用、模型看到了多少观察内容、毫秒数、token 数，以及护栏事件：

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

# %% [markdown] lang="zh-CN"
# ### 导出：每行一次运行
#
# JSON Lines 是日志的首选格式：只追加写入、每行一条记录、可以直接 grep，而且任何语言都能读。`to_jsonl` 写出整次运行（步骤嵌套在里面，中文保持可读）；`read_jsonl` 把它读回成 `RunResult` 对象。

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

# %% [markdown] lang="zh-CN"
# 读日志，就是对日志发起查询。有两个问题你会经常问——哪些工具调用失败了？护栏做了什么？——还有一个是专门针对这次运行的：正确答案需要的那两个数字，是由哪个工具结果给出的（如果有的话）？

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
# Hold these lines against the answer printed in section 1. A figure no tool result gives came
# from the model itself, even when the answer says a tool worked it out ("I called the
# calculator … the result is 1530"): an answer can describe a call that never ran, or one that
# the guards held back. The log, not the answer, says which calls ran and what they returned.

# %% [markdown] lang="zh-CN"
# 把这几行和第 1 节打印的答案对照着读。没有任何工具结果给出的数字，是模型自己写出来的——哪怕答案说是某个工具算出来的（“我调用了计算器……结果是 1530”）：答案可能描述一次根本没执行过的调用，或者一次被护栏扣下的调用。哪些调用执行了、返回了什么，要看日志，而不是看答案。

# %% [markdown]
# ## 2. The trace viewer
#
# `show_trace` draws a small viewer in JupyterLab: a slider over the steps, Thought → Action →
# Observation for the current one, and a bar per step for prompt tokens. Where widgets cannot be
# drawn (a terminal, a static render of this page, the test runner) it prints the same trace as
# text — which is what you see below if this page was rendered without a live kernel.

# %% [markdown] lang="zh-CN"
# ## 2. 轨迹查看器
#
# `show_trace` 会在 JupyterLab 里画出一个小查看器：一个在各步之间拖动的滑块，当前这一步的“思考 → 行动 → 观察”，以及每步一根表示提示词 token 数的柱子。在画不出控件的地方（终端、本页的静态渲染、测试运行器），它会把同样的轨迹以文本形式打印出来——如果本页是在没有实时内核的情况下渲染的，你在下面看到的就是文本版。

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

# %% [markdown] lang="zh-CN"
# ## 3. 时间和 token 都花在哪儿了
#
# `step_rows` 把记录展开成每步一个 dict。两个派生列让它更好读：**新提示词 token**（prompt − cached：这一步引擎实际需要读的部分）和**每个补全 token 的毫秒数**。在本地服务器上，`cached_tokens` 来自引擎的前缀缓存：智能体会一遍遍发送同一段不断变长的对话，所以每一步只需要读上一步之后新追加的内容。`latency_ms` 是客户端看到的墙钟时间：在共享服务器上，它还包含排在其他用户请求后面等待的时间。

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

# %% [markdown] lang="zh-CN"
# 把同样的数字按步骤画成图：每个提示词里来自缓存的部分、重新读取的部分，以及回复。

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
# The shape to look for: prompts grow a little at every step (the conversation gets longer; a
# last request sent without tools is shorter, since the tool list is gone),
# while the freshly read part stays small when the cache works. A request without tools (the
# guards send one after two empty replies or a second plan that names a tool; its prompt is
# shorter than the step's before it) is the exception: dropping the tool list changes the
# prompt right after the system prompt, so the cache can supply more than that only from an
# earlier prompt without the tool list that began the same way — an earlier request of the same
# run, or one the server still holds from an earlier run of the same question. Its `cached`
# column says which happened. Latency follows the fresh and
# completion tokens far more than the total. Cloud providers report and bill the same way —
# many charge cached prompt tokens at a discount — so these columns are also your cost sheet.
#
# ## 4. Memory across turns
#
# A chat has several turns: "哈尔滨今天多少度？" then "那广州比它高多少度？" then "哪个城市更暖和？".
# Each turn is a fresh agent run; what it knows about earlier turns is whatever history we pass
# in. First the facts, straight from the tool, so every answer below can be checked against them:

# %% [markdown] lang="zh-CN"
# 要留意的形状是：提示词每一步都会长一点（对话越来越长；不带工具发出的最后一次请求会短一些，因为工具列表没了），而只要缓存起作用，重新读取的部分就一直很小。不带工具的请求（护栏在连续两次空回复、或第二次只提工具名的计划之后会发一次；它的提示词比前一步的短）是例外：去掉工具列表会改变提示词的开头，紧跟在系统提示词后面的内容就变了，所以缓存能多提供的部分，只能来自一个更早的、同样没有工具列表、开头也相同的提示词——可能是同一次运行里更早的一次请求，也可能是服务器缓存里还留着的、同一个问题以前某次运行的请求。它的 `cached` 列会告诉你是哪种情况。延迟主要跟着新读取的 token 和补全 token 走，和总量关系不大。云服务商的统计和计费方式也一样——很多家对命中缓存的提示词 token 打折——所以这几列也就是你的成本表。
#
# ## 4. 跨轮次的记忆
#
# 一段聊天有好几轮：“哈尔滨今天多少度？”，接着“那广州比它高多少度？”，再接着“哪个城市更暖和？”。每一轮都是一次全新的智能体运行；它对前面几轮知道多少，完全取决于我们传进去的历史。先直接从工具拿到事实，这样下面的每个答案都能拿来对照：

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

# %% [markdown] lang="zh-CN"
# ### 亲眼看它出问题：完全没有记忆
#
# 单看第一轮，它就是个普通问题：

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

# %% [markdown] lang="zh-CN"
# 第二轮“那广州比它高多少度？”离不开第一轮：这里的“它”指的是哈尔滨，而只有第一轮说了这一点。把它单独发出去，作为一次没有历史的全新运行：

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

# %% [markdown] lang="zh-CN"
# 没有第一轮，“它”就无所指。上面的调用、答案和判定显示了模型是怎么处理的——反问一句、猜一个城市、只回答广州的情况，或者凭空给出一个数字。不管它怎么做，只有猜中哈尔滨才可能答对：这条信息根本不在请求里。
#
# 朴素的修法是把前面各轮的*所有内容*都传进去：问题、工具调用、工具结果、答案。通常的建议是别这么做——旧的观察回答的是旧问题，现在只会白白消耗 token 和注意力。保留每轮的问题和最终回答，丢掉工具往来。手写也就几行：

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

# %% [markdown] lang="zh-CN"
# ### 这部分现在已经放进包里了
#
# `reactlab.memory.Conversation` 带着记住的历史，让智能体跑完每一轮，然后以同样的方式把这一轮记下来（它还能把旧的轮次折叠成摘要，并负责记账）。
#
# 给某一轮评分还得多想一步。一个凭历史作答的轮次自己什么也没查，所以它自己的运行里没有能支撑其数字的工具结果。因此我们对照*整段对话*到目前为止查到的所有工具结果来给每一轮评分——历史里的数字要么来自那里，要么就是凭空来的：

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

# %% [markdown] lang="zh-CN"
# 下面手动复核每个判定检查过的一部分内容：每个答案里，有哪些数字没有出现在这段对话到目前为止的任何工具结果中？一个没有调用工具的轮次，它的数字只能来自历史——要么就是编的。（模型自己算出来的差值，比如广州 − 哈尔滨，也不在任何工具结果里：评分器接受基于已查到数字的一步计算，这个简易检查则不接受，所以请对照上面打印的事实来读这样的数字。）

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
# above say which. So read them as two separate results. Memory did its part when a follow-up
# resolves "它" to 哈尔滨 (compare with the no-memory run above). Whether the follow-up is
# *right* is the model's part: a ✘ there means it answered without fetching 广州, and memory
# cannot fetch for it. With the tool traffic dropped, a made-up figure in the history looks as
# confident as a fetched one; only the per-turn log tells them apart.

# %% [markdown] lang="zh-CN"
# 如果某一轮没有调用工具，却照样给出了广州的数字，那这个数字就是编的——一个套着第一轮答案外壳的伪造观察：历史让模型看到了天气答案长什么样，它就照着这个模式把空填上了。列出了数字的比较轮次，可能是在真实数字上做算术，也可能是在重复一个编出来的数字；上面的判定会告诉你是哪一种。所以要把它们当成两件事来读。如果后续问题把"它"理解成了哈尔滨（和上面没有记忆的那次运行对比一下），记忆就尽到了它的本分。后续问题答得*对不对*，则是模型自己的事：那里出现 ✘，说明它没去查广州就作答了，而记忆没法替它去查。工具往来被丢掉之后，历史里一个编出来的数字看起来和查来的一样笃定；只有逐轮的日志才能把两者区分开。

# %% [markdown]
# What the next turn would receive, message by message — no `tool` messages, no `tool_calls` —
# and the check that it is what `remember` builds by hand:

# %% [markdown] lang="zh-CN"
# 下一轮将会收到的内容，逐条消息列出——没有 `tool` 消息，也没有 `tool_calls`——并检查它和手写的 `remember` 构造出来的内容一致：

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

# %% [markdown] lang="zh-CN"
# 再来看账单。`report()` 每轮一行：这一轮拿到的历史（以估算的 token 数计），和带上之前所有工具往来的成本相比，外加这一轮第一次模型调用的真实提示词大小。`savings()` 则对当前的历史做个汇总。

# %%
# NBVAL_IGNORE_OUTPUT
display(Markdown(chat.report()))
print(chat.savings())

# %% [markdown]
# The estimate is a rule of thumb (one token per Chinese character, one per four other
# characters, and 4 per message for the chat template's markers); good for comparing two
# histories, while `usage["prompt_tokens"]` is the real count.
# The saving grows with every turn whose tools returned a lot — with `search_docs` from notebook
# 07 in the mix, it would dominate. Dropping the traffic has a price too: if turn three needed a
# number that only appeared in a tool result and not in the answer, it is gone. Keep answers
# specific and that rarely bites; `keep_turns=` plus a summary folds very old turns further.
#
# ## 5. Debugging a run from its log
#
# Here is a new tool with a bug in it — the kind of bug you will write yourself one day. Run the
# agent, then find the bug from the log alone.

# %% [markdown] lang="zh-CN"
# 这个估算只是经验法则（每个汉字算一个 token，其他字符每四个算一个，每条消息再加 4 个，算作聊天模板的标记）；拿来比较两段历史够用了，而 `usage["prompt_tokens"]` 才是真实计数。工具返回的内容越多，每一轮省下的就越多——如果把第 07 课的 `search_docs` 也加进来，它会占大头。丢掉工具往来也有代价：如果第三轮需要一个只出现在工具结果里、没写进答案的数字，它就没了。让答案写得具体些，就很少会踩到这个坑；`keep_turns=` 再加上摘要，可以把很早的轮次进一步折叠。
#
# ## 5. 从日志调试一次运行
#
# 下面是一个带 bug 的新工具——总有一天你自己也会写出这种 bug。运行智能体，然后只凭日志找出这个 bug。

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
air = run_function_calling("广州今天的空气质量怎么样？AQI 是多少？", tools=air_tools, conn=conn,
                           max_steps=4, max_tokens=200)
display(Markdown(summary_table(air)))
print(grade(air, Expected(parts=("广州",))))

# %% [markdown]
# The verdict checks the answer against the observations: every figure it states must come from
# a tool result, and 广州 must be answered. The data the tool holds says 广州's AQI is 35.
# But the answer and the verdict cannot tell you whether the observations themselves were right.
# The log can: each tool call's arguments and observation are there, so compare them with the
# data the tool should have used.

# %% [markdown] lang="zh-CN"
# 判定会对照观察来检查答案：答案给出的每个数字都必须来自工具结果，而且要回答广州。工具里的数据说广州的 AQI 是 35。但答案和判定都没法告诉你观察本身对不对。日志可以：每个工具调用的参数和观察都在里面，把它们和工具本应使用的数据对比一下就知道了。

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
print("\nthe observations say:", shown or "nothing fetched")
print("the data says:       ", {"广州": AQI["广州"]})
print("the answer:", air.answer)

# %% [markdown]
# Read the three last lines together. If the model asked for 广州, the log shows the tool
# answering with the wrong figure (上海's 57, marked DOES NOT MATCH): the bug is in the tool, not
# the model, and no prompt change would have fixed it. An answer "广州的 AQI 是 57" then agrees
# with its observation, so the verdict gives it a ✔ — and the answer is still wrong: the tool's
# bug passes through a checker that trusts tool results. If the model never asked for 广州 (or
# sent arguments the tool rejected), that is the first thing the log tells you — a different bug,
# in the plan or in the arguments, and the verdict says the result is missing. Either way, the
# answer is only as good as the observations, and the observations are in the log.
#
# ## Recap
#
# Apart from `remember` and two small helpers, everything here was package code used as is —
# `runlog` (records, JSONL), `report` (`summary_table`, `step_rows`; `compare_table` is
# exercise 1's, `plot_context_growth` notebook 07's), `widgets.show_trace`, `memory.Conversation` and `grader.grade` —
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
# | term | 中文 | meaning |
# |---|---|---|
# | run log | 运行日志 | one record per model call: text, thought, tool calls, observations, ms, tokens, events |
# | JSON Lines | JSON Lines | one JSON object per line; append-friendly log format (`to_jsonl`, `read_jsonl`) |
# | trace viewer | 轨迹查看器 | step-through display of a run (`show_trace`), plain text where widgets cannot draw |
# | prompt / completion tokens | 提示词 / 补全 token | what the model read / wrote in one call |
# | cached tokens | 缓存 token | prompt tokens served from the prefix cache instead of being read again |
# | short-term memory | 短期记忆 | earlier turns' questions and final answers passed as history |
# | tool traffic | 工具往来 | assistant `tool_calls` and `tool` messages of a turn; dropped from memory |
# | agent (design pattern) | 智能体（设计模式） | loop + tools + memory + guards + observation; what every agent framework implements |
#
# ## Exercises
#
# Each exercise has a starter cell (`answer_N = None`: replace it with your code) and a check
# cell that says ✔, "not attempted yet", or what is still wrong. The checks never call the
# model: they read what your code returned, or try your function on a made-up run.
#
# 1. **Compare two runs.** Run the stock agent's question
#    "青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高，高多少？" (tools `get_closing_price`, `calculator`) with `Guards.on()` and with
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

# %% [markdown] lang="zh-CN"
# 把最后三行放在一起读。如果模型查了广州，日志会显示工具返回了错误的数字（上海的 57，标着 DOES NOT MATCH）：bug 出在工具上，而不是模型，改提示词也修不好。这时答案“广州的 AQI 是 57”和它的观察一致，所以判定给了 ✔——可答案仍然是错的：工具的 bug 穿过了一个信任工具结果的检查器。如果模型压根没查广州（或者传了工具拒收的参数），那这就是日志告诉你的第一件事——另一个 bug，出在计划或参数上，判定会指出缺少结果。无论哪种情况，答案的好坏取决于观察，而观察就在日志里。
#
# ## 小结
#
# 除了 `remember` 和两个小辅助函数，本课用到的全是原样调用的包代码——`runlog`（记录、JSONL）、`report`（`summary_table`、`step_rows`；`compare_table` 留给练习 1，`plot_context_growth` 在第 07 课）、`widgets.show_trace`、`memory.Conversation` 和 `grader.grade`——因为可观测性只有一直开着才有用。两种智能体填写的是同一种记录，所以上面的每个工具同样适用于文本 ReAct 的运行。
#
# **作为设计模式的智能体。** 从细节里退后一步看，整个系列搭起来的是同一个形状，由五部分组成：**循环**（询问模型，执行它要求的操作，把结果反馈回去，直到它作答或预算耗尽——第 04 和 05 课）、**工具**（带有模型能读懂的描述的函数，从第 02 课开始；第 05 课起用 JSON schema 描述）、**记忆**（在轮次之间延续下来的内容——本课）、**护栏**（预算、压缩、循环检测、错误即观察——第 07 课）以及**观察**（运行记录、轨迹、判定——本课）。天气智能体、储蓄智能体和股票智能体都是这个形状，只是换了工具和提示词；流式往返则是这个循环中的一轮，在线路上看到的样子。各种智能体框架（LangChain、LlamaIndex、OpenAI Agents SDK、AutoGen……）用各自的名字实现了同样的五个部分；掌握了这个形状，其中任何一个你都能读懂——某个框架出问题时，你也知道该去看哪一部分。
#
# | 术语 | 中文 | 含义 |
# |---|---|---|
# | run log | 运行日志 | 每次模型调用一条记录：文本、思考、工具调用、观察、毫秒、token、事件 |
# | JSON Lines | JSON Lines | 每行一个 JSON 对象；便于追加写入的日志格式（`to_jsonl`、`read_jsonl`） |
# | trace viewer | 轨迹查看器 | 逐步查看一次运行的界面（`show_trace`），画不出控件时输出纯文本 |
# | prompt / completion tokens | 提示词 / 补全 token | 模型在一次调用中读入 / 写出的内容 |
# | cached tokens | 缓存 token | 由前缀缓存提供、无需重新读取的提示词 token |
# | short-term memory | 短期记忆 | 作为历史传入的前面各轮的问题和最终回答 |
# | tool traffic | 工具往来 | 一轮中 assistant 的 `tool_calls` 和 `tool` 消息；不放进记忆 |
# | agent (design pattern) | 智能体（设计模式） | 循环 + 工具 + 记忆 + 护栏 + 观察；每个智能体框架实现的都是它 |
#
# ## 练习
#
# 每道练习都有一个起始单元格（`answer_N = None`：换成你的代码）和一个检查单元格，后者会显示 ✔、“not attempted yet”（尚未作答），或者还有哪里不对。检查从不调用模型：它们只读取你的代码返回的东西，或者在一次虚构的运行上试用你的函数。
#
# 1. **比较两次运行。** 分别用 `Guards.on()` 和 `Guards.off()` 运行股票智能体的问题“青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高，高多少？”（工具 `get_closing_price`、`calculator`），打印每次运行的判定（`Expected(figures=("1420.29",), winner="贵州茅台")`）以及 `compare_table({"on": …, "off": …})`。哪些列不一样，为什么？`answer_1`：这两次运行组成的 dict。
# 2. **延迟预算。** 基于 `step_rows` 写一个 `slowest_step(run)`，返回耗时最长那一步的编号，以及它占这次运行模型总时间的比例（0 到 1 之间的小数）。`answer_2`：函数本身。
# 3. **摘要式记忆。** 用 `Conversation(..., keep_turns=1)` 重新跑一遍第 4 节的三轮对话，打印每一轮的判定。第三轮收到了什么？它还知道比较的是哪两个城市吗？`answer_3`：跑完三轮之后的 Conversation。
# 4. **综合练习。** 用 `@tool` 加一个你自己的工具（单位换算器、迷你词典查询、“下一个节假日”日期工具……），运行一个既需要它、又需要某个课程工具的问题，然后用日志——`summary_table`、`step_rows`、`show_trace`——回答：模型是否用正确的参数调用了你的工具？工具返回的是不是你想要的？答案用上它了吗？然后修好上面 `get_air_quality` 的 bug，并证明日志现在和数据一致了。`answer_4`：你修好的 `get_air_quality`。

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
# Prev: [07 · Pitfalls](07_pitfalls.ipynb) | Index: [README](../README.md) | Next: [09 · Frameworks on the same server](09_frameworks.ipynb)

# %% [markdown] lang="zh-CN"
# 参考答案：[solutions/08_observability_and_memory_solutions.ipynb](solutions/08_observability_and_memory_solutions.ipynb)
#
# ---
# 上一课：[07 · 常见的坑](07_pitfalls.ipynb) | 目录：[README](../../README.zh-CN.md) | 下一课：[09 · 同一台服务器上的框架](09_frameworks.ipynb)
