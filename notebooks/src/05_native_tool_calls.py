# %% [markdown]
# # 05 · Native tool calls
# *The API carries the tool call for you — as structured `tool_calls` instead of text you must parse — in exchange for a strict message order.*
#
# **After this notebook you can:**
# - declare tools with `tools=[…]`, recognise `finish_reason == "tool_calls"` and read each call's `id`, `name` and `arguments`;
# - answer a call with a `role: "tool"` message that carries its `tool_call_id`, and explain the 400 you get when the assistant message with `tool_calls` is missing;
# - assemble streamed argument fragments by hand, then with `ToolCallAccumulator` — including DashScope's `"id": ""` chunks;
# - finish a round trip — streamed or not — with a second response whose `finish_reason` is `"stop"`;
# - run several calls from one reply in parallel, put the results back in call order, and run the savings agent's question end to end.
#
# **Where we are:** notebook 04 ran the ReAct loop on plain text: a prompt that teaches a format,
# `stop`, and a parser. Here the API does the formatting. We keep the course tools from 04
# (`reactlab.tools`) and leave the parser behind.
#
# > 原生工具调用：工具用 JSON Schema 声明，模型返回结构化的 `tool_calls`，我们执行工具后用
# > `role: "tool"` 回填结果。不再需要正则解析，但消息顺序必须严格：先 assistant（带 tool_calls），
# > 再逐个 tool 结果，然后才能再次请求模型。

# %% [markdown] lang="zh-CN"
# # 05 · 原生工具调用
# *工具调用由 API 替你承载——不再是需要你自己解析的文本，而是结构化的 `tool_calls`；代价是消息顺序必须严格。*
#
# **学完本课，你能够：**
# - 用 `tools=[…]` 声明工具，识别 `finish_reason == "tool_calls"`，并读出每个调用的 `id`、`name` 和 `arguments`；
# - 用一条携带 `tool_call_id` 的 `role: "tool"` 消息回应一个调用，并解释缺少带 `tool_calls` 的 assistant 消息时为什么会收到 400；
# - 先手工、再用 `ToolCallAccumulator` 拼接流式输出中的参数片段——包括 DashScope 那种 `"id": ""` 的 chunk；
# - 完成一次完整的往返（流式或非流式），以第二个 `finish_reason` 为 `"stop"` 的响应收尾；
# - 把一次回复里的多个调用并行执行，按调用顺序放回结果，并把储蓄智能体的问题从头到尾跑通。
#
# **我们在哪儿：** 第 04 课在纯文本上跑 ReAct 循环：一段教会模型格式的提示词、`stop`，再加一个解析器。
# 这一课由 API 负责格式。我们沿用第 04 课的课程工具（`reactlab.tools`），解析器则不再需要。
#
# > 原生工具调用：工具用 JSON Schema 声明，模型返回结构化的 `tool_calls`，我们执行工具后用
# > `role: "tool"` 回填结果。不再需要正则解析，但消息顺序必须严格：先 assistant（带 tool_calls），
# > 再逐个 tool 结果，然后才能再次请求模型。

# %% [markdown]
# ## Setup

# %% [markdown] lang="zh-CN"
# ## 准备工作

# %%
# NBVAL_IGNORE_OUTPUT
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

import openai

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
import reactlab
from reactlab.grader import Expected, grade
from reactlab.http import stream_chat
from reactlab.runlog import RunResult, Step, ToolCallRecord
from reactlab.tools import ToolRegistry, default_registry

conn = reactlab.connect()
course = default_registry()
print("course tools:", course.names())

# %% [markdown]
# ## 1. The menu: `tools=[…]`
#
# In ReAct the tool list was prose inside the system prompt. With native calls it is a request
# parameter: a list of JSON Schema descriptions. The model reads `description` like an
# instruction sheet, so a good one says *when* to use the tool and gives an example value for
# every argument. Here is one entry, produced by the registry from the function's
# docstring and type hints:

# %% [markdown] lang="zh-CN"
# ## 1. 菜单：`tools=[…]`
#
# 在 ReAct 里，工具列表是写在系统提示词里的一段文字。用原生调用时，它变成了请求参数：一组
# JSON Schema 描述。模型把 `description` 当成说明书来读，所以好的描述要写清*什么时候*该用这个工具，
# 并给每个参数一个示例值。下面是其中一项，由工具注册表根据函数的 docstring 和类型注解生成：

# %%
weather_only = ToolRegistry([course.get("get_weather")])
print(json.dumps(weather_only.openai_tools(), ensure_ascii=False, indent=2))

# %% [markdown]
# ## 2. One request with tools
#
# **Predict** what comes back. If the model decides it needs the tool, the reply should not be an
# answer at all: `finish_reason` becomes `"tool_calls"`, `message.content` is usually empty, and
# `message.tool_calls` lists what the model wants run. Note that `arguments` is a JSON
# **string**, not a dict — the model wrote it token by token, and nothing guarantees it parses.

# %% [markdown] lang="zh-CN"
# ## 2. 带工具的一次请求
#
# **先预测**会返回什么。如果模型认为需要调用工具，回复就根本不是答案：`finish_reason` 变成
# `"tool_calls"`，`message.content` 通常为空，`message.tool_calls` 列出模型想执行的调用。注意
# `arguments` 是一个 JSON **字符串**，不是 dict——它是模型一个 token 一个 token 写出来的，没有任何东西保证它能被解析。

# %%
# NBVAL_IGNORE_OUTPUT
question = "北京今天天气怎么样？"
first = conn.client.chat.completions.create(
    model=conn.model,
    messages=[{"role": "user", "content": question}],
    tools=weather_only.openai_tools(),
    temperature=0,
    max_tokens=200,
)
msg = first.choices[0].message
print("finish_reason:", first.choices[0].finish_reason)
print("content:      ", repr(msg.content))
for call in msg.tool_calls or []:
    print("tool call:     id=%s name=%s arguments=%r" % (call.id, call.function.name,
                                                          call.function.arguments))

# %% [markdown]
# What did it do? With `tool_choice="auto"` (the default) calling the tool is the model's
# choice. The cell below keeps the notebook going either way: if this run produced no call, it
# asks again with `tool_choice="required"`, which obliges the server to return one (notebook 06
# shows how the local server enforces that).

# %% [markdown] lang="zh-CN"
# 它做了什么？在 `tool_choice="auto"`（默认值）下，调不调用工具由模型自己决定。下面这个单元格保证
# 无论哪种情况笔记本都能继续：如果这次运行没有产生调用，就用 `tool_choice="required"` 再问一次，
# 这会强制服务器返回一个调用（第 06 课会展示本地服务器如何做到这一点）。

# %%
# NBVAL_IGNORE_OUTPUT
if not msg.tool_calls:
    print("No tool call this time — the model answered directly. Asking again with "
          'tool_choice="required".')
    first = conn.client.chat.completions.create(
        model=conn.model, messages=[{"role": "user", "content": question}],
        tools=weather_only.openai_tools(), tool_choice="required", temperature=0, max_tokens=200)
    msg = first.choices[0].message
call = msg.tool_calls[0]
print(f"We work with: {call.function.name}({call.function.arguments})  id={call.id}")

# %% [markdown]
# ## 3. Running the tool and answering with `role: "tool"`
#
# The model only *asked*. Our code decodes the arguments, runs the function, and sends the
# result back as a message with role `tool`. The `tool_call_id` says which call this result
# answers — a reply can hold several calls, and each needs exactly one answer.
# `registry.run` never raises: a bad call comes back as an `Error: …` text the model can read
# (notebook 07 is about that).

# %% [markdown] lang="zh-CN"
# ## 3. 执行工具，用 `role: "tool"` 回应
#
# 模型只是*提出请求*。由我们的代码解码参数、执行函数，再把结果以 role 为 `tool` 的消息发回去。
# `tool_call_id` 说明这条结果回应的是哪个调用——一条回复里可以有多个调用，每个调用都需要恰好一个回应。
# `registry.run` 从不抛异常：出错的调用会变成一段模型能读懂的 `Error: …` 文本返回
# （第 07 课专门讲这个）。

# %%
# NBVAL_IGNORE_OUTPUT
try:
    args = json.loads(call.function.arguments or "{}")
except ValueError:  # not JSON: pass the text on, run() turns it into an error message
    args = call.function.arguments
observation, is_error = weather_only.run(call.function.name, args)
tool_message = {"role": "tool", "tool_call_id": call.id, "content": observation}
print(json.dumps(tool_message, ensure_ascii=False, indent=2))

# %% [markdown]
# ## 4. Watch it break: the missing assistant message
#
# A widely copied DashScope tutorial shows its second request like this: the user question,
# then directly the `tool` message. The assistant message that *made* the call is not there, and the
# `tool_call_id` (`call_xyz789`) points at a call the conversation never contains. Here is that
# request, with the tutorial's own tool and weather figures, sent to our local server:

# %% [markdown] lang="zh-CN"
# ## 4. 看它出错：缺失的 assistant 消息
#
# 一篇被广泛转载的 DashScope 教程，第二次请求是这样写的：用户问题之后直接跟 `tool` 消息。*发起*调用的那条
# assistant 消息不见了，`tool_call_id`（`call_xyz789`）指向的是一个对话里根本不存在的调用。下面就是这个请求，
# 用的是教程自己的工具和天气数据，发给我们的本地服务器：

# %%
tutorial_tool = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "获取指定城市的当前天气",
        "parameters": {
            "type": "object",
            "properties": {"location": {"type": "string", "description": "城市名称"}},
            "required": ["location"],
        },
    },
}
tutorial_user = {"role": "user", "content": "今天的天气怎么样？我想出去露营，需要准备什么"}
tutorial_result = {"role": "tool", "tool_call_id": "call_xyz789",
                  "content": json.dumps({"temp": 32, "humidity": 75, "condition": "雷阵雨"},
                                        ensure_ascii=False)}
broken_messages = [tutorial_user, tutorial_result]  # as in the tutorial: no assistant message

# %%
# NBVAL_IGNORE_OUTPUT
try:
    reply = conn.client.chat.completions.create(
        model=conn.model, messages=broken_messages, tools=[tutorial_tool],
        temperature=0, max_tokens=120)
    print("The server accepted it and answered:", reply.choices[0].message.content)
except openai.APIStatusError as err:
    print(f"{type(err).__name__}: HTTP {err.status_code}")
    print(json.dumps(err.body, ensure_ascii=False, indent=2))

# %% [markdown]
# The OpenAI-style rule is strict: a `tool` message must answer a call listed in the `tool_calls`
# of the assistant message right before it. OpenAI's API and the local server refuse the request
# (above is what the local server said); other providers differ in wording — and a provider that
# accepts such a list anyway leaves the model reading a weather report that answers no question it
# remembers asking: a broken order makes the model look "suddenly dumb". The fix is to echo the assistant message exactly as it came: same `id`, same name, same
# `arguments` string. The tutorial never shows that message, so the next cell writes it: the id
# its tool message answers, and `{"location": "北京"}`, the arguments of the call its stream
# recorded (section 5 replays those chunks).

# %% [markdown] lang="zh-CN"
# OpenAI 风格的规则很严格：一条 `tool` 消息必须回应紧挨在它前面的那条 assistant 消息的 `tool_calls`
# 里列出的某个调用。OpenAI 的 API 和本地服务器都会拒绝这个请求（上面就是本地服务器的回复）；其他服务商的
# 报错措辞各不相同——而如果某个服务商照单全收，模型读到的就是一份天气报告，却想不起自己问过什么：
# 顺序一乱，模型看起来就"突然变笨了"。修复方法是把 assistant 消息原样回传：同样的 `id`、同样的名字、
# 同样的 `arguments` 字符串。那篇教程从没给出这条消息，所以下一个单元格把它写出来：id 用它的 tool 消息回应的那个，
# 参数 `{"location": "北京"}` 取自它的流式输出记录下的那个调用（第 5 节会重放那些分块）。

# %%
tutorial_call = {"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_xyz789", "type": "function",
    "function": {"name": "get_current_weather", "arguments": json.dumps({"location": "北京"},
                                                                        ensure_ascii=False)}}]}
fixed_messages = [tutorial_user, tutorial_call, tutorial_result]

# %% [markdown]
# Every answer in this series gets the verdict of notebook 04's grader, the answer key. The
# grader reads a `RunResult`; a conversation we drive by hand becomes one with a few lines —
# one `Step` per request, its tool calls with their results, and the answer:

# %% [markdown] lang="zh-CN"
# 这个系列里的每个答案都会拿到第 04 课评分器的判定，也就是参考答案。评分器读取的是 `RunResult`；
# 我们手工驱动的对话只需几行就能变成一个 `RunResult`——每次请求一个 `Step`，记下它的工具调用及结果，
# 再加上答案：

# %%
def args_of(arguments):
    """Decoded arguments, or the text itself when it is not JSON."""
    try:
        return json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return arguments


def as_run(question, requests, answer, status="final"):
    """A hand-driven conversation as a RunResult for grade(); requests: one list of
    (name, arguments, observation, is_error) per model reply that asked for tools."""
    steps = [Step(i, "action", tool_calls=[ToolCallRecord(n, args_of(a), o, error=e)
                                           for n, a, o, e in calls])
             for i, calls in enumerate(requests, 1)]
    if answer is not None:  # None: the conversation stopped before any answer
        steps.append(Step(len(steps) + 1, "final" if answer else "empty", answer))
    return RunResult(question, answer, status, steps)

# %%
# NBVAL_IGNORE_OUTPUT
t0 = time.perf_counter()
reply = conn.client.chat.completions.create(
    model=conn.model, messages=fixed_messages, tools=[tutorial_tool], temperature=0, max_tokens=150)
print(f"finish_reason: {reply.choices[0].finish_reason}   ({time.perf_counter() - t0:.1f} s)")
print(reply.choices[0].message.content or reply.choices[0].message.tool_calls)
print(grade(as_run(tutorial_user["content"],  # content is None when it asked for a tool again
                   [[("get_current_weather", {"location": "北京"}, tutorial_result["content"], False)]],
                   reply.choices[0].message.content)))

# %% [markdown]
# This time the request is valid, and what comes back is the model's choice: `finish_reason:
# "stop"` with an answer built on the tool result, or `"tool_calls"` if it decided to ask for the
# weather again — small models sometimes repeat a call whose result is already in front of them
# (notebook 07 deals with that). The verdict checks the figures against the tool result; it
# does not check advice, so whether the answer also says what to pack for camping — the
# question's second half — is for you to read.
#
# Now the same repair for our own conversation from sections 2–3. The assistant message is
# rebuilt from the SDK object field by field, so you can see exactly what goes back.

# %% [markdown] lang="zh-CN"
# 这次请求是合法的，返回什么则由模型决定：`finish_reason: "stop"` 加上一个基于工具结果的回答，
# 或者是 `"tool_calls"`——如果它决定再查一次天气的话。小模型有时会重复一个结果已经摆在眼前的调用
# （第 07 课会处理这个问题）。判定只拿数字去和工具结果核对，不检查建议，所以答案有没有回答问题的后半句
# ——露营要准备什么——要你自己读。
#
# 现在对第 2–3 节里我们自己的对话做同样的修复。assistant 消息由 SDK 对象逐字段重建，
# 这样你能清楚地看到发回去的到底是什么。

# %%
def assistant_message(message) -> dict:
    """The assistant turn to echo back: content plus every tool call, unchanged."""
    return {"role": "assistant", "content": message.content,
            "tool_calls": [{"id": c.id, "type": "function",
                            "function": {"name": c.function.name,
                                         "arguments": c.function.arguments}}
                           for c in message.tool_calls]}


conversation = [{"role": "user", "content": question}, assistant_message(msg), tool_message]
for m in conversation:
    print(json.dumps(m, ensure_ascii=False)[:160])

# %%
# NBVAL_IGNORE_OUTPUT
again = conn.client.chat.completions.create(
    model=conn.model, messages=conversation, tools=weather_only.openai_tools(),
    temperature=0, max_tokens=150)
print("finish_reason:", again.choices[0].finish_reason)
print(again.choices[0].message.content or again.choices[0].message.tool_calls)
print(grade(as_run(question, [[(call.function.name, args, observation, is_error)]],
                   again.choices[0].message.content), Expected(parts=("北京",))))

# %% [markdown]
# Read the output before moving on. A `finish_reason` of `"stop"` means the model answered from
# the tool result. Another `"tool_calls"` means it wants more — and this small model, offered
# the tool again, can ask for the very call whose result it has just been given. When that
# happens, the request is right and the model's choice is not.
#
# When every result the question needs is in the conversation, we can take the choice away:
# `tool_choice="none"` keeps the tools declared but allows only a text answer (the local server
# then shows the model no tool list at all). The package's loops do the
# same for their last request when a budget runs out: they send it without tools.

# %% [markdown] lang="zh-CN"
# 继续之前先看看输出。`finish_reason` 为 `"stop"` 说明模型根据工具结果作答了。如果又是
# `"tool_calls"`，说明它还想要更多——而这个小模型在工具仍然可用时，可能会再次请求它刚刚拿到结果的
# 那个调用。真发生时，请求本身没错，错的是模型的选择。
#
# 当问题需要的所有结果都已经在对话里时，我们可以收回这个选择权：`tool_choice="none"` 保留工具声明，
# 但只允许文本回答（此时本地服务器干脆不给模型看工具列表）。包里的循环在预算用完时，
# 对最后一次请求也是这么做的：不带工具发送。

# %%
# NBVAL_IGNORE_OUTPUT
final = conn.client.chat.completions.create(
    model=conn.model, messages=conversation, tools=weather_only.openai_tools(),
    tool_choice="none", temperature=0, max_tokens=150)
print("finish_reason:", final.choices[0].finish_reason)
print("answer:", final.choices[0].message.content)

# %% [markdown]
# That closes the round trip: request → `tool_calls` → our tool → `role: "tool"` → an answer
# with `finish_reason: "stop"`. (An empty answer is a known habit of small models right after
# a tool result — the package's loop re-asks once when it happens.)
#
# Is the answer right? `as_run` from section 4 makes this conversation a `RunResult` for the
# grader:

# %% [markdown] lang="zh-CN"
# 一次往返就此完成：请求 → `tool_calls` → 我们的工具 → `role: "tool"` → 一个
# `finish_reason: "stop"` 的回答。（刚拿到工具结果就给出空回答，是小模型的一个已知毛病——
# 包里的循环遇到这种情况会重问一次。）
#
# 答案对吗？用第 4 节的 `as_run` 把这段对话变成一个 `RunResult`，交给评分器：

# %%
# NBVAL_IGNORE_OUTPUT
round_trip = as_run(question, [[(call.function.name, args, observation, is_error)]],
                    final.choices[0].message.content)
print(grade(round_trip, Expected(parts=("北京",))))

# %% [markdown]
# ## 5. Streaming: arguments arrive in pieces
#
# With `stream=True` the reply comes as many small chunks, and a tool call is spread over them:
# typically the first fragment carries `index`, `id` and the function `name`, and later fragments
# carry more of the `arguments` string. Here is the raw stream of the request from section 2
# (read with `reactlab.http.stream_chat`, so each chunk is a plain dict):

# %% [markdown] lang="zh-CN"
# ## 5. 流式输出：参数分块到达
#
# 用 `stream=True` 时，回复以许多小 chunk 的形式到达，一个工具调用也被分散在其中：通常第一个片段带着
# `index`、`id` 和函数 `name`，后面的片段再陆续带来 `arguments` 字符串的其余部分。下面是第 2 节那个请求的
# 原始流（用 `reactlab.http.stream_chat` 读取，所以每个 chunk 都是普通的 dict）：

# %%
# NBVAL_IGNORE_OUTPUT
body = {"model": conn.model, "messages": [{"role": "user", "content": question}],
        "tools": weather_only.openai_tools(), "temperature": 0, "max_tokens": 200,
        "stream_options": {"include_usage": True}}
live_chunks = list(stream_chat(conn.base_url, conn.headers(), body))
for chunk in live_chunks:
    for choice in chunk["choices"]:
        delta = {k: v for k, v in choice["delta"].items() if v not in (None, "", [])}
        print(json.dumps(delta, ensure_ascii=False), "| finish_reason:", choice["finish_reason"])
    if not chunk["choices"]:
        print("usage chunk:", chunk.get("usage"))
print(len(live_chunks), "chunks")

# %% [markdown]
# Assembling by hand looks easy. A first attempt: *a fragment that has an `id` starts a new call;
# one without an `id` continues the last call.*

# %% [markdown] lang="zh-CN"
# 手工拼接看起来很简单。第一版尝试：*带 `id` 的片段开始一个新调用；不带 `id` 的片段接在上一个调用后面。*

# %%
def assemble_naive(chunks: list[dict]) -> list[dict]:
    calls = []
    for chunk in chunks:
        for choice in chunk["choices"]:
            for frag in choice["delta"].get("tool_calls") or []:
                function = frag.get("function") or {}
                if frag.get("id") is not None or not calls:   # "an id means a new call"
                    calls.append({"id": frag.get("id"), "name": function.get("name"),
                                  "arguments": ""})
                calls[-1]["arguments"] += function.get("arguments") or ""
    return calls


print(assemble_naive(live_chunks))

# %% [markdown]
# Whether that worked on the local stream depends on how the server spells its chunks (look at
# the output above). Now the DashScope tutorial's stream. It recorded two chunks — one with
# the tail of the arguments and `"id": ""`, and the closing one with `finish_reason:
# "tool_calls"`. The opening chunk with the id, the name and the start of the arguments was not
# shown, so we **reconstruct** it (marked below); the other two are the tutorial's, unchanged.

# %% [markdown] lang="zh-CN"
# 这在本地的流上行不行得通，取决于服务器怎么组织它的 chunk（看上面的输出）。再来看 DashScope 教程里的流。
# 教程记录了两个 chunk——一个带着参数的后半段和 `"id": ""`，另一个是收尾的、带
# `finish_reason: "tool_calls"` 的 chunk。带 id、名字和参数开头的第一个 chunk 教程没有展示，
# 所以我们把它**重建**出来（下面有标注）；另外两个是教程原文，未做改动。

# %%
opening_chunk = {  # RECONSTRUCTED (not in the tutorial): id, name, start of the arguments
    "id": "chatcmpl-7ed551c3-8360-9710-b4c6-5191d3c4db2a", "object": "chat.completion.chunk",
    "model": "qwen-plus",
    "choices": [{"index": 0, "finish_reason": None, "delta": {"content": None, "tool_calls": [
        {"index": 0, "id": "call_reconstructed", "type": "function",
         "function": {"name": "get_current_weather", "arguments": "{\"location\":"}}]}}],
}

# %%
dashscope_chunks = [
    opening_chunk,
    {  # RECORDED in the tutorial
        "id": "chatcmpl-7ed551c3-8360-9710-b4c6-5191d3c4db2a", "object": "chat.completion.chunk",
        "created": 1785218854, "model": "qwen-plus",
        "choices": [{"delta": {"tool_calls": [{"function": {"arguments": " \"北京\"}"},
                                               "index": 0, "id": "", "type": "function"}],
                               "content": None},
                     "index": 0, "finish_reason": None, "logprobs": None}],
        "usage": None,
    },
    {  # RECORDED in the tutorial
        "id": "chatcmpl-7ed551c3-8360-9710-b4c6-5191d3c4db2a", "object": "chat.completion.chunk",
        "created": 1785218854, "model": "qwen-plus",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls", "logprobs": None}],
        "usage": None,
    },
]
print(json.dumps(assemble_naive(dashscope_chunks), ensure_ascii=False, indent=1))

# %% [markdown]
# Two "calls" where there was one: the second has the id `""`, no name, and the arguments
# ` "北京"}` — while the first holds `{"location":`, which is not valid JSON. In this recording
# DashScope sends the later fragment with `"id": ""`, and `""` means *same call*, not a new one.
# The field that really identifies a call within one reply is `index`. A second attempt, keyed
# by index:

# %% [markdown] lang="zh-CN"
# 本来只有一个调用，却拼出了两个"调用"：第二个的 id 是 `""`、没有名字，参数是 ` "北京"}`——
# 而第一个里装的是 `{"location":`，不是合法的 JSON。在这段录下的流里，DashScope 发来的
# 后一个片段带着 `"id": ""`，而 `""` 的意思是*同一个调用*，而不是新调用。在一条回复中真正标识调用的字段是 `index`。
# 第二版，按 index 拼接：

# %%
def assemble_by_index(chunks: list[dict]) -> list[dict]:
    calls: dict[int, dict] = {}
    for chunk in chunks:
        for choice in chunk["choices"]:
            for frag in choice["delta"].get("tool_calls") or []:
                c = calls.setdefault(frag.get("index", 0), {"id": "", "name": "", "arguments": ""})
                c["id"] = c["id"] or frag.get("id") or ""          # first non-empty id wins
                c["name"] = c["name"] or (frag.get("function") or {}).get("name") or ""
                c["arguments"] += (frag.get("function") or {}).get("arguments") or ""
    return [calls[i] for i in sorted(calls)]


for name, chunks in [("local stream", live_chunks), ("DashScope tutorial", dashscope_chunks)]:
    print(f"{name:<22}", assemble_by_index(chunks))

# %% [markdown]
# Other providers have other habits (some repeat the full id and name on every chunk, some omit
# `index`, some send a whole call in one chunk, and the usage chunk has `choices: []`). That list
# of cases is what `reactlab.streaming.ToolCallAccumulator` handles.
#
# ### This now lives in the package
#
# `ToolCallAccumulator` takes dicts or SDK chunk objects and gives back the finished calls, the
# text, the `finish_reason`, and the assistant message to echo:

# %% [markdown] lang="zh-CN"
# 其他服务商各有各的习惯（有的在每个 chunk 上重复完整的 id 和名字，有的省略 `index`，有的把整个调用
# 放在一个 chunk 里发出，而 usage chunk 的 `choices` 是 `[]`）。`reactlab.streaming.ToolCallAccumulator`
# 处理的正是这一串情况。
#
# ### 这部分现在已经放进包里了
#
# `ToolCallAccumulator` 接受 dict 或 SDK 的 chunk 对象，返回拼好的调用、文本、`finish_reason`，
# 以及要回传的 assistant 消息：

# %%
from reactlab.streaming import ToolCallAccumulator

for name, chunks in [("local stream", live_chunks), ("DashScope tutorial", dashscope_chunks)]:
    acc = ToolCallAccumulator()
    for chunk in chunks:
        acc.add(chunk)
    print(f"{name}: finish_reason={acc.finish_reason}")
    print("  ", json.dumps(acc.message(), ensure_ascii=False))

# %% [markdown]
# The same works on the SDK's own stream objects — and with it we can take the streamed round
# trip to its end. First the streamed request, assembled as it arrives:

# %% [markdown] lang="zh-CN"
# 它同样适用于 SDK 自己的流对象——借助它，我们可以把流式的往返走完。首先是流式请求，边到达边拼接：

# %%
# NBVAL_IGNORE_OUTPUT
def stream_once(messages, **options):
    """One streamed request, assembled by ToolCallAccumulator."""
    acc = ToolCallAccumulator()
    for chunk in conn.client.chat.completions.create(
            model=conn.model, messages=messages, tools=weather_only.openai_tools(),
            temperature=0, max_tokens=200, stream=True, **options):
        acc.add(chunk)
    return acc


streamed = stream_once([{"role": "user", "content": question}])
if not streamed.tool_calls:  # answered directly: ask again, obliged to call (section 2)
    print("no tool call this time; asking again with tool_choice='required'")
    streamed = stream_once([{"role": "user", "content": question}], tool_choice="required")
print(streamed.chunks, "chunks ->", streamed.finish_reason, streamed.tool_calls)

# %% [markdown]
# Then the rest of the round trip: run the tool, echo `streamed.message()` (the assistant turn,
# with every call as it was assembled), add one `tool` message per call id, and stream the
# second request. As in section 4, the second request says `tool_choice="none"`: every result
# is in, so the one thing left to do is answer.

# %% [markdown] lang="zh-CN"
# 接下来是往返的剩余部分：执行工具，回传 `streamed.message()`（assistant 这一轮，其中每个调用
# 都保持拼接后的样子），每个调用 id 追加一条 `tool` 消息，再以流式发送第二次请求。和第 4 节一样，
# 第二次请求带上 `tool_choice="none"`：结果都已到齐，剩下唯一要做的就是回答。

# %%
# NBVAL_IGNORE_OUTPUT
# demo: success
streamed_calls, streamed_conversation = [], [{"role": "user", "content": question},
                                             streamed.message()]
for c in streamed.tool_calls:
    text, failed = weather_only.run(c["function"]["name"], c["function"]["arguments"])
    streamed_calls.append((c["function"]["name"], c["function"]["arguments"], text, failed))
    streamed_conversation.append({"role": "tool", "tool_call_id": c["id"], "content": text})
second = stream_once(streamed_conversation, tool_choice="none")
print("second response: finish_reason =", second.finish_reason)
print("answer:", second.content)
print(grade(as_run(question, [streamed_calls], second.content), Expected(parts=("北京",))))

# %% [markdown]
# `finish_reason: "stop"` and an answer: that is the whole streamed round trip. If the verdict
# says ✘, its reasons say what the answer got wrong against the tool result above it.
#
# ## 6. Parallel calls: 北京 *and* 广州
#
# One reply may hold several calls — the model saying "these are independent, run them all".
# `parallel_tool_calls=True` tells the server the client takes several calls in one reply (it
# is OpenAI's default; sent here to make it visible). On reactlab's local server it also means
# one more `<tool_call>` is opened for the model after its calls, and a call it writes there is
# kept when it is new and its new values are in the question (part of the server's help for small models,
# notebook 09; `extra_body={"reactlab_more_calls": False}` leaves it out). Every call below is
# still one the model wrote. **Predict:** for "北京和广州今天天气怎么样？" a model that plans well asks for two
# `get_weather` calls in one reply; a weaker one asks for one city, or merges both into one
# argument. Let's see which happened:

# %% [markdown] lang="zh-CN"
# `finish_reason: "stop"` 加上一个回答：流式往返就是这些。如果判定是 ✘，它列出的理由会说明答案
# 相对于上面的工具结果错在哪里。
#
# ## 6. 并行调用：北京*和*广州
#
# 一条回复里可以有多个调用——模型在说"这些互不依赖，全都执行吧"。`parallel_tool_calls=True` 告诉服务器，
# 客户端接受一条回复里有多个调用（这是 OpenAI 的默认值；这里写出来是为了让它看得见）。在 reactlab 的本地服务器上，
# 它还意味着：模型写完调用后，服务器会替它再打开一个 `<tool_call>`，模型在里面写的调用，只要是新的、而且其中新出现的值都在问题里，
# 就会被保留（这是服务器为小模型提供的帮助的一部分，见第 09 课；`extra_body={"reactlab_more_calls": False}`
# 可以不要它）。下面的每个调用仍然都是模型自己写的。**先预测：** 对于
# "北京和广州今天天气怎么样？"，规划得好的模型会在一条回复里请求两个 `get_weather` 调用；
# 差一点的只问一个城市，或者把两个城市塞进同一个参数。看看这次是哪种：

# %%
# NBVAL_IGNORE_OUTPUT
two_cities = "北京和广州今天天气怎么样？"
parallel_conversation = [{"role": "user", "content": two_cities}]
reply = conn.client.chat.completions.create(
    model=conn.model, messages=parallel_conversation,
    tools=weather_only.openai_tools(), parallel_tool_calls=True, temperature=0, max_tokens=200)
pmsg = reply.choices[0].message
print("finish_reason:", reply.choices[0].finish_reason, "| calls:", len(pmsg.tool_calls or []))
for c in pmsg.tool_calls or []:
    print("  ", c.id, c.function.name, c.function.arguments)
if not pmsg.tool_calls:
    print("content:", pmsg.content)

# %% [markdown]
# ### Watch it break: two cities in one call
#
# `get_weather` takes ONE city (its description says so). A call like `{"location": "北京, 广州"}`
# is a failure of planning, not a parallel call: the tool refuses it. (When this notebook was
# last run, the model did exactly that: one call, `"北京, 广州"`.) Run what the model asked for
# and grade this first reply as if the run had stopped here. The verdict is ✘ in any case —
# there is no answer yet — so read the reasons after the first: a city listed as having "no
# tool result" got nothing from this reply. If the line above the verdict says True, this time
# the model made one call per city, and only the missing answer is left.

# %% [markdown] lang="zh-CN"
# ### 看它出错：一个调用里塞了两个城市
#
# `get_weather` 只接受一个城市（它的描述里写明了）。像 `{"location": "北京, 广州"}` 这样的调用是规划
# 失败，不是并行调用：工具会拒绝它。（上次运行这个笔记本时，模型正是这么做的：一个调用，`"北京, 广州"`。）
# 执行模型请求的调用，并假设运行到此为止，给这第一条回复评分。判定无论如何都是 ✘——因为还没有答案——
# 所以请看第一条之后的理由：被列为"no tool result"的城市，在这条回复里什么也没拿到。如果判定上面那一行
# 显示 True，说明这次模型给每个城市各发了一个调用，只差答案了。

# %%
# NBVAL_IGNORE_OUTPUT
# demo: break
first_results = []
for c in pmsg.tool_calls or []:
    text, failed = weather_only.run(c.function.name, c.function.arguments)
    first_results.append((c.function.name, c.function.arguments, text, failed))
    print(f"  {c.function.arguments} -> {text[:90]}")
print("each city in a call of its own:",
      sorted(json.loads(a).get("location", "") for _, a, _, e in first_results if not e)
      == ["北京", "广州"] if first_results else "no calls")
print(grade(as_run(two_cities, [first_results], None, status="max_steps"),
            Expected(parts=("北京", "广州"))))

# %% [markdown]
# The error text goes back as the tool result — that is what `registry.run` returns instead of
# raising — so the model can read it and try again. Echo the assistant message, answer each call
# id, and ask again. (When the notebook was last run, the model read the refusal and asked for
# 北京 and 广州 in two calls in one reply: a real parallel call. Both calls were in its own
# reply: checked once with notebook 06's debug view, the `<tool_call>` the server then opened
# held a call for 上海, which the question never names, so nothing was added. The cell asks
# again only if a call above failed, and prints what the model did this time.)

# %% [markdown] lang="zh-CN"
# 错误文本会作为工具结果发回去——`registry.run` 不抛异常，而是返回它——这样模型能读到它并重试。
# 回传 assistant 消息，回应每个调用 id，然后再问一次。（上次运行时，模型读到拒绝信息后，在一条回复里
# 用两个调用分别请求了北京和广州：真正的并行调用。这两个调用都在模型自己的回复里：用第 06 课的调试视图查过一次，
# 服务器随后替它打开的 `<tool_call>` 里写的是上海——问题里根本没提到——所以什么也没有加上。只有上面有调用失败时，这个单元格才会再问，
# 并打印模型这次做了什么。）

# %%
# NBVAL_IGNORE_OUTPUT
asked_again = bool(pmsg.tool_calls) and any(failed for *_, failed in first_results)
if asked_again:
    parallel_conversation += [assistant_message(pmsg)] + [
        {"role": "tool", "tool_call_id": c.id, "content": text}
        for c, (_, _, text, _) in zip(pmsg.tool_calls, first_results)]
    reply = conn.client.chat.completions.create(
        model=conn.model, messages=parallel_conversation, tools=weather_only.openai_tools(),
        parallel_tool_calls=True, temperature=0, max_tokens=200)
    pmsg = reply.choices[0].message
else:
    print("No failed call to correct: the next cells use the first reply as it is.")
print("finish_reason:", reply.choices[0].finish_reason, "| calls:", len(pmsg.tool_calls or []))
for c in pmsg.tool_calls or []:
    print("  ", c.id, c.function.name, c.function.arguments)

# %% [markdown]
# Independent calls can run at the same time, for instance in a thread pool. The results
# must still go back **in call order**, each with its own `tool_call_id`. To make the point
# visible we slow the *first* call down on purpose, so it finishes last. The calls are the ones
# the model just made — if it made fewer than two, the cell says so, and there is no order to
# get wrong.

# %% [markdown] lang="zh-CN"
# 互不依赖的调用可以同时执行，例如放进线程池。但结果仍必须**按调用顺序**发回，每个都带着自己的
# `tool_call_id`。为了让这一点看得见，我们故意让*第一个*调用变慢，使它最后完成。这里用的就是模型
# 刚才发出的调用——如果不到两个，单元格会如实说明，那也就不存在顺序出错的问题。

# %%
# NBVAL_IGNORE_OUTPUT
calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
         for c in pmsg.tool_calls or []]
print(f"the model asked for {len(calls)} call(s) in this reply")
finished = []


def run_call(position_and_call):
    position, c = position_and_call
    time.sleep(0.3 if position == 0 else 0.0)  # the first call is slow ON PURPOSE
    text, failed = weather_only.run(c["name"], c["arguments"])
    finished.append(c["id"])
    return {"role": "tool", "tool_call_id": c["id"], "content": text}


with ThreadPoolExecutor(max_workers=4) as pool:
    tool_messages = list(pool.map(run_call, enumerate(calls)))  # map keeps submission order

print("finished in this order:", finished)
print("sent back in this order:", [m["tool_call_id"] for m in tool_messages])
for m in tool_messages:
    print("  ", m["content"][:100])

# %% [markdown]
# `pool.map` hands results back in the order the calls were submitted, whatever order they
# finished in — that is all "results in order" takes. If one of the results above starts with
# `Error:`, the model sent something the tool refused; that text goes back as the observation,
# so the model can correct itself on the next step.
#
# ### This now lives in the package
#
# `reactlab.tools.execute_calls` takes the calls in the API's own shape and returns one outcome
# per call, in call order. It also knows what the hand-written version does not: a tool marked
# `side_effects=True` (booking, sending, paying) never runs in parallel — it waits for the calls
# before it and runs alone.

# %% [markdown] lang="zh-CN"
# 无论调用以什么顺序完成，`pool.map` 都按提交顺序返回结果——"结果保持顺序"要做的仅此而已。如果上面
# 某个结果以 `Error:` 开头，说明模型发来了工具拒绝的内容；这段文本会作为观察结果发回去，模型可以在下一步自我纠正。
#
# ### 这部分现在已经放进包里了
#
# `reactlab.tools.execute_calls` 接受 API 原生格式的调用，按调用顺序为每个调用返回一个结果。它还懂得
# 手写版本不懂的事：标记了 `side_effects=True` 的工具（预订、发送、支付）永远不会并行执行——
# 它会等前面的调用完成，然后单独执行。

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.tools import execute_calls

api_shaped = [{"id": c["id"], "type": "function",
               "function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]
outcomes = execute_calls(weather_only, api_shaped)
for outcome in outcomes:
    print(outcome.id, outcome.name, outcome.arguments, "error" if outcome.error else "ok",
          "->", outcome.observation[:60])

# %% [markdown]
# To finish the conversation, the results go back and the model answers (again with
# `tool_choice="none"`, since we will not run more calls here). The verdict grades the whole
# exchange: both replies' calls, their results, and the answer.

# %% [markdown] lang="zh-CN"
# 为了把对话收尾，结果发回去后由模型作答（同样带 `tool_choice="none"`，因为这里不会再执行更多调用）。
# 判定针对整个交互评分：两条回复里的调用、它们的结果，以及答案。

# %%
# NBVAL_IGNORE_OUTPUT
# demo: success
answered = [assistant_message(pmsg)] + tool_messages if calls else []
last = conn.client.chat.completions.create(
    model=conn.model, messages=parallel_conversation + answered,
    tools=weather_only.openai_tools(), tool_choice="none", temperature=0, max_tokens=200)
print("finish_reason:", last.choices[0].finish_reason)
print("answer:", last.choices[0].message.content)
second_results = [(o.name, o.arguments, o.observation, o.error) for o in outcomes]
requests = ([first_results] if asked_again else []) + ([second_results] if calls else [])
exchange = as_run(two_cities, requests, last.choices[0].message.content)
print(grade(exchange, Expected(parts=("北京", "广州"))))

# %% [markdown]
# ## 7. The loop: 今天是几号…每天存 5 元
#
# The savings agent's task: *今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？*
# It needs three dependent calls — `get_today`, then `days_between`, then `calculator` — so the
# model must see each result before it can ask for the next. The whole native loop is short:
# ask; if there are `tool_calls`, echo the assistant message, answer every id, ask again; if not,
# that is the answer.

# %% [markdown] lang="zh-CN"
# ## 7. 循环：今天是几号…每天存 5 元
#
# 储蓄智能体的任务：*今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？*
# 它需要三个前后依赖的调用——先 `get_today`，再 `days_between`，最后 `calculator`——所以模型必须看到每个
# 结果，才能请求下一个。整个原生循环很短：发请求；如果有 `tool_calls`，就回传 assistant 消息、回应每个 id、
# 再发请求；如果没有，那就是答案。

# %% [markdown]
# ### Why the calculator parses instead of calling `eval`
#
# The last tool of the chain, `calculator`, receives an expression the model wrote. The
# one-line version, `eval(expression)`, runs *any* Python the model writes: an "expression"
# like `__import__('os').system('rm -rf ~')` would run a shell command on your machine.
# `reactlab.tools.calculator` never calls `eval`: it parses the text into a syntax tree (`ast`)
# and evaluates only numbers, arithmetic operators, parentheses and four functions (max, min,
# abs, round). Anything else is refused with a `ValueError` whose message tells the model what to
# write instead — and `registry.run` turns that into an `Error: …` tool result. Here is an
# unsafe string, caught (it is never evaluated):

# %% [markdown] lang="zh-CN"
# ### 为什么计算器要解析表达式，而不是调用 `eval`
#
# 调用链的最后一个工具 `calculator` 收到的是模型写的表达式。一行版的 `eval(expression)` 会执行模型写的
# *任何* Python：像 `__import__('os').system('rm -rf ~')` 这样的"表达式"会在你的机器上执行 shell 命令。
# `reactlab.tools.calculator` 从不调用 `eval`：它把文本解析成语法树（`ast`），只对数字、算术运算符、
# 括号和四个函数（max、min、abs、round）求值。其他一律以 `ValueError` 拒绝，错误信息会告诉模型应该
# 怎么写——`registry.run` 再把它变成一条 `Error: …` 工具结果。下面是一个不安全的字符串，被拦了下来
# （它从未被求值）：

# %%
from reactlab.tools import calculator

print("306 * 5 =", calculator("306 * 5"))
unsafe = "__import__('os').system('echo this would run a shell command')"
try:
    calculator(unsafe)
except ValueError as exc:
    print("refused:", exc)

# %% [markdown]
# Now the loop. It returns a `RunResult` built with `as_run` (section 4), so the grader can
# read it like any other run.

# %% [markdown] lang="zh-CN"
# 现在来看循环。它返回一个用 `as_run`（第 4 节）构造的 `RunResult`，所以评分器可以像读其他运行记录一样读它。

# %%
savings_q = "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？"
savings_tools = ToolRegistry([course.get(n) for n in ("get_today", "days_between", "calculator")])


def tiny_loop(question: str, registry: ToolRegistry, max_steps: int = 5) -> RunResult:
    messages, requests = [{"role": "user", "content": question}], []
    for step in range(1, max_steps + 1):
        r = conn.client.chat.completions.create(
            model=conn.model, messages=messages, tools=registry.openai_tools(),
            temperature=0, max_tokens=300)
        m = r.choices[0].message
        if not m.tool_calls:
            print(f"[{step}] answer: {m.content!r}")
            return as_run(question, requests, m.content)
        messages.append(assistant_message(m))
        requests.append([])
        for c in m.tool_calls:
            text, failed = registry.run(c.function.name, c.function.arguments)
            requests[-1].append((c.function.name, c.function.arguments, text, failed))
            print(f"[{step}] {c.function.name}({c.function.arguments}) -> {text[:80]}")
            messages.append({"role": "tool", "tool_call_id": c.id, "content": text})
    print(f"stopped after {max_steps} steps without an answer")
    return as_run(question, requests, None, status="max_steps")

# %% [markdown]
# Is it right? We compute the expected figures with the same tools, without a model — with
# "today" pinned to 2026-03-01 that is 306 days and 306 × 5 = 1530 元 — and hand them to the
# grader as `Expected(figures=...)`:

# %% [markdown] lang="zh-CN"
# 对不对？我们不用模型，用同样的工具算出预期数字——"今天"固定为 2026-03-01 时，是 306 天，
# 306 × 5 = 1530 元——再以 `Expected(figures=...)` 的形式交给评分器：

# %%
# NBVAL_IGNORE_OUTPUT
today = savings_tools.call("get_today", {})
days = int(savings_tools.call("days_between", {"date1": today, "date2": "2027-01-01"}))
expected = days * 5
print(f"today {today}, {days} days to 2027-01-01, {days} × 5 = {expected} 元")
savings_expected = Expected(figures=(str(days), str(expected)))  # pinned: ("306", "1530")

# %%
# NBVAL_IGNORE_OUTPUT
t0 = time.perf_counter()
tiny = tiny_loop(savings_q, savings_tools)
print(f"({time.perf_counter() - t0:.0f} s)")
print(grade(tiny, savings_expected))

# %% [markdown]
# The answer is only half the story; the calls say how the model got there. Which dates did it
# give `days_between`, and where did they come from?

# %% [markdown] lang="zh-CN"
# 答案只是故事的一半；调用记录说明了模型是怎么得出它的。它给 `days_between` 传了哪些日期？这些日期从哪儿来？

# %%
# NBVAL_IGNORE_OUTPUT
tiny_calls = [(c.name, c.arguments) for s in tiny.steps for c in s.tool_calls]
dates = [str(v) for name, a in tiny_calls if name == "days_between" and isinstance(a, dict)
         for v in a.values()]
print("called get_today:", any(name == "get_today" for name, _ in tiny_calls))
print("dates given to days_between:", dates or "none")
odd = [d for d in dates if not d.startswith(today[:10]) and d != "2027-01-01"]
print("dates from neither get_today nor the question:", odd or "none")

# %% [markdown]
# If the last line lists a date, print the tool list as section 1 did
# (`print(json.dumps(savings_tools.openai_tools(), ensure_ascii=False, indent=2))`) and compare:
# `days_between`'s parameters show example dates (`e.g. 2025-10-01`), and a small
# model with no instructions may take an example for a fact instead of calling `get_today`.
# (For the same reason the calculator's description writes its average as `(a + b + c) / 3`:
# letters cannot be copied into a call as if they were data.) Twenty lines of loop are enough for the mechanics —
# and not enough for a model like this one: it also needs a system prompt that says when to
# call tools, and rules for arguments that are not JSON, a call written out as text instead of
# made (the tiny loop takes any reply without `tool_calls` as the answer), empty replies after a
# tool result, repeated calls, provider errors. The rules are the subject of notebook 07.
#
# ### This now lives in the package
#
# `reactlab.fc_agent.run_function_calling` is this loop plus those rules: a system prompt, tool
# errors and bad JSON turned into tool messages, parallel calls in order, an empty reply re-asked
# once, the guards of notebook 07, and a `RunResult` with one `Step` per model call — the same
# record the ReAct agent of notebook 04 returns. The savings question through it is a success
# demo: today pinned to 2026-03-01, the answer must state the figures 306 and 1530 (the grader
# reads figures, not the words around them;
# [`benchmarks/results/demos.md`](../benchmarks/results/demos.md) says how often it held in ten
# replays).

# %% [markdown] lang="zh-CN"
# 如果最后一行列出了某个日期，像第 1 节那样把工具列表打印出来（`print(json.dumps(savings_tools.openai_tools(), ensure_ascii=False, indent=2))`）
# 对照一下：`days_between` 的参数里有示例日期（`e.g. 2025-10-01`），一个没有任何指示的小模型可能会把示例当成事实，而不去调用
# `get_today`。（出于同样的原因，计算器的描述把求平均写成 `(a + b + c) / 3`：字母没法被当成数据抄进调用里。）
# 二十行的循环足以讲清机制——但对这样的模型来说还不够：它还需要一段说明何时调用工具的系统提示词，以及
# 应对各种情况的规则：参数不是 JSON、把调用当成文本写出来而没有真正发出（小循环把任何不带 `tool_calls` 的回复都当作答案）、工具结果之后的空回复、重复调用、服务商报错。这些规则是第 07 课的主题。
#
# ### 这部分现在已经放进包里了
#
# `reactlab.fc_agent.run_function_calling` 就是这个循环加上那些规则：系统提示词、把工具错误和坏 JSON
# 转成 tool 消息、按顺序处理并行调用、空回复重问一次、第 07 课的护栏，以及一个每次模型调用对应一个 `Step`
# 的 `RunResult`——和第 04 课的 ReAct 智能体返回的记录一样。用它来回答储蓄问题是一个成功演示：“今天”固定为 2026-03-01，
# 答案必须给出 306 和 1530 这两个数字（评分器读的是数字，不是数字周围的文字；[`benchmarks/results/demos.md`](../../benchmarks/results/demos.md) 记录了它在十次重放中成立了几次）。

# %%
# NBVAL_IGNORE_OUTPUT
# demo: success
from reactlab.fc_agent import run_function_calling
from reactlab.report import format_step

run = run_function_calling(savings_q, tools=savings_tools, conn=conn, max_steps=6)
for step in run.steps:
    print(format_step(step))
print("\nstatus:", run.status, "| answer:", run.answer)
print("usage:", run.usage)
print(grade(run, savings_expected))

# %% [markdown]
# One slip to look for in that record: a `calculator` call written in the *same* reply as the
# call whose result it needs. The model cannot have seen 306 yet, so its expression is a guess
# however carefully the prompt says "wait for that result":

# %% [markdown] lang="zh-CN"
# 在这份记录里要找一种典型失误：`calculator` 调用和它所依赖的那个调用写在了*同一条*回复里。那时模型还不可能看到 306，所以不管提示词多么认真地说"等结果回来"，它写的表达式都只是猜测：

# %%
# NBVAL_IGNORE_OUTPUT
early = [(i, c.arguments, [o.name for o in step.tool_calls if o.name != "calculator"])
         for i, step in enumerate(run.steps, start=1) for c in step.tool_calls
         if c.name == "calculator" and any(o.name != "calculator" for o in step.tool_calls)]
for i, arguments, others in early:
    print(f"step {i}: calculator({arguments}) written with {others}, before their results")
print("calculations written before the result they need:", len(early))

# %% [markdown]
# The loop does not leave such a guess there. Once `days_between` has given the days, the step
# that held back a calculator call (or saw one fail) ends with the *per-day hint*: the loop
# writes the call to make from the day count and the question's 5 元 a day —
# `calculator({"expression": "306 * 5"})` — and the next request requires the calculator. In
# the record above, a step with `guard: per-day hint` and `told the model: days_between gave
# 306 days…` is that hint, and the step after it shows whether the model made the call. If it
# did, that step is the model copying a call the loop dictated — the loop's work as much as the
# model's, which is what guards are for. (Notebook 07 lists the hints with the other guards.)
# Two more kinds of line in such a record: `truncated` (when a step shows it) means the
# reply ran into the agent's `max_tokens=512`, and the calls written before the cut were
# whole — they are what ran; and a tool result that begins "Not run:" and the guard's "held
# back 1 call(s)" line are the same call, once as the model reads it and once as the guard
# counts it.
# (A reply that only writes the same calls again and again does not run to the cap here: the
# local server cuts it at the second repeat, and it ends like any other reply with calls.)
#
# Whichever way this run went, the record says exactly where: which call came at which step,
# what each tool returned, and whether the final text used those numbers or its own. If the
# answer is wrong while the calls were right, the model failed at the last step: it misread
# its own tool results (notebook 06 counts the wrong answers of both protocols on the
# benchmark's 72 tasks). Read the answer's words too: the grader checks figures and
# names, not units, so an answer in dollars for a question in 元 passes it; and "a calculation"
# in a verdict includes arithmetic the grader checks itself (306 × 5), not only calculator calls.
# So check the steps for a `calculator` call that ran: if the only one was held back, 1530 is
# the model's own multiplication, however the answer words it ("I will use the calculator…").
# Last, check that every part of the question got an answer. The question also asks what
# today's date is, and this run's expected figures are 306 and 1530 only: an answer that skips
# the date still gets ✔. Grading sees what it is given to check; a part it was not given is
# yours to read.
#
# ## Recap
#
# Native tool calling moves the tool protocol out of the prompt text and into the API: tools go
# in as JSON Schema, calls come out as structured `tool_calls`, results go back as `tool`
# messages. What it asks in return is bookkeeping: echo the assistant message, answer every id,
# keep the order — and, when streaming, glue the argument fragments back together. A round
# trip ends with a response whose `finish_reason` is `"stop"`; when a small model keeps asking
# for calls it already has the results of, `tool_choice="none"` asks for the answer. A tool
# that evaluates what the model wrote (the calculator) parses it and allows only arithmetic —
# never `eval`. And a hand-driven conversation becomes a `RunResult`, so the grader's verdict
# can say whether its answer rests on the tool results.
#
# | term | 中文 | meaning |
# |---|---|---|
# | `tools` | 工具列表 | request parameter: the functions the model may call, as JSON Schema |
# | `tool_calls` | 工具调用列表 | the assistant message's list of requested calls: `id`, `type`, `function.name`, `function.arguments` (a JSON string) |
# | `finish_reason: "tool_calls"` | 因工具调用而结束 | the model stopped to ask for tools, not to answer |
# | `role: "tool"` | 工具消息 | the message that carries one tool result back |
# | `tool_call_id` | 工具调用 ID | the id of the call a `tool` message answers; must match a call in the preceding assistant message |
# | `tool_choice` | 工具选择 | `auto` (model decides), `none`, `required`, or a named function |
# | delta / chunk | 增量 / 数据块 | one piece of a streamed reply; tool calls arrive as fragments keyed by `index` |
# | `parallel_tool_calls` | 并行调用 | let the model put several independent calls in one reply |
#
# ## Exercises
#
# Each exercise has a cell to fill in and a check cell under it; the check reads what your code
# produced (it never calls the model) and prints ✔, "not attempted yet", or what is still wrong.
#
# 1. **The wrong id.** Take the tutorial's fixed request (section 4: `tutorial_user`,
#    `tutorial_call`, `tutorial_result`) and break it twice: (a) the `tool` message's
#    `tool_call_id` changed to `"call_other"`; (b) the assistant message kept, the `tool` message
#    dropped. Send both to the local server and print what it says. Set `answer_1` to the two
#    message lists, `(wrong_id, no_result)`.
# 2. **Interleaved fragments.** Write the chunk dicts for two parallel calls — `get_weather` for
#    北京 (index 0) and for 广州 (index 1) — whose fragments alternate (index 0, 1, 0, 1) and
#    where the second call's id is repeated on every one of its fragments. Check
#    `assemble_by_index` and `ToolCallAccumulator` on them; set `answer_2` to the chunk list.
# 3. **Parallel and in order.** Write `run_in_order(calls, registry)` that runs calls (dicts with
#    `id`, `name`, `arguments`) in a thread pool and returns the `tool` messages in call order,
#    using `concurrent.futures.as_completed` (which yields in *finishing* order) rather than
#    `map`. Set `answer_3` to the function; the check runs it on a tool that sleeps.
# 4. **青岛啤酒 vs 贵州茅台.** Run `run_function_calling` on "青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高？"
#    with `get_closing_price` and `calculator`, and set `answer_4` to the result. How many calls
#    per step did the model make? Does the grader's verdict
#    (`Expected(figures=("67.92", "1488.21"), winner="贵州茅台")`) agree with your reading?
#
# Solutions: [solutions/05_native_tool_calls_solutions.ipynb](solutions/05_native_tool_calls_solutions.ipynb)

# %% [markdown] lang="zh-CN"
# 循环不会对这样的猜测置之不理。一旦 `days_between` 给出了天数，扣下了计算器调用（或者看到它失败）的那一步就会以*按天累计提示*（per-day hint）结束：
# 循环根据天数和问题里的每天 5 元，写出该做的调用——`calculator({"expression": "306 * 5"})`——并要求下一次请求调用计算器。
# 上面记录里带 `guard: per-day hint` 和 `told the model: days_between gave 306 days…` 的那一步就是这个提示；它后面的一步说明模型有没有照做。
# 如果照做了，那一步是模型在抄循环替它写好的调用——功劳一半属于循环，而这正是护栏的用处。（第 07 课把这些提示和其他护栏列在一起。）
# 这类记录里还可能有两种行要会读：`truncated`（某一步出现它时）表示回复撞上了智能体的 `max_tokens=512`，截断之前写完整的调用照样执行了；
# 以 "Not run:" 开头的工具结果和护栏的 "held back 1 call(s)" 说的是同一个调用，一个是模型读到的，一个是护栏记的数。
# （一条只会把同样的调用写了又写的回复，在这里不会一直写到上限：本地服务器在它第二次重复时就把它截住，它像其他带调用的回复一样结束。）
#
# 不管这次运行结果如何，记录都准确说明了问题出在哪里：哪一步发出了哪个调用、每个工具返回了什么、最终文本用的是
# 这些数字还是它自己的数字。如果调用都对而答案错了，那就是模型在最后一步失败了——它读错了自己的工具结果
# （第 06 课在基准的 72 个任务上数了两种协议各有几次答错）。答案的文字也要读：评分器检查数字和名称，
# 不检查单位，所以问题问的是元、答案却用美元（dollars）作答，也能通过它；判定里的"计算"也包括评分器自己核对的算术（306 × 5），
# 不只是计算器调用。所以要在步骤里找一次真正执行了的 `calculator` 调用：如果唯一的一次被扣下了，1530 就是模型自己乘出来的，
# 不管答案怎么措辞（"I will use the calculator…"）。
# 最后，检查问题的每一部分都得到了回答。这个问题还问了今天是几号，而这次运行给评分器的预期数字只有 306 和 1530：
# 一个跳过日期的答案照样拿到 ✔。评分器只核对交给它核对的东西；没交给它的那部分，要你自己读。
#
# ## 小结
#
# 原生工具调用把工具协议从提示词文本挪进了 API：工具以 JSON Schema 传入，调用以结构化的 `tool_calls`
# 传出，结果以 `tool` 消息传回。作为交换，它要求你做好记账：回传 assistant 消息、回应每个 id、保持顺序——
# 流式输出时还要把参数片段重新拼起来。一次往返以 `finish_reason` 为 `"stop"` 的响应结束；当小模型不停地
# 请求它已经拿到结果的调用时，用 `tool_choice="none"` 要它作答。对模型所写内容求值的工具（计算器）会先
# 解析，只允许算术——绝不用 `eval`。手工驱动的对话可以变成 `RunResult`，于是评分器的判定能说明答案是否
# 建立在工具结果之上。
#
# | 术语 | 中文 | 含义 |
# |---|---|---|
# | `tools` | 工具列表 | 请求参数：模型可以调用的函数，以 JSON Schema 描述 |
# | `tool_calls` | 工具调用列表 | assistant 消息里请求的调用列表：`id`、`type`、`function.name`、`function.arguments`（一个 JSON 字符串） |
# | `finish_reason: "tool_calls"` | 因工具调用而结束 | 模型停下来是为了请求工具，而不是为了作答 |
# | `role: "tool"` | 工具消息 | 把一个工具结果带回去的消息 |
# | `tool_call_id` | 工具调用 ID | `tool` 消息所回应的调用的 id；必须和前一条 assistant 消息里的某个调用对上 |
# | `tool_choice` | 工具选择 | `auto`（模型决定）、`none`、`required`，或指定某个函数 |
# | delta / chunk | 增量 / 数据块 | 流式回复中的一小块；工具调用以按 `index` 区分的片段到达 |
# | `parallel_tool_calls` | 并行调用 | 允许模型在一条回复里放入多个互不依赖的调用 |
#
# ## 练习
#
# 每道练习都有一个待填写的单元格，下面跟着一个检查单元格；检查只读取你的代码产生的结果（从不调用模型），
# 并打印 ✔、"not attempted yet"，或者还有哪里不对。
#
# 1. **错误的 id。** 拿教程修好的请求（第 4 节：`tutorial_user`、`tutorial_call`、`tutorial_result`），
#    用两种方式把它弄坏：(a) 把 `tool` 消息的 `tool_call_id` 改成 `"call_other"`；(b) 保留 assistant
#    消息，去掉 `tool` 消息。把两者都发给本地服务器，打印它的回复。把 `answer_1` 设为这两个消息列表
#    `(wrong_id, no_result)`。
# 2. **交错的片段。** 为两个并行调用写出 chunk dict——北京的 `get_weather`（index 0）和广州的
#    （index 1）——让它们的片段交替出现（index 0, 1, 0, 1），并且第二个调用在它的每个片段上都重复 id。
#    用它们检验 `assemble_by_index` 和 `ToolCallAccumulator`；把 `answer_2` 设为这个 chunk 列表。
# 3. **并行且有序。** 写一个 `run_in_order(calls, registry)`，在线程池里执行调用（带 `id`、`name`、
#    `arguments` 的 dict），按调用顺序返回 `tool` 消息——要用 `concurrent.futures.as_completed`
#    （它按*完成*顺序产出），而不是 `map`。把 `answer_3` 设为这个函数；检查会用一个会 sleep 的工具来运行它。
# 4. **青岛啤酒 vs 贵州茅台。** 用 `get_closing_price` 和 `calculator` 对"青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高？"
#    运行 `run_function_calling`，把 `answer_4` 设为结果。模型每一步发出了几个调用？评分器的判定
#    （`Expected(figures=("67.92", "1488.21"), winner="贵州茅台")`）和你自己的判断一致吗？
#
# 参考答案：[solutions/05_native_tool_calls_solutions.ipynb](solutions/05_native_tool_calls_solutions.ipynb)

# %%
from reactlab.exercises.nb05 import check_1, check_2, check_3, check_4

answer_1 = None  # your code: (wrong_id_messages, no_result_messages)

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: a list of chunk dicts, fragments alternating index 0, 1, 0, 1

# %%
check_2(answer_2)

# %%
answer_3 = None  # your code: def run_in_order(calls, registry): ...; answer_3 = run_in_order

# %%
check_3(answer_3)

# %%
answer_4 = None  # your code: "青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高？" through run_function_calling

# %%
check_4(answer_4)

# %% [markdown]
# ---
# Prev: [04 · The scratchpad](04_scratchpad.ipynb) | Index: [README](../README.md) | Next: [06 · Under the hood](06_under_the_hood.ipynb)

# %% [markdown] lang="zh-CN"
# ---
# 上一课：[04 · 草稿本](04_scratchpad.ipynb) | 目录：[README](../../README.zh-CN.md) | 下一课：[06 · 深入底层](06_under_the_hood.ipynb)
