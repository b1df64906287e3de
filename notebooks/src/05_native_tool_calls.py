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

# %% [markdown]
# ## Setup

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
# A widely copied DashScope tutorial shows its second request like this: the user question,
# then directly the `tool` message. The assistant message that *made* the call is not there, and the
# `tool_call_id` (`call_xyz789`) points at a call the conversation never contains. Here is that
# request, with the tutorial's own tool and weather figures, sent to our local server:

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
# `arguments` string.

# %%
tutorial_call = {"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_xyz789", "type": "function",
    "function": {"name": "get_current_weather", "arguments": json.dumps({"location": "北京"},
                                                                        ensure_ascii=False)}}]}
fixed_messages = [tutorial_user, tutorial_call, tutorial_result]

# %%
# NBVAL_IGNORE_OUTPUT
t0 = time.perf_counter()
reply = conn.client.chat.completions.create(
    model=conn.model, messages=fixed_messages, tools=[tutorial_tool], temperature=0, max_tokens=150)
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
again = conn.client.chat.completions.create(
    model=conn.model, messages=conversation, tools=weather_only.openai_tools(),
    temperature=0, max_tokens=150)
print("finish_reason:", again.choices[0].finish_reason)
print(again.choices[0].message.content or again.choices[0].message.tool_calls)

# %% [markdown]
# Read the output before moving on. A `finish_reason` of `"stop"` means the model answered from
# the tool result. Another `"tool_calls"` means it wants more — and this small model, offered
# the tool again, often asks for the very call whose result it has just been given (last time
# we ran this notebook it asked for 北京's weather a second time). The request is right; the
# model's choice is not.
#
# When every result the question needs is in the conversation, we can take the choice away:
# `tool_choice="none"` keeps the tools declared but allows only a text answer (the local server
# then shows the model no tool list at all; notebook 06 shows how). The package's loops do the
# same for their last request when a budget runs out: they send it without tools.

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
# Is the answer right? The grader of notebook 04 reads a `RunResult`. A conversation we drove by
# hand becomes one with a few lines — one `Step` per request, its tool calls with their
# results, and the answer:

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
round_trip = as_run(question, [[(call.function.name, args, observation, is_error)]],
                    final.choices[0].message.content)
print(grade(round_trip, Expected(parts=("北京",))))

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
# the output above). Now the DashScope tutorial's stream. It recorded two chunks — one with
# the tail of the arguments and `"id": ""`, and the closing one with `finish_reason:
# "tool_calls"`. The opening chunk with the id, the name and the start of the arguments was not
# shown, so we **reconstruct** it (marked below); the other two are the tutorial's, unchanged.

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

# %%
# NBVAL_IGNORE_OUTPUT
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
# **Predict:** for "北京和广州今天天气怎么样？" a model that plans well asks for two
# `get_weather` calls in one reply; a weaker one asks for one city, or merges both into one
# argument. Let's see which happened:

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
# 北京 and 广州 in two calls in one reply: a real parallel call. The cell asks again only if a
# call above failed, and prints what the model did this time.)

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

# %%
# NBVAL_IGNORE_OUTPUT
if calls:
    parallel_conversation += [assistant_message(pmsg)] + tool_messages
last = conn.client.chat.completions.create(
    model=conn.model, messages=parallel_conversation, tools=weather_only.openai_tools(),
    tool_choice="none", temperature=0, max_tokens=200)
print("finish_reason:", last.choices[0].finish_reason)
print("answer:", last.choices[0].message.content)
second_results = [(o.name, o.arguments, o.observation, o.error) for o in outcomes]
requests = ([first_results] if asked_again else []) + ([second_results] if calls else [])
exchange = as_run(two_cities, requests, last.choices[0].message.content)
print(grade(exchange, Expected(parts=("北京", "广州"))))

# ## 7. The loop: 今天是几号…每天存 5 元
#
# The savings agent's task: *今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？*
# It needs three dependent calls — `get_today`, then `days_between`, then `calculator` — so the
# model must see each result before it can ask for the next. The whole native loop is short:
# ask; if there are `tool_calls`, echo the assistant message, answer every id, ask again; if not,
# that is the answer.

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
print(grade(run, savings_expected))

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
# keep the order — and, when streaming, glue the argument fragments back together. A round
# trip ends with a response whose `finish_reason` is `"stop"`; when a small model keeps asking
# for calls it already has the results of, `tool_choice="none"` asks for the answer. A tool
# that evaluates what the model wrote (the calculator) parses it and allows only arithmetic —
# never `eval`. And a hand-driven conversation becomes a `RunResult`, so the grader's verdict
# can say whether its answer rests on the tool results.
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
answer_4 = None  # your code: run_function_calling("青岛啤酒和贵州茅台的收盘价分别是多少？哪个更高？", ...)

# %%
check_4(answer_4)

# %% [markdown]
# ---
# Prev: [04 · The scratchpad](04_scratchpad.ipynb) | Index: [README](../README.md) | Next: [06 · Under the hood](06_under_the_hood.ipynb)
