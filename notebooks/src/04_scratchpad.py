# %% [markdown]
# # 04 · The scratchpad: a ReAct loop by hand
# *Ask, parse, run the tool, hand back the Observation, ask again — and watch the conversation
# grow with every step.*
#
# **After this notebook you can:**
# - write the ReAct loop with a step budget (`max_steps`) in about twenty lines;
# - lay out its messages in both styles the series rebuilds: one growing user message (the
#   weather agent) or alternating assistant / `Observation:` messages (the stock agent);
# - read every request the loop sends and see the scratchpad — and the prompt tokens — grow;
# - read the grader's verdict under a run, and say what it checked;
# - get the same kind of result from `reactlab.react_agent.run_react` and read its `RunResult`.
#
# **Where we are:** notebook 02 gave us `stop=["Observation:"]`, notebook 03 the parser. We
# import `parse_react` and `strip_invented_observation` from `reactlab.parsing`, and the
# prompts from `reactlab.prompts`.
#
# > 两个经典例子：北京和广州的天气（天气智能体，一次只查一个城市），青岛啤酒和贵州茅台的收盘价
# > 哪个贵（股票智能体）。模型要调用两次工具，再比较/汇总。

# %% [markdown] lang="zh-CN"
# # 04 · 草稿本：亲手写一个 ReAct 循环
# *提问、解析、运行工具、交回 Observation、再提问——看着对话随每一步不断变长。*
#
# **学完本篇，你可以：**
# - 用二十行左右写出带步数预算（`max_steps`）的 ReAct 循环；
# - 用本系列重建的两种风格组织它的消息：一条不断变长的 user 消息（天气智能体），或者 assistant 消息与 `Observation:` 消息交替出现（股票智能体）；
# - 读懂循环发出的每一个请求，看着草稿本——以及提示词的 token 数——不断增长；
# - 读懂一次运行下方评分器给出的判定，说出它检查了什么；
# - 用 `reactlab.react_agent.run_react` 得到同一类结果，并读懂它返回的 `RunResult`。
#
# **当前进度：** 第 02 篇给了我们 `stop=["Observation:"]`，第 03 篇给了我们解析器。我们从 `reactlab.parsing` 导入 `parse_react` 和 `strip_invented_observation`，从 `reactlab.prompts` 导入提示词。
#
# > 两个经典例子：北京和广州的天气（天气智能体，一次只查一个城市），青岛啤酒和贵州茅台的收盘价
# > 哪个贵（股票智能体）。模型要调用两次工具，再比较/汇总。

# %% [markdown]
# ## Setup
#
# The first line pins "today" (notebook 00 explains why); only exercise 2 asks for the date,
# but every notebook that talks to the model starts the same way.

# %% [markdown] lang="zh-CN"
# ## 环境准备
#
# 第一行把"今天"固定下来（原因见第 00 篇）；只有练习 2 会问日期，但每个和模型对话的 notebook 都以同样的方式开头。

# %%
# NBVAL_IGNORE_OUTPUT
import os
from dataclasses import replace

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
import reactlab
from reactlab.grader import Expected, grade, unsupported_figures
from reactlab.parsing import FinalAnswer, ReActParseError, parse_react, strip_invented_observation
from reactlab.prompts import load_template, react_system_prompt, react_user_message
from reactlab.react_agent import run_react
from reactlab.report import format_step
from reactlab.runlog import RunResult, Step, ToolCallRecord
from reactlab.tools import ToolRegistry, get_closing_price, get_weather

conn = reactlab.connect()
conn

# %% [markdown]
# ## 1. Tools are data plus a function
#
# The model never runs anything. It reads a *description* of each tool in the system prompt
# and writes a request; our code looks the tool up by name and runs it. A `ToolRegistry` keeps
# both halves together: `describe()` is what the model reads, `run(name, args)` is what we do.

# %% [markdown] lang="zh-CN"
# ## 1. 工具 = 数据 + 函数
#
# 模型从不运行任何东西。它在系统提示词里读到每个工具的*描述*，然后写出一个请求；我们的代码按名字找到工具并运行它。`ToolRegistry` 把这两半放在一起：`describe()` 是给模型读的，`run(name, args)` 是我们要做的事。

# %%
weather_tools = ToolRegistry([get_weather])
stock_tools = ToolRegistry([get_closing_price])
print(weather_tools.describe())
print(stock_tools.describe())

# %% [markdown]
# `run` returns `(observation, is_error)` and never raises: a bad tool name, bad arguments or a
# failing tool all come back as text the model can read and correct.

# %% [markdown] lang="zh-CN"
# `run` 返回 `(observation, is_error)`，而且从不抛异常：工具名写错、参数不对、工具本身出错，都会变成模型能读懂、能据此改正的文本返回。

# %%
print(weather_tools.run("get_weather", {"location": "北京"}))
print(stock_tools.run("get_closing_price", {"name": "贵州茅台"}))
print(weather_tools.run("get_weather", {"city": "广州"}))

# %% [markdown]
# ## 2. Seeing what we send
#
# The point of this notebook is to *see* the conversation. Every request starts with the same
# system prompt: the instructions, the tool descriptions and the format. Here it is once, in
# full — from now on a request shows it as one line, "(the system prompt printed above …)":

# %% [markdown] lang="zh-CN"
# ## 2. 看清我们发出了什么
#
# 这个 notebook 的重点就是*看见*对话。每个请求都以同一段系统提示词开头：指令、工具描述和格式要求。这里完整打印一次——之后每个请求里它只显示成一行 "(the system prompt printed above …)"（即"上面打印过的系统提示词"）：

# %%
print(react_system_prompt(weather_tools, style="json"))

# %% [markdown]
# The helper below prints one request's messages: the system prompt as that one line, every
# other message in full unless it is very long (then its first and last lines).

# %% [markdown] lang="zh-CN"
# 下面的辅助函数打印一个请求里的所有消息：系统提示词显示成上面说的那一行，其他消息完整打印，除非特别长（那就只显示开头和结尾的若干行）。

# %%
def clip_lines(text: str, max_lines: int = 30) -> list[str]:
    """The text's lines; a long text as head + tail with a marker saying how much was left out."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return lines
    head, tail = lines[: max_lines * 2 // 3], lines[-(max_lines // 3):]
    return head + [f"[… {len(lines) - len(head) - len(tail)} lines not shown …]"] + tail


def show_request(title: str, messages: list[dict], max_lines: int = 30) -> None:
    total = sum(len(m["content"]) for m in messages)
    print(f"┌── {title}: {len(messages)} messages, {total:,} characters")
    for m in messages:
        body = m["content"]
        if m["role"] == "system":
            body = f"(the system prompt printed above, {len(body):,} characters)"
        print(f"│ [{m['role']}]\n" + "\n".join("│   " + ln for ln in clip_lines(body, max_lines)))
    print("└──")

# %% [markdown]
# ## 3. The loop, weather-agent style: one growing user message
#
# The weather agent rebuilds the same two messages for every request: the system prompt, and
# one user message holding `Question: …` followed by the **scratchpad** — every Thought/Action
# the model wrote so far, each followed by the real Observation. The loop:
#
# 1. build the messages, send them with `stop=["Observation:"]`;
# 2. clean the reply (`strip_invented_observation`) and parse it;
# 3. a `FinalAnswer` ends the run; an `Action` runs the tool; a parse error becomes the
#    Observation, so the model gets to fix its format;
# 4. append reply + `Observation: …` to the scratchpad; repeat — at most `max_steps` times.
#
# A step budget is not optional: a model that never writes a Final Answer would otherwise keep
# us (and the bill) running forever.
#
# Steps 1–3 are the same in both layouts of this notebook, so they get their own function. It
# records each request as a `Step` (the package's record of one request, from
# `reactlab.runlog`): the reply, its prompt tokens, and the tool call with its result.

# %% [markdown] lang="zh-CN"
# ## 3. 天气智能体风格的循环：一条不断变长的 user 消息
#
# 天气智能体每次请求都重建同样的两条消息：系统提示词，以及一条 user 消息——里面是 `Question: …`，后面跟着**草稿本**（scratchpad）：模型到目前为止写下的每一段 Thought/Action，每段后面跟着真实的 Observation。循环如下：
#
# 1. 构建消息，带上 `stop=["Observation:"]` 发送；
# 2. 清理回复（`strip_invented_observation`）并解析；
# 3. 遇到 `FinalAnswer` 就结束运行；遇到 `Action` 就运行工具；解析错误则变成 Observation，让模型有机会修正自己的格式；
# 4. 把回复 + `Observation: …` 追加到草稿本；重复——最多 `max_steps` 次。
#
# 步数预算不是可有可无的：否则，一个永远不写 Final Answer 的模型会让我们（还有账单）一直跑下去。
#
# 第 1–3 步在本篇的两种布局里完全相同，所以单独写成一个函数。它把每个请求记录成一个 `Step`（包里对单个请求的记录，来自 `reactlab.runlog`）：回复、提示词 token 数，以及工具调用和它的结果。

# %%
def ask(messages, tools, number, style):
    """One request: send, clean, parse, run the tool. Returns (Step, answer, observation)."""
    reply = conn.client.chat.completions.create(
        model=conn.model, messages=messages, stop=["Observation:"], max_tokens=256, temperature=0)
    text = strip_invented_observation(reply.choices[0].message.content or "")
    step = Step(number, "action", text, prompt_tokens=reply.usage.prompt_tokens)
    print(f"── request {number}: {len(messages)} messages, "
          f"{sum(len(m['content']) for m in messages):,} characters, {step.prompt_tokens} prompt tokens"
          f"\n   MODEL: {' '.join(text.split())[:300]}")
    try:
        parsed = parse_react(text, style=style)
    except ReActParseError as exc:
        step.kind, step.error = "parse_error", str(exc)  # the Observation says what to fix
        observation = step.error
    else:
        if isinstance(parsed, FinalAnswer):
            step.kind = "final"
            return step, parsed.answer, None
        observation, is_error = tools.run(parsed.tool, parsed.args)
        step.tool_calls.append(ToolCallRecord(parsed.tool, parsed.args, observation, error=is_error))
    print(f"   OBSERVATION: {observation[:110]}{' …' if len(observation) > 110 else ''}")
    return step, None, observation

# %% [markdown]
# The loop itself only lays out the messages. It returns a `RunResult`, the package's record
# of a whole run (question, answer, status, steps, the last messages sent), so that what we
# build by hand can be checked the same way as the package's runs later on.

# %% [markdown] lang="zh-CN"
# 循环本身只负责组织消息。它返回一个 `RunResult`——包里对一次完整运行的记录（问题、答案、状态、各个步骤、最后发送的消息）——这样我们亲手搭的循环，之后就能和包里的运行用同样的方式来检查。

# %%
def react_scratchpad(question, tools, max_steps=5, style="json"):
    """The weather agent's loop: one user message rebuilt around the scratchpad."""
    system, scratchpad, steps = react_system_prompt(tools, style=style), "", []
    for number in range(1, max_steps + 1):
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": react_user_message(question, scratchpad, style=style)}]
        step, answer, observation = ask(messages, tools, number, style)
        steps.append(step)
        if answer is not None:
            return RunResult(question, answer, "final", steps, messages=messages)
        scratchpad += f"{step.text}\nObservation: {observation}\n"
    print(f"— no Final Answer within max_steps={max_steps} —")
    return RunResult(question, None, "max_steps", steps, messages=messages,
                     meta={"scratchpad": scratchpad})

# %% [markdown]
# ### The verdict line
#
# From here on, every run in the series is followed by one line from the grader,
# `reactlab.grader.grade(result, Expected(...))`. It reads the run's record — the question,
# every tool result, the answer — and checks, without asking any model:
#
# - that the run ended with an answer of its own (not a budget running out, not an error, not
#   the question handed back);
# - that every figure in the answer comes from a tool result, the question or a calculation;
# - that every name the question asks about (北京 *and* 广州) got its own tool result, and that
#   figures are given to the right name (none to a name whose lookup failed: saying it failed
#   covers that name) and comparisons agree with the numbers; when the question asks for each
#   one's figure ("分别是多少"), every one is stated, not the mean alone;
# - that the counts the question asks for are stated and right: for "到 2027-01-01 还有多少天" the
#   days from the date get_today gave (306 from 2026-03-01, however the model counted), the
#   total of "每天存 5 元" over those days, and a mean or total of the readings that is theirs;
# - what we know about the right answer: `Expected(parts=…)` names to cover, `figures=…` figures
#   the answer must state, `winner=…` the name a comparison must come out with.
#
# It prints `verdict: ✔ <why>` or `verdict: ✘ <every reason>`. It does not judge wording,
# language or politeness. Run the loop on the weather question. Between the lines: each request's
# size, the model's reply (on one line) and the tool's result. The verdict comes last:

# %% [markdown] lang="zh-CN"
# ### 判定行
#
# 从这里开始，本系列的每次运行下面都跟着评分器输出的一行：`reactlab.grader.grade(result, Expected(...))`。它读取这次运行的记录——问题、每一个工具结果、答案——在不询问任何模型的情况下检查：
#
# - 运行是以它自己给出的答案结束的（不是预算耗尽，不是出错，也不是把问题原样交回来）；
# - 答案里的每个数字都来自某个工具结果、问题本身或一次计算；
# - 问题问到的每个名字（北京*和*广州）都有自己的工具结果，数字对应到了正确的名字上（查询失败的名字不该有数字：说明查询失败就算答到了），比较的结论也与数字相符；问题要每个名字的数字（“分别是多少”）时，每个都要说出来，不能只给一个平均数；
# - 问题要的数都说出来了，而且是对的：“到 2027-01-01 还有多少天”要有从 get_today 给的日期算起的天数（从 2026-03-01 算是 306，不管模型是怎么数的），“每天存 5 元”要有这些天的总数，说出的读数平均或总和要真是那几个读数的；
# - 我们对正确答案已知的内容：`Expected(parts=…)` 列出必须覆盖的名字，`figures=…` 列出答案必须给出的数字，`winner=…` 给出比较必须得出的那个名字。
#
# 它打印 `verdict: ✔ <why>` 或 `verdict: ✘ <every reason>`（✔ 后面是理由，✘ 后面列出每一条理由）。它不评判措辞、语言或礼貌。下面在天气问题上跑这个循环。各行依次是：每个请求的大小、模型的回复（压成一行）和工具的结果。判定在最后：

# %%
# NBVAL_IGNORE_OUTPUT
weather_q = "北京和广州的天气怎么样？"
weather_run = react_scratchpad(weather_q, weather_tools)
print("ANSWER:", weather_run.answer)
print(grade(weather_run, Expected(parts=("北京", "广州"))))

# %% [markdown]
# If the verdict says ✘, read its reasons before the answer: they say which city lacks a tool
# result or got another city's figures. The last request shows the whole scratchpad the model
# read before it answered — the user message has grown by every reply and Observation:

# %% [markdown] lang="zh-CN"
# 如果判定是 ✘，先读它给出的理由，再看答案：理由会说明哪个城市缺少工具结果，或者拿了另一个城市的数字。最后一个请求展示了模型作答前读到的完整草稿本——这条 user 消息随着每一条回复和 Observation 不断变长：

# %%
# NBVAL_IGNORE_OUTPUT
show_request(f"request {len(weather_run.steps)}, the last one", weather_run.messages)

# %% [markdown]
# ## 4. The loop, stock-agent style: a growing list of messages
#
# The stock agent keeps a chat instead: the model's reply is appended as an `assistant`
# message, the tool result as a `user` message `Observation: …`. The system prompt and the
# question are never rebuilt — new messages are only appended. It uses the `Action` /
# `Action Input` prompt (`style="action_input"`), with its "Do I need to use a tool?" line.
# That is a different system prompt, so here it is once:

# %% [markdown] lang="zh-CN"
# ## 4. 股票智能体风格的循环：一个不断变长的消息列表
#
# 股票智能体维护的是一段聊天：模型的回复作为 `assistant` 消息追加，工具结果作为 `user` 消息 `Observation: …` 追加。系统提示词和问题从不重建——只在后面追加新消息。它用的是 `Action` / `Action Input` 提示词（`style="action_input"`），里面有那行 "Do I need to use a tool?"（要不要使用工具？）。这是另一段系统提示词，所以也完整打印一次：

# %%
print(react_system_prompt(stock_tools, style="action_input"))

# %%
def react_chat(question, tools, max_steps=5, style="action_input"):
    """The stock agent's loop, with a step budget: a chat that only grows."""
    messages = [{"role": "system", "content": react_system_prompt(tools, style=style)},
                {"role": "user", "content": react_user_message(question, style=style)}]
    steps = []
    for number in range(1, max_steps + 1):
        step, answer, observation = ask(messages, tools, number, style)
        steps.append(step)
        if answer is not None:
            return RunResult(question, answer, "final", steps, messages=messages)
        messages = messages + [{"role": "assistant", "content": step.text},
                               {"role": "user", "content": f"Observation: {observation}"}]
    print(f"— no Final Answer within max_steps={max_steps} —")
    return RunResult(question, None, "max_steps", steps, messages=messages[:-2])

# %% [markdown]
# The question asks which price is higher (贵), so the one thing we know about the right answer
# is its winner: 贵州茅台 (1488.21 against 青岛啤酒's 67.92). The answer need not quote the prices.

# %% [markdown] lang="zh-CN"
# 问题问的是哪个价格更高（贵），所以我们对正确答案唯一知道的是赢家：贵州茅台（1488.21，青岛啤酒是 67.92）。答案不必写出价格。

# %%
# NBVAL_IGNORE_OUTPUT
stock_q = "青岛啤酒和贵州茅台的收盘价哪个贵？"
stock_run = react_chat(stock_q, stock_tools)
print("ANSWER:", stock_run.answer)
print(grade(stock_run, Expected(winner="贵州茅台")))

# %% [markdown]
# The last request, in this layout: the messages are appended, never rebuilt.

# %% [markdown] lang="zh-CN"
# 这种布局下的最后一个请求：消息只追加，从不重建。

# %%
# NBVAL_IGNORE_OUTPUT
show_request(f"request {len(stock_run.steps)}, the last one", stock_run.messages)

# %% [markdown]
# ## 5. The growth, in numbers
#
# Every request resends everything before it. In both styles the prompt grows by the model's
# reply plus the Observation at every step, and we pay for the whole prompt every time (a
# server with a prompt cache, like ours, at least skips recomputing the unchanged beginning).

# %% [markdown] lang="zh-CN"
# ## 5. 增长，用数字说话
#
# 每个请求都会把之前的所有内容重新发送一遍。两种风格下，提示词每一步都会增加"模型的回复 + Observation"这么多，而我们每次都要为整个提示词付费（带提示词缓存的服务器——比如我们用的这个——至少不必重新计算没变的前缀）。

# %%
# NBVAL_IGNORE_OUTPUT
for name, run in (("weather agent layout", weather_run), ("stock agent layout  ", stock_run)):
    tokens = [s.prompt_tokens for s in run.steps]
    growth = [b - a for a, b in zip(tokens, tokens[1:])]
    print(f"{name}: prompt tokens {tokens}  (+{growth} per step), total sent {sum(tokens)}")

# %% [markdown]
# With two tool calls this is harmless. Notebook 07 feeds the loop a document search whose
# results run to thousands of characters (its section 1 prints their sizes), and then this
# growth is the whole problem.
#
# ## 6. Did the answers use the Observations?
#
# A Final Answer is text the model wrote; nothing guarantees that it rests on the tool results.
# The grader checked that above. Here is one of its checks done by hand, so you can see what it
# looks at: for each city / stock, did a tool result for it come back, does the answer name it,
# and does the answer contain the number the tool returned?

# %% [markdown] lang="zh-CN"
# 只有两次工具调用时，这无伤大雅。第 07 篇会给循环接上一个文档搜索工具，它返回的结果动辄几千个字符（那一篇的第 1 节会打印出这些长度），那时这种增长就成了问题的症结。
#
# ## 6. 答案用上 Observation 了吗？
#
# Final Answer 是模型写的文本；没有任何机制保证它以工具结果为依据。上面评分器已经检查过这一点。这里手工做一遍它的其中一项检查，让你看清它看的是什么：对每个城市 / 每只股票，它的工具结果有没有返回，答案有没有提到它，答案里有没有工具返回的那个数字？

# %%
# NBVAL_IGNORE_OUTPUT
def audit(run, facts):
    """facts: {name: number the tool returns for it}. Prints one line per name."""
    if run.answer is None:
        print("  no answer to check")
        return
    results = [c.observation for s in run.steps for c in s.tool_calls if not c.error]
    for name, number in facts.items():
        got = any(r.startswith(name) for r in results)
        named = name in run.answer
        warn = "   <- named, but no tool result covered it" if named and not got else ""
        print(f"  {name}: tool result {got!s:<5}| named in the answer {named!s:<5}| "
              f"tool's number {number} in the answer {number in run.answer}{warn}")


print("weather:", weather_run.answer)
audit(weather_run, {"北京": "23.4", "广州": "24.2"})  # the bundled snapshot
print("stocks:", stock_run.answer)
audit(stock_run, {"青岛啤酒": "67.92", "贵州茅台": "1488.21"})

# %% [markdown]
# Read the flags, not just the answers. An answer that names a city for which no tool result
# ever arrived is the invented-Observation problem of notebook 02 again, one level up: `stop`
# keeps the model from *writing* an Observation, but nothing in this loop keeps it from
# answering before it has asked for everything it needs. A missing number, on the other hand,
# is not necessarily an error (the model may round 23.4 to 23, or just name the winner) — the
# grader accepts a rounding, and accepts an answer that only names the right winner.
# Notebook 07 returns to answers that do not match their Observations.
#
# ## 7. Watch it break: the budget runs out
#
# What happens when the step budget is too small for the task? Give the weather question one
# step only. The model needs at least two tool calls and an answer, so the loop ends without
# one — or, if the model answers at once, with an answer no tool result supports:

# %% [markdown] lang="zh-CN"
# 看标记，而不只是看答案。如果答案提到了某个城市，却从没收到过它的工具结果，那就是第 02 篇里编造 Observation 的问题换了一层又出现了：`stop` 能阻止模型*写出* Observation，但这个循环里没有任何东西能阻止模型在问全所需信息之前就作答。反过来，缺了某个数字不一定是错误（模型可能把 23.4 四舍五入成 23，或者只说出赢家）——评分器接受四舍五入，也接受只说出正确赢家的答案。第 07 篇会再回到答案与 Observation 对不上的问题。
#
# ## 7. 看它出错：预算耗尽
#
# 如果步数预算对任务来说太小，会怎样？只给天气问题一步。模型至少需要两次工具调用再加一次作答，所以循环会在没有答案的情况下结束——或者，如果模型一上来就作答，得到的是一个没有任何工具结果支撑的答案：

# %%
# NBVAL_IGNORE_OUTPUT
# demo: break
short_run = react_scratchpad(weather_q, weather_tools, max_steps=1)
print("ANSWER:", short_run.answer)
print(grade(short_run, Expected(parts=("北京", "广州"))))

# %% [markdown]
# A user who waited gets nothing — although the model *did* learn something (an Observation
# may be in the scratchpad). The fix the package uses: when a budget runs out, send **one**
# last request that asks for the best answer from what is known, and label the result as such:

# %% [markdown] lang="zh-CN"
# 等了半天的用户什么也没拿到——尽管模型*确实*得到了一些信息（草稿本里可能已经有一条 Observation）。包里采用的补救办法是：预算耗尽时，再发**一个**最后的请求，要求模型根据已知信息给出最好的答案，并如实标明这个结果是这样得来的：

# %%
print(load_template("final_request"))

# %%
# NBVAL_IGNORE_OUTPUT
# demo: break
closed = replace(short_run, steps=list(short_run.steps))  # a copy: re-running asks again
if closed.answer is None:
    messages = [{"role": "system", "content": react_system_prompt(weather_tools)},
                {"role": "user", "content": react_user_message(weather_q, closed.meta["scratchpad"])},
                {"role": "user", "content": load_template("final_request")}]
    last = conn.client.chat.completions.create(model=conn.model, messages=messages,
                                               stop=["Observation:"], max_tokens=200, temperature=0)
    text = strip_invented_observation(last.choices[0].message.content or "")
    closed.steps.append(Step(len(closed.steps) + 1, "final_request", text))
    closed.answer = text.split("Final Answer:", 1)[-1].strip()  # the status stays max_steps
print("ANSWER:", closed.answer)
fetched = [c.observation.split(":")[0] for s in closed.steps for c in s.tool_calls if not c.error]
print("tool results came back for:", fetched or "nothing")
print("figures no result supports :", unsupported_figures(closed.answer, closed) or "none")
print(grade(closed, Expected(parts=("北京", "广州"))))

# %% [markdown]
# Compare the last three lines. A figure in the answer that no tool result supports is a figure
# the model made up, for a city nothing was fetched for — and the verdict says so: it lists
# those figures, or says a city was given another city's figures.
# The final request asks for an answer "with what you already know", and nothing stops a small
# model from filling the gap anyway. If the answer gives figures only for the fetched city (or,
# with nothing fetched, gives none and declines to answer), it is honest but incomplete, and the
# verdict says that instead. Either way the run did not finish
# normally, and the record must say so: the status stays `max_steps` next to the answer, and
# the verdict's first reason says the budget ended the run.
#
# ## 8. This now lives in the package
#
# `reactlab.react_agent.run_react` is this loop with the rough edges handled: both message
# layouts (`messages_style="scratchpad"` or `"chat"`), both prompt styles, `stop` (or a
# client-side cut), parse errors and tool errors fed back as Observations within a budget,
# the final request when a budget runs out (sent as plain chat — the question and every tool
# result listed, no Thought or Action format to continue — and once more when its reply is no
# answer), and guards against loops and huge Observations (notebook 07). It returns the same `RunResult` our loops built: `answer`, `status`, one
# `Step` per request (with its tokens and latency), `usage`, and the last `messages` sent, with
# the model's reply to them appended. `format_step` prints one step per line, ending with its
# time, its prompt + completion tokens and how many prompt tokens came from the cache.
#
# The weather question, in the weather agent's layout — a success demo:
# [`benchmarks/results/demos.md`](../benchmarks/results/demos.md) says how often it held in ten
# replays.

# %% [markdown] lang="zh-CN"
# 对比最后三行。答案里没有任何工具结果支持的数字，是模型给一个什么都没查到的城市编出来的——判定也会这么说：它会列出这些数字，或者指出某个城市拿了另一个城市的数字。最终请求要求模型 "with what you already know"（根据已经知道的信息）作答，但没有任何东西能阻止一个小模型照样把空缺填上。如果答案只给出了已经查到的那个城市的数字（或者什么都没查到、一个数字也不给，干脆拒绝作答），它是诚实的，但不完整，判定会如实指出这一点。无论哪种情况，这次运行都没有正常结束，记录里必须写明这一点：答案旁边的状态仍然是 `max_steps`，判定的第一条理由会说明是预算结束了这次运行。
#
# ## 8. 这些现在都在包里了
#
# `reactlab.react_agent.run_react` 就是这个循环，只是把粗糙的地方都处理好了：两种消息布局（`messages_style="scratchpad"` 或 `"chat"`）、两种提示词风格、`stop`（或在客户端截断）、在预算之内把解析错误和工具错误作为 Observation 发回、预算耗尽时的最终请求（以普通对话的形式发出——列出问题和每个工具结果，没有可以接着写的 Thought 或 Action 格式；回复不是答案时再发一次），以及防止死循环和超大 Observation 的护栏（第 07 篇）。它返回的 `RunResult` 和我们的循环构建的一样：`answer`、`status`、每个请求一个 `Step`（含 token 数和延迟）、`usage`，以及最后发送的 `messages`（后面接着模型对它们的回复）。`format_step` 每一步打印一行，结尾是它的耗时、提示词 + 补全的 token 数，以及有多少提示词 token 来自缓存。
#
# 天气问题，用天气智能体的布局——这是一个成功演示：[`benchmarks/results/demos.md`](../../benchmarks/results/demos.md) 记录了它在十次重放中成立了几次。

# %%
# NBVAL_IGNORE_OUTPUT
# demo: success
r1 = run_react(weather_q, tools=weather_tools, conn=conn, max_steps=5,
               style="json", messages_style="scratchpad")
for step in r1.steps:
    print(format_step(step))
print(f"\nstatus={r1.status!r}  answer={r1.answer!r}\nusage={r1.usage}")
print(grade(r1, Expected(parts=("北京", "广州"))))

# %% [markdown]
# The slip to look for (this model made it in the hand-written loops while this notebook was
# written): both cities in one call, refused by the tool, then only 北京 fetched — and 广州
# given 北京's figures in the answer. `run_react` has the guards of notebook 07: a step of kind
# `ungrounded` is an answer the grader caught before it was accepted. A `fetch hint` event
# follows a call that failed, or a fetch a hint asked for, while a city still has no result: the
# guards name the next call ("Call get_weather for 北京 now") and require a call. After either,
# on reactlab's own server the next reply can only be an Action (its events say `constrained
# to an Action`).
# Whatever happened this time, the verdict is the answer key; if it is ✘, its reasons say what
# went wrong.
#
# The stock question, in the stock agent's layout:

# %% [markdown] lang="zh-CN"
# 要留意的错误（编写这个 notebook 时，这个模型在手写的循环里犯过）：把两个城市塞进一次调用，被工具拒绝，然后只查了北京——答案里却给广州套上了北京的数字。`run_react` 带着第 07 篇的护栏：类型为 `ungrounded` 的步骤，是评分器在接受之前拦下的答案。`fetch hint` 事件跟在一次失败的调用、或一次按提示做的取数之后，而某个城市还没有结果时：护栏点出下一次该做的调用（“Call get_weather for 北京 now”），并要求必须调用。这两种情况之后，在 reactlab 自己的服务器上，下一次回复只能是一个 Action（它的事件里写着 `constrained to an Action`）。不管这次发生了什么，判定就是参考答案；如果它是 ✘，它列出的理由会说明哪里出了错。
#
# 股票问题，用股票智能体的布局：

# %%
# NBVAL_IGNORE_OUTPUT
# demo: success
r2 = run_react(stock_q, tools=stock_tools, conn=conn, max_steps=5,
               style="action_input", messages_style="chat")
for step in r2.steps:
    print(format_step(step))
print(f"\nstatus={r2.status!r}  answer={r2.answer!r}\nusage={r2.usage}")
print(grade(r2, Expected(winner="贵州茅台")))

# %% [markdown]
# Same kind of result as our loops? The package sends the same prompts in the same layouts
# until one of its guards (notebook 07) adds a line: a `told the model` note or a guard event in
# the steps above marks where the runs part. Even without one they need not match: as notebook
# 02 said, two identical requests at `temperature=0` are not guaranteed to produce identical
# text (the engine's numbers differ slightly when a prompt's start comes from its cache). The four runs side
# by side, each with its verdict:

# %% [markdown] lang="zh-CN"
# 和我们的循环得到的是同一类结果吗？包发送的是同样布局下的同样提示词，直到它的某个护栏（第 07 课）加上一句话为止：上面步骤里的 `told the model` 提示或护栏事件，标出了两边从哪里开始分岔。即使没有护栏插手，它们也不一定对得上：正如第 02 篇所说，在 `temperature=0` 下，两个完全相同的请求也不保证生成完全相同的文本（提示词的开头来自引擎的缓存时，引擎算出的数值会有细微差别）。下面把四次运行并排列出，各自带着判定：

# %%
# NBVAL_IGNORE_OUTPUT
def calls(result):
    return [f"{c.name}({c.arguments})" for s in result.steps for c in s.tool_calls]


rows = [("weather", "our loop", weather_run), ("weather", "package", r1),
        ("stocks", "our loop", stock_run), ("stocks", "package", r2)]
expect = {"weather": Expected(parts=("北京", "广州")), "stocks": Expected(winner="贵州茅台")}
for task, who, run in rows:
    verdict = grade(run, expect[task])
    print(f"{task:<8}{who:<9} {'✔' if verdict.ok else '✘'} {run.status:<9} {calls(run)}\n"
          f"{'':18}answer: {run.answer}")

# %% [markdown]
# The last request the package sent is in `r1.messages` — the same two-message layout our loop
# printed, scratchpad included (its first two entries; the third is the model's reply):

# %% [markdown] lang="zh-CN"
# 包发出的最后一个请求在 `r1.messages` 里——和我们的循环打印过的一样，是两条消息的布局，草稿本也在里面（就是它的前两条；第三条是模型的回复）：

# %%
# NBVAL_IGNORE_OUTPUT
show_request(f"request {len(r1.steps)} of run_react", r1.messages[:2])

# %% [markdown]
# From here on, the series calls `run_react` and never redefines the loop.
#
# ## Recap
#
# - The ReAct loop: send, parse, run the tool, append reply + `Observation:`, repeat; stop at a
#   Final Answer or when `max_steps` runs out.
# - Two layouts carry the same text: one user message rebuilt around a growing scratchpad
#   (the weather agent), or a chat of assistant replies and `Observation:` user messages (the
#   stock agent).
# - Parse errors and tool errors go back to the model as Observations; the loop never crashes
#   on what the model wrote.
# - Every step resends everything: the prompt grows with each reply and Observation.
# - A budget that runs out gets one final "answer with what you know" request, and the run's
#   status says the budget ended it.
# - `grade(result, Expected(...))` says ✔ or ✘ under every run: the answer checked against the
#   run's own tool results, not against its wording.
#
# | term | 中文 | meaning |
# |---|---|---|
# | agent loop | 智能体循环 | the program that alternates model calls and tool calls until an answer |
# | scratchpad | 草稿本 | the Thought/Action/Observation text so far, sent back every step |
# | tool registry | 工具注册表 | the tools by name: descriptions for the model, functions for us |
# | step | 步骤 | one request to the model (and the tool call it asked for) |
# | `max_steps` | 步数预算 | the step budget; guarantees the loop ends |
# | final request | 最终请求 | one last request asking for the best answer when a budget ran out |
# | `RunResult` | 运行记录 | the record of a run: answer, status, steps, usage, messages |
# | verdict | 判定 | the grader's ✔ / ✘ line: is the answer supported by the run's tool results? |
#
# ## Exercises
#
# Each exercise has a cell to fill in and a check cell under it; the check reads what your code
# returned (it never calls the model) and prints ✔, "not attempted yet", or what is still wrong.
#
# 1. **Swap the layouts.** Run `react_scratchpad` on the stock question and `react_chat` on the
#    weather question. Set `answer_1` to the two results, `(stock_result, weather_result)`, and
#    print each one's verdict. Does the model make the same tool calls as before?
# 2. **What day is it?** Add `get_today` (from `reactlab.tools`) to a registry and ask
#    `今天是几号？` with one of the loops (or `run_react`). Set `answer_2` to the result. How many
#    steps did it take? (The pinned "today" is 2026-03-01.)
# 3. **The same call twice.** Write `same_call_twice(calls)`: given a list of `(tool, args)`
#    pairs in the order the model asked for them, return True when the last two are identical.
#    Set `answer_3` to the function, then use it to make `react_chat` stop early (and say so)
#    when the model repeats itself.
# 4. **All six tools.** Run `run_react(..., tools=default_registry())` (all six course tools, from
#    `reactlab.tools`) on the weather question and set `answer_4` to the result. How many prompt
#    tokens does step 1 cost now (`answer_4.steps[0].prompt_tokens`), and why?
#
# Solutions: [solutions/04_scratchpad_solutions.ipynb](solutions/04_scratchpad_solutions.ipynb)

# %% [markdown] lang="zh-CN"
# 从这里开始，本系列直接调用 `run_react`，不再重新定义这个循环。
#
# ## 小结
#
# - ReAct 循环：发送、解析、运行工具、追加回复 + `Observation:`、重复；遇到 Final Answer 或 `max_steps` 用完时停止。
# - 两种布局承载的是同样的文本：一条围绕不断变长的草稿本重建的 user 消息（天气智能体），或者一段由 assistant 回复和 `Observation:` user 消息组成的聊天（股票智能体）。
# - 解析错误和工具错误都作为 Observation 发回给模型；不管模型写了什么，循环都不会崩溃。
# - 每一步都把所有内容重新发送一遍：提示词随着每条回复和 Observation 增长。
# - 预算耗尽时，再发一个"根据已知信息作答"的最终请求，运行的状态会说明是预算结束了它。
# - `grade(result, Expected(...))` 在每次运行下面给出 ✔ 或 ✘：答案对照的是这次运行自己的工具结果，而不是它的措辞。
#
# | 术语 | 中文 | 含义 |
# |---|---|---|
# | agent loop | 智能体循环 | 交替调用模型和工具、直到得出答案的程序 |
# | scratchpad | 草稿本 | 到目前为止的 Thought/Action/Observation 文本，每一步都重新发送 |
# | tool registry | 工具注册表 | 按名字登记的工具：描述给模型看，函数给我们调用 |
# | step | 步骤 | 对模型的一次请求（以及它要求的那次工具调用） |
# | `max_steps` | 步数预算 | 允许的最多步数；保证循环一定会结束 |
# | final request | 最终请求 | 预算耗尽时，要求模型给出最好答案的最后一个请求 |
# | `RunResult` | 运行记录 | 一次运行的记录：答案、状态、步骤、用量、消息 |
# | verdict | 判定 | 评分器的 ✔ / ✘ 那一行：答案有没有这次运行的工具结果支撑？ |
#
# ## 练习
#
# 每道练习都有一个待填写的单元格，下面是它的检查单元格；检查读取的是你的代码返回的内容（它从不调用模型），并打印 ✔、"not attempted yet"，或者还有哪里不对。
#
# 1. **交换布局。** 用 `react_scratchpad` 跑股票问题，用 `react_chat` 跑天气问题。把 `answer_1` 设为这两个结果 `(stock_result, weather_result)`，并打印各自的判定。模型调用的工具和之前一样吗？
# 2. **今天几号？** 把 `get_today`（来自 `reactlab.tools`）加进一个注册表，用其中一个循环（或 `run_react`）问 `今天是几号？`。把 `answer_2` 设为结果。用了几步？（固定下来的"今天"是 2026-03-01。）
# 3. **同一个调用两次。** 写一个 `same_call_twice(calls)`：参数是一个 `(tool, args)` 列表，按模型请求的先后排列，最后两个完全相同时返回 True。把 `answer_3` 设为这个函数，再用它让 `react_chat` 在模型重复自己时提前停下（并说明原因）。
# 4. **全部六个工具。** 在天气问题上运行 `run_react(..., tools=default_registry())`（本系列的全部六个工具，来自 `reactlab.tools`），把 `answer_4` 设为结果。现在第 1 步要花多少提示词 token（`answer_4.steps[0].prompt_tokens`），为什么？
#
# 参考答案：[solutions/04_scratchpad_solutions.ipynb](solutions/04_scratchpad_solutions.ipynb)

# %%
from reactlab.exercises.nb04 import check_1, check_2, check_3, check_4

answer_1 = None  # your code: (react_scratchpad(stock_q, ...), react_chat(weather_q, ...))

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: the run that asked 今天是几号？ with get_today in its registry

# %%
check_2(answer_2)

# %%
answer_3 = None  # your code: def same_call_twice(calls): ...; answer_3 = same_call_twice

# %%
check_3(answer_3)

# %%
answer_4 = None  # your code: the weather question through run_react with default_registry()

# %%
check_4(answer_4)

# %% [markdown]
# ---
# Prev: [03 · Parsing ReAct with regular expressions](03_regex_parser.ipynb) | Index: [README](../README.md) | Next: [05 · Native tool calls](05_native_tool_calls.ipynb)

# %% [markdown] lang="zh-CN"
# ---
# 上一篇：[03 · 用正则表达式解析 ReAct](03_regex_parser.ipynb) | 目录：[README](../../README.zh-CN.md) | 下一篇：[05 · 原生工具调用](05_native_tool_calls.ipynb)
