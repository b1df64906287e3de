# %% [markdown]
# # 08 · Observability and memory — solutions
# *One possible solution per exercise of [08 · Observability and memory](../08_observability_and_memory.ipynb). Model outputs are whatever this run produced.*

# %% [markdown] lang="zh-CN"
# # 08 · 可观测性与记忆——参考答案
# *[08 · 可观测性与记忆](../08_observability_and_memory.ipynb) 每道练习的一种可行解法。模型输出就是这次运行实际产生的结果。*

# %%
# NBVAL_IGNORE_OUTPUT
import os
import re
from dataclasses import replace

from IPython.display import Markdown, display

import reactlab
from reactlab.exercises.nb08 import check_1, check_2, check_3, check_4
from reactlab.fc_agent import run_function_calling
from reactlab.grader import Expected, grade
from reactlab.guards import Guards
from reactlab.memory import Conversation
from reactlab.report import compare_table, step_rows, summary_table
from reactlab.tools import ToolRegistry, default_registry, tool

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
course = default_registry()

# %% [markdown]
# ## 1. Compare two runs

# %% [markdown] lang="zh-CN"
# ## 1. 比较两次运行

# %%
# NBVAL_IGNORE_OUTPUT
stock_tools = ToolRegistry([course.get("get_closing_price"), course.get("calculator")])
question = "青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高，高多少？"
stock_expected = Expected(figures=("67.92", "1488.21", "1420.29"), winner="贵州茅台")
runs = {label: run_function_calling(question, tools=stock_tools, conn=conn, guards=g,
                                    max_steps=5, max_tokens=250)
        for label, g in [("on", Guards.on()), ("off", Guards.off())]}
for label, r in runs.items():
    print(f"guards {label}: {grade(r, stock_expected)}")
display(Markdown(compare_table(runs)))

answer_1 = runs
check_1(answer_1)

# %% [markdown]
# Where the runs differ, a guard acted: compare the steps and the tokens first (a corrected
# draft is one more step, of kind `ungrounded`, not an event), then the `events` column (the
# other guard events, such as a cut observation). With short observations the compaction has nothing to cut; what fires on this question is the
# grader's guard — a backwards draft ("青岛啤酒更高") is corrected instead of accepted, which
# costs steps, and the extra steps can use up the budget (`max_steps`). Without guards the
# draft is the answer, backwards or not. The verdicts say whether either run got
# the stock agent's answer (贵州茅台 1488.21 is higher than 青岛啤酒 67.92, by 1420.29); the guards
# do not decide that.
#
# ## 2. A latency budget

# %% [markdown] lang="zh-CN"
# 两次运行有差别的地方，就是某个护栏出手了：先对比步骤和 token 数（被更正的草稿多出一步，类型是 `ungrounded`，不算事件），再看 `events` 列（其他的护栏事件，比如截短的观察）。观察很短，压缩无可截断；在这个问题上触发的是评分器护栏——比反了的草稿（"青岛啤酒更高"）会被更正而不是被接受，这要多花步骤，多出的步骤可能把预算用完（`max_steps`）。不带护栏时，草稿就是答案，比没比反都一样。判定说明的是两次运行有没有得出股票智能体的正确答案（贵州茅台 1488.21 比青岛啤酒 67.92 高，高出 1420.29）；这一点不由护栏决定。
#
# ## 2. 延迟预算

# %%
def slowest_step(run) -> tuple[int, float]:
    rows = step_rows(run)
    total = sum(r["latency_ms"] for r in rows) or 1
    worst = max(rows, key=lambda r: r["latency_ms"])
    return worst["step"], worst["latency_ms"] / total


answer_2 = slowest_step
check_2(answer_2)

# %%
# NBVAL_IGNORE_OUTPUT
for label, run in runs.items():
    if run.steps:
        number, share = slowest_step(run)
        print(f"guards {label}: step {number} took {share:.0%} of the model time")

# %% [markdown]
# Often the slowest step is one that writes a lot (completion tokens cost far more time than
# cached prompt tokens) or the first one, which reads the whole prompt (system text and tool
# schemas) with nothing in the cache yet; the lines above say which it was here.
#
# ## 3. Summarised memory

# %% [markdown] lang="zh-CN"
# 最慢的一步往往是写得最多的那一步（补全 token 比命中缓存的提示词 token 耗时多得多），或者是第一步——它要读完整个提示词（系统文本和工具 schema），而此时缓存里还什么都没有；上面几行说明了这次是哪种情况。
#
# ## 3. 摘要式记忆

# %%
def with_earlier_results(chat, i: int):
    """Turn i's run, with every earlier turn's steps (and so their tool results) put first."""
    earlier = [step for turn in chat.turns[:i] for step in turn.result.steps]
    return replace(chat.turns[i].result, steps=earlier + chat.turns[i].result.steps)


weather_tools = ToolRegistry([course.get("get_weather")])
temp = {c: float(re.search(r"(-?\d+(?:\.\d+)?)°C", course.call("get_weather", {"location": c}))[1])
        for c in ("哈尔滨", "广州")}
warmer = max(temp, key=temp.get)
expected = [Expected(figures=(f"{temp['哈尔滨']:g}",), parts=("哈尔滨",)),
            Expected(figures=(f"{abs(temp['广州'] - temp['哈尔滨']):.1f}",), parts=("广州", "哈尔滨")),
            Expected(winner=warmer, parts=("哈尔滨", "广州"))]
print(temp, "warmer:", warmer)

# %%
# NBVAL_IGNORE_OUTPUT
chat = Conversation(run_function_calling, keep_turns=1, tools=weather_tools, conn=conn,
                    max_steps=3, max_tokens=200)
for i, q in enumerate(["哈尔滨今天多少度？", "那广州比它高多少度？", "哪个城市更暖和？"]):
    r = chat.ask(q)
    print(f"Q: {q}\nA: {r.answer}\n   {grade(with_earlier_results(chat, i), expected[i])}\n")
print("What turn 3 received:")
for m in chat.turns[2].history_sent:
    print(f"  {m['role']}: {m['content'][:120]}")

answer_3 = chat
check_3(answer_3)

# %% [markdown]
# With `keep_turns=1` the third turn gets a one-line-per-turn summary of turn 1 (truncated to
# about 80 characters per question and answer) and turn 2 verbatim. Whether it still knew both
# temperatures depends on whether they were fetched at all and survived in those short texts —
# read the lines above: a city no turn fetched has no figure to survive. Which cities were
# compared is in the third turn's history line: if both names are there, it knew them, whatever
# its answer then did with them.
#
# ## 4. Capstone: a tool of my own, debugged from the log
#
# My tool here is `get_air_quality` itself, rewritten: one exact lookup that raises for a city
# it has no value for, instead of the alias table. I first gave the agent a °C → °F converter of
# my own beside the course's `get_weather` and asked "北京现在多少华氏度？" too. The 1.5B called
# the converter with a temperature it had not fetched (50 °C in one run; 25 and 23.4, the docstring's
# example value, in others), the agent held those calls back, and the run ran
# out of steps. A converter needs the fetched figure first, a two-step plan this model often
# skips; a lookup by a city's name, beside `get_weather`, is within its reach.

# %% [markdown] lang="zh-CN"
# 使用 `keep_turns=1` 时，第三轮收到的是第 1 轮的摘要（每轮一行，问题和答案各截断到大约 80 个字符），以及原样保留的第 2 轮。它是否仍然知道两个温度，取决于这两个数字有没有被查到过、又有没有在这些简短的文本里保留下来——读一读上面几行：哪一轮都没查过的城市，根本没有数字可保留。比较的是哪两个城市，看第三轮的历史那一行：两个名字都在，它就知道是哪两个城市，不管它的答案接下来怎么用它们。
#
# ## 4. 综合练习：我自己的工具，从日志调试
#
# 这里我自己的工具就是改写过的 `get_air_quality`：不再用别名表，而是按城市名精确查一次，查不到的城市直接抛出错误。一开始，我在课程的 `get_weather` 旁边加了一个自己写的摄氏转华氏工具，并且还问了“北京现在多少华氏度？”。1.5B 用一个它并没有查到的温度去调用换算工具（一次是 50 °C；其他几次是 25，以及 docstring 示例里的 23.4），智能体把这些调用拦了下来，这次运行就耗尽了步数。换算工具需要先查到数字，这种两步的计划这个模型常常跳过；而按城市名查询、和 `get_weather` 并列调用，它做得到。

# %%
AQI = {"北京": 82, "广州": 35, "上海": 57}  # made-up teaching values, not measurements


@tool
def get_air_quality(city: str) -> str:
    """Get today's air quality index (AQI, lower is better) of one Chinese city.

    Args:
        city: one city name, e.g. 北京
    """
    key = city.strip().removesuffix("市")  # fixed: no alias table, one exact lookup
    if key not in AQI:
        raise ValueError(f"no AQI for {city!r}; known cities: {', '.join(AQI)}.")
    return f"{key}: AQI {AQI[key]} (made-up teaching value)"


answer_4 = get_air_quality
check_4(answer_4)
my_tools = ToolRegistry([get_air_quality, course.get("get_weather")])

# %%
# NBVAL_IGNORE_OUTPUT
run = run_function_calling("北京和广州今天哪里空气更好？两地现在的气温各是多少？", tools=my_tools,
                           conn=conn, max_steps=5, max_tokens=250)
display(Markdown(summary_table(run)))
print(grade(run, Expected(figures=("23.4", "24.2"), winner="广州", parts=("北京", "广州"))))

# %%
def check_call(c) -> tuple[object, bool]:
    """What one call of the run should have returned, and whether it did."""
    args = c.arguments if isinstance(c.arguments, dict) else {}
    if c.name == "get_air_quality":
        want = AQI.get(str(args.get("city", "")).strip().removesuffix("市"))
        return want, want is not None and f"AQI {want}" in c.observation
    return "(course tool)", not c.error


# %%
# NBVAL_IGNORE_OUTPUT
for step in run.steps:
    for c in step.tool_calls:
        want, ok = check_call(c)
        print(f"step {step.number}: {c.name}({c.arguments}) -> {c.observation[:60]!r} "
              f"expected {want} -> {'OK' if ok else 'CHECK'}")
answer = run.answer or ""
print("\nanswer:", answer)
print("answer uses 82, 35, 23.4 and 24.2:", all(f in answer for f in ("82", "35", "23.4", "24.2")))

# %% [markdown]
# The three questions of the capstone, answered from the log: did the model call my tools with
# the right arguments (the `step …` lines), did each tool return what it should (`OK` / `CHECK`),
# and did the answer use those numbers (last line, and the verdict above). With the alias bug
# gone, every `get_air_quality` line that ran matches the data — but only the calls the model
# made are in the log: if it never asked for 广州, this run did not exercise the fix, and
# `check_4` (the fixed tool on every city, without the model) is what shows it works. If the
# verdict above is ✘, the answer is not one to copy: its reasons name the figure or the part
# that is wrong. Besides the figures, it checks that the comparison was concluded: an answer
# that lists the four figures and stops leaves 哪里空气更好 to the reader, and is incomplete.
# The agents' default guards (notebook 07) send such an answer the comparison the fetched
# readings settle and ask again: a step of kind `ungrounded` in the table above is that
# correction, and the answer shown is then the model's second try. The verdict is on that one,
# and a second try can lose figures the first one had.

# %% [markdown] lang="zh-CN"
# 综合练习的三个问题，都能从日志中得到回答：模型有没有用正确的参数调用我的工具（`step …` 那几行），每个工具返回的是否是它该返回的（`OK` / `CHECK`），以及答案有没有用上这些数字（最后一行，以及上面的判定）。去掉别名 bug 之后，每一行执行过的 `get_air_quality` 都与数据一致——但日志里只有模型发起过的调用：如果它从没查过广州，这次运行就没有用到修复，证明修复有效的是 `check_4`（不调用模型，在每个城市上试修好的工具）。如果上面的判定是 ✘，这个答案就不能照抄：判定的理由会指出错的是哪个数字或哪一部分。除了数字，判定还会检查比较有没有给出结论：答案列出四个数字就停了，就把“哪里空气更好”留给了读者自己判断，算作答得不完整。智能体默认的护栏（第 07 课）会把取回的读数所确定的比较结果发给这样的答案，再问一次：上表里类型为 `ungrounded` 的那一步就是这次更正，这时显示的答案是模型的第二次尝试。判定针对的是它，而第二次尝试也可能丢掉第一次给出的数字。
