# %% [markdown]
# # 07 · Pitfalls — solutions
# *One possible solution per exercise of [07 · Pitfalls](../07_pitfalls.ipynb). Model outputs are whatever this run produced.*

# %% [markdown] lang="zh-CN"
# # 07 · 常见的坑——参考答案
# *[07 · 常见的坑](../07_pitfalls.ipynb) 每道练习的一种可行解法。模型输出就是这次运行实际产生的结果。*

# %%
# NBVAL_IGNORE_OUTPUT
import os
import re

import reactlab
from reactlab.exercises.nb07 import check_1, check_2, check_3, check_4
from reactlab.fc_agent import run_function_calling
from reactlab.grader import Expected, grade
from reactlab.guards import Guards
from reactlab.report import format_step
from reactlab.runlog import RunResult
from reactlab.tools import ToolRegistry, default_registry, tool

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
course = default_registry()

# %% [markdown]
# ## 1. How short is too short?

# %% [markdown] lang="zh-CN"
# ## 1. 多短算太短？

# %%
# NBVAL_IGNORE_OUTPUT
docs_only = ToolRegistry([course.get("search_docs")])
tight = Guards(observation_chars=300)
run = run_function_calling("喝早茶有什么讲究？请先用 search_docs 查资料再回答。", tools=docs_only,
                           conn=conn, guards=tight, max_steps=1, max_tokens=200,
                           tool_choice={"type": "function", "function": {"name": "search_docs"}})
for step in run.steps:
    print(format_step(step))
print("\nanswer:", run.answer)
print(grade(run))

# %%
# NBVAL_IGNORE_OUTPUT
clues = ["tap", "茶位费", "lid", "一盅两件"]
for step in run.steps:
    for call in step.tool_calls:
        full = call.full_observation or call.observation
        print(f"{call.name}({call.arguments}): {len(full):,} chars, shown {len(call.observation)}")
        for clue in clues:
            print(f"  {clue!r}: in full text {clue in full}, still shown {clue in call.observation}")
print("answer mentions:", [c for c in clues if c in (run.answer or "")] or "none of the clues")

answer_1 = run
check_1(answer_1)

# %% [markdown]
# With 300 characters the model sees the first and last 150 characters of the search result;
# whatever sits in the middle of a section is cut away, and the answer can only guess, go
# without, or (with a larger step budget) search again. Compaction is a trade: the limit has to
# leave room for what the question needs — or the tool itself should return less (a search that
# returns snippets, not whole sections). The lines above say which clues the cut removed.
#
# ## 2. Ping-pong

# %% [markdown] lang="zh-CN"
# 限制为 300 个字符时，模型看到的是搜索结果开头和结尾各 150 个字符；凡是位于某一节中间的内容都被截掉了，答案只能去猜、干脆不提，或者（步数预算更大时）再搜一次。压缩是一种取舍：限制必须给问题所需的内容留出空间——要么就该让工具本身少返回一些（搜索返回摘要片段，而不是整节内容）。上面几行说明了截断删掉了哪些线索。
#
# ## 2. 乒乓

# %%
@tool
def ask_sales(question: str) -> str:
    """Ask the sales team a question about an order.

    Args:
        question: the question for the team
    """
    return "Sales: this is a support question, please ask the support team."


@tool
def ask_support(question: str) -> str:
    """Ask the support team a question about an order.

    Args:
        question: the question for the team
    """
    return "Support: this is a sales question, please ask the sales team."


# %%
# NBVAL_IGNORE_OUTPUT
teams = ToolRegistry([ask_sales, ask_support])
pp = run_function_calling("我的订单 A-1001 能退款吗？", tools=teams, conn=conn,
                          guards=Guards.on(), max_steps=6, max_tokens=150)
for step in pp.steps:
    print(format_step(step))
print("\nstatus:", pp.status)
print("events:", [e for s in pp.steps for e in s.events] or "none")
print(grade(pp))

answer_2, run_2 = teams, pp
check_2(answer_2, run_2)

# %% [markdown]
# If the model alternated between the two teams with the same question, the event reads
# `loop: ping-pong between …`; if it repeated one team three times, it is the repeat detector;
# if it gave up by itself, no event fired and the status is `final`.
#
# Then read the answer against its verdict. Neither team ever said whether order A-1001 can be
# refunded, so an answer that says it can, or cannot, is made up — and the grader cannot see
# that: it checks figures and names (1001 is in the question), not a yes-or-no claim. The only
# answer these tool results support is that neither team could say.
#
# ## 3. Errors as data

# %% [markdown] lang="zh-CN"
# 如果模型拿着同一个问题在两个团队之间来回切换，事件会写作 `loop: ping-pong between …`；如果它连续三次问同一个团队，触发的就是重复检测器；如果它自己放弃了，就不会触发任何事件，状态为 `final`。
#
# 然后把答案和它的判定对照着读。两个团队都没有说过订单 A-1001 能不能退款，所以无论答案说"能"还是"不能"，都是编出来的——而评分器看不出这一点：它检查的是数字和名字（1001 就在问题里），不是"能/不能"这样的结论。这些工具结果唯一能支持的答案是：两个团队都没法给出答复。
#
# ## 3. 错误即数据

# %%
@tool
def convert_to_cny_soft(amount: float, currency: str) -> dict:
    """Convert an amount of foreign money to Chinese yuan (CNY) at a fixed teaching rate.

    Args:
        amount: how much money, e.g. 100
        currency: the currency to convert from
    """
    rates = {"USD": 7.1, "EUR": 7.7, "JPY": 0.047}
    code = currency.strip().upper()
    if code not in rates:
        return {"error": f"unknown currency {currency!r}: use a 3-letter code, one of "
                         f"{', '.join(rates)}."}
    return {"amount_cny": round(amount * rates[code], 2)}


# %%
@tool
def convert_to_cny(amount: float, currency: str) -> str:
    """Convert an amount of foreign money to Chinese yuan (CNY) at a fixed teaching rate.

    Args:
        amount: how much money, e.g. 100
        currency: the currency to convert from
    """
    rates = {"USD": 7.1, "EUR": 7.7, "JPY": 0.047}
    code = currency.strip().upper()
    if code not in rates:
        raise ValueError(f"unknown currency {currency!r}: use a 3-letter code, one of "
                         f"{', '.join(rates)}.")
    return f"{amount:g} {code} = {amount * rates[code]:.2f} CNY"


reg = ToolRegistry([convert_to_cny, convert_to_cny_soft])
print("raising  :", reg.run("convert_to_cny", {"amount": 100, "currency": "美元"}))
print("returning:", reg.run("convert_to_cny_soft", {"amount": 100, "currency": "美元"}))

answer_3 = reg
check_3(answer_3)

# %% [markdown]
# The model reads nearly the same sentence either way. The difference is for *us*: the raising
# version comes back with `is_error=True` (so the run log marks the call as a tool error and a
# dashboard can count it), while the returned dict is a "successful" call whose content happens
# to say error. Returning errors is fine — then make the agent or the log look for the `error`
# key too.
#
# ## 4. The cheapest fence

# %% [markdown] lang="zh-CN"
# 无论哪种写法，模型读到的几乎是同一句话。区别在*我们*这边：抛异常的版本返回时带着 `is_error=True`（于是运行日志会把这次调用标记为工具错误，仪表盘也能统计它），而返回 dict 的版本是一次“成功”的调用，只不过内容恰好说的是错误。返回错误也没问题——那就让智能体或日志也去检查 `error` 这个键。
#
# ## 4. 最便宜的防线

# %%
def flag_invented(run) -> str:
    """The answer with every number that appears in no observation (nor the question) marked."""
    seen = (run.question + " ".join(c.observation for s in run.steps for c in s.tool_calls))
    seen = seen.replace(",", "")

    def mark(m):
        return m.group(0) if m.group(0).replace(",", "") in seen else f"[?]{m.group(0)}"

    return re.sub(r"\d[\d,]*(?:\.\d+)?", mark, run.answer or "")


answer_4 = flag_invented
check_4(answer_4)


# %%
# NBVAL_IGNORE_OUTPUT
prices = ToolRegistry([course.get("get_closing_price")])
r = run_function_calling("五粮液和贵州茅台的收盘价分别是多少？", tools=prices, conn=conn,
                         max_steps=3, max_tokens=200)
print("answer :", r.answer)
print("flagged:", flag_invented(r))
print(grade(r, Expected(figures=("1488.21",), parts=("贵州茅台",))))
# the same run's observations, with an answer that has a number of our own in it
made_up = RunResult(r.question, "五粮液的收盘价是1288.00元，贵州茅台是1488.21元。", r.status,
                    steps=r.steps)
print("a made-up answer on the same observations:", flag_invented(made_up))

# %% [markdown]
# This run is a new one of section 5's question (the notebook's `priced` runs are not in this
# notebook); the last line tries the fence on an answer we wrote on the same observations. A
# `[?]` before a number means no tool returned it. It flags harmless numbers too (a date the
# model wrote out, a count), so use it as a highlight for a human, not as an automatic veto. It
# also misses what it cannot see: a real figure given to the wrong name, such as
# "五粮液和贵州茅台的收盘价分别是1488.21" (no price for 五粮液 exists), passes this fence. The grader
# catches that one, because it counts 五粮液 as a part of the question (joined to 贵州茅台 by 和)
# with no tool result; a figure given to the wrong *known* name it catches by comparing the
# readings. Read the sentence anyway.

# %% [markdown] lang="zh-CN"
# 这次运行是第 5 节那个问题的一次新运行（notebook 里的 `priced` 不在这个 notebook 里）；最后一行在同样的观察上，拿我们自己写的一个答案试了试这道防线。数字前的 `[?]` 表示没有任何工具返回过它。它也会标出无害的数字（模型写出来的日期、一个计数），所以把它当作给人看的高亮提示，而不是自动否决。它也发现不了它看不见的问题：一个真实的数字安到了错误的名字上，比如"五粮液和贵州茅台的收盘价分别是1488.21"（五粮液根本没有价格），这道防线会放过。评分器能抓住这一句，因为它把五粮液算作问题的一部分（用"和"与贵州茅台连在一起），而它没有工具结果；数字安到了另一个*认识的*名字上，评分器则靠比较读数来发现。不过还是要自己读这句话。
