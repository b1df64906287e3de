# %% [markdown]
# # 05 · Native tool calls
# *The API carries the tool call for you — as structured `tool_calls` instead of text you must parse — in exchange for a strict message order.*
#
# **After this notebook you can:**
# - declare tools with `tools=[…]`, recognise `finish_reason == "tool_calls"` and read each call's `id`, `name` and `arguments`;
# - answer a call with a `role: "tool"` message that carries its `tool_call_id`, and explain the 400 you get when the assistant message with `tool_calls` is missing;
# - assemble streamed argument fragments by hand, then with `ToolCallAccumulator` — including DashScope's `"id": ""` chunks;
# - run several calls from one reply in parallel, put the results back in call order, and run seed 001's savings question end to end.
#
# **Where we are:** notebook 04 ran the ReAct loop on plain text: a prompt that teaches a format,
# `stop`, and a parser. Here the API does the formatting. We keep the course tools from 04
# (`reactlab.tools`) and leave the parser behind.
#
# > 原生工具调用：工具用 JSON Schema 声明，模型返回结构化的 `tool_calls`，我们执行工具后用
# > `role: "tool"` 回填结果。不再需要正则解析，但消息顺序必须严格：先 assistant（带 tool_calls），
# > 再逐个 tool 结果，然后才能再次请求模型。

# %% [markdown]
# ## Setup

# %%
# NBVAL_IGNORE_OUTPUT
import json
import time
from concurrent.futures import ThreadPoolExecutor

import openai

import reactlab
from reactlab.http import stream_chat
from reactlab.tools import ToolRegistry, default_registry

conn = reactlab.connect()
course = default_registry()
print("course tools:", course.names())

# %% [markdown]
# ## 1. The menu: `tools=[…]`
#
# In ReAct the tool list was prose inside the system prompt. With native calls it is a request
# parameter: a list of JSON Schema descriptions. The model reads `description` like an
# instruction sheet — seed 001 §2.2 insists it say *when* to use the tool and give an example
# value for every argument. Here is one entry, produced by the registry from the function's
# docstring and type hints:

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
# Seed 003 (a DashScope walkthrough) shows its second request like this: the user question, then
# directly the `tool` message. The assistant message that *made* the call is not there, and the
# `tool_call_id` (`call_xyz789`) points at a call the conversation never contains. Here is that
# request, with the article's own tool and weather figures, sent to our local server:

# %%
seed003_tool = {
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
seed003_user = {"role": "user", "content": "今天的天气怎么样？我想出去露营，需要准备什么"}
seed003_result = {"role": "tool", "tool_call_id": "call_xyz789",
                  "content": json.dumps({"temp": 32, "humidity": 75, "condition": "雷阵雨"},
                                        ensure_ascii=False)}
broken_messages = [seed003_user, seed003_result]  # as in the article: no assistant message

# %%
# NBVAL_IGNORE_OUTPUT
try:
    reply = conn.client.chat.completions.create(
        model=conn.model, messages=broken_messages, tools=[seed003_tool],
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
# remembers asking, which is seed 001's warning that a broken order makes the model "suddenly
# dumb". The fix is to echo the assistant message exactly as it came: same `id`, same name, same
# `arguments` string.

# %%
seed003_call = {"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_xyz789", "type": "function",
    "function": {"name": "get_current_weather", "arguments": json.dumps({"location": "北京"},
                                                                        ensure_ascii=False)}}]}
fixed_messages = [seed003_user, seed003_call, seed003_result]

# %%
# NBVAL_IGNORE_OUTPUT
t0 = time.perf_counter()
reply = conn.client.chat.completions.create(
    model=conn.model, messages=fixed_messages, tools=[seed003_tool], temperature=0, max_tokens=150)
print(f"finish_reason: {reply.choices[0].finish_reason}   ({time.perf_counter() - t0:.1f} s)")
print(reply.choices[0].message.content or reply.choices[0].message.tool_calls)

# %% [markdown]
# This time the request is valid, and what comes back is the model's choice: `finish_reason:
# "stop"` with an answer built on the tool result, or `"tool_calls"` if it decided to ask for the
# weather again — small models sometimes repeat a call whose result is already in front of them
# (notebook 07 deals with that).
#
# Now the same repair for our own conversation from sections 2–3. The assistant message is
# rebuilt from the SDK object field by field, so you can see exactly what goes back.

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
final = conn.client.chat.completions.create(
    model=conn.model, messages=conversation, tools=weather_only.openai_tools(),
    temperature=0, max_tokens=150)
print("finish_reason:", final.choices[0].finish_reason)
print(final.choices[0].message.content or final.choices[0].message.tool_calls)

# %% [markdown]
# Read the output before moving on. A `finish_reason` of `"stop"` means the model answered from
# the tool result; another `"tool_calls"` means it wants more (section 7's loop handles that);
# an empty answer is a known habit of small models right after a tool result — the package's
# loop re-asks once when it happens.
#
# ## 5. Streaming: arguments arrive in pieces
#
# With `stream=True` the reply comes as many small chunks, and a tool call is spread over them:
# typically the first fragment carries `index`, `id` and the function `name`, and later fragments
# carry more of the `arguments` string. Here is the raw stream of the request from section 2
# (read with `reactlab.http.stream_chat`, so each chunk is a plain dict):

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
# the output above). Now seed 003's DashScope stream. The article recorded two chunks — one with
# the tail of the arguments and `"id": ""`, and the closing one with `finish_reason:
# "tool_calls"`. The opening chunk with the id, the name and the start of the arguments was not
# shown, so we **reconstruct** it (marked below); the other two are the article's, unchanged.

# %%
dashscope_chunks = [
    {  # RECONSTRUCTED (not in the article): the opening chunk with id, name, start of arguments
        "id": "chatcmpl-7ed551c3-8360-9710-b4c6-5191d3c4db2a", "object": "chat.completion.chunk",
        "model": "qwen-plus",
        "choices": [{"index": 0, "finish_reason": None, "delta": {"content": None, "tool_calls": [
            {"index": 0, "id": "call_reconstructed", "type": "function",
             "function": {"name": "get_current_weather", "arguments": "{\"location\":"}}]}}],
    },
    {  # RECORDED in seed 003
        "id": "chatcmpl-7ed551c3-8360-9710-b4c6-5191d3c4db2a", "object": "chat.completion.chunk",
        "created": 1785218854, "model": "qwen-plus",
        "choices": [{"delta": {"tool_calls": [{"function": {"arguments": " \"北京\"}"},
                                               "index": 0, "id": "", "type": "function"}],
                               "content": None},
                     "index": 0, "finish_reason": None, "logprobs": None}],
        "usage": None,
    },
    {  # RECORDED in seed 003
        "id": "chatcmpl-7ed551c3-8360-9710-b4c6-5191d3c4db2a", "object": "chat.completion.chunk",
        "created": 1785218854, "model": "qwen-plus",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls", "logprobs": None}],
        "usage": None,
    },
]
print(json.dumps(assemble_naive(dashscope_chunks), ensure_ascii=False, indent=1))

# %% [markdown]
# Two "calls" where there was one: the second has the id `""`, no name, and the arguments
# ` "北京"}` — while the first holds `{"location":`, which is not valid JSON. DashScope repeats
# `"id": ""` on every later fragment; `""` means *same call*, not a new one. The field that
# really identifies a call within one reply is `index`. A second attempt, keyed by index:

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


for name, chunks in [("local stream", live_chunks), ("DashScope (seed 003)", dashscope_chunks)]:
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

# %%
from reactlab.streaming import ToolCallAccumulator

for name, chunks in [("local stream", live_chunks), ("DashScope (seed 003)", dashscope_chunks)]:
    acc = ToolCallAccumulator()
    for chunk in chunks:
        acc.add(chunk)
    print(f"{name}: finish_reason={acc.finish_reason}")
    print("  ", json.dumps(acc.message(), ensure_ascii=False))

# %% [markdown]
# The same works on the SDK's own stream objects:

# %%
# NBVAL_IGNORE_OUTPUT
acc = ToolCallAccumulator()
for chunk in conn.client.chat.completions.create(
        model=conn.model, messages=[{"role": "user", "content": question}],
        tools=weather_only.openai_tools(), temperature=0, max_tokens=200, stream=True):
    acc.add(chunk)
print(acc.chunks, "chunks ->", acc.finish_reason, acc.tool_calls or repr(acc.content))

# %% [markdown]
# ## 6. Parallel calls: 北京 *and* 广州
#
# One reply may hold several calls — the model saying "these are independent, run them all".
# **Predict:** for "北京和广州今天天气怎么样？" a model that plans well asks for two
# `get_weather` calls in one reply; a weaker one asks for one city, or merges both into one
# argument. Let's see which happened:

# %%
# NBVAL_IGNORE_OUTPUT
two_cities = "北京和广州今天天气怎么样？"
reply = conn.client.chat.completions.create(
    model=conn.model, messages=[{"role": "user", "content": two_cities}],
    tools=weather_only.openai_tools(), parallel_tool_calls=True, temperature=0, max_tokens=200)
pmsg = reply.choices[0].message
print("finish_reason:", reply.choices[0].finish_reason, "| calls:", len(pmsg.tool_calls or []))
for c in pmsg.tool_calls or []:
    print("  ", c.id, c.function.name, c.function.arguments)
if not pmsg.tool_calls:
    print("content:", pmsg.content)

# %% [markdown]
# Independent calls can run at the same time (seed 001 §6.2 uses a thread pool). The results
# must still go back **in call order**, each with its own `tool_call_id`. To make the point
# visible we slow the *first* call down on purpose, so it finishes last:

# %%
# NBVAL_IGNORE_OUTPUT
calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
         for c in pmsg.tool_calls or []]
if len(calls) < 2:  # keep the demo meaningful whatever the model did
    print(f"The model asked for {len(calls)} call(s); adding a hand-made second call for the demo.")
    calls = (calls or [{"id": "call_a", "name": "get_weather",
                        "arguments": '{"location": "北京"}'}])[:1]
    calls.append({"id": "call_b", "name": "get_weather", "arguments": '{"location": "广州"}'})

finished = []


def run_call(position_and_call):
    position, c = position_and_call
    time.sleep(0.3 if position == 0 else 0.0)  # the first call is slow ON PURPOSE
    text, _ = weather_only.run(c["name"], c["arguments"])
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
# `Error:`, the model sent something the tool refused (two cities in one call, for instance);
# that text goes back as the observation, so the model can correct itself on the next step.
#
# ### This now lives in the package
#
# `reactlab.tools.execute_calls` takes the calls in the API's own shape and returns one outcome
# per call, in call order. It also knows what the hand-written version does not: a tool marked
# `side_effects=True` (booking, sending, paying) never runs in parallel — it waits for the calls
# before it and runs alone.

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.tools import execute_calls

api_shaped = [{"id": c["id"], "type": "function",
               "function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]
for outcome in execute_calls(weather_only, api_shaped):
    print(outcome.id, outcome.name, outcome.arguments, "error" if outcome.error else "ok",
          "->", outcome.observation[:60])

# %% [markdown]
# ## 7. The loop: 今天是几号…每天存 5 元
#
# Seed 001's headline task: *今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？*
# It needs three dependent calls — `get_today`, then `days_between`, then `calculator` — so the
# model must see each result before it can ask for the next. The whole native loop is short:
# ask; if there are `tool_calls`, echo the assistant message, answer every id, ask again; if not,
# that is the answer.

# %%
savings_q = "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？"
savings_tools = ToolRegistry([course.get(n) for n in ("get_today", "days_between", "calculator")])


def tiny_loop(question: str, registry: ToolRegistry, max_steps: int = 5,
              log: list | None = None) -> str | None:
    messages = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        r = conn.client.chat.completions.create(
            model=conn.model, messages=messages, tools=registry.openai_tools(),
            temperature=0, max_tokens=300)
        m = r.choices[0].message
        if not m.tool_calls:
            print(f"[{step}] answer: {m.content!r}")
            return m.content
        messages.append(assistant_message(m))
        for c in m.tool_calls:
            text, _ = registry.run(c.function.name, c.function.arguments)
            if log is not None:
                log.append((c.function.name, c.function.arguments))
            print(f"[{step}] {c.function.name}({c.function.arguments}) -> {text[:80]}")
            messages.append({"role": "tool", "tool_call_id": c.id, "content": text})
    print(f"stopped after {max_steps} steps without an answer")
    return None

# %%
# NBVAL_IGNORE_OUTPUT
t0 = time.perf_counter()
tiny_calls = []
tiny_answer = tiny_loop(savings_q, savings_tools, log=tiny_calls)
print(f"({time.perf_counter() - t0:.0f} s)")

# %% [markdown]
# Is it right? We compute the expected figures with the same tools, without a model:

# %%
# NBVAL_IGNORE_OUTPUT
today = savings_tools.call("get_today", {})
days = int(savings_tools.call("days_between", {"date1": today, "date2": "2027-01-01"}))
expected = days * 5
print(f"today {today}, {days} days to 2027-01-01, {days} × 5 = {expected} 元")


def mentions(answer: str | None, number: int) -> bool:
    digits = (answer or "").replace(",", "").replace("，", "")
    return str(number) in digits


print("the tiny loop's answer contains", expected, ":", mentions(tiny_answer, expected))

# %% [markdown]
# The answer is only half the story; the calls say how the model got there. Which dates did it
# give `days_between`, and where did they come from?

# %%
# NBVAL_IGNORE_OUTPUT
def decoded(arguments: str) -> dict:
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


dates = [str(v) for name, a in tiny_calls if name == "days_between" for v in decoded(a).values()]
print("called get_today:", any(name == "get_today" for name, _ in tiny_calls))
print("dates given to days_between:", dates or "none")
odd = [d for d in dates if not d.startswith(today[:10]) and d != "2027-01-01"]
print("dates from neither get_today nor the question:", odd or "none")

# %% [markdown]
# If the last line lists a date, compare it with the tool list printed in section 1's style
# (`savings_tools.openai_tools()`): `days_between`'s parameters show example dates, and a small
# model with no instructions may take an example for a fact instead of calling `get_today`.
# (For the same reason the calculator's description writes its average as `(a + b + c) / 3`:
# letters cannot be copied into a call as if they were data.) Twenty lines of loop are enough for the mechanics —
# and not enough for a model like this one: it also needs a system prompt that says when to
# call tools, and rules for arguments that are not JSON, empty replies after a tool result,
# repeated calls, provider errors. The rules are the subject of notebook 07.
#
# ### This now lives in the package
#
# `reactlab.fc_agent.run_function_calling` is this loop plus those rules: a system prompt, tool
# errors and bad JSON turned into tool messages, parallel calls in order, an empty reply re-asked
# once, the guards of notebook 07, and a `RunResult` with one `Step` per model call — the same
# record the ReAct agent of notebook 04 returns.

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.fc_agent import run_function_calling
from reactlab.report import format_step

run = run_function_calling(savings_q, tools=savings_tools, conn=conn, max_steps=6)
for step in run.steps:
    print(format_step(step))
print("\nstatus:", run.status, "| answer:", run.answer)
print("usage:", run.usage)
print("answer contains", expected, ":", mentions(run.answer, expected))

# %% [markdown]
# Whichever way this run went, the record says exactly where: which call came at which step,
# what each tool returned, and whether the final text used those numbers or its own. If the
# answer is wrong while the calls were right, the model failed at the last step — the
# "reading its own tool results" problem this model is known for; notebook 06 puts
# numbers on it for both protocols.
#
# ## Recap
#
# Native tool calling moves the tool protocol out of the prompt text and into the API: tools go
# in as JSON Schema, calls come out as structured `tool_calls`, results go back as `tool`
# messages. What it asks in return is bookkeeping: echo the assistant message, answer every id,
# keep the order — and, when streaming, glue the argument fragments back together.
#
# | term | meaning |
# |---|---|
# | `tools` | request parameter: the functions the model may call, as JSON Schema |
# | `tool_calls` | the assistant message's list of requested calls: `id`, `type`, `function.name`, `function.arguments` (a JSON string) |
# | `finish_reason: "tool_calls"` | the model stopped to ask for tools, not to answer |
# | `role: "tool"` | the message that carries one tool result back |
# | `tool_call_id` | the id of the call a `tool` message answers; must match a call in the preceding assistant message |
# | `tool_choice` | `auto` (model decides), `none`, `required`, or a named function |
# | delta / chunk | one piece of a streamed reply; tool calls arrive as fragments keyed by `index` |
# | `parallel_tool_calls` | let the model put several independent calls in one reply |
#
# ## Exercises
#
# 1. **The wrong id.** Send seed 003's fixed request (section 4) but with the `tool` message's
#    `tool_call_id` changed to `"call_other"`. What does the local server say? Then leave the
#    assistant message in but drop the `tool` message. What now?
# 2. **Interleaved fragments.** Write the chunk dicts for two parallel calls whose fragments
#    alternate (index 0, 1, 0, 1) and where the second call's id is repeated on every fragment.
#    Check `assemble_by_index` and `ToolCallAccumulator` on them.
# 3. **Parallel and in order.** Write `run_in_order(calls, registry)` that runs calls in a thread
#    pool and returns the `tool` messages in call order, using `concurrent.futures.as_completed`
#    (which yields in *finishing* order) rather than `map`. Test it with a tool that sleeps.
# 4. **青岛啤酒 vs 贵州茅台.** Run `run_function_calling` on "青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高？"
#    with `get_closing_price` and `calculator`. How many calls per step did the model make? Is
#    the comparison in the answer consistent with the tool results?
#
# Solutions: [solutions/05_native_tool_calls_solutions.ipynb](solutions/05_native_tool_calls_solutions.ipynb)
#
# ---
# Prev: [04 · The scratchpad](04_scratchpad.ipynb) | Index: [README](../README.md) | Next: [06 · Under the hood](06_under_the_hood.ipynb)
