# %% [markdown]
# # 05 · Native tool calls — solutions
# *One possible solution per exercise of [05 · Native tool calls](../05_native_tool_calls.ipynb). Model outputs are whatever this run produced; every run is followed by its verdict.*

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
# gets ✘ with the reason "the comparison is backwards" — a small model can copy numbers
# without reading them. (The check above passes either way: it checks that your code ran the
# right question with native calls; the verdict is the model's grade, not yours.)
#
# ---
# Back to [05 · Native tool calls](../05_native_tool_calls.ipynb) | Index: [README](../../README.md)
