# %% [markdown]
# # 02 · The stop token
# *A ReAct prompt asks the model to write half of a conversation and then wait. Without `stop`,
# nothing makes it wait.*
#
# **After this notebook you can:**
# - read a ReAct system prompt and say what each part is for;
# - spot an `Observation` the model wrote itself, and the answer it built on it;
# - use `stop=["Observation:"]`, and explain the residue (`Observation` without its colon) in
#   a recorded run of the weather agent;
# - cut a completion on the client side when a provider does not take `stop`.
#
# **Where we are:** notebook 01 sent raw requests and read the JSON. From now on we call
# `conn.client.chat.completions.create(...)`, which sends exactly that JSON for us.
#
# > ReAct = Reason + Act：模型写 Thought（想）和 Action（要调用哪个工具），**我们**执行工具，
# > 再把结果作为 Observation 还给模型。问题是：模型并不知道自己该在哪里停下。

# %% [markdown]
# ## Setup

# %%
# NBVAL_IGNORE_OUTPUT
import os
import re
import time

import reactlab
from reactlab.parsing import cut_at_stop, strip_invented_observation
from reactlab.prompts import react_system_prompt, react_user_message
from reactlab.tools import ToolRegistry, get_weather

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
conn

# %% [markdown]
# ## 1. The ReAct prompt
#
# The weather agent (the JSON-blob ReAct agent this series rebuilds: 北京 then 广州, one city per
# step) gives the model one tool, `get_weather`, and a system prompt adapted from LangChain.
# `reactlab.prompts` keeps such prompts as text files; `react_system_prompt` fills in the tool
# list from a registry of tools (notebook 04 looks at tools properly). Read it once, slowly:

# %%
weather_tools = ToolRegistry([get_weather])
system_prompt = react_system_prompt(weather_tools, style="json")
print(system_prompt)

# %% [markdown]
# Three parts: **instructions**, the **tools** (name, arguments, description), and a **format**
# — `Question / Thought / Action / Observation / … / Final Answer`. Look at the format block:
# the `Observation:` line is *part of the pattern the model is shown*. A language model
# continues text. Once it has written an Action, what comes next in that pattern? The prompt
# also says, in words, not to write an Observation. Words are a request, not a mechanism.
#
# ### ReAct vs chain-of-thought
#
# *Chain-of-thought* (CoT) prompting asks a model to reason step by step before it answers
# ("Let's think step by step", "请一步一步思考"). All of that reasoning is text the model writes
# from what it already knows: a chain of thought about 北京和广州的天气 can be careful and still
# only guess the temperatures. **ReAct interleaves** the reasoning with *actions*: after a
# `Thought:` comes an `Action:`, and the `Observation:` that follows comes from outside the model
# — a tool we run — so the next thought can build on a fact the model did not have. That is also
# the catch this notebook is about: the model has to stop after the Action and let us write the
# Observation.
#
# The question goes in the user message (the weather agent puts it after `Question:`):

# %%
question = "北京和广州的天气怎么样？"
user_message = react_user_message(question, style="json")
messages = [{"role": "system", "content": system_prompt},
            {"role": "user", "content": user_message}]
print(repr(user_message))

# %% [markdown]
# ## 2. Without `stop`: do you see the issue?
#
# We send the question with nothing that forces the model to stop after its Action, and give it
# room: up to 300 tokens. (`finish_reason` will tell us whether it stopped by itself or ran out
# of room.) The model has never seen a weather report from our tool: whatever it says about
# today's weather, it did not get from `get_weather`.

# %%
# NBVAL_IGNORE_OUTPUT
t0 = time.monotonic()
free = conn.client.chat.completions.create(model=conn.model, messages=messages,
                                           max_tokens=300, temperature=0)
free_seconds = time.monotonic() - t0
free_text = free.choices[0].message.content or ""
print(free_text)
print(f"\n--- finish_reason={free.choices[0].finish_reason}, "
      f"completion_tokens={free.usage.completion_tokens}, {free_seconds:.1f} s")

# %% [markdown]
# Now let code, not our eyes, decide what happened. An invented Observation is a line that
# *starts* with `Observation` — in our protocol only we write those lines:

# %%
INVENTED = re.compile(r"^[ \t>*]*Observation\b", re.MULTILINE)


def find_invented_observation(text: str) -> int | None:
    """Where the first line starting with 'Observation' begins, or None.

    Example: find_invented_observation('Action: x\\nObservation: 晴') -> 10
    """
    m = INVENTED.search(text)
    return m.start() if m else None


# %%
# NBVAL_IGNORE_OUTPUT
at = find_invented_observation(free_text)
has_action = "Action" in free_text[: at if at is not None else len(free_text)]
has_final = "Final Answer" in free_text
if at is not None:
    verdict = "invented"
    print(f"The model wrote its own Observation, starting at character {at}.")
elif has_final and not has_action:
    verdict = "no_tool"
    print("No Observation line, but a Final Answer without any Action: "
          "the model answered from its own head, without the tool.")
elif has_final:
    verdict = "final_after_action"
    print("No Observation line, but an Action followed by a Final Answer in the same reply.")
else:
    verdict = "clean"
    print("This run the model did NOT invent an Observation: it stopped after its Action "
          f"(finish_reason={free.choices[0].finish_reason!r}).")

# %% [markdown]
# The next two cells show the evidence for whichever case the model produced. When it invented an
# Observation, we print what it invented and what came after it (often a `Final Answer` built
# on those invented facts), next to what the real tool returns for 北京.
#
# If it did not invent one this run, the cell says so and shows a recorded example instead:
# what a recorded run of the weather agent did, and — if the project's corpus of recorded local-model outputs
# (`tests/data/react_outputs.json`) holds one — a real invented Observation from it.

# %%
import json
from pathlib import Path


def recorded_invention() -> tuple[str, str] | None:
    """(id, text) of a recorded local-model reply with an invented Observation, if the project's
    corpus (in a checkout of the repository) holds one."""
    for folder in [Path.cwd(), *Path.cwd().parents]:
        path = folder / "tests" / "data" / "react_outputs.json"
        if path.exists():
            break
    else:
        return None
    for item in json.loads(path.read_text(encoding="utf-8")).get("entries", []):
        text = item.get("text")
        if str(item.get("source", "")).startswith("local") and isinstance(text, str) \
                and find_invented_observation(text) not in (None, 0):
            return item.get("id", "?"), text
    return None


# %%
# NBVAL_IGNORE_OUTPUT
if verdict == "invented":
    print("WHAT THE MODEL ASKED FOR (legitimate):\n" + free_text[:at].rstrip())
    print("\nWHAT IT MADE UP (nobody ran a tool):\n" + free_text[at:].strip())
elif verdict in ("no_tool", "final_after_action"):
    print("Answer written without a tool result:\n"
          + free_text[free_text.find("Final Answer"):].strip())
else:
    print("The weather agent, recorded with DeepSeek-V3: without `stop`, the model writes the whole "
          "Thought/Action/Observation sequence itself and ends with an invented final answer.")
    example = recorded_invention()
    if example:
        print(f"\nA recorded reply of the local model (tests/data/react_outputs.json, "
              f"id {example[0]!r}):\n")
        print(example[1][:800])

print("\nWHAT get_weather REALLY RETURNS for 北京:")
print(weather_tools.run("get_weather", {"location": "北京"})[0])

# %% [markdown]
# When an Observation was invented, everything after it is fiction dressed up as a tool
# result: plausible numbers nobody measured. An agent that reads the text naively would take
# the `Final Answer` and stop — a confident answer about weather it never looked up. The
# loop we write in notebook 04 has to stop the model right after its Action, run the tool
# itself, and hand back the real Observation.
#
# Note the cost too: every invented token is a token we pay for and wait for.

# %% [markdown]
# ## 3. `stop=["Observation:"]`
#
# The chat-completions API has a parameter for this: `stop`, a string or a list of up to four
# strings. The server checks the generated text as it grows; as soon as it contains a stop
# string, generation ends, the stop string itself is **not** returned, and `finish_reason` is
# `stop`. The weather agent sends `"stop": "Observation:"` in every request for exactly this reason.
#
# Same messages, one more parameter:

# %%
# NBVAL_IGNORE_OUTPUT
t0 = time.monotonic()
stopped = conn.client.chat.completions.create(model=conn.model, messages=messages,
                                              max_tokens=300, temperature=0,
                                              stop=["Observation:"])
stopped_seconds = time.monotonic() - t0
stopped_text = stopped.choices[0].message.content or ""
print(stopped_text)
print(f"\n--- finish_reason={stopped.choices[0].finish_reason}, "
      f"completion_tokens={stopped.usage.completion_tokens}, {stopped_seconds:.1f} s")

# %%
# NBVAL_IGNORE_OUTPUT
print("invented Observation line in the reply:", find_invented_observation(stopped_text))
print("'Observation:' in the reply:           ", "Observation:" in stopped_text)
print(f"completion tokens: without stop {free.usage.completion_tokens}, "
      f"with stop {stopped.usage.completion_tokens}")
print(f"the last 40 characters: {stopped_text[-40:]!r}")

# %% [markdown]
# With `stop`, the reply can only contain what the model wrote *before* it began an
# `Observation:`. If it went for a tool, that is a Thought and an Action — exactly the half of
# the conversation that belongs to the model. (If it chose to answer without any tool, `stop`
# cannot help: that is a different failure, and notebook 04's loop has to cope with it.)

# %% [markdown]
# ## 4. The stop residue in a recorded run
#
# The weather agent's second reply in one recorded run (DeepSeek-V3 on DashScope, `"stop": "Observation:"`,
# `finish_reason: "stop"`) was recorded as this `content`:

# %%
recorded_reply2 = (
    "Thought: 我已经获取了北京的天气信息。接下来，我将获取广州的天气信息。\n\n"
    "Action:\n```\n{\n\"action\": \"get_weather\",\n\"action_input\": {\n"
    "\"location\": \"广州\"\n}\n}\n```\nObservation"
)
print(recorded_reply2)

# %% [markdown]
# Look at the last line: `Observation`, **without** the colon. The stop string `Observation:`
# never appeared in full, so nothing was cut — yet the model stopped right there. We cannot see
# inside that server, but one explanation fits the record: the model ended its turn (its
# end-of-turn token also gives `finish_reason: "stop"`), or wrote something other than `:`
# next, so the stop string never matched. Either way, a stop string protects only against
# the exact text it names.
#
# **Watch it break.** The weather agent's loop appends the reply and then its own Observation:
# `scratchpad += content + "\nObservation: " + result`. With the residue, the next request
# contains *two* Observation labels in a row — exactly what that run's third request shows:

# %%
# the CMA weather API's reply for 广州 in that recorded run, shortened
guangzhou_result = '{"msg":"success","code":0,"data":{"location":{"name":"广州"},"now":{"temperature":24.2}}}'
naive_scratchpad = recorded_reply2 + f"\nObservation: {guangzhou_result}\n"
print("… " + "\n".join(naive_scratchpad.splitlines()[-3:]))

# %% [markdown]
# DeepSeek-V3 shrugged it off. A small model may not: it sees a broken pattern and may copy
# it. The fix is one rule on our side: before appending a reply, drop a partial stop word left
# at its end. `reactlab.parsing.strip_invented_observation` does that (and also cuts a
# complete invented Observation, as in section 2):

# %%
fixed = strip_invented_observation(recorded_reply2)
print("… " + "\n".join((fixed + f"\nObservation: {guangzhou_result}\n").splitlines()[-3:]))

# %% [markdown]
# And on this run's own replies — whatever they ended with:

# %%
# NBVAL_IGNORE_OUTPUT
for name, text in (("with stop", stopped_text), ("without stop", free_text)):
    kept = strip_invented_observation(text)
    print(f"{name:>12}: {len(text)} chars -> {len(kept)} chars; ends with {kept[-30:]!r}")

# %% [markdown]
# ## 5. A client-side cut, for providers without `stop`
#
# Not every endpoint takes `stop`. Some reasoning models reject it with a 400 ("unsupported
# parameter"), some proxies drop it silently, and OpenAI allows at most four strings. The
# fallback is to let the model write on and cut the text ourselves. It costs the extra tokens
# (section 2 counted them), but the agent sees the same reply.
#
# The obvious one-liner:

# %%
def naive_cut(text: str) -> str:
    return text.split("Observation:")[0]


print(repr(naive_cut("Action: get_weather\nObservation: 晴, 25°C\nFinal Answer: 晴")))

# %% [markdown]
# **Watch it break** on the recorded residue: there is no `Observation:` to split on, so the
# dangling `Observation` stays.

# %%
print(repr(naive_cut(recorded_reply2)[-30:]))

# %% [markdown]
# So a client-side cut takes two steps: cut at the stop strings (`reactlab.parsing.cut_at_stop`,
# the exact equivalent of the server-side `stop`), then drop a partial stop word at the end
# (`strip_invented_observation`). Applied to the reply we got *without* `stop`, it should
# come close to the reply we got *with* it — the cell prints whether they match:

# %%
# NBVAL_IGNORE_OUTPUT
def client_side_stop(text: str, stops=("Observation:",)) -> str:
    return strip_invented_observation(cut_at_stop(text, list(stops)))


cut_here = client_side_stop(free_text).strip()
server_side = strip_invented_observation(stopped_text).strip()
print(cut_here)
print("\nsame as the server-side stop:", cut_here == server_side)
if cut_here != server_side:
    i = next((k for k, (a, b) in enumerate(zip(cut_here, server_side)) if a != b),
             min(len(cut_here), len(server_side)))
    print(f"the texts first differ at character {i}: "
          f"{cut_here[i:i + 25]!r} (cut by us) vs {server_side[i:i + 25]!r} (stopped by the server)")

# %% [markdown]
# When the two differ, look at *where*: if it is before the cut, the model simply wrote
# different words in the two requests. `temperature=0` makes each step pick the most likely
# token, but "most likely" is computed in floating point, and a server that batches requests or
# reuses a cached prompt prefix can tip a near-tie the other way. The cut itself is exact.
#
# ### This now lives in the package
#
# `cut_at_stop(text, stops)` is the client-side `stop`; `strip_invented_observation(text)` is
# the first rule of the parser we build in notebook 03 (`reactlab.parsing.parse_react` applies
# it before anything else). Later notebooks import them from `reactlab.parsing` and never
# redefine them.

# %%
print(repr(cut_at_stop("Thought: 查天气\nAction: get_weather\nObservation: 晴", ["Observation:"])))
print(repr(strip_invented_observation("Thought: 查天气\nAction: get_weather\nObserv")))

# %% [markdown]
# ## Recap
#
# - A ReAct prompt shows the model a pattern that includes `Observation:` lines; a model that
#   continues the pattern may write the tool's result itself.
# - An invented Observation is fiction with the shape of data, and any `Final Answer` built on
#   it is too. Code can detect it: a line that starts with `Observation`.
# - `stop=["Observation:"]` ends generation right before it; the stop string is not returned.
# - A stop string only catches its exact text: a recorded run of the weather agent left a residue `Observation` at the
#   end of a reply. Strip it before appending the reply to the scratchpad.
# - Without server-side `stop`, cut on the client: `cut_at_stop` + `strip_invented_observation`.
#
# | term | meaning |
# |---|---|
# | ReAct | Reason + Act: the model alternates Thought and Action; the program adds Observations |
# | chain-of-thought (CoT) | reasoning written out step by step, in text only; no outside facts come in |
# | Thought / Action / Observation | the model's reasoning / the tool call it asks for / the tool's result (written by *us*) |
# | Final Answer | the label the model uses when it is done |
# | stop sequence | a string that ends generation when the model writes it; not included in the reply |
# | invented (fabricated) observation | a tool result the model wrote itself; no tool ran |
# | stop residue | part of a stop word left in the reply, e.g. `Observation` without `:` |
# | client-side stop | cutting the reply ourselves when the server cannot |
# | scratchpad | the running Thought/Action/Observation text we send back each step (notebook 04) |
#
# ## Exercises
#
# 1. Send the stock agent's question (`青岛啤酒和贵州茅台的收盘价哪个贵？`) with the
#    `action_input` prompt style and no `stop`. Did the model invent prices? Compare with the
#    real closing prices (67.92 and 1488.21). (`answer_1 = (text, invented)`: the reply, and
#    your reading of it, True or False; the check reads the text too.)
# 2. What changes with `stop=["Observation"]` (no colon)? With `stop=["\nObservation"]`?
#    Predict, then run both on the weather question. (`answer_2`: the two replies' texts.)
# 3. Why would `stop=["Final Answer:"]` be a bad idea? Cut the weather agent's last recorded
#    reply, `"Thought: 我已经获取了北京和广州的天气信息，现在可以回答用户的问题了。\n\nFinal Answer:
#    北京的天气温度为23.4°C……"`, with `cut_at_stop` and that stop string, and look at what is left.
# 4. Make `find_invented_observation` also catch `观察：` (a model answering in Chinese). Test it
#    on three strings of your own; the check runs it on six more.

# %% [markdown]
# Each exercise has a starter cell (`answer_N = None`) and a check cell. The check
# prints "not attempted yet" until you fill in the answer, ✔ when the result is right,
# and otherwise stops with a message saying what is still wrong. It checks what your
# code returned, never your wording, and never calls the model itself.

# %%
from reactlab.exercises.nb02 import check_1, check_2, check_3, check_4

# %%
answer_1 = None  # your code: (reply text, True if it contains an Observation the model wrote itself)

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: {"Observation": reply_text, "\nObservation": reply_text}

# %%
check_2(answer_2)

# %%
answer_3 = None  # your code: cut_at_stop(<the last recorded reply, below>, ["Final Answer:"])

# %%
check_3(answer_3)

# %%
answer_4 = None  # your code: your improved find_invented_observation (the function itself)

# %%
check_4(answer_4)

# %% [markdown]
# Solutions: [solutions/02_stop_token_solutions.ipynb](solutions/02_stop_token_solutions.ipynb)
#
# ---
# Prev: [01 · One request by hand](01_raw_requests.ipynb) | Index: [README](../README.md) | Next: [03 · Parsing ReAct with regular expressions](03_regex_parser.ipynb)
