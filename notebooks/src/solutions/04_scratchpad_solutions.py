# %% [markdown]
# # 04 · The scratchpad — solutions
# *Worked solutions to the exercises of [04 · The scratchpad](../04_scratchpad.ipynb). The
# outputs come from the local model; the code reports what it did.*
#
# The two loops of the notebook, without the request printing (a `verbose` switch keeps the
# output short):

# %%
# NBVAL_IGNORE_OUTPUT
import reactlab
from reactlab.parsing import FinalAnswer, ReActParseError, parse_react, strip_invented_observation
from reactlab.prompts import react_system_prompt, react_user_message
from reactlab.react_agent import run_react
from reactlab.tools import ToolRegistry, default_registry, get_closing_price, get_today, get_weather

conn = reactlab.connect()
weather_q, stock_q = "北京和广州的天气怎么样？", "青岛啤酒和贵州茅台的收盘价哪个贵？"
weather_tools, stock_tools = ToolRegistry([get_weather]), ToolRegistry([get_closing_price])


def step_once(messages, style):
    """One request: (cleaned text, parsed step or the ReActParseError)."""
    reply = conn.client.chat.completions.create(model=conn.model, messages=messages,
                                                stop=["Observation:"], max_tokens=256,
                                                temperature=0)
    text = strip_invented_observation(reply.choices[0].message.content or "")
    try:
        return text, parse_react(text, style=style)
    except ReActParseError as exc:
        return text, exc


def react_scratchpad(question, tools, max_steps=5, style="json"):
    system, scratchpad, calls = react_system_prompt(tools, style=style), "", []
    for _ in range(max_steps):
        text, parsed = step_once([{"role": "system", "content": system},
                                  {"role": "user", "content": react_user_message(
                                      question, scratchpad, style=style)}], style)
        if isinstance(parsed, FinalAnswer):
            return parsed.answer, calls
        if isinstance(parsed, ReActParseError):
            observation = str(parsed)
        else:
            calls.append((parsed.tool, parsed.args))
            observation, _ = tools.run(parsed.tool, parsed.args)
        scratchpad += f"{text}\nObservation: {observation}\n"
    return None, calls


def react_chat(question, tools, max_steps=5, style="action_input", stop_on_repeat=False):
    messages = [{"role": "system", "content": react_system_prompt(tools, style=style)},
                {"role": "user", "content": react_user_message(question, style=style)}]
    calls = []
    for _ in range(max_steps):
        text, parsed = step_once(messages, style)
        if isinstance(parsed, FinalAnswer):
            return parsed.answer, calls
        if isinstance(parsed, ReActParseError):
            observation = str(parsed)
        else:
            call = (parsed.tool, parsed.args)
            if stop_on_repeat and calls and calls[-1] == call:
                calls.append(call)  # recorded, but not run again
                print(f"stopped: the model asked for {call} twice in a row")
                return None, calls
            calls.append(call)
            observation, _ = tools.run(parsed.tool, parsed.args)
        messages += [{"role": "assistant", "content": text},
                     {"role": "user", "content": f"Observation: {observation}"}]
    return None, calls

# %% [markdown]
# ## 1. Swap the layouts
#
# The question is the same, the text the model reads is almost the same — but one long user
# message and a chat of short messages are different inputs, so the model may act differently.
# The cell prints the tool calls of each run:

# %%
# NBVAL_IGNORE_OUTPUT
answer, calls = react_scratchpad(stock_q, stock_tools, max_steps=4, style="action_input")
print("stocks, seed 000 layout :", calls, "\n   ->", answer)
answer, calls = react_chat(weather_q, weather_tools, max_steps=4, style="json")
print("weather, seed 002 layout:", calls, "\n   ->", answer)

# %% [markdown]
# ## 2. `get_today` and 今天是几号？
#
# One tool call and an answer — two steps, if the model uses the tool. (The tool reads the real
# date; set `REACTLAB_TODAY=2025-04-26` before starting Jupyter for reproducible runs.)

# %%
# NBVAL_IGNORE_OUTPUT
r = run_react("今天是几号？", tools=ToolRegistry([get_today]), conn=conn, max_steps=3)
print(f"{len(r.steps)} steps, status={r.status!r}, calls="
      f"{[(c.name, c.arguments) for s in r.steps for c in s.tool_calls]}\nanswer: {r.answer}")

# %% [markdown]
# ## 3. Stop on an exact repeat
#
# `stop_on_repeat=True` in `react_chat` above: before running a call, compare it with the
# previous one. We try it on the weather question in the chat layout — the run of exercise 1
# printed its calls, so you can see whether a repeat is likely. The cell says whether it fired.
# (The package's `LoopDetector` in notebook 07 does this properly: N repeats, ping-pong between
# two calls, and a message to the model before giving up.)

# %%
# NBVAL_IGNORE_OUTPUT
answer, calls = react_chat(weather_q, weather_tools, max_steps=4, style="json",
                           stop_on_repeat=True)
print("calls:", calls, "\nanswer:", answer)
print("the repeat check fired:", any(a == b for a, b in zip(calls, calls[1:])))

# %% [markdown]
# ## 4. All six course tools
#
# Step 1's prompt holds every tool description, so it grows with the registry — whether or not
# the tools are used. To measure it we need no answer at all: send step 1's messages with
# `max_tokens=1` and read `usage.prompt_tokens`.

# %%
# NBVAL_IGNORE_OUTPUT
def step1_prompt_tokens(tools):
    messages = [{"role": "system", "content": react_system_prompt(tools)},
                {"role": "user", "content": react_user_message(weather_q)}]
    reply = conn.client.chat.completions.create(model=conn.model, messages=messages,
                                                max_tokens=1, temperature=0)
    return reply.usage.prompt_tokens


print("step 1 prompt tokens with get_weather only:", step1_prompt_tokens(weather_tools))
print("step 1 prompt tokens with all six tools    :", step1_prompt_tokens(default_registry()))
print("the six tools:", default_registry().names())

# %% [markdown]
# Every tool description is paid for in every request of every run. Give an agent the tools
# its task needs, not all the tools you have.
#
# ---
# Back to [04 · The scratchpad](../04_scratchpad.ipynb) | Index: [README](../../README.md)
