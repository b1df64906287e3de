# %% [markdown]
# # 02 · The stop token — solutions
# *Worked solutions to the exercises of [02 · The stop token](../02_stop_token.ipynb). The
# outputs come from the local model; the code says what happened, whichever way it went.*

# %% [markdown] lang="zh-CN"
# # 02 · 停止序列——参考答案
# *[02 · 停止序列](../02_stop_token.ipynb) 各道练习的完整解答。输出来自本地模型；无论结果如何，代码都会说明实际发生了什么。*

# %%
# NBVAL_IGNORE_OUTPUT
import os
import re

import reactlab
from reactlab.exercises.nb02 import check_1, check_2, check_3, check_4
from reactlab.parsing import cut_at_stop
from reactlab.prompts import react_system_prompt, react_user_message
from reactlab.tools import ToolRegistry, get_closing_price, get_weather

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
INVENTED = re.compile(r"^[ \t>*]*Observation\b", re.MULTILINE)


def complete(messages, **kw):
    reply = conn.client.chat.completions.create(model=conn.model, messages=messages,
                                                temperature=0, **kw)
    return reply.choices[0].message.content or "", reply.choices[0].finish_reason

# %% [markdown]
# ## 1. The stock question without `stop`
#
# We check two things in code: is there an Observation line the model wrote, and do the
# prices it mentions match the real ones (67.92 and 1488.21)?

# %% [markdown] lang="zh-CN"
# ## 1. 不加 `stop` 的股票问题
#
# 我们用代码检查两件事：有没有模型自己写的 Observation 行？它在那里提到的价格和真实价格（67.92 和 1488.21）是否一致？

# %%
# NBVAL_IGNORE_OUTPUT
stock_tools = ToolRegistry([get_closing_price])
stock_messages = [
    {"role": "system", "content": react_system_prompt(stock_tools, style="action_input")},
    {"role": "user", "content": react_user_message("青岛啤酒和贵州茅台的收盘价哪个贵？",
                                                   style="action_input")}]
text, finish = complete(stock_messages, max_tokens=250)
print(text, f"\n--- finish_reason={finish}")
m = INVENTED.search(text)
print("\ninvented Observation:", bool(m))
numbers = re.findall(r"\d+(?:\.\d+)?", text[m.start():] if m else "")
print("numbers after it:", numbers)
print("real prices mentioned there:", [p for p in ("67.92", "1488.21") if p in numbers])
answer_1 = (text, bool(m))
check_1(answer_1)

# %% [markdown]
# ## 2. `stop=["Observation"]` and `stop=["\nObservation"]`
#
# - `"Observation"` (no colon) also catches the recorded residue of notebook 02 and a full-width
#   `Observation：` — but it stops on the word anywhere, even in a Thought such as
#   "the Observation above shows…".
# - `"\nObservation"` only stops at a line start, which is what an invented Observation looks
#   like; it does not fire on a first line that starts with it (there is no newline before it).

# %% [markdown] lang="zh-CN"
# ## 2. `stop=["Observation"]` 与 `stop=["\nObservation"]`
#
# - `"Observation"`（不带冒号）还能捕获 notebook 02 中录制的残留，以及全角冒号的 `Observation：`——但它会在任何位置遇到这个词就停下，哪怕是在 Thought 里，比如 "the Observation above shows…"。
# - `"\nObservation"` 只在行首停下，而编造的 Observation 正是这个样子；不过如果第一行就以它开头，它不会触发（前面没有换行符）。

# %%
# NBVAL_IGNORE_OUTPUT
weather_tools = ToolRegistry([get_weather])
weather_messages = [
    {"role": "system", "content": react_system_prompt(weather_tools)},
    {"role": "user", "content": react_user_message("北京和广州的天气怎么样？")}]
answer_2 = {}
for stop in (["Observation"], ["\nObservation"]):
    text, finish = complete(weather_messages, max_tokens=200, stop=stop)
    answer_2[stop[0]] = text
    print(f"stop={stop!r}: finish_reason={finish}, ends with {text[-40:]!r}")
check_2(answer_2)

# %% [markdown]
# ## 3. Why not `stop=["Final Answer:"]`?
#
# Generation ends *before* the stop string and the string is not returned — so the model would
# never get to write the answer. The reply would end with a Thought, and we could not even
# tell "done" from "forgot to act". The weather agent's last recorded reply shows what we would lose:

# %% [markdown] lang="zh-CN"
# ## 3. 为什么不用 `stop=["Final Answer:"]`？
#
# 生成在停止序列*之前*结束，而且停止序列本身不会返回——所以模型永远写不出答案。回复会以一个 Thought 结尾，我们甚至分不清是"做完了"还是"忘了行动"。天气智能体录制的最后一个回复展示了我们会失去什么：

# %%
recorded_last = ("Thought: 我已经获取了北京和广州的天气信息，现在可以回答用户的问题了。\n\n"
                "Final Answer: 北京的天气温度为23.4°C，湿度为43%……")
answer_3 = cut_at_stop(recorded_last, ["Final Answer:"])
print(repr(answer_3))
check_3(answer_3)

# %% [markdown]
# ## 4. Catching `观察：` too

# %% [markdown] lang="zh-CN"
# ## 4. 把 `观察：` 也捕获住

# %%
INVENTED_ANY = re.compile(r"^[ \t>*]*(?:Observation\b|观察\s*[:：])", re.MULTILINE)


def find_invented_observation(text):
    m = INVENTED_ANY.search(text)
    return m.start() if m else None


for s in ("Action: get_weather\n观察：北京晴", "Thought: 我观察到……", "Action: x\nObservation: 1"):
    print(repr(s), "->", find_invented_observation(s))
answer_4 = find_invented_observation
check_4(answer_4)

# %% [markdown]
# The second string mentions 观察 inside a sentence: not a line start, no colon — rightly
# ignored.
#
# ---
# Back to [02 · The stop token](../02_stop_token.ipynb) | Index: [README](../../README.md)

# %% [markdown] lang="zh-CN"
# 第二个字符串在句子中间提到了"观察"：不在行首，也没有冒号——忽略它是对的。
#
# ---
# 返回 [02 · 停止序列](../02_stop_token.ipynb) | 索引：[README](../../../README.zh-CN.md)
