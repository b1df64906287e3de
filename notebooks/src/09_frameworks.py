# %% [markdown]
# # 09 · Frameworks on the same server
# *LangChain, smolagents and the OpenAI Agents SDK, pointed at your local model: each one is the loop you built in 04–05, under other names.*
#
# **After this notebook you can:**
# - point three agent frameworks at the local server through their OpenAI-compatible path (a base URL, a placeholder key, the model name);
# - say which of their pieces is which piece of our loop: the tool schema, the request, `tool_calls`, the tool message, the final answer, the budget;
# - grade a run a framework drove, with `ToolRecorder` and the same verdict as every run in the series;
# - read what the server's help for small models did (a repeated call, an empty reply, a plan instead of an answer), and switch it off with `"reactlab_help": false`.
#
# **Where we are:** notebook 08 ended with the agent as a design pattern — loop, tools, memory,
# guards, observation — and said that every framework implements the same five parts. Here we
# check that claim on three of them, on the same question: "广州现在多少度？", answered by the
# course's `get_weather` tool (广州: 24.2°C in the bundled snapshot).
#
# > 框架不是魔法：LangChain、smolagents、OpenAI Agents SDK 跑的都是同一个循环——发请求、读
# > `tool_calls`、执行工具、回填结果、直到模型作答。换了名字，没换结构。

# %% [markdown] lang="zh-CN"
# # 09 · 同一台服务器上的框架
# *把 LangChain、smolagents 和 OpenAI Agents SDK 指向你的本地模型：每一个都是你在第 04–05 课搭过的那个循环，只是换了名字。*
#
# **学完本课，你能够：**
# - 通过三个智能体框架各自的 OpenAI 兼容路径（一个 base URL、一个占位 key、模型名）把它们接到本地服务器上；
# - 说出它们的每个部件对应我们循环里的哪一部分：工具 schema、请求、`tool_calls`、工具消息、最终回答、预算；
# - 用 `ToolRecorder` 给框架驱动的一次运行打分，判定和整个系列里的每次运行一样；
# - 读懂服务器为小模型提供的帮助做了什么（重复的调用、空回复、只说不做的计划），并用 `"reactlab_help": false` 把它关掉。
#
# **我们在哪儿：** 第 08 课最后把智能体看成一种设计模式——循环、工具、记忆、护栏、观察——并说每个框架实现的都是这五个部分。这一课在其中三个框架上检验这个说法，用的是同一个问题：“广州现在多少度？”，由课程的 `get_weather` 工具回答（内置快照里广州是 24.2°C）。
#
# > 框架不是魔法：LangChain、smolagents、OpenAI Agents SDK 跑的都是同一个循环——发请求、读 `tool_calls`、执行工具、回填结果、直到模型作答。换了名字，没换结构。

# %% [markdown]
# ## Setup
#
# The three frameworks come with `make setup` (the `frameworks` extra of `pyproject.toml`; by
# hand: `pip install -e ".[frameworks]"`). `server_help()` reads the server's debug view of the
# latest reply (`/v1/debug/last`: notebook 06's debug view, fetched after the reply instead of
# asked for in the request) and prints what the server's help did to it — section 6 explains
# the help.

# %% [markdown] lang="zh-CN"
# ## 准备工作
#
# 三个框架由 `make setup` 一并安装（`pyproject.toml` 里的 `frameworks` 额外依赖；手动安装：`pip install -e ".[frameworks]"`）。`server_help()` 读取服务器对最近一次回复的调试视图（`/v1/debug/last`：就是第 06 课的调试视图，只是在回复之后去取，而不是在请求里要），并打印服务器的帮助对它做了什么——第 6 节会解释这种帮助。

# %%
# NBVAL_IGNORE_OUTPUT
import os

import requests

import reactlab
from reactlab.grader import Expected, grade
from reactlab.recorder import ToolRecorder
from reactlab.tools.weather import get_weather

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
KEY = conn.api_key or "not-needed"  # the local server takes any key
question = "广州现在多少度？"
right = Expected(figures=("24.2",), parts=("广州",))

# %%
def server_help():
    """Print what the server's help did to the latest reply (local server only)."""
    r = requests.get(conn.base_url + "/debug/last", headers=conn.headers(), timeout=10)
    if not r.ok:
        return print("server help: (no debug view on this provider)")
    help = r.json().get("help") or {}
    if help.get("on") is False:
        return print("server help: off for this request")
    steps = help.get("interventions", [])
    for s in steps:
        print(f"server help: {s['rule']}: {s['why']} -> {s['action']}")
    if not steps:
        print("server help: none")

# %% [markdown]
# ## 1. The same loop, other names
#
# Before any code, the map. Left, the pieces of the loop from notebooks 04–05 (`run_function_calling`
# is that loop in the package); right, what each framework calls them.
#
# | our loop (04–05) | LangChain | smolagents | OpenAI Agents SDK |
# |---|---|---|---|
# | a tool: a function + its JSON schema | `@tool`, then `llm.bind_tools([...])` | `@tool` (reads the docstring's `Args:`) | `function_tool(f)` |
# | one request with `tools` | `llm.invoke(messages)` | `OpenAIServerModel`, inside `agent.run` | `OpenAIChatCompletionsModel`, inside `Runner.run` |
# | read `tool_calls` | `ai_message.tool_calls` | the reply's `tool_calls` | a tool-call item |
# | run it, append a `role: "tool"` message | you do it: `ToolMessage` | a `user` message "Observation: …" | a function-output item |
# | the answer: a reply without calls | the last message's `content` | a call to its `final_answer` tool | `result.final_output` |
# | the budget (`max_steps`) | your own `for` loop | `max_steps` | `max_turns` |
# | guards (07), the verdict (04) | — | — | — (guardrails check inputs and outputs, not loops) |
#
# Two rows differ more than the names. smolagents never takes a plain reply as the answer: the
# model must *call* `final_answer`, so it sends `tool_choice="required"` on every request. And
# none of the three brings the guards of notebook 07 — a repeated call or an empty reply goes
# straight through to you.

# %% [markdown] lang="zh-CN"
# ## 1. 同一个循环，换了名字
#
# 写代码之前先看地图。左边是第 04–05 课循环的各个部件（包里的 `run_function_calling` 就是这个循环）；右边是每个框架对它们的叫法。
#
# | 我们的循环（04–05） | LangChain | smolagents | OpenAI Agents SDK |
# |---|---|---|---|
# | 工具：一个函数 + 它的 JSON schema | `@tool`，然后 `llm.bind_tools([...])` | `@tool`（读取 docstring 里的 `Args:`） | `function_tool(f)` |
# | 一次带 `tools` 的请求 | `llm.invoke(messages)` | `OpenAIServerModel`，在 `agent.run` 里面 | `OpenAIChatCompletionsModel`，在 `Runner.run` 里面 |
# | 读取 `tool_calls` | `ai_message.tool_calls` | 回复里的 `tool_calls` | 一个工具调用条目 |
# | 执行它，追加一条 `role: "tool"` 消息 | 你自己来：`ToolMessage` | 一条 `user` 消息“Observation: …” | 一个函数输出条目 |
# | 回答：一条不带调用的回复 | 最后一条消息的 `content` | 调用它的 `final_answer` 工具 | `result.final_output` |
# | 预算（`max_steps`） | 你自己的 `for` 循环 | `max_steps` | `max_turns` |
# | 护栏（07）、判定（04） | — | — | —（guardrails 检查输入和输出，不检查循环） |
#
# 有两行的差别不只是名字。smolagents 从不把一条普通回复当作答案：模型必须*调用* `final_answer`，所以它在每个请求里都发送 `tool_choice="required"`。而且三个框架都没有第 07 课的护栏——重复的调用或空回复会原样交到你手上。

# %% [markdown]
# ## 2. A verdict for a run we did not drive
#
# Our agents return a `RunResult`, and `grade` reads it. A framework returns its own objects. What
# every framework does, though, is call *our* Python function — so `ToolRecorder.wrap` gives it
# the course tool with the same name, signature and docstring (the frameworks build the tool's
# schema from those), and writes down every call. `rec.result(question, answer)` builds the
# `RunResult` the grader reads, and `rec.repeats()` lists the calls made more than once with the
# same arguments (`{}` when there are none). No model in this cell: we call the wrapped tool
# ourselves.

# %% [markdown] lang="zh-CN"
# ## 2. 给一次不是我们驱动的运行打分
#
# 我们的智能体返回 `RunResult`，`grade` 读的就是它。框架返回的是它自己的对象。不过每个框架都会调用*我们的* Python 函数——所以 `ToolRecorder.wrap` 把课程工具交给框架时，名字、签名和 docstring 都不变（框架正是根据这些生成工具的 schema），同时记下每一次调用。`rec.result(question, answer)` 再拼出评分器要读的 `RunResult`。这个单元格不用模型：我们自己调用包装后的工具。

# %%
rec = ToolRecorder()
weather = rec.wrap(get_weather)
print(weather.__name__, "|", weather.__doc__.splitlines()[0])
print(weather("广州")[:60] + " …")
print(rec.calls[0].name, rec.calls[0].arguments)
print(grade(rec.result(question, "广州现在 24.2°C。")))  # a made-up answer, graded
rec.clear()

# %% [markdown]
# ## 3. LangChain: `bind_tools`, and the loop in your hands
#
# `ChatOpenAI` speaks the OpenAI API to any base URL. `bind_tools` turns each `@tool` into the
# `tools` list of every request. The loop itself is yours to write — it is notebook 05's round
# trip almost line for line: ask, read `tool_calls`, run each tool (`tool.invoke(call)` returns the
# `ToolMessage`, with its `tool_call_id`), ask again. `max_rounds` is the budget.

# %% [markdown] lang="zh-CN"
# ## 3. LangChain：`bind_tools`，循环由你来写
#
# `ChatOpenAI` 能用 OpenAI API 和任何 base URL 对话。`bind_tools` 把每个 `@tool` 变成每次请求里的 `tools` 列表。循环本身要你自己写——几乎一行对一行就是第 05 课的往返：提问、读取 `tool_calls`、执行每个工具（`tool.invoke(call)` 返回带 `tool_call_id` 的 `ToolMessage`）、再问一次。`max_rounds` 就是预算。

# %%
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool as lc_tool
from langchain_openai import ChatOpenAI


def langchain_run(question, max_rounds=4, **chat_options):
    """LangChain's bind_tools loop, graded: (RunResult, the last AIMessage)."""
    rec = ToolRecorder()
    tools = {t.name: t for t in [lc_tool(rec.wrap(get_weather))]}
    llm = ChatOpenAI(base_url=conn.base_url, api_key=KEY, model=conn.model, temperature=0,
                     max_tokens=300, max_retries=0, **chat_options).bind_tools(list(tools.values()))
    messages = [HumanMessage(question)]
    for _ in range(max_rounds):
        ai = llm.invoke(messages)
        messages.append(ai)
        if not ai.tool_calls:  # no call: this is the answer
            return rec.result(question, ai.content, framework="langchain"), ai
        for call in ai.tool_calls:  # a tool that raises becomes a message (notebook 07)
            try:
                messages.append(tools[call["name"]].invoke(call))
            except Exception as exc:  # noqa: BLE001 - the model reads the error
                messages.append(ToolMessage(f"Error: {exc}", tool_call_id=call["id"]))
    return rec.result(question, "", framework="langchain", status="max_steps"), ai

# %%
# NBVAL_IGNORE_OUTPUT
lc_result, last = langchain_run(question)
print("calls:", [(c.name, c.arguments) for s in lc_result.steps for c in s.tool_calls])
print("answer:", repr(lc_result.answer))
print(grade(lc_result, right))
server_help()

# %% [markdown]
# Read the four lines together. `calls` is what ran (the recorder saw each call; a call the server's help dropped is not among them);
# `answer` is the content of LangChain's last message; the verdict checks the answer against
# that tool result; `server help` says whether the server changed the model's reply on the way
# (section 6). If the verdict says ✘ — no answer, or the run ended with `max_steps` — the
# model's last reply was empty or asked for the same call again: the failure section 6 is about.
#
# ### Streamed: tool-call chunks
#
# `llm.stream(...)` yields `AIMessageChunk`s; adding them up (`whole = whole + chunk`) joins the
# text and the `tool_call_chunks` — the argument fragments of notebook 05, assembled by
# LangChain instead of `ToolCallAccumulator`.

# %% [markdown] lang="zh-CN"
# 把这四行放在一起读。`calls` 是实际执行了的调用（记录器看到了每一次；被服务器帮助拦下的调用不在其中）；`answer` 是 LangChain 最后一条消息的内容；判定拿这个工具结果来检查答案；`server help` 说明服务器有没有在途中改动模型的回复（第 6 节）。如果判定是 ✘——没有答案，或者运行以 `max_steps` 结束——说明模型最后一次回复是空的，或者又请求了同一个调用：这正是第 6 节要讲的失败。
#
# ### 流式：工具调用分块
#
# `llm.stream(...)` 逐个产出 `AIMessageChunk`；把它们加起来（`whole = whole + chunk`）就会拼接文本和 `tool_call_chunks`——也就是第 05 课的参数片段，只是由 LangChain 而不是 `ToolCallAccumulator` 来拼。

# %%
# NBVAL_IGNORE_OUTPUT
rec = ToolRecorder()
lc_weather = lc_tool(rec.wrap(get_weather))
llm = ChatOpenAI(base_url=conn.base_url, api_key=KEY, model=conn.model, temperature=0,
                 max_tokens=300, max_retries=0).bind_tools([lc_weather])


def streamed(messages):
    """The streamed reply, assembled; and (chunks, chunks carrying tool-call pieces)."""
    whole, chunks, with_calls = None, 0, 0
    for chunk in llm.stream(messages):
        whole = chunk if whole is None else whole + chunk
        chunks, with_calls = chunks + 1, with_calls + bool(chunk.tool_call_chunks)
    return whole, (chunks, with_calls)


messages = [HumanMessage(question)]
first, n = streamed(messages)
print("(chunks, with tool-call pieces):", n, "| assembled:",
      [(c["name"], c["args"]) for c in first.tool_calls])
messages += [first, *(lc_weather.invoke(c) for c in first.tool_calls)]
final, n = streamed(messages) if first.tool_calls else (first, n)
answer = final.content if not final.tool_calls else ""
print("(chunks, with tool-call pieces):", n, "| answer:", repr(answer))
print(grade(rec.result(question, answer, framework="langchain"), right))

# %% [markdown]
# The second streamed reply is the answer. A small model sometimes hands back the tool result
# itself, word for word (`广州: 24.2°C …`): every figure is then right, and the verdict, which
# checks figures and names, not wording, gives it a ✔ — an unpolished answer, not a wrong one.

# %% [markdown] lang="zh-CN"
# 第二次流式回复就是答案。小模型有时会把工具结果原样交回来（`广州: 24.2°C …`）：这时每个数字都是对的，而判定检查的是数字和名字，不管措辞，所以给 ✔——这是一个不够好看的答案，不是错答案。

# %% [markdown]
# ## 4. smolagents: `ToolCallingAgent`
#
# smolagents runs the whole loop for you (`agent.run`), with its own long system prompt. Two
# differences from our loop show in the server's debug view: every request carries
# `tool_choice="required"` — so the server's constrained decoding (notebook 06) makes each reply a
# valid call — and the tool results go back as a `user` message starting "Observation:", not as
# `role: "tool"` messages. The answer is the argument of its `final_answer` call.

# %% [markdown] lang="zh-CN"
# ## 4. smolagents：`ToolCallingAgent`
#
# smolagents 替你跑完整个循环（`agent.run`），用的是它自己那段很长的系统提示词。它和我们的循环有两处不同，在服务器的调试视图里都看得到：每个请求都带着 `tool_choice="required"`——于是服务器的约束解码（第 06 课）保证每条回复都是一个合法的调用——而且工具结果是以一条以“Observation:”开头的 `user` 消息送回去的，而不是 `role: "tool"` 消息。答案就是它调用 `final_answer` 时的参数。

# %%
# NBVAL_IGNORE_OUTPUT
from smolagents import OpenAIServerModel, ToolCallingAgent
from smolagents import tool as smol_tool

rec = ToolRecorder()
model = OpenAIServerModel(model_id=conn.model, api_base=conn.base_url, api_key=KEY,
                          temperature=0, max_tokens=300)
agent = ToolCallingAgent(tools=[smol_tool(rec.wrap(get_weather))], model=model, max_steps=4,
                         verbosity_level=-1)  # quiet; 1 prints every step
smol_answer = agent.run(question)
print("calls:", [(c.name, c.arguments) for c in rec.calls])
print("answer:", repr(smol_answer))
print(grade(rec.result(question, str(smol_answer), framework="smolagents"), right))
last = requests.get(conn.base_url + "/debug/last", headers=conn.headers(), timeout=10).json()
print("constrained to a call:", last.get("json_schema") is not None,
      "| results sent as 'Observation:' text:", "Observation:" in last.get("prompt", ""))

# %% [markdown]
# ## 5. The OpenAI Agents SDK
#
# `Agent` holds the instructions and the tools, `Runner.run` runs the loop until a reply without
# calls (`final_output`) or `max_turns`. The SDK talks to OpenAI's newer Responses API by
# default; `OpenAIChatCompletionsModel` is its documented path to any chat-completions server,
# ours included. `set_tracing_disabled(True)`: the SDK would otherwise try to upload a trace of
# the run to OpenAI. `await` works here because a notebook cell runs inside an event loop.

# %% [markdown] lang="zh-CN"
# ## 5. OpenAI Agents SDK
#
# `Agent` 保存指令和工具，`Runner.run` 运行循环，直到出现一条不带调用的回复（`final_output`）或者用完 `max_turns`。这个 SDK 默认使用 OpenAI 较新的 Responses API；`OpenAIChatCompletionsModel` 是它官方文档里通往任何 chat-completions 服务器（包括我们的）的路径。`set_tracing_disabled(True)`：否则 SDK 会试图把这次运行的轨迹上传到 OpenAI。这里可以直接 `await`，因为 notebook 的单元格本来就运行在一个事件循环里。

# %%
# NBVAL_IGNORE_OUTPUT
from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, Runner, function_tool
from agents import set_tracing_disabled
from openai import AsyncOpenAI

set_tracing_disabled(True)


async def agents_run(question, **settings):
    rec = ToolRecorder()
    client = AsyncOpenAI(base_url=conn.base_url, api_key=KEY, max_retries=0)
    agent = Agent(name="weather", instructions="Answer the user's question. Use the tools.",
                  tools=[function_tool(rec.wrap(get_weather))],
                  model=OpenAIChatCompletionsModel(model=conn.model, openai_client=client),
                  model_settings=ModelSettings(temperature=0, max_tokens=300, **settings))
    result = await Runner.run(agent, question, max_turns=6)
    return rec.result(question, str(result.final_output or ""), framework="openai-agents"), rec


sdk_result, sdk_rec = await agents_run(question)
print("calls:", [(c.name, c.arguments) for c in sdk_rec.calls], "| repeats:", sdk_rec.repeats())
print("answer:", repr(sdk_result.answer))
print(grade(sdk_result, right))
server_help()

# %% [markdown]
# Read the verdict and the `server help` line together. The SDK made the call and sent the
# result back, as our loop does. On this server the model's second reply has been a plan that
# *describes* the call (along the lines of "you can use the `get_weather` function…") instead of
# using its result;
# the server's help (section 6) catches that kind of reply and asks once more without tools —
# `server help` then names the rule `narrated_call`. A ✘ with `server help: none` is a failure
# the help does not cover; it is this model's, not the SDK's.

# %% [markdown] lang="zh-CN"
# 把判定和 `server help` 那一行放在一起看。SDK 发起了调用，也把结果发了回去，和我们的循环一样。在这台服务器上，模型的第二次回复曾经是一份只*描述*这个调用的计划（大意是“你可以使用 `get_weather` 函数……”），而没有用上它的结果；服务器的帮助（第 6 节）会识别这种回复，再问一次且不提供工具——这时 `server help` 会写出规则名 `narrated_call`。如果是 ✘ 而 `server help: none`，那就是帮助没有覆盖到的失败；它是这个模型的问题，不是 SDK 的。

# %% [markdown]
# ## 6. The server's help, and the same run without it
#
# Tried on this server before it had any help, two of the frameworks met a small model's habits head on: after the tool
# result, the model asked for **the same call again** (same name, same arguments), or wrote
# **nothing**. LangChain's round trip then ended with an empty answer; the Agents SDK called
# `get_weather('广州')` again and again and finished with an empty output. Measured on ten tasks
# (`benchmarks/results/frameworks.md`): with the help off, LangChain and the Agents SDK solved
# none of them (20 and 21 repeated calls); with it on, 7 and 5. Our own agents have guards for both (notebook 07); a
# framework has none. So the server helps, mostly after tool results:
#
# - a call the conversation already has a result for is not returned; the model writes once
#   more, constrained (notebook 06) to `{"answer": "…"}` or a call, with a short note of the
#   result it already has; if that is the same call again, a last time without tools;
# - an empty reply right after tool results is asked again once, without tools;
# - so is a plan that names a tool instead of using its result (no call, none of the results'
#   figures), with a note of the results;
# - at any turn, a call whose required argument holds a value written nowhere in the
#   conversation (a value the model made up, typically when no tool fits the question) is not
#   returned, and if no call is left the model is asked once more without tools. A number counts
#   as written in digits or in words ("two", "50%"); a name in Latin letters when one of its
#   words (not counting "the", "of" and the like) starts a word of the conversation; a
#   description of five words or more when half of its words do; a date when its year is
#   written. Chinese text is
#   never judged (the model may rightly write 北京 for "Beijing"), and the course's tools take
#   no numbers, so this rule does not touch the runs in this series, whose questions are
#   Chinese; it is measured on BFCL's questions in `benchmarks/results/bfcl_notes.md`;
# - and where the request allows parallel calls (`parallel_tool_calls`, true unless the client
#   says otherwise), the server opens one more `<tool_call>` after the model's calls and keeps a
#   call the model writes there only if it is new and its new values are in the question (for a
#   function the reply has not called yet, the values of its required arguments): "北京和广州"
#   can then get both calls in one reply, where this model on its own writes one and stops. A
#   call made only of earlier values is kept in two cases: the question asks for its function by
#   a word of the function's name, or it is the next cell of a table the question asks for (the
#   angle of the second pair of points after their distance). A call that packs several values
#   into an argument that takes one (`year: [1980, 2016]`) is split into a call per value, and a
#   name written with dots (`lawyer.find_nearby`) is read as the offered `lawyer_find_nearby`.
#   The opened tag costs one more short generation per reply with a call; on BFCL's parallel
#   questions the opened tag and the split answer 15 of 24 instead of none (17 with the
#   repeated-value rules and the dotted names), on the ten tasks above the two changed no
#   framework's score by more than one task. Off for a request with
#   `extra_body={"reactlab_more_calls": False}`, for the server with
#   `reactlab serve --no-more-calls`.
#
# It never acts when the client forced a call (smolagents' `tool_choice="required"`), and every
# intervention is in the debug view (`server_help()` above; the opened calls under its
# `more_calls`). Off for one request with
# `extra_body={"reactlab_help": False}`, or for the whole server with `reactlab serve --no-help`.
# One thing is not part of the help and stays on: a reply that writes the same calls again and
# again is cut at the second repeat (`repeat_stop` in the debug view) — the client gets the same
# calls, only sooner. Here is section 3's LangChain run once more, with the help off — the
# model's replies as it wrote them:

# %% [markdown] lang="zh-CN"
# ## 6. 服务器的帮助，以及没有它的同一次运行
#
# 在服务器还没有任何帮助时试过，有两个框架正面撞上了小模型的习惯：拿到工具结果之后，模型**又请求了同一个调用**（同样的名字、同样的参数），或者**什么都没写**。LangChain 的往返因此以空答案结束；Agents SDK 把 `get_weather('广州')` 调了一遍又一遍，最后输出为空。在十个任务上的测量（`benchmarks/results/frameworks.md`）：关掉帮助时，LangChain 和 Agents SDK 一个都没答对（分别重复调用了 20 次和 21 次）；打开帮助时，分别答对 7 个和 5 个。我们自己的智能体对这两种情况都有护栏（第 07 课）；框架没有。所以服务器来帮忙，主要是在工具结果之后：
#
# - 对话里已经有结果的调用不会再返回给客户端；模型会再写一次，这次受约束（第 06 课）只能写 `{"answer": "…"}` 或一个调用，并附上一条简短的说明，告诉它已经拿到的结果；如果它还是写了同一个调用，就最后再问一次，不提供工具；
# - 紧跟在工具结果之后的空回复会再问一次，不提供工具；
# - 只提到工具名、却没有用上结果的计划（没有调用，也没有结果里的任何数字）也一样，并附上一条说明结果的提示；
# - 在任何一轮，如果某个调用的必填参数里有一个对话中哪里都没写过的值（模型编出来的值，通常是没有合适工具的时候），这个调用不会返回；如果一个调用都不剩，就不提供工具再问模型一次。数字写成阿拉伯数字或文字（“two”“50%”）都算写过；拉丁字母的名称，只要其中某个词（“the”“of”这类词不算）是对话里某个词的开头就算写过；五个词以上的描述，要有一半的词是这样才算；日期只要年份写过就算。中文从不判断（模型把 “Beijing” 写成北京是对的），本课程的工具也不接受数字，所以这条规则碰不到本系列里的运行——它们的问题都是中文；它在 BFCL 的题目上的测量见 `benchmarks/results/bfcl_notes.md`；
# - 当请求允许并行调用时（`parallel_tool_calls`，除非客户端另有说明，默认为 true），服务器会在模型的调用之后再替它打开一个 `<tool_call>`，只有当模型在里面写的调用是新的、而且其中新出现的值都在问题里时才保留（对这条回复还没调用过的函数，看的是它的必填参数的值）：于是“北京和广州”可以在一条回复里得到两个调用——这个模型自己只会写一个就停下。只由前面已出现的值组成的调用，在两种情况下也会保留：问题用函数名里的某个词点名要它，或者它是问题所要的一张表的下一格（算完第二对点的距离之后，再算它们的角度）。把几个值塞进只收一个值的参数里的调用（`year: [1980, 2016]`）会被拆成每个值一个调用；用点号写的名字（`lawyer.find_nearby`）会被当作提供的 `lawyer_find_nearby`。打开的标签让每条含调用的回复多一次简短的生成；在 BFCL 的并行题目上，打开的标签和拆分一起答对 24 个中的 15 个（关掉时一个也没有；加上重复值的两条规则和点号名字后是 17 个），在上面的十个任务上，这两条让每个框架的成绩变化都不超过一个任务。对单个请求关闭：`extra_body={"reactlab_more_calls": False}`；对整台服务器关闭：`reactlab serve --no-more-calls`。
#
# 客户端强制要求调用时（smolagents 的 `tool_choice="required"`），它从不出手；每一次干预都记在调试视图里（上面的 `server_help()`；替模型打开的调用记在其中的 `more_calls` 下）。对单个请求关闭：`extra_body={"reactlab_help": False}`；对整台服务器关闭：`reactlab serve --no-help`。有一件事不属于帮助，始终开着：一条把同样的调用写了又写的回复，会在第二次重复时被截住（调试视图里的 `repeat_stop`）——客户端拿到的调用不变，只是来得更早。下面把第 3 节的 LangChain 运行再跑一次，关掉帮助——模型的回复就是它写出来的样子：

# %%
# NBVAL_IGNORE_OUTPUT
raw_result, raw_last = langchain_run(question, extra_body={"reactlab_help": False})
print("calls:", [(c.name, c.arguments) for s in raw_result.steps for c in s.tool_calls])
print("last reply's calls:", [(c["name"], c["args"]) for c in raw_last.tool_calls])
print("answer:", repr(raw_result.answer))
print(grade(raw_result, right))
server_help()

# %% [markdown]
# Compare this verdict with section 3's. If both say ✔, the model answered on its own this time
# (section 3's `server help` line then says `none`; this one always says `off for this
# request`). If this one says ✘ and
# section 3's ✔, the difference is the help: `last reply's calls` shows the repeated
# `get_weather` call that LangChain got instead of an answer. The help is a crutch for a 1.5B
# model, not a fix of the framework: with a larger model (or a cloud provider, where
# `reactlab_help` does not exist) the frameworks' own loop is all there is — and the guards of
# notebook 07 are what you would add to it.

# %% [markdown] lang="zh-CN"
# 把这个判定和第 3 节的比一比。如果两个都是 ✔，说明这一次模型自己就答出来了（这时第 3 节的 `server help` 一行是 `none`；这里那一行总是 `off for this request`）。如果这里是 ✘ 而第 3 节是 ✔，差别就在帮助上：`last reply's calls` 显示的正是 LangChain 收到的那个重复的 `get_weather` 调用，而不是一个答案。这种帮助只是给 1.5B 模型的拐杖，不是对框架的修复：换成更大的模型（或者云端服务商，那里没有 `reactlab_help` 这个字段）时，框架自己的循环就是全部——而你要给它加上的，正是第 07 课的护栏。

# %% [markdown]
# ## Recap
#
# Three frameworks, one loop. LangChain hands you the pieces (`bind_tools`, `ToolMessage`) and
# leaves the loop to you — notebook 05's round trip; smolagents and the Agents SDK run the loop
# themselves (`agent.run`, `Runner.run`) and differ in how they end it (a `final_answer` call, a
# reply without calls). All three reach the model through the same `/v1/chat/completions` you
# called by hand in notebook 01, so everything the series showed still holds under them: the chat
# template, the parser, constrained decoding, the stop strings. What they do not bring is the
# verdict and the guards — `ToolRecorder` + `grade` gave the first back; the server's help (or
# your own wrapper, exercise 3) stands in for the second.
#
# | term | 中文 | meaning |
# |---|---|---|
# | agent framework | 智能体框架 | a library that runs the tool-calling loop for you (LangChain, smolagents, the OpenAI Agents SDK …) |
# | OpenAI-compatible endpoint | OpenAI 兼容端点 | a server that speaks `/v1/chat/completions`; a base URL is all a framework needs to use it |
# | `bind_tools` | `bind_tools` | LangChain: attach tools to a chat model, so every request lists them |
# | tool-call chunks | 工具调用分块 | LangChain's streamed argument fragments, joined by adding `AIMessageChunk`s |
# | `final_answer` tool | `final_answer` 工具 | smolagents: the answer is a call to this tool, so every request forces a call |
# | tracing | 链路追踪 | a framework's record of a run, uploaded by default in the Agents SDK; off here |
# | tool recorder | 工具记录器 | `ToolRecorder`: wraps a tool, records each call, builds the RunResult the grader reads |
# | server-side help | 服务端帮助 | the local server re-asks when the model repeats an answered call or replies empty (`reactlab_help`) |
#
# ## Exercises
#
# Each exercise has a starter cell (`answer_N = None`: replace it with your code) and a check
# cell that says ✔, "not attempted yet", or what is still wrong. The checks never call the
# model: they read what your code returned, or try your function on made-up data.
#
# 1. **Two cities through LangChain.** Ask "北京和广州现在哪里更热？" with `langchain_run` (or
#    your own loop) and print its verdict with `Expected(parts=("北京", "广州"))`. Did the model
#    ask for both cities — in one reply or in two rounds? `answer_1`: the RunResult.
# 2. **Read the help.** Write `help_report(debug)`: from a debug view (the JSON of
#    `/v1/debug/last`) return one line per intervention, naming its rule and what the model first
#    wrote (`help.interventions[i]["rule"]` and `["model_wrote"]`); no lines when there is no
#    `help` entry or nothing was done. `answer_2`: the function.
# 3. **The guard on your side.** Write `no_repeat(tool)`: a wrapper that runs each distinct call
#    once and, on a repeat, returns a message with the earlier result instead of running the tool
#    again — the server's first rule, moved into the client, where it works with any provider.
#    Give it to one of the frameworks above. `answer_3`: the function `no_repeat`.

# %% [markdown] lang="zh-CN"
# ## 小结
#
# 三个框架，一个循环。LangChain 把部件交给你（`bind_tools`、`ToolMessage`），循环留给你自己写——就是第 05 课的往返；smolagents 和 Agents SDK 自己跑循环（`agent.run`、`Runner.run`），区别在于怎么结束（一次 `final_answer` 调用，或一条不带调用的回复）。三者都通过你在第 01 课亲手调用过的同一个 `/v1/chat/completions` 访问模型，所以整个系列讲过的东西在它们底下依然成立：聊天模板、解析器、约束解码、停止字符串。它们没有带来的是判定和护栏——`ToolRecorder` + `grade` 补回了前者；服务器的帮助（或者你自己写的包装器，练习 3）暂时顶替后者。
#
# | 术语 | 中文 | 含义 |
# |---|---|---|
# | agent framework | 智能体框架 | 替你运行工具调用循环的库（LangChain、smolagents、OpenAI Agents SDK……） |
# | OpenAI-compatible endpoint | OpenAI 兼容端点 | 支持 `/v1/chat/completions` 的服务器；框架只需要一个 base URL 就能用它 |
# | `bind_tools` | `bind_tools` | LangChain：把工具绑定到聊天模型上，让每次请求都列出它们 |
# | tool-call chunks | 工具调用分块 | LangChain 流式输出中的参数片段，把 `AIMessageChunk` 相加即可拼起来 |
# | `final_answer` tool | `final_answer` 工具 | smolagents：答案就是对这个工具的一次调用，所以每次请求都强制要求调用 |
# | tracing | 链路追踪 | 框架对一次运行的记录，Agents SDK 默认会上传；这里关掉了 |
# | tool recorder | 工具记录器 | `ToolRecorder`：包装一个工具，记录每次调用，拼出评分器要读的 RunResult |
# | server-side help | 服务端帮助 | 模型重复一个已有结果的调用或回复为空时，本地服务器再问一次（`reactlab_help`） |
#
# ## 练习
#
# 每道练习都有一个起始单元格（`answer_N = None`：换成你的代码）和一个检查单元格，后者会显示 ✔、“not attempted yet”（尚未作答），或者还有哪里不对。检查从不调用模型：它们只读取你的代码返回的东西，或者在虚构的数据上试用你的函数。
#
# 1. **用 LangChain 问两个城市。** 用 `langchain_run`（或者你自己的循环）问“北京和广州现在哪里更热？”，并用 `Expected(parts=("北京", "广州"))` 打印它的判定。模型有没有把两个城市都查了——在一条回复里，还是分两轮？`answer_1`：这个 RunResult。
# 2. **读懂帮助。** 写一个 `help_report(debug)`：从一个调试视图（`/v1/debug/last` 的 JSON）里，每次干预返回一行，写明它的规则和模型最初写了什么（`help.interventions[i]["rule"]` 和 `["model_wrote"]`）；没有 `help` 条目或什么都没做时，不返回任何行。`answer_2`：这个函数。
# 3. **放在你这边的护栏。** 写一个 `no_repeat(tool)`：一个包装器，每个不同的调用只执行一次；遇到重复时，不再执行工具，而是返回一条带着先前结果的消息——这就是服务器的第一条规则，搬到了客户端，对任何服务商都管用。把它交给上面的某个框架。`answer_3`：函数 `no_repeat`。

# %%
from reactlab.exercises.nb09 import check_1, check_2, check_3

answer_1 = None  # your code: the RunResult of the two-city question (langchain_run returns it first)

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: your function help_report (the function itself, not called)

# %%
check_2(answer_2)

# %%
answer_3 = None  # your code: your wrapper no_repeat (the function itself)

# %%
check_3(answer_3)

# %% [markdown]
# Solutions: [solutions/09_frameworks_solutions.ipynb](solutions/09_frameworks_solutions.ipynb)
#
# ---
# Prev: [08 · Observability and memory](08_observability_and_memory.ipynb) | Index: [README](../README.md) | Next: the end of the series — back to the [README](../README.md)

# %% [markdown] lang="zh-CN"
# 参考答案：[solutions/09_frameworks_solutions.ipynb](solutions/09_frameworks_solutions.ipynb)
#
# ---
# 上一课：[08 · 可观测性与记忆](08_observability_and_memory.ipynb) | 目录：[README](../../README.zh-CN.md) | 下一课：系列到此结束——回到 [README](../../README.zh-CN.md)
