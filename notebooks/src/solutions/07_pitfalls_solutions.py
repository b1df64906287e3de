# %% [markdown]
# # 07 · Pitfalls — solutions
# *One possible solution per exercise of [07 · Pitfalls](../07_pitfalls.ipynb). Model outputs are whatever this run produced.*

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
from reactlab.tools import ToolRegistry, default_registry, tool

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
course = default_registry()

# %% [markdown]
# ## 1. How short is too short?

# %%
# NBVAL_IGNORE_OUTPUT
docs_only = ToolRegistry([course.get("search_docs")])
tight = Guards(observation_chars=300)
run = run_function_calling("在广州喝早茶有什么讲究？请先用 search_docs 查资料再回答。", tools=docs_only,
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
# ## 3. Errors as data

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

# %% [markdown]
# A `[?]` before a number means no tool returned it. It flags harmless numbers too (a date the
# model wrote out, a count), so use it as a highlight for a human, not as an automatic veto.
