# %% [markdown]
# # 01 · One request by hand — solutions
# *Worked solutions to the exercises of [01 · One request by hand](../01_raw_requests.ipynb).
# The outputs come from the local model; yours may differ — the reasoning is what carries over.*

# %% [markdown] lang="zh-CN"
# # 01 · 手写一个请求——参考答案
# *[01 · 手写一个请求](../01_raw_requests.ipynb) 各道练习的完整解答。输出来自本地模型，你的结果可能不同——能带走的是其中的思路。*

# %%
# NBVAL_IGNORE_OUTPUT
import os
import json

import openai
import requests

import reactlab
from reactlab.exercises.nb01 import check_1, check_2, check_3, check_4
from reactlab.http import chat_url, stream_chat

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
url = chat_url(conn.base_url)
body = {
    "model": conn.model,
    "messages": [
        {"role": "system", "content": "You are a concise assistant. 回答尽量简短。"},
        {"role": "user", "content": "北京是哪个国家的首都？用一句话回答。"},
    ],
    "max_tokens": 60,
    "temperature": 0,
}

# %% [markdown]
# ## 1. `"stop": ["。"]`
#
# Prediction: generation ends at the first `。`, the `。` itself is not in the text, and
# `finish_reason` is `stop` — the same value as a natural end, so `finish_reason` alone cannot
# tell you *which* stop happened. (If the model writes no `。` at all, nothing changes.)

# %% [markdown] lang="zh-CN"
# ## 1. `"stop": ["。"]`
#
# 预测：生成在第一个 `。` 处结束，`。` 本身不在文本里，`finish_reason` 为 `stop`——和自然结束时的值一样，所以单看 `finish_reason` 分辨不出是*哪一种*停止。（如果模型根本没写 `。`，就什么都不会变。）

# %%
# NBVAL_IGNORE_OUTPUT
data = requests.post(url, headers=conn.headers(), json={**body, "stop": ["。"]}, timeout=120).json()
text = data["choices"][0]["message"]["content"]
print(repr(text))
print("finish_reason:", data["choices"][0]["finish_reason"], "| '。' in text:", "。" in text)
answer_1 = data
check_1(answer_1)

# %% [markdown]
# ## 2. Chunks vs tokens
#
# A server usually sends one chunk per generated token, but nothing requires it: it may merge
# tokens, and a token that is half of a Chinese character (UTF-8 bytes split across tokens) can
# only be sent once the character is complete. So the counts are close, not necessarily equal.

# %% [markdown] lang="zh-CN"
# ## 2. chunk 与 token
#
# 服务器通常每生成一个 token 就发一个 chunk，但并没有规定必须这样：它可以把几个 token 合并发送；而一个只占半个汉字的 token（一个字的 UTF-8 字节被拆到了几个 token 里），要等这个字完整了才能发出。所以两个数字接近，但不一定相等。

# %%
# NBVAL_IGNORE_OUTPUT
long_body = {**body, "messages": [{"role": "user", "content": "用三句话介绍广州。"}],
             "max_tokens": 120, "stream_options": {"include_usage": True}}
text_chunks, usage, text = 0, None, ""
for chunk in stream_chat(conn.base_url, conn.headers(), long_body):
    for ch in chunk.get("choices", []):
        piece = ch.get("delta", {}).get("content") or ""
        text_chunks += bool(piece)
        text += piece
    usage = chunk.get("usage") or usage
print(text)
print("chunks with text:", text_chunks, "| completion_tokens:", (usage or {}).get("completion_tokens"))
answer_2 = (text_chunks, (usage or {}).get("completion_tokens"))
check_2(answer_2)

# %% [markdown]
# ## 3. `ask(messages)` with `requests` only

# %% [markdown] lang="zh-CN"
# ## 3. 只用 `requests` 实现 `ask(messages)`

# %%
def ask(messages, **extra):
    """The reply's text; RuntimeError carrying the server's own message for any status >= 400."""
    resp = requests.post(url, headers=conn.headers(), timeout=120,
                         json={"model": conn.model, "messages": messages, "max_tokens": 60,
                               "temperature": 0, **extra})
    if resp.status_code >= 400:
        try:
            message = resp.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = resp.text[:300]
        raise RuntimeError(f"HTTP {resp.status_code}: {message}")
    return resp.json()["choices"][0]["message"]["content"]


# %%
# NBVAL_IGNORE_OUTPUT
print(ask([{"role": "user", "content": "广州是哪个省的省会？一句话。"}]))
try:
    ask([])
except RuntimeError as exc:
    print("RuntimeError:", exc)

# %%
answer_3 = ask
check_3(answer_3)  # runs ask against two canned replies (200 and 400): no request is sent

# %% [markdown]
# ## 4. `"temperature": "hot"`
#
# Prediction: a request error — 400 — so the SDK raises `openai.BadRequestError`. The cell
# prints what this server actually did.

# %% [markdown] lang="zh-CN"
# ## 4. `"temperature": "hot"`
#
# 预测：这是请求错误——400——所以 SDK 抛出 `openai.BadRequestError`。单元格会打印这个服务器实际的做法。

# %%
# NBVAL_IGNORE_OUTPUT
answer_4 = None
try:
    conn.client.chat.completions.create(model=conn.model, temperature="hot", max_tokens=5,
                                        messages=[{"role": "user", "content": "hi"}])
    print("accepted (this server ignores or converts the bad value)")
except openai.APIStatusError as exc:
    answer_4 = exc
    print(type(exc).__name__, exc.status_code, "|", exc.message)
    print(json.dumps(exc.body, ensure_ascii=False)[:300])
check_4(answer_4)

# %% [markdown]
# ---
# Back to [01 · One request by hand](../01_raw_requests.ipynb) | Index: [README](../../README.md)

# %% [markdown] lang="zh-CN"
# ---
# 返回 [01 · 手写一个请求](../01_raw_requests.ipynb) | 索引：[README](../../../README.zh-CN.md)
