# %% [markdown]
# # 05 · Native tool calls — solutions
# *One possible solution per exercise of [05 · Native tool calls](../05_native_tool_calls.ipynb). Model outputs are whatever this run produced; every run is followed by its verdict.*

# %% [markdown] lang="zh-CN"
# # 05 · 原生工具调用——参考答案
# *[05 · 原生工具调用](../05_native_tool_calls.ipynb) 每道练习的一种可行解法。模型输出就是这次运行产生的结果；每次运行后面都跟着它的判定。*

# %%
# NBVAL_IGNORE_OUTPUT
import json
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

import openai

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
import reactlab
from reactlab.exercises.nb05 import check_1, check_2, check_3, check_4
from reactlab.fc_agent import run_function_calling
from reactlab.grader import Expected, grade
from reactlab.report import format_step
from reactlab.streaming import ToolCallAccumulator
from reactlab.tools import ToolRegistry, default_registry, tool

conn = reactlab.connect()
course = default_registry()

# %% [markdown]
# ## 1. The wrong id, and the missing result
#
# The tutorial's request, repaired with the assistant message — then broken in two new ways.

# %% [markdown] lang="zh-CN"
# ## 1. 错误的 id，以及缺失的结果
#
# 教程里用 assistant 消息修好的请求——再用两种新方式把它弄坏。

# %%
tutorial_tool = {"type": "function", "function": {
    "name": "get_current_weather", "description": "获取指定城市的当前天气",
    "parameters": {"type": "object",
                   "properties": {"location": {"type": "string", "description": "城市名称"}},
                   "required": ["location"]}}}
user = {"role": "user", "content": "今天的天气怎么样？我想出去露营，需要准备什么"}
assistant = {"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_xyz789", "type": "function",
    "function": {"name": "get_current_weather", "arguments": "{\"location\": \"北京\"}"}}]}
result = {"role": "tool", "content": "{\"temp\": 32, \"humidity\": 75, \"condition\": \"雷阵雨\"}"}

wrong_id = [user, assistant, {**result, "tool_call_id": "call_other"}]
no_result = [user, assistant]

# %%
# NBVAL_IGNORE_OUTPUT
for label, messages in (("tool_call_id does not match", wrong_id),
                        ("no tool message at all", no_result)):
    try:
        r = conn.client.chat.completions.create(model=conn.model, messages=messages,
                                                tools=[tutorial_tool], temperature=0, max_tokens=60)
        print(f"{label}: accepted -> {r.choices[0].message.content!r}")
    except openai.APIStatusError as err:
        message = (err.body or {}).get("message") if isinstance(err.body, dict) else err.message
        print(f"{label}: HTTP {err.status_code}: {message}")
answer_1 = (wrong_id, no_result)

# %%
check_1(answer_1)

# %% [markdown]
# Both are rejected for the same reason: every `tool_call_id` must answer a call of the
# assistant message just before it, and every call must be answered before the conversation goes
# on. (If a line above says "accepted", the server in use is more lenient than OpenAI's API.)
#
# ## 2. Interleaved fragments
#
# Two parallel calls whose fragments alternate; the second call repeats its id and name on
# every fragment, as some servers do.

# %% [markdown] lang="zh-CN"
# 两个请求被拒绝的原因相同：每个 `tool_call_id` 都必须回应紧挨在它前面的 assistant 消息里的某个调用，
# 而且每个调用都必须先得到回应，对话才能继续。（如果上面某一行显示 "accepted"，说明你用的服务器比 OpenAI 的 API 更宽松。）
#
# ## 2. 交错的片段
#
# 两个并行调用，片段交替出现；第二个调用在每个片段上都重复它的 id 和名字，有些服务器就是这么做的。

# %%
def frag(index, id_=None, name=None, args=""):
    f = {"index": index, "function": {"arguments": args}}
    if id_ is not None:
        f["id"] = id_
    if name:
        f["function"]["name"] = name
    return {"choices": [{"index": 0, "delta": {"tool_calls": [f]}, "finish_reason": None}]}


interleaved = [
    frag(0, "call_a", "get_weather", '{"loca'),
    frag(1, "call_b", "get_weather", '{"location"'),
    frag(0, "", None, 'tion": "北京"}'),
    frag(1, "call_b", "get_weather", ': "广州"}'),
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]

# %%
def assemble_by_index(chunks):
    calls = {}
    for chunk in chunks:
        for choice in chunk["choices"]:
            for f in choice["delta"].get("tool_calls") or []:
                c = calls.setdefault(f.get("index", 0), {"id": "", "name": "", "arguments": ""})
                c["id"] = c["id"] or f.get("id") or ""
                c["name"] = c["name"] or (f.get("function") or {}).get("name") or ""
                c["arguments"] += (f.get("function") or {}).get("arguments") or ""
    return [calls[i] for i in sorted(calls)]


print("by hand:    ", assemble_by_index(interleaved))
acc = ToolCallAccumulator()
for chunk in interleaved:
    acc.add(chunk)
print("accumulator:", acc.tool_calls)
print("arguments parse:", [json.loads(c["function"]["arguments"]) for c in acc.tool_calls])
answer_2 = interleaved

# %%
check_2(answer_2)

# %% [markdown]
# Keyed by `index`, taking the first non-empty id and name, both give two clean calls; the
# repeated `"call_b"` and `"get_weather"` are not concatenated.
#
# ## 3. Parallel and in order, with `as_completed`

# %% [markdown] lang="zh-CN"
# 按 `index` 归组，并取第一个非空的 id 和名字，两种方法都得到两个干净的调用；重复出现的 `"call_b"` 和
# `"get_weather"` 不会被拼接到一起。
#
# ## 3. 并行且有序：用 `as_completed`

# %%
def run_in_order(calls, registry):
    """Run calls concurrently; return their tool messages in call order."""
    results = [None] * len(calls)
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {pool.submit(registry.run, c["name"], c["arguments"]): i
                   for i, c in enumerate(calls)}
        for fut in as_completed(futures):  # finishing order
            i = futures[fut]
            print("finished:", calls[i]["id"])
            text, _ = fut.result()
            results[i] = {"role": "tool", "tool_call_id": calls[i]["id"], "content": text}
    return results  # each result sits in its call's slot

# %%
@tool
def slow_echo(text: str, seconds: float) -> str:
    """Return text after sleeping a while (a stand-in for a slow tool).

    Args:
        text: what to return
        seconds: how long to sleep
    """
    time.sleep(seconds)
    return text


random.seed(0)
calls = [{"id": f"call_{i}", "name": "slow_echo",
          "arguments": json.dumps({"text": f"result {i}", "seconds": round(random.uniform(0, .3), 2)})}
         for i in range(4)]
messages = run_in_order(calls, ToolRegistry([slow_echo]))
print("sent:", [m["tool_call_id"] for m in messages], [m["content"] for m in messages])
answer_3 = run_in_order

# %%
check_3(answer_3)

# %% [markdown]
# The trick is the slot: each future remembers its position, and the result goes into that
# slot, whatever order they finish in.
#
# ## 4. 青岛啤酒 vs 贵州茅台

# %% [markdown] lang="zh-CN"
# 诀窍在于"槽位"：每个 future 都记住自己的位置，结果就放进那个槽位，不管它们以什么顺序完成。
#
# ## 4. 青岛啤酒 vs 贵州茅台

# %%
# NBVAL_IGNORE_OUTPUT
stock_tools = ToolRegistry([course.get("get_closing_price"), course.get("calculator")])
answer_4 = run_function_calling("青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高？", tools=stock_tools,
                                conn=conn, max_steps=5, max_tokens=250)
for step in answer_4.steps:
    print(format_step(step))
print("\nstatus:", answer_4.status, "| answer:", answer_4.answer)
print("calls per step:", [len(s.tool_calls) for s in answer_4.steps])
print(grade(answer_4, Expected(figures=("67.92", "1488.21"), winner="贵州茅台")))

# %%
check_4(answer_4)

# %% [markdown]
# One call per step means the model fetched the prices one after the other; two calls in one step
# mean it used parallel calls; no call at all means the "answer" was not built on any data —
# whatever it says. The verdict checks the answer against the tool results, not the model's
# wording: it needs both prices, and the comparison must come out as 67.92 < 1488.21, so
# 贵州茅台 is higher. An answer that quotes both prices correctly and still says 青岛啤酒更高
# is rejected for a backwards comparison — a small model can copy numbers without reading
# them. (With the default guards such a draft is caught before it is accepted: look for a step
# of kind `ungrounded` in the run above, and for what the model answered after it.) (The check above passes either way: it checks that your code ran the
# right question with native calls; the verdict is the model's grade, not yours.)
#
# ---
# Back to [05 · Native tool calls](../05_native_tool_calls.ipynb) | Index: [README](../../README.md)

# %% [markdown] lang="zh-CN"
# 每步一个调用，说明模型是一个接一个地查询股价的；一步里有两个调用，说明它用了并行调用；一个调用都没有，
# 说明这个"答案"不是基于任何数据得出的——不管它说了什么。判定依据工具结果而不是模型的措辞来检查答案：
# 它需要两个股价都出现，而且比较结果必须是 67.92 < 1488.21，即贵州茅台更高。一个把两个股价都引用正确、却
# 仍然说"青岛啤酒更高"的答案会因为比较方向弄反而被判为错——小模型可能会照抄数字而不去读懂它们。（在默认护栏下，这样的草稿在被接受之前就会被拦下：在上面的运行里找一找类型为 `ungrounded` 的步骤，看看模型在它之后答了什么。）
# （上面的检查无论如何都会通过：它检查的是你的代码是否用原生调用跑了正确的问题；判定是给模型打的分，不是给你的。）
#
# ---
# 返回 [05 · 原生工具调用](../05_native_tool_calls.ipynb) | 目录：[README](../../../README.zh-CN.md)
