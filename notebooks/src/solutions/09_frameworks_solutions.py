# %% [markdown]
# # 09 · Frameworks on the same server — solutions
# *One possible solution per exercise of [09 · Frameworks on the same server](../09_frameworks.ipynb). Model outputs are whatever this run produced.*

# %% [markdown] lang="zh-CN"
# # 09 · 同一台服务器上的框架——参考答案
# *[09 · 同一台服务器上的框架](../09_frameworks.ipynb) 每道练习的一种可行解法。模型输出就是这次运行实际产生的结果。*

# %%
# NBVAL_IGNORE_OUTPUT
import os

import requests
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool as lc_tool
from langchain_openai import ChatOpenAI

import reactlab
from reactlab.exercises.nb09 import DEBUG_VIEW, check_1, check_2, check_3
from reactlab.grader import Expected, grade
from reactlab.recorder import ToolRecorder
from reactlab.tools.weather import get_weather

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
KEY = conn.api_key or "not-needed"

# %% [markdown]
# ## 1. Two cities through LangChain
#
# The loop of section 3, with `no_repeat` (exercise 3) left out so the run shows what the model
# did. The verdict says whether the answer covers both cities with their own figures; the
# `calls` line says how the model asked for them.

# %% [markdown] lang="zh-CN"
# ## 1. 用 LangChain 问两个城市
#
# 就是第 3 节的循环，这里没有加 `no_repeat`（练习 3），好让这次运行如实展示模型做了什么。判定说明答案是否覆盖了两个城市、各自的数字是否对得上；`calls` 那一行说明模型是怎么请求它们的。

# %%
# NBVAL_IGNORE_OUTPUT
def langchain_run(question, max_rounds=4, wrap=None, **chat_options):
    """LangChain's bind_tools loop, graded: (RunResult, the last AIMessage).

    `wrap`: applied to the recorded tool before LangChain sees it (exercise 3's no_repeat)."""
    rec = ToolRecorder()
    recorded = rec.wrap(get_weather)
    tools = {t.name: t for t in [lc_tool(wrap(recorded) if wrap else recorded)]}
    llm = ChatOpenAI(base_url=conn.base_url, api_key=KEY, model=conn.model, temperature=0,
                     max_tokens=300, max_retries=0, **chat_options).bind_tools(list(tools.values()))
    messages = [HumanMessage(question)]
    for _ in range(max_rounds):
        ai = llm.invoke(messages)
        messages.append(ai)
        if not ai.tool_calls:
            return rec.result(question, ai.content, framework="langchain"), ai
        for call in ai.tool_calls:  # a tool that raises becomes a message (notebook 07)
            try:
                messages.append(tools[call["name"]].invoke(call))
            except Exception as exc:  # noqa: BLE001 - the model reads the error
                messages.append(ToolMessage(f"Error: {exc}", tool_call_id=call["id"]))
    return rec.result(question, "", framework="langchain", status="max_steps"), ai


two, _ = langchain_run("北京和广州现在哪里更热？")
print("calls:", [(s.number, c.arguments) for s in two.steps for c in s.tool_calls])
print("answer:", repr(two.answer))
print(grade(two, Expected(parts=("北京", "广州"))))

answer_1 = two
check_1(answer_1)

# %% [markdown]
# The recorder numbers the calls one step each, in the order they ran, so two calls from one
# reply look like two steps here (a simplification of `ToolRecorder`). So the `calls` line says
# *what* the model asked for — both cities in one argument ("北京, 广州") is a merged call the
# tool refuses; 北京 and 广州 in entries of their own are the two asks — but not whether they came
# in one reply or in two rounds: LangChain's messages (or the server's debug view) say that.
# Whatever the model did, the check passes on a LangChain run with recorded calls; the verdict
# above is the answer key.
#
# ## 2. Read the help

# %% [markdown] lang="zh-CN"
# 记录器把每个调用算作一步，按执行顺序编号，所以同一条回复里的两个调用在这里看起来是两步（这是 `ToolRecorder` 的一个简化）。因此 `calls` 那一行说明的是模型*请求了什么*——两个城市写进同一个参数（"北京, 广州"）是工具会拒绝的合并调用；北京和广州各占一项，才是两次请求——但说明不了它们是在一条回复里还是分两轮来的：这要看 LangChain 的消息（或者服务器的调试视图）。不论模型怎么做，只要是一次记录了调用的 LangChain 运行，检查就会通过；上面的判定才是标准答案。
#
# ## 2. 读懂帮助

# %%
def help_report(debug):
    """One line per intervention of the server's help: rule, what the model wrote, what was done."""
    steps = (debug.get("help") or {}).get("interventions", [])
    return [f"{s['rule']}: the model wrote {s['model_wrote'][:70]!r} -> {s['action']}"
            for s in steps]


for line in help_report(DEBUG_VIEW):
    print(line)
last = requests.get(conn.base_url + "/debug/last", headers=conn.headers(), timeout=10)
print("latest reply:", help_report(last.json()) if last.ok else "(no debug view here)")

answer_2 = help_report
check_2(answer_2)

# %% [markdown]
# ## 3. The guard on your side
#
# The key is the call's arguments as sorted JSON text, so `{"location": "广州"}` given twice is
# one call. On a repeat the model gets its earlier result back, with a sentence it can act on.

# %% [markdown] lang="zh-CN"
# ## 3. 放在你这边的护栏
#
# 键是按键排序后的参数 JSON 文本，所以两次给出 `{"location": "广州"}` 算同一个调用。遇到重复时，模型拿回的是它先前的结果，外加一句它能照着做的话。

# %%
import functools
import inspect
import json


def no_repeat(tool):
    """`tool`, run once per distinct call; a repeat gets the earlier result back."""
    seen = {}
    signature = inspect.signature(tool)

    @functools.wraps(tool)
    def once(*args, **kwargs):
        key = json.dumps(signature.bind(*args, **kwargs).arguments, sort_keys=True,
                         ensure_ascii=False)
        if key in seen:
            return (f"You already called {tool.__name__}({key}) and got: {seen[key]} "
                    f"Do not call it again: answer from this result.")
        seen[key] = tool(*args, **kwargs)
        return seen[key]

    return once


answer_3 = no_repeat
check_3(answer_3)

# %% [markdown]
# To give it to a framework, wrap the recorded tool: `lc_tool(no_repeat(rec.wrap(get_weather)))`.
# `functools.wraps` keeps the name, the docstring and (through `__wrapped__`) the signature the
# framework reads to build the schema. The recorder still sees only the calls that ran. Here it
# is in section 6's run, the help off so that a repeated call reaches the client (there, the
# notebook's run can get the repeated call back from the server). With the wrapper, a repeat
# is answered from the first result; the verdict says whether the model then answered. A ✘
# here means the wrapper was not enough: it keeps a repeated call from running twice, but an
# empty reply after the result is another habit (the server's help re-asks then, and so do
# notebook 07's guards in our own agents).

# %% [markdown] lang="zh-CN"
# 要把它交给某个框架，就包住记录过的工具：`lc_tool(no_repeat(rec.wrap(get_weather)))`。`functools.wraps` 保留了名字、docstring，以及（通过 `__wrapped__`）框架生成 schema 时要读的签名。记录器看到的仍然只是真正执行了的调用。下面把它用在第 6 节的那次运行上：关掉帮助，好让重复的调用到达客户端（在 notebook 里，那次运行可能从服务器拿回重复的调用）。有了这个包装器，重复的调用会拿到第一次的结果；判定说明模型随后有没有作答。如果这里是 ✘，说明光有这个包装器还不够：它能让重复的调用不再执行第二次，可工具结果之后回一条空回复是另一个习惯（这时服务器的帮助会再问一次，我们自己的智能体里第 07 课的护栏也会）。

# %%
# NBVAL_IGNORE_OUTPUT
guarded, _ = langchain_run("广州现在多少度？", wrap=no_repeat, extra_body={"reactlab_help": False})
print("calls that ran:", [c.arguments for s in guarded.steps for c in s.tool_calls])
print("answer:", repr(guarded.answer))
print(grade(guarded, Expected(figures=("24.2",), parts=("广州",))))
