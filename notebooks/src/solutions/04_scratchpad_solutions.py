# %% [markdown]
# # 04 · The scratchpad — solutions
# *Worked solutions to the exercises of [04 · The scratchpad](../04_scratchpad.ipynb). The
# outputs come from the local model; the code reports what it did, and each run is followed
# by its verdict.*
#
# The notebook's loops again, without the request printing, so the output stays short. They
# return a `RunResult`, as in the notebook.

# %% [markdown] lang="zh-CN"
# # 04 · 草稿本 —— 参考答案
# *[04 · 草稿本](../04_scratchpad.ipynb) 各道练习的完整解答。输出来自本地模型；代码如实报告模型做了什么，每次运行后面都跟着它的判定。*
#
# 这里再写一遍 notebook 里的两个循环，去掉了请求打印，好让输出保持简短。和 notebook 里一样，它们返回 `RunResult`。

# %%
# NBVAL_IGNORE_OUTPUT
import os

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
import reactlab
from reactlab.exercises.nb04 import check_1, check_2, check_3, check_4
from reactlab.grader import Expected, grade
from reactlab.parsing import FinalAnswer, ReActParseError, parse_react, strip_invented_observation
from reactlab.prompts import react_system_prompt, react_user_message
from reactlab.react_agent import run_react
from reactlab.runlog import RunResult, Step, ToolCallRecord
from reactlab.tools import ToolRegistry, default_registry, get_closing_price, get_today, get_weather

conn = reactlab.connect()
weather_q, stock_q = "北京和广州的天气怎么样？", "青岛啤酒和贵州茅台的收盘价哪个贵？"
weather_tools, stock_tools = ToolRegistry([get_weather]), ToolRegistry([get_closing_price])

# %%
def ask(messages, tools, number, style):
    """One request: send, clean, parse, run the tool. Returns (Step, answer, observation)."""
    reply = conn.client.chat.completions.create(
        model=conn.model, messages=messages, stop=["Observation:"], max_tokens=256, temperature=0)
    text = strip_invented_observation(reply.choices[0].message.content or "")
    step = Step(number, "action", text, prompt_tokens=reply.usage.prompt_tokens)
    try:
        parsed = parse_react(text, style=style)
    except ReActParseError as exc:
        step.kind, step.error = "parse_error", str(exc)
        return step, None, step.error
    if isinstance(parsed, FinalAnswer):
        step.kind = "final"
        return step, parsed.answer, None
    observation, is_error = tools.run(parsed.tool, parsed.args)
    step.tool_calls.append(ToolCallRecord(parsed.tool, parsed.args, observation, error=is_error))
    return step, None, observation

# %%
def react_scratchpad(question, tools, max_steps=5, style="json"):
    system, scratchpad, steps = react_system_prompt(tools, style=style), "", []
    for number in range(1, max_steps + 1):
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": react_user_message(question, scratchpad, style=style)}]
        step, answer, observation = ask(messages, tools, number, style)
        steps.append(step)
        if answer is not None:
            return RunResult(question, answer, "final", steps, messages=messages)
        scratchpad += f"{step.text}\nObservation: {observation}\n"
    return RunResult(question, None, "max_steps", steps, messages=messages)

# %%
def react_chat(question, tools, max_steps=5, style="action_input", stop_on_repeat=False):
    messages = [{"role": "system", "content": react_system_prompt(tools, style=style)},
                {"role": "user", "content": react_user_message(question, style=style)}]
    steps, calls = [], []
    for number in range(1, max_steps + 1):
        step, answer, observation = ask(messages, tools, number, style)
        steps.append(step)
        if answer is not None:
            return RunResult(question, answer, "final", steps, messages=messages)
        calls += [(c.name, c.arguments) for c in step.tool_calls]
        if stop_on_repeat and same_call_twice(calls):
            print(f"stopped: the model asked for {calls[-1]} twice in a row")
            return RunResult(question, None, "loop", steps, messages=messages)
        messages = messages + [{"role": "assistant", "content": step.text},
                               {"role": "user", "content": f"Observation: {observation}"}]
    return RunResult(question, None, "max_steps", steps, messages=messages[:-2])


def calls_of(run):
    return [(c.name, c.arguments) for s in run.steps for c in s.tool_calls]

# %% [markdown]
# (`react_chat` uses `same_call_twice` from exercise 3; it is only looked up when a run
# passes `stop_on_repeat=True`, which happens after exercise 3 defines it.)
#
# ## 1. Swap the layouts
#
# The question is the same, the text the model reads is almost the same — but one long user
# message and a chat of short messages are different inputs, so the model may act differently.
# The cell prints the tool calls and the verdict of each run. To answer the exercise's question,
# compare those calls with the ones the notebook's runs of the same question printed: the same
# calls mean the layout did not change what the model asked for this time.

# %% [markdown] lang="zh-CN"
# （`react_chat` 用到了练习 3 里的 `same_call_twice`；只有某次运行传入 `stop_on_repeat=True` 时才会去查找这个名字，而那是在练习 3 定义它之后。）
#
# ## 1. 交换布局
#
# 问题相同，模型读到的文本也几乎相同——但一条长长的 user 消息和一段由短消息组成的聊天是不同的输入，所以模型的行为可能不一样。单元格打印每次运行的工具调用和判定。要回答练习里的问题，就把这些调用和 notebook 里同一个问题的运行打印出的调用比一比：调用相同，说明这一次布局没有改变模型请求的东西。

# %%
# NBVAL_IGNORE_OUTPUT
stock_scratchpad = react_scratchpad(stock_q, stock_tools, max_steps=4, style="action_input")
print("stocks, one growing user message:", calls_of(stock_scratchpad), "\n   ->", stock_scratchpad.answer)
print("  ", grade(stock_scratchpad, Expected(winner="贵州茅台")))
weather_chat = react_chat(weather_q, weather_tools, max_steps=4, style="json")
print("weather, a chat of messages:", calls_of(weather_chat), "\n   ->", weather_chat.answer)
print("  ", grade(weather_chat, Expected(parts=("北京", "广州"))))
answer_1 = (stock_scratchpad, weather_chat)

# %%
check_1(answer_1)

# %% [markdown]
# ## 2. `get_today` and 今天是几号？
#
# One tool call and an answer — two steps, if the model uses the tool. The set-up cell pinned
# "today" to 2026-03-01, so the right answer names that date.

# %% [markdown] lang="zh-CN"
# ## 2. `get_today` 与"今天是几号？"
#
# 一次工具调用加一次作答——如果模型用了工具，就是两步。准备单元格已经把"今天"固定为 2026-03-01，所以正确的答案会说出这个日期。

# %%
# NBVAL_IGNORE_OUTPUT
answer_2 = run_react("今天是几号？", tools=ToolRegistry([get_today]), conn=conn, max_steps=3)
print(f"{len(answer_2.steps)} steps, status={answer_2.status!r}, calls={calls_of(answer_2)}")
print("answer:", answer_2.answer)
print(grade(answer_2, Expected(figures=("2026-03-01",))))

# %%
check_2(answer_2)

# %% [markdown]
# ## 3. Stop on an exact repeat
#
# `same_call_twice` compares the last two calls; `react_chat(..., stop_on_repeat=True)` above
# checks it after every step and stops, saying so, once the last two calls are the same: the
# repeat has run, a third one will not. (The
# package's `LoopDetector` in notebook 07 does this properly: N repeats, ping-pong between two
# calls, and a message to the model before giving up.)

# %% [markdown] lang="zh-CN"
# ## 3. 遇到一模一样的重复就停
#
# `same_call_twice` 比较最后两次调用；上面的 `react_chat(..., stop_on_repeat=True)` 在每一步之后检查它，一旦最后两次调用相同就停下并说明原因：重复的那次已经运行了，不会再有第三次。（第 07 篇里包中的 `LoopDetector` 把这件事做得更完善：N 次重复、在两个调用之间来回切换，以及在放弃之前先给模型发一条消息。）

# %%
def same_call_twice(calls):
    """True when the last two (tool, args) pairs are identical."""
    return len(calls) >= 2 and calls[-1] == calls[-2]


answer_3 = same_call_twice

# %%
check_3(answer_3)

# %% [markdown]
# Now the loop with the check on, on the weather question in the chat layout. Whether it fires
# depends on what the model does; the cell says which happened.

# %% [markdown] lang="zh-CN"
# 现在打开检查，以聊天布局在天气问题上运行循环。检查会不会触发取决于模型怎么做；单元格会告诉你发生的是哪种情况。

# %%
# NBVAL_IGNORE_OUTPUT
guarded = react_chat(weather_q, weather_tools, max_steps=4, style="json", stop_on_repeat=True)
print("calls:", calls_of(guarded), "\nstatus:", guarded.status, "| answer:", guarded.answer)
print("the repeat check fired:", guarded.status == "loop")
print(grade(guarded, Expected(parts=("北京", "广州"))))

# %% [markdown]
# ## 4. All six course tools
#
# Step 1's prompt holds every tool description, so it grows with the registry — whether or not
# the tools are used.

# %% [markdown] lang="zh-CN"
# ## 4. 本系列的全部六个工具
#
# 第 1 步的提示词包含每个工具的描述，所以它随注册表一起变大——不管这些工具用不用得上。

# %%
# NBVAL_IGNORE_OUTPUT
answer_4 = run_react(weather_q, tools=default_registry(), conn=conn, max_steps=5)
one_tool = run_react(weather_q, tools=weather_tools, conn=conn, max_steps=1)
print("step 1 prompt tokens with get_weather only:", one_tool.steps[0].prompt_tokens)
print("step 1 prompt tokens with all six tools    :", answer_4.steps[0].prompt_tokens)
print("the six tools:", default_registry().names())
print("six tools:", grade(answer_4, Expected(parts=("北京", "广州"))))
print("one tool, one step:", grade(one_tool, Expected(parts=("北京", "广州"))))

# %%
check_4(answer_4)

# %% [markdown]
# Every tool description is paid for in every request of every run. Give an agent the tools
# its task needs, not all the tools you have. (The one-step run is only there to measure step 1;
# its verdict is ✘ because one step cannot fetch two cities and answer.)
#
# ---
# Back to [04 · The scratchpad](../04_scratchpad.ipynb) | Index: [README](../../README.md)

# %% [markdown] lang="zh-CN"
# 每个工具描述，在每次运行的每个请求里都要付费。给智能体它的任务需要的工具，而不是你手上所有的工具。（单步运行只是为了测量第 1 步；它的判定是 ✘，因为一步之内不可能既查两个城市又作答。）
#
# ---
# 返回 [04 · 草稿本](../04_scratchpad.ipynb) | 目录：[README](../../../README.zh-CN.md)
