# %% [markdown]
# # 04 · The scratchpad: a ReAct loop by hand
# *Ask, parse, run the tool, hand back the Observation, ask again — and watch the conversation
# grow with every step.*
#
# **After this notebook you can:**
# - write the ReAct loop with a step budget (`max_steps`) in about twenty lines;
# - lay out its messages in both styles of the seeds: one growing user message (seed 000) or
#   alternating assistant / `Observation:` messages (seed 002);
# - read every request the loop sends and see the scratchpad — and the prompt tokens — grow;
# - get the same kind of result from `reactlab.react_agent.run_react` and read its `RunResult`.
#
# **Where we are:** notebook 02 gave us `stop=["Observation:"]`, notebook 03 the parser. We
# import `parse_react` and `strip_invented_observation` from `reactlab.parsing`, and the
# prompts from `reactlab.prompts`.
#
# > 两个经典例子：北京和广州的天气（seed 000，一次只查一个城市），青岛啤酒和贵州茅台的收盘价
# > 哪个贵（seed 002）。模型要调用两次工具，再比较/汇总。

# %% [markdown]
# ## Setup

# %%
# NBVAL_IGNORE_OUTPUT
import reactlab
from reactlab.prompts import load_template
from reactlab.parsing import FinalAnswer, ReActParseError, parse_react, strip_invented_observation
from reactlab.prompts import react_system_prompt, react_user_message
from reactlab.react_agent import run_react
from reactlab.report import format_step
from reactlab.tools import ToolRegistry, get_closing_price, get_weather

conn = reactlab.connect()
conn

# %% [markdown]
# ## 1. Tools are data plus a function
#
# The model never runs anything. It reads a *description* of each tool in the system prompt
# and writes a request; our code looks the tool up by name and runs it. A `ToolRegistry` keeps
# both halves together: `describe()` is what the model reads, `run(name, args)` is what we do.

# %%
weather_tools = ToolRegistry([get_weather])
stock_tools = ToolRegistry([get_closing_price])
print(weather_tools.describe())
print(stock_tools.describe())

# %% [markdown]
# `run` returns `(observation, is_error)` and never raises: a bad tool name, bad arguments or a
# failing tool all come back as text the model can read and correct.

# %%
print(weather_tools.run("get_weather", {"location": "北京"}))
print(stock_tools.run("get_closing_price", {"name": "贵州茅台"}))
print(weather_tools.run("get_weather", {"city": "广州"}))

# %% [markdown]
# ## 2. Seeing what we send
#
# The point of this notebook is to *see* the conversation. This helper prints one request's
# messages: the long system prompt in full only the first time, every other message in full
# unless it is very long (then its head and tail).

# %%
def clip(text: str, limit: int = 1500) -> str:
    """Long text as head + tail with a marker saying how much was left out."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-limit // 3:]
    return f"{head}\n[… {len(text) - len(head) - len(tail)} characters not shown …]\n{tail}"


def show_request(step: int, messages: list[dict]) -> None:
    total = sum(len(m["content"]) for m in messages)
    print(f"┌── request {step}: {len(messages)} messages, {total} characters")
    for m in messages:
        body = m["content"]
        if m["role"] == "system" and step > 1:
            body = f"(the same system prompt, {len(body)} characters)"
        print(f"│ [{m['role']}]\n" + "\n".join("│   " + ln for ln in clip(body).splitlines()))
    print("└──")

# %% [markdown]
# ## 3. The loop, seed 000 style: one growing user message
#
# Seed 000 rebuilds the same two messages for every request: the system prompt, and one user
# message holding `Question: …` followed by the **scratchpad** — every Thought/Action the model
# wrote so far, each followed by the real Observation. The loop:
#
# 1. build the messages, send them with `stop=["Observation:"]`;
# 2. clean the reply (`strip_invented_observation`) and parse it;
# 3. a `FinalAnswer` ends the run; an `Action` runs the tool; a parse error becomes the
#    Observation, so the model gets to fix its format;
# 4. append reply + `Observation: …` to the scratchpad; repeat — at most `max_steps` times.
#
# Seed 002 loops with `while True`. A step budget is not optional: a model that never writes a
# Final Answer would otherwise keep us (and the bill) running forever.

# %%
def react_scratchpad(question, tools, max_steps=5, style="json"):
    """The seed 000 loop. Returns (answer or None, per-step token counts, scratchpad)."""
    system = react_system_prompt(tools, style=style)
    scratchpad, tokens = "", []
    for step in range(1, max_steps + 1):
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": react_user_message(question, scratchpad, style=style)}]
        show_request(step, messages)
        reply = conn.client.chat.completions.create(
            model=conn.model, messages=messages, stop=["Observation:"],
            max_tokens=256, temperature=0)
        tokens.append(reply.usage.prompt_tokens)
        text = strip_invented_observation(reply.choices[0].message.content or "")
        print(f"MODEL ({reply.usage.prompt_tokens} prompt tokens):\n{text}\n")
        try:
            parsed = parse_react(text, style=style)
        except ReActParseError as exc:
            observation = str(exc)                      # tell the model what to fix
        else:
            if isinstance(parsed, FinalAnswer):
                return parsed.answer, tokens, scratchpad
            observation, _ = tools.run(parsed.tool, parsed.args)
        print(f"OBSERVATION: {observation}\n")
        scratchpad += f"{text}\nObservation: {observation}\n"
    print(f"— no Final Answer within max_steps={max_steps} —")
    return None, tokens, scratchpad

# %% [markdown]
# Run it on seed 000's question. Each box below is one request exactly as sent; between the
# boxes, the model's reply and the tool's result. Watch the user message get longer:

# %%
# NBVAL_IGNORE_OUTPUT
weather_q = "北京和广州的天气怎么样？"
weather_answer, weather_tokens, weather_pad = react_scratchpad(weather_q, weather_tools)
print("ANSWER:", weather_answer)
print("prompt tokens per request:", weather_tokens)

# %% [markdown]
# ## 4. The loop, seed 002 style: a growing list of messages
#
# Seed 002 keeps a chat instead: the model's reply is appended as an `assistant` message, the
# tool result as a `user` message `Observation: …`. The system prompt and the question are
# never rebuilt — new messages are only appended. We use the `Action` / `Action Input`
# prompt of seed 002 here (`style="action_input"`), with its "Do I need to use a tool?" line.

# %%
def react_chat(question, tools, max_steps=5, style="action_input"):
    """The seed 002 loop, with a step budget. Returns (answer or None, prompt tokens, messages)."""
    messages = [{"role": "system", "content": react_system_prompt(tools, style=style)},
                {"role": "user", "content": react_user_message(question, style=style)}]
    tokens = []
    for step in range(1, max_steps + 1):
        show_request(step, messages)
        reply = conn.client.chat.completions.create(
            model=conn.model, messages=messages, stop=["Observation:"],
            max_tokens=256, temperature=0)
        tokens.append(reply.usage.prompt_tokens)
        text = strip_invented_observation(reply.choices[0].message.content or "")
        print(f"MODEL ({reply.usage.prompt_tokens} prompt tokens):\n{text}\n")
        try:
            parsed = parse_react(text, style=style)
        except ReActParseError as exc:
            observation = str(exc)
        else:
            if isinstance(parsed, FinalAnswer):
                return parsed.answer, tokens, messages
            observation, _ = tools.run(parsed.tool, parsed.args)
        print(f"OBSERVATION: {observation}\n")
        messages += [{"role": "assistant", "content": text},
                     {"role": "user", "content": f"Observation: {observation}"}]
    print(f"— no Final Answer within max_steps={max_steps} —")
    return None, tokens, messages

# %%
# NBVAL_IGNORE_OUTPUT
stock_q = "青岛啤酒和贵州茅台的收盘价哪个贵？"
stock_answer, stock_tokens, stock_messages = react_chat(stock_q, stock_tools)
print("ANSWER:", stock_answer)
print("prompt tokens per request:", stock_tokens)

# %% [markdown]
# ## 5. The growth, in numbers
#
# Every request resends everything before it. In both styles the prompt grows by the model's
# reply plus the Observation at every step, and we pay for the whole prompt every time (a
# server with a prompt cache, like ours, at least skips recomputing the unchanged beginning).

# %%
# NBVAL_IGNORE_OUTPUT
for name, tokens in (("seed 000 style, weather", weather_tokens),
                     ("seed 002 style, stocks ", stock_tokens)):
    growth = [b - a for a, b in zip(tokens, tokens[1:])]
    print(f"{name}: prompt tokens {tokens}  (+{growth} per step), total sent {sum(tokens)}")

# %% [markdown]
# With two tool calls this is harmless. Notebook 07 feeds the loop a 50,000-character tool
# result and many steps; then this growth is the whole problem.
#
# ## 6. Did the answers use the Observations?
#
# A Final Answer is text the model wrote; nothing guarantees that it rests on the tool results.
# Two questions, answered by code for each run: which cities / stocks got a real tool result
# (an `Observation:` line that starts with the name), and which of them the answer talks about —
# with the numbers the tool returned?

# %%
# NBVAL_IGNORE_OUTPUT
def audit(answer, transcript, facts):
    """facts: {name: number the tool returns for it}. Prints one line per name."""
    if answer is None:
        print("  no answer to check")
        return
    for name, number in facts.items():
        got = f"Observation: {name}" in transcript
        named = name in answer
        warn = "   <- the answer talks about something no tool result covered" if named and not got else ""
        print(f"  {name}: tool result received {got!s:<5}| named in the answer {named!s:<5}| "
              f"tool's number {number} in the answer {number in answer}{warn}")


print("weather:", weather_answer)
audit(weather_answer, weather_pad, {"北京": "23.4", "广州": "24.2"})  # the bundled snapshot
print("stocks:", stock_answer)
audit(stock_answer, "\n".join(m["content"] for m in stock_messages),
      {"青岛啤酒": "67.92", "贵州茅台": "1488.21"})                     # seed 002's prices

# %% [markdown]
# Read the flags, not just the answers. An answer that names a city for which no tool result
# ever arrived is the invented-Observation problem of notebook 02 again, one level up: `stop`
# keeps the model from *writing* an Observation, but nothing in this loop keeps it from
# answering before it has asked for everything it needs. A missing number, on the other hand,
# is not necessarily an error (the model may round 23.4 to 23, or just name the winner) — but it
# is where to look first. Notebook 07 returns to answers that do not match their Observations.
#
# ## 7. Watch it break: the budget runs out
#
# What happens when the step budget is too small for the task? Give the weather question one
# step only. The model needs at least two tool calls and an answer, so unless it answers at
# once (without any tool), the loop ends with nothing:

# %%
# NBVAL_IGNORE_OUTPUT
answer_1, _, pad_1 = react_scratchpad(weather_q, weather_tools, max_steps=1)
print("ANSWER:", answer_1)

# %% [markdown]
# A user who waited gets nothing — although the model *did* learn something (one Observation
# is in the scratchpad). The fix the package uses: when a budget runs out, send **one** last
# request that asks for the best answer from what is known, and label the result as such:

# %%
print(load_template("final_request"))

# %%
# NBVAL_IGNORE_OUTPUT
if answer_1 is None:
    messages = [{"role": "system", "content": react_system_prompt(weather_tools)},
                {"role": "user", "content": react_user_message(weather_q, pad_1)},
                {"role": "user", "content": load_template("final_request")}]
    last = conn.client.chat.completions.create(model=conn.model, messages=messages,
                                               stop=["Observation:"], max_tokens=200,
                                               temperature=0)
    print(strip_invented_observation(last.choices[0].message.content or ""))
else:
    print("This run the model answered within one step, so no final request was needed:")
    print(answer_1)

# %% [markdown]
# Whatever this last reply says, the run did not finish normally, and the record must say so
# — the package's result carries `status="max_steps"` next to the answer.
#
# ## 8. This now lives in the package
#
# `reactlab.react_agent.run_react` is this loop with the rough edges handled: both message
# styles (`messages_style="scratchpad"` or `"chat"`), both prompt styles, `stop` (or a
# client-side cut), parse errors and tool errors fed back as Observations within a budget,
# the final request when a budget runs out, and guards against loops and huge Observations
# (notebook 07). It returns a `RunResult`: `answer`, `status`, one `Step` per request (with
# its tokens and latency), `usage`, and the last `messages` sent.
#
# The weather question, seed 000 style:

# %%
# NBVAL_IGNORE_OUTPUT
r1 = run_react(weather_q, tools=weather_tools, conn=conn, max_steps=5,
               style="json", messages_style="scratchpad")
for step in r1.steps:
    print(format_step(step))
print(f"\nstatus={r1.status!r}  answer={r1.answer!r}\nusage={r1.usage}")

# %% [markdown]
# The stock question, seed 002 style:

# %%
# NBVAL_IGNORE_OUTPUT
r2 = run_react(stock_q, tools=stock_tools, conn=conn, max_steps=5,
               style="action_input", messages_style="chat")
for step in r2.steps:
    print(format_step(step))
print(f"\nstatus={r2.status!r}  answer={r2.answer!r}\nusage={r2.usage}")

# %% [markdown]
# Same kind of result as our loops? The package sends the same prompts in the same layouts, so
# the runs can match step for step — but they need not: as notebook 02 showed, two identical
# requests at `temperature=0` are not guaranteed to produce identical text. Compare:

# %%
# NBVAL_IGNORE_OUTPUT
def calls(result):
    return [(c.name, c.arguments) for s in result.steps for c in s.tool_calls]


print("weather — package calls:", calls(r1))
print("weather — our answer   :", weather_answer)
print("weather — package      :", r1.answer, f"({r1.status})")
print("stocks  — package calls:", calls(r2))
print("stocks  — our answer   :", stock_answer)
print("stocks  — package      :", r2.answer, f"({r2.status})")

# %% [markdown]
# The last request the package sent is in `r1.messages` — the same two-message layout our loop
# printed, scratchpad included:

# %%
# NBVAL_IGNORE_OUTPUT
show_request(len(r1.steps), r1.messages[:2])

# %% [markdown]
# From here on, the series calls `run_react` and never redefines the loop.
#
# ## Recap
#
# - The ReAct loop: send, parse, run the tool, append reply + `Observation:`, repeat; stop at a
#   Final Answer or when `max_steps` runs out.
# - Two layouts carry the same text: one user message rebuilt around a growing scratchpad
#   (seed 000), or a chat of assistant replies and `Observation:` user messages (seed 002).
# - Parse errors and tool errors go back to the model as Observations; the loop never crashes
#   on what the model wrote.
# - Every step resends everything: the prompt grows with each reply and Observation.
# - A budget that runs out gets one final "answer with what you know" request, and the run's
#   status says the budget ended it.
#
# | term | meaning |
# |---|---|
# | agent loop | the program that alternates model calls and tool calls until an answer |
# | scratchpad | the Thought/Action/Observation text so far, sent back every step |
# | tool registry | the tools by name: descriptions for the model, functions for us |
# | step | one request to the model (and the tool call it asked for) |
# | `max_steps` | the step budget; guarantees the loop ends |
# | final request | one last request asking for the best answer when a budget ran out |
# | `RunResult` | the package's record of a run: answer, status, steps, usage, messages |
#
# ## Exercises
#
# 1. Run `react_scratchpad` on the stock question and `react_chat` on the weather question
#    (swap the layouts). Does the model make the same tool calls?
# 2. Add `get_today` (from `reactlab.tools`) to a registry and ask `今天是几号？`. How many steps?
# 3. Make `react_chat` stop early when the model asks for exactly the same tool call twice in a
#    row, and say so in the output.
# 4. Use `run_react(..., tools=default_registry())` (all six course tools) on the weather question.
#    How many prompt tokens does step 1 cost now, and why?
#
# Solutions: [solutions/04_scratchpad_solutions.ipynb](solutions/04_scratchpad_solutions.ipynb)
#
# ---
# Prev: [03 · Parsing ReAct with regular expressions](03_regex_parser.ipynb) | Index: [README](../README.md) | Next: [05 · Native tool calls](05_native_tool_calls.ipynb)
