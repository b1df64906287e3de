# %% [markdown]
# # 06 · Under the hood — solutions
# *One possible solution per exercise of [06 · Under the hood](../06_under_the_hood.ipynb). Model outputs are whatever this run produced.*

# %% [markdown] lang="zh-CN"
# # 06 · 深入底层——参考答案
# *[06 · 深入底层](../06_under_the_hood.ipynb) 每道练习的一种可行解法。模型输出就是这次运行产生的结果。*

# %%
# NBVAL_IGNORE_OUTPUT
import os
import json

import reactlab
from reactlab.exercises.nb06 import check_1, check_2, check_3, check_4
from reactlab.fc_agent import run_function_calling
from reactlab.grader import grade
from reactlab.react_agent import run_react
from reactlab.server.template import ChatTemplate
from reactlab.server.toolcalls import parse_tool_calls
from reactlab.server.weights import ensure_model
from reactlab.tools import ToolRegistry, default_registry

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
course = default_registry()
weather_only = ToolRegistry([course.get("get_weather")])
template = ChatTemplate.from_gguf(ensure_model("qwen2.5-coder-1.5b-instruct", progress=False))

# %% [markdown]
# ## 1. The second request

# %% [markdown] lang="zh-CN"
# ## 1. 第二次请求

# %%
second = [
    {"role": "user", "content": "北京今天天气怎么样？"},
    {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"location\": \"北京\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": course.call("get_weather", {"location": "北京"})},
]
answer_1 = template.render(second, tools=weather_only.openai_tools())
print(answer_1.split("</tools>", 1)[1])
check_1(answer_1)

# %% [markdown]
# The assistant's call is written back as `<tool_call>…</tool_call>` in an assistant turn, and
# the tool result goes inside `<tool_response>…</tool_response>` in a **user** turn: Qwen2.5's
# template has no separate tool role in the text. Notice too that the `tool_call_id` appears
# nowhere — the model matches results to calls by position, which is one more reason to keep
# the order.
#
# ## 2. Break the parser

# %% [markdown] lang="zh-CN"
# assistant 的调用被写回成 assistant 轮次里的 `<tool_call>…</tool_call>`，而工具结果放在一个 **user**
# 轮次的 `<tool_response>…</tool_response>` 里：Qwen2.5 的模板在文本中没有单独的 tool 角色。还要注意，
# `tool_call_id` 在哪儿都没出现——模型是按位置把结果和调用对应起来的，这又是一个必须保持顺序的理由。
#
# ## 2. 弄坏解析器

# %%
tricky = {
    "single quotes, no tag": "{'name': 'get_weather', 'arguments': {'location': '北京'}}",
    "unknown tool in a fence": '```json\n{"name": "get_forecast", "arguments": {"location": "北京"}}\n```',
    "call described in prose": 'I would call get_weather with location 北京.',
}
for label, text in tricky.items():
    parsed = parse_tool_calls(text, tool_names=["get_weather"])
    print(f"{label:<26} calls={[(c.name, c.arguments) for c in parsed.calls]} content={parsed.content!r:.60}")
answer_2 = tricky
check_2(answer_2)

# %% [markdown]
# - Single quotes outside a tag are not JSON; the parser leaves the text as content. Accepting
#   Python literals everywhere would also turn harmless dict-like answers into calls.
# - An unknown tool outside a tag is not a call (only known names count outside tags), so the
#   agent sees an answer. Better behaviour for an agent: tell the model the tool does not exist
#   — which happens when the call is in a tag, because inside a tag any name is accepted and the
#   registry then answers "There is no tool named …".
# - Prose is prose. Only constrained decoding (`tool_choice="required"`) rules this case out.
#
# ## 3. Name the function

# %% [markdown] lang="zh-CN"
# - 标签外的单引号不是 JSON；解析器会把这段文本留作 content。如果到处都接受 Python 字面量，
#   一些无害的、长得像 dict 的答案也会被当成调用。
# - 标签外的未知工具不算调用（在标签外只认已知的名字），所以智能体看到的是一个答案。对智能体更好的做法是
#   告诉模型这个工具不存在——当调用写在标签里时正是如此，因为标签内任何名字都会被接受，随后由工具注册表
#   回复 "There is no tool named …"。
# - 文字描述就是文字描述。只有约束解码（`tool_choice="required"`）才能排除这种情况。
#
# ## 3. 指定函数

# %%
# NBVAL_IGNORE_OUTPUT
calc = ToolRegistry([course.get("calculator")])
r = conn.client.chat.completions.create(
    model=conn.model, messages=[{"role": "user", "content": "306 乘以 5 等于多少？"}],
    tools=calc.openai_tools(), temperature=0, max_tokens=100,
    tool_choice={"type": "function", "function": {"name": "calculator"}},
    extra_body={"reactlab_debug": True} if conn.provider == "local" else None)
dbg = (r.model_extra or {}).get("reactlab", {})
print("schema:", json.dumps(dbg.get("json_schema"), ensure_ascii=False))
print("raw text:", dbg.get("raw_text"))
print("calls:", [(c.function.name, c.function.arguments) for c in r.choices[0].message.tool_calls or []])
answer_3 = r
check_3(answer_3)

# %% [markdown]
# A named choice gives a schema whose `name` is a constant: the model only chooses the
# arguments, and the arguments must fit the tool's parameter schema.
#
# ## 4. A second task, one that needs no tool

# %% [markdown] lang="zh-CN"
# 指定函数得到的 schema 里，`name` 是一个常量：模型只需要选择参数，而参数必须符合该工具的参数 schema。
#
# ## 4. 第二个任务：不需要工具

# %%
# NBVAL_IGNORE_OUTPUT
q = "用一句话解释什么是 JSON。"
tools = ToolRegistry([course.get("get_weather"), course.get("calculator")])
runs = {}
for label, agent in [("react", run_react), ("native", run_function_calling)]:
    run = runs[label] = agent(q, tools=tools, conn=conn, max_steps=3, max_tokens=200)
    print(f"{label:<7} {run.status:<10} steps={len(run.steps)} prompt={run.usage.get('prompt_tokens')} "
          f"completion={run.usage.get('completion_tokens')} answer={(run.answer or '')[:60]!r}")
    print("       ", grade(run))
spent = {k: r.usage.get("prompt_tokens", 0) + r.usage.get("completion_tokens", 0) for k, r in runs.items()}
answer_4 = {**runs, "more_tokens": max(spent, key=spent.get)}
check_4(answer_4)

# %% [markdown]
# A question that needs no tool costs one model call in the best case, and then the difference
# is the prompt: the ReAct system prompt (format rules and examples) against the template's tool
# block plus the agent's short system prompt; ReAct's reply is also longer (`Thought:` and
# `Final Answer:` around the answer). Check the `steps` column before comparing tokens: a ReAct
# run that never wrote a `Final Answer:` line the parser accepts keeps going until its budget
# runs out, and then every extra step re-sends the whole prompt.

# %% [markdown] lang="zh-CN"
# 一个不需要工具的问题，最好的情况下只花一次模型调用，这时差别就在提示词上：ReAct 的系统提示词（格式规则和示例）
# 对比模板的工具块加上智能体简短的系统提示词；ReAct 的回复也更长（答案前后还有 `Thought:` 和 `Final Answer:`）。
# 比较 token 之前先看 `steps` 列：一次 ReAct 运行如果始终没写出解析器能接受的 `Final Answer:` 行，就会一直跑到
# 预算用完，而每多一步都要把整个提示词重新发一遍。
