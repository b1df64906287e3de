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

# %% [markdown] lang="zh-CN"
# # 02 · 停止序列
# *ReAct 提示词要求模型只写对话的一半，然后等待。没有 `stop`，就没有任何东西让它停下来等。*
#
# **学完这一节，你能够：**
# - 读懂一个 ReAct 系统提示词，说出每一部分的作用；
# - 认出模型自己写的 `Observation`，以及在它之上编出来的答案；
# - 使用 `stop=["Observation:"]`，并解释天气智能体一次录制运行中出现的残留（`Observation` 后面没有冒号）；
# - 在服务商不支持 `stop` 时，在客户端截断补全结果。
#
# **当前进度：** notebook 01 发送了原始请求并读取了 JSON。从这里开始，我们调用 `conn.client.chat.completions.create(...)`，它替我们发送的正是那份 JSON。
#
# > ReAct = Reason + Act：模型写 Thought（想）和 Action（要调用哪个工具），**我们**执行工具，
# > 再把结果作为 Observation 还给模型。问题是：模型并不知道自己该在哪里停下。

# %% [markdown]
# ## Setup

# %% [markdown] lang="zh-CN"
# ## 准备

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

# %% [markdown] lang="zh-CN"
# ## 1. ReAct 提示词
#
# 天气智能体（本系列重建的 JSON-blob 风格 ReAct 智能体：先查北京，再查广州，每步一个城市）给模型一个工具 `get_weather`，以及一段改编自 LangChain 的系统提示词。`reactlab.prompts` 把这类提示词存成文本文件；`react_system_prompt` 根据工具注册表填入工具列表（notebook 04 会正式讲工具）。慢慢地读一遍：

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

# %% [markdown] lang="zh-CN"
# 分三部分：**说明**、**工具**（名称、参数、描述），以及**格式**——`Question / Thought / Action / Observation / … / Final Answer`。看看格式那一块：`Observation:` 这一行*本身就是展示给模型的模式的一部分*。语言模型会续写文本。它写完一个 Action 之后，按照这个模式，接下来该写什么？提示词里也用文字要求它不要写 Observation。但文字只是请求，不是机制。
#
# ### ReAct 与思维链
#
# *思维链*（chain-of-thought，CoT）提示让模型在回答之前一步一步地推理（"Let's think step by step"、"请一步一步思考"）。这些推理全都是模型根据自己已有的知识写出来的文本：一条关于北京和广州天气的思维链可以很严谨，气温却照样只能靠猜。**ReAct 把推理和行动交替进行**：`Thought:` 之后是 `Action:`，随后的 `Observation:` 来自模型之外——一个由我们运行的工具——于是下一步思考就能建立在模型原本没有的事实之上。这也正是本 notebook 要讲的难点：模型必须在 Action 之后停下，让我们来写 Observation。
#
# 问题放在 user 消息里（天气智能体把它放在 `Question:` 后面）：

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

# %% [markdown] lang="zh-CN"
# ## 2. 不加 `stop`：看出问题了吗？
#
# 我们发送这个问题，不加任何迫使模型在 Action 之后停下的东西，并给它足够的空间：最多 300 个 token。（`finish_reason` 会告诉我们它是自己停下的，还是空间用完了。）模型从没见过我们的工具返回的天气报告：不管它对今天的天气说了什么，都不是从 `get_weather` 拿到的。

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

# %% [markdown] lang="zh-CN"
# 现在让代码、而不是我们的眼睛来判断发生了什么。编造的 Observation 就是一行以 `Observation` *开头*的文字——在我们的协议里，只有我们自己才会写这样的行：

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
# The next cell defines a helper; the one after it shows the evidence for whichever case the
# model produced. When it invented an
# Observation, we print what it invented and what came after it (often a `Final Answer` built
# on those invented facts), next to what the real tool returns for 北京.
#
# If it did not invent one this run, the cell says so and shows a recorded example instead: if
# the project's corpus of recorded local-model outputs (`tests/data/react_outputs.json`) holds
# one, a real invented Observation from it.

# %% [markdown] lang="zh-CN"
# 下一个单元格定义一个辅助函数，再下一个单元格展示证据，不论模型产生的是哪种情况。如果它编造了 Observation，我们就打印它编了什么、后面又写了什么（往往是建立在这些编造事实上的 `Final Answer`），并和真实工具对北京返回的结果放在一起。
#
# 如果这次它没有编造，单元格会如实说明，并改为展示一个录制的例子：如果项目中录制的本地模型输出语料（`tests/data/react_outputs.json`）里有的话，就从中取出一个真实的编造 Observation。

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
    print("This run invented no Observation. Without `stop` nothing prevents one: whether the "
          "model writes it is up to the model, run by run.")
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

# %% [markdown] lang="zh-CN"
# 一旦 Observation 是编造的，它之后的一切都是披着工具结果外衣的虚构：看起来合理、却从没有人测量过的数字。一个天真地读取文本的智能体会拿走那个 `Final Answer` 然后结束——对一场它从没查过的天气给出自信满满的回答。我们在 notebook 04 里写的循环必须在模型写完 Action 后立刻让它停下，自己去运行工具，再把真实的 Observation 交还给它。
#
# 还要注意成本：每一个编造的 token，都是我们要付钱、要等待的 token。

# %% [markdown]
# ## 3. `stop=["Observation:"]`
#
# The chat-completions API has a parameter for this: `stop`, a string or a list of up to four
# strings. The server checks the generated text as it grows; as soon as it contains a stop
# string, generation ends, the stop string itself is **not** returned, and `finish_reason` is
# `stop`. The weather agent sends `"stop": "Observation:"` in every request for exactly this reason.
#
# Same messages, one more parameter:

# %% [markdown] lang="zh-CN"
# ## 3. `stop=["Observation:"]`
#
# chat completions API 专门有个参数干这件事：`stop`，一个字符串，或者最多四个字符串组成的列表。服务器在文本生成的过程中不断检查；一旦文本中出现停止序列，生成就结束，停止序列本身**不会**返回，`finish_reason` 为 `stop`。天气智能体正是为此在每个请求里都发送 `"stop": "Observation:"`。
#
# 同样的消息，多一个参数：

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

# %% [markdown] lang="zh-CN"
# 有了 `stop`，回复里只可能包含模型在开始写 `Observation:` *之前*写下的内容。如果它打算调用工具，那就是一个 Thought 加一个 Action——恰好是对话中属于模型的那一半。（如果它选择不用任何工具直接回答，`stop` 就帮不上忙了：那是另一种失败，要由 notebook 04 的循环来应对。）

# %% [markdown]
# ## 4. The stop residue in a recorded run
#
# The weather agent's second reply in one recorded run (DeepSeek-V3 on DashScope, `"stop": "Observation:"`,
# `finish_reason: "stop"`) was recorded as this `content`:

# %% [markdown] lang="zh-CN"
# ## 4. 一次录制运行中的停止序列残留
#
# 在一次录制的运行中（DashScope 上的 DeepSeek-V3，`"stop": "Observation:"`，`finish_reason: "stop"`），天气智能体的第二个回复记录下来的 `content` 是这样的：

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

# %% [markdown] lang="zh-CN"
# 看最后一行：`Observation`，**没有**冒号。停止序列 `Observation:` 从未完整出现，所以什么也没被截掉——可模型偏偏就停在了那里。我们看不到那台服务器的内部，但有一种解释与记录相符：模型结束了自己的回合（它的回合结束 token 同样会给出 `finish_reason: "stop"`），或者接下来写的不是 `:`，于是停止序列始终没有匹配上。无论哪种情况，停止序列都只能防住它所写的那段精确文本。
#
# **看它出错。** 天气智能体的循环先追加回复，再追加自己的 Observation：`scratchpad += content + "\nObservation: " + result`。有了这个残留，下一个请求里就会连着出现*两个* Observation 标签——那次运行的第三个请求里看到的正是这样：

# %%
# the reply of the China Meteorological Administration's (CMA) weather API for 广州 in that
# recorded run, shortened
guangzhou_result = '{"msg":"success","code":0,"data":{"location":{"name":"广州"},"now":{"temperature":24.2}}}'
naive_scratchpad = recorded_reply2 + f"\nObservation: {guangzhou_result}\n"
print("… " + "\n".join(naive_scratchpad.splitlines()[-3:]))

# %% [markdown]
# DeepSeek-V3 shrugged it off. A small model may not: it sees a broken pattern and may copy
# it. The fix is one rule on our side: before appending a reply, drop a partial stop word left
# at its end. `reactlab.parsing.strip_invented_observation` does that (and also cuts a
# complete invented Observation, as in section 2):

# %% [markdown] lang="zh-CN"
# DeepSeek-V3 对此满不在乎。小模型就未必了：它看到一个被破坏的模式，可能会照着模仿。修复办法是我们这边加一条规则：追加回复之前，去掉留在末尾的不完整停止序列。`reactlab.parsing.strip_invented_observation` 干的就是这个（它还会截掉完整的编造 Observation，就像第 2 节那样）：

# %%
fixed = strip_invented_observation(recorded_reply2)
print("… " + "\n".join((fixed + f"\nObservation: {guangzhou_result}\n").splitlines()[-3:]))

# %% [markdown]
# And on this run's own replies — whatever they ended with:

# %% [markdown] lang="zh-CN"
# 再用到这次运行自己的回复上——不管它们以什么结尾：

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

# %% [markdown] lang="zh-CN"
# ## 5. 客户端截断：给不支持 `stop` 的服务商
#
# 不是每个端点都接受 `stop`。有些推理模型会用 400（"unsupported parameter"）拒绝它，有些代理会悄悄把它丢掉，而 OpenAI 最多只允许四个字符串。退路是让模型接着写，由我们自己来截断文本。这要多花那些额外的 token（第 2 节数过），但智能体看到的回复是一样的。
#
# 最容易想到的一行代码：

# %%
def naive_cut(text: str) -> str:
    return text.split("Observation:")[0]


print(repr(naive_cut("Action: get_weather\nObservation: 晴, 25°C\nFinal Answer: 晴")))

# %% [markdown]
# **Watch it break** on the recorded residue: there is no `Observation:` to split on, so the
# dangling `Observation` stays.

# %% [markdown] lang="zh-CN"
# 用录制的残留来**看它出错**：里面没有 `Observation:` 可供切分，所以那个悬空的 `Observation` 留了下来。

# %%
print(repr(naive_cut(recorded_reply2)[-30:]))

# %% [markdown]
# So a client-side cut takes two steps: cut at the stop strings (`reactlab.parsing.cut_at_stop`,
# the exact equivalent of the server-side `stop`), then drop a partial stop word at the end
# (`strip_invented_observation`). Applied to the reply we got *without* `stop`, it should
# come close to the reply we got *with* it — the cell prints whether they match:

# %% [markdown] lang="zh-CN"
# 所以客户端截断要分两步：先在停止序列处截断（`reactlab.parsing.cut_at_stop`，与服务端的 `stop` 完全等价），再去掉末尾的不完整停止序列（`strip_invented_observation`）。把它用在*不加* `stop` 得到的回复上，结果应该接近*加了* `stop` 得到的回复——单元格会打印两者是否一致：

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

# %% [markdown] lang="zh-CN"
# 如果两者不同，看看差在*哪里*：如果差异出现在截断点之前，那只是模型在两次请求里写了不同的字。`temperature=0` 让每一步都选最可能的 token，但"最可能"是用浮点数算出来的；一个会批处理请求、或者复用缓存的提示词前缀的服务器，可能让一个几乎打平的选择倒向另一边。截断本身是精确的。
#
# ### 现在它已经在包里了
#
# `cut_at_stop(text, stops)` 就是客户端的 `stop`；`strip_invented_observation(text)` 是我们在 notebook 03 构建的解析器的第一条规则（`reactlab.parsing.parse_react` 最先做的就是它）。后面的 notebook 都从 `reactlab.parsing` 导入它们，不再重新定义。

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
# | term | 中文 | meaning |
# |---|---|---|
# | ReAct | ReAct（推理 + 行动） | Reason + Act: the model alternates Thought and Action; the program adds Observations |
# | chain-of-thought (CoT) | 思维链 | reasoning written out step by step, in text only; no outside facts come in |
# | Thought / Action / Observation | 思考 / 行动 / 观察 | the model's reasoning / the tool call it asks for / the tool's result (written by *us*) |
# | Final Answer | 最终答案 | the label the model uses when it is done |
# | stop sequence | 停止序列 | a string that ends generation when the model writes it; not included in the reply |
# | invented (fabricated) observation | 编造的观察结果 | a tool result the model wrote itself; no tool ran |
# | stop residue | 停止序列残留 | part of a stop word left in the reply, e.g. `Observation` without `:` |
# | client-side stop | 客户端截断 | cutting the reply ourselves when the server cannot |
# | scratchpad | 草稿本 | the running Thought/Action/Observation text we send back each step (notebook 04) |
#
# ## Exercises
#
# 1. Send the stock agent's question (`青岛啤酒和贵州茅台的收盘价哪个贵？`) with the
#    `action_input` prompt style (`style="action_input"`: the stock agent's `Action:` /
#    `Action Input:` lines; its tool is `get_closing_price` from `reactlab.tools.prices`) and
#    no `stop`. Did the model invent prices? Compare with the
#    real closing prices (67.92 and 1488.21). (`answer_1 = (text, invented)`: the reply, and
#    your reading of it, True or False; the check reads the text too.)
# 2. What changes with `stop=["Observation"]` (no colon)? With `stop=["\nObservation"]`?
#    Predict, then run both on the weather question. (`answer_2`: the two replies' texts.)
# 3. Why would `stop=["Final Answer:"]` be a bad idea? Cut the weather agent's last recorded
#    reply, `"Thought: 我已经获取了北京和广州的天气信息，现在可以回答用户的问题了。\n\nFinal Answer:
#    北京的天气温度为23.4°C……"`, with `cut_at_stop` and that stop string, and look at what is left.
# 4. Make `find_invented_observation` also catch `观察：` (a model answering in Chinese). Test it
#    on three strings of your own; the check runs it on six more.

# %% [markdown] lang="zh-CN"
# ## 小结
#
# - ReAct 提示词给模型展示的模式里包含 `Observation:` 行；顺着这个模式续写的模型，可能会自己写出工具的结果。
# - 编造的 Observation 是长得像数据的虚构内容，建立在它之上的任何 `Final Answer` 也一样。代码可以检测它：一行以 `Observation` 开头的文字。
# - `stop=["Observation:"]` 让生成恰好在它之前结束；停止序列本身不会返回。
# - 停止序列只能匹配它的精确文本：天气智能体的一次录制运行在回复末尾留下了残留 `Observation`。把回复追加到 scratchpad 之前，先去掉它。
# - 服务端不支持 `stop` 时，就在客户端截断：`cut_at_stop` + `strip_invented_observation`。
#
# | 术语 | 中文 | 含义 |
# |---|---|---|
# | ReAct | ReAct（推理 + 行动） | Reason + Act：模型交替写 Thought 和 Action；程序补上 Observation |
# | chain-of-thought (CoT) | 思维链 | 一步一步写出来的推理，只是文本；没有任何外部事实进来 |
# | Thought / Action / Observation | 思考 / 行动 / 观察 | 模型的推理 / 它请求的工具调用 / 工具的结果（由*我们*来写） |
# | Final Answer | 最终答案 | 模型完成时使用的标签 |
# | stop sequence | 停止序列 | 模型一写出它，生成就结束的字符串；不包含在回复里 |
# | invented (fabricated) observation | 编造的观察结果 | 模型自己写的工具结果；其实没有任何工具运行过 |
# | stop residue | 停止序列残留 | 留在回复里的部分停止序列，比如没有 `:` 的 `Observation` |
# | client-side stop | 客户端截断 | 服务器做不到时，由我们自己截断回复 |
# | scratchpad | 草稿本 | 每一步都发回给模型、不断增长的 Thought/Action/Observation 文本（notebook 04） |
#
# ## 练习
#
# 1. 用 `action_input` 风格的提示词（`style="action_input"`：股票智能体的 `Action:` / `Action Input:` 两行；它的工具是 `reactlab.tools.prices` 里的 `get_closing_price`）、不加 `stop`，发送股票智能体的问题（`青岛啤酒和贵州茅台的收盘价哪个贵？`）。模型编造价格了吗？和真实收盘价（67.92 和 1488.21）比较一下。（`answer_1 = (text, invented)`：回复文本，以及你的判断，True 或 False；检查时也会读取这段文本。）
# 2. 换成 `stop=["Observation"]`（不带冒号）会有什么变化？换成 `stop=["\nObservation"]` 呢？先预测，再用天气问题把两种都跑一遍。（`answer_2`：两个回复的文本。）
# 3. 为什么 `stop=["Final Answer:"]` 是个坏主意？用 `cut_at_stop` 和这个停止序列截断天气智能体录制的最后一个回复 `"Thought: 我已经获取了北京和广州的天气信息，现在可以回答用户的问题了。\n\nFinal Answer: 北京的天气温度为23.4°C……"`，看看还剩下什么。
# 4. 让 `find_invented_observation` 也能捕获 `观察：`（用中文回答的模型会这样写）。用你自己写的三个字符串测试它；检查会再用六个字符串跑一遍。

# %% [markdown]
# Each exercise has a starter cell (`answer_N = None`) and a check cell. The check
# prints "not attempted yet" until you fill in the answer, ✔ when the result is right,
# and otherwise stops with a message saying what is still wrong. It checks what your
# code returned, never your wording, and never calls the model itself.

# %% [markdown] lang="zh-CN"
# 每道练习都有一个起始单元格（`answer_N = None`）和一个检查单元格。你填入答案之前，检查会打印 "not attempted yet"；结果正确时打印 ✔；否则就停下来，并告诉你还有哪里不对。它检查的是你的代码返回了什么，从不检查你的措辞，也从不自己调用模型。

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

# %% [markdown] lang="zh-CN"
# 参考答案：[solutions/02_stop_token_solutions.ipynb](solutions/02_stop_token_solutions.ipynb)
#
# ---
# 上一篇：[01 · 手写一个请求](01_raw_requests.ipynb) | 索引：[README](../../README.zh-CN.md) | 下一篇：[03 · 用正则表达式解析 ReAct](03_regex_parser.ipynb)
