# %% [markdown]
# # 01 · One request by hand
# *What the `openai` SDK really sends and receives: a POST, its curl twin, the JSON that comes
# back, a streamed reply, and the errors.*
#
# **After this notebook you can:**
# - send a chat completion with plain `requests` and pull the reply out of the JSON;
# - print the same request as a curl command without leaking the key;
# - name the parts of a response: `id`, `choices`, `message`, `finish_reason`, `usage`;
# - read a streamed reply line by line, and tell a 400 from a 401 (and the SDK exception for each).
#
# **Where we are:** notebook 00 checked the set-up and introduced `reactlab.connect()`. Here we
# use what that connection holds: `conn.base_url`, `conn.model` and `conn.headers()` (the
# request headers, with the key) for raw requests, then `conn.client` (the `openai` SDK's client)
# and `conn.provider`.
#
# > 为什么要手写请求？Agent 的每一步——工具调用、Observation、stop——最后都只是一个 HTTP 请求里的
# > JSON。看懂这一个请求，后面的一切都只是在改这份 JSON。

# %% [markdown] lang="zh-CN"
# # 01 · 手写一个请求
# *`openai` SDK 到底发送和接收了什么：一个 POST 请求、对应的 curl 命令、返回的 JSON、一次流式回复，以及各种错误。*
#
# **学完这一节，你能够：**
# - 只用 `requests` 发送一次 chat completion，并从 JSON 里取出回复；
# - 把同一个请求打印成 curl 命令，而且不泄露 key；
# - 说出响应的各个组成部分：`id`、`choices`、`message`、`finish_reason`、`usage`；
# - 逐行读取流式回复，分清 400 和 401（以及各自对应的 SDK 异常）。
#
# **当前进度：** notebook 00 检查了环境，并介绍了 `reactlab.connect()`。这里会用到这个连接里的东西：原始请求用 `conn.base_url`、`conn.model` 和 `conn.headers()`（带着密钥的请求头），之后还有 `conn.client`（`openai` SDK 的客户端）和 `conn.provider`。
#
# > 为什么要手写请求？Agent 的每一步——工具调用、Observation、stop——最后都只是一个 HTTP 请求里的
# > JSON。看懂这一个请求，后面的一切都只是在改这份 JSON。

# %% [markdown]
# ## Setup

# %% [markdown] lang="zh-CN"
# ## 准备

# %%
# NBVAL_IGNORE_OUTPUT
import os
import json

import openai
import requests

import reactlab
from reactlab.http import ProviderError, chat_url, post_chat, stream_chat, to_curl

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
conn

# %% [markdown]
# ## 1. A request is a URL, two headers and a JSON body
#
# Every OpenAI-compatible provider — DashScope, DeepSeek, OpenAI, Ollama, vLLM and our local
# server — answers the same endpoint: `POST {base_url}/chat/completions`. The body needs only
# two fields, `model` and `messages`; the rest (`max_tokens`, `temperature`, …) have defaults.
# We set `max_tokens` so the small local model cannot ramble for a minute, and `temperature=0`
# so it picks its most likely token at every step.

# %% [markdown] lang="zh-CN"
# ## 1. 一个请求 = 一个 URL + 两个请求头 + 一个 JSON 请求体
#
# 所有兼容 OpenAI 的服务商——DashScope、DeepSeek、OpenAI、Ollama、vLLM，还有我们的本地服务器——响应的都是同一个端点：`POST {base_url}/chat/completions`。请求体只需要两个字段：`model` 和 `messages`；其余的（`max_tokens`、`temperature` ……）都有默认值。我们设置 `max_tokens`，免得小小的本地模型一啰嗦就是一分钟；设置 `temperature=0`，让它每一步都选最可能的 token。

# %%
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
print("POST", url)
print(json.dumps(body, ensure_ascii=False, indent=2))

# %% [markdown]
# The two headers are `Content-Type: application/json` and `Authorization: Bearer <key>`. The
# second one holds a secret, so we print the header *names* only:

# %% [markdown] lang="zh-CN"
# 两个请求头是 `Content-Type: application/json` 和 `Authorization: Bearer <key>`。第二个里面有密钥，所以我们只打印请求头的*名字*：

# %%
print(list(conn.headers()))

# %% [markdown]
# Now the request itself: one `requests.post`. The reply is JSON too; the text the model wrote
# sits three levels deep, in `choices[0]["message"]["content"]`.

# %% [markdown] lang="zh-CN"
# 下面是请求本身：一次 `requests.post`。回复也是 JSON；模型写的文本藏在第三层，即 `choices[0]["message"]["content"]`。

# %%
# NBVAL_IGNORE_OUTPUT
resp = requests.post(url, headers=conn.headers(), json=body, timeout=120)
print("HTTP status:", resp.status_code, "| content-type:", resp.headers.get("content-type"))
data = json.loads(resp.content.decode("utf-8"))  # decode as UTF-8 ourselves: never let 北京 be guessed
print(data["choices"][0]["message"]["content"])

# %% [markdown]
# That is all the SDK does for `client.chat.completions.create(...)`: it builds this body,
# adds these headers, POSTs, and turns the JSON into Python objects.

# %% [markdown] lang="zh-CN"
# `client.chat.completions.create(...)` 背后，SDK 做的事情也就这些：构造这个请求体，加上这两个请求头，发出 POST，再把返回的 JSON 转成 Python 对象。

# %% [markdown]
# ## 2. The same request as curl — without the key
#
# A curl command is the easiest thing to paste into a bug report or a chat with a colleague.
# It is also the easiest way to leak a key. `reactlab.http.to_curl` writes the command with
# `$OPENAI_API_KEY` in place of the key, so the shell fills it in and the text never contains
# it. (The usual recipe is the same: `export OPENAI_API_KEY="sk-xxx"` once in the shell, then
# `-H "Authorization: Bearer $OPENAI_API_KEY"` in every command.)

# %% [markdown] lang="zh-CN"
# ## 2. 同一个请求写成 curl——不带 key
#
# curl 命令最适合贴进 bug 报告，或者发给同事。它也最容易泄露 key。`reactlab.http.to_curl` 生成的命令里用 `$OPENAI_API_KEY` 代替 key，由 shell 去填入真实的值，文本里永远不会出现 key 本身。（常见的做法也是这样：先在 shell 里执行一次 `export OPENAI_API_KEY="sk-xxx"`，之后每条命令都写 `-H "Authorization: Bearer $OPENAI_API_KEY"`。）

# %%
print(to_curl(url, conn.headers(), body))

# %% [markdown]
# Even a header that carries a real-looking key is masked. Here is one made up on the spot:

# %% [markdown] lang="zh-CN"
# 即使请求头里带着一个看起来像真的 key，也会被打码。下面这个是现编的：

# %%
print(to_curl("https://api.deepseek.com/v1/chat/completions",
              {"Authorization": "Bearer sk-made-up-0000", "Content-Type": "application/json"},
              {"model": "deepseek-chat", "messages": [{"role": "user", "content": "你好"}]}))

# %% [markdown]
# ## 3. Anatomy of a response
#
# Before printing it, a prediction. A response from DeepSeek-V3 on DashScope, for example, has
# an `id` like `chatcmpl-697b0627-…`, `"object": "chat.completion"`, a `created` Unix time,
# one element in `choices` with `message`, `finish_reason: "stop"` and `index: 0`, and a
# `usage` block (305 prompt tokens + 49 completion tokens = 354). Our local server speaks the
# same dialect, so the same keys should be there — let us look:

# %% [markdown] lang="zh-CN"
# ## 3. 解剖一个响应
#
# 打印之前，先做个预测。以 DashScope 上的 DeepSeek-V3 为例，一个响应包含：形如 `chatcmpl-697b0627-…` 的 `id`；`"object": "chat.completion"`；Unix 时间戳 `created`；`choices` 里有一个元素，带着 `message`、`finish_reason: "stop"` 和 `index: 0`；还有一个 `usage` 块（305 个 prompt token + 49 个 completion token = 354）。我们的本地服务器说的是同一种"方言"，所以这些键应该都在——来看看：

# %%
# NBVAL_IGNORE_OUTPUT
print(json.dumps(data, ensure_ascii=False, indent=2))

# %% [markdown]
# What each part means:
#
# | field | what it is |
# |---|---|
# | `id` | one id per response; quote it when you report a problem to a provider |
# | `object`, `created`, `model` | what kind of object, when (Unix seconds), which model answered |
# | `choices` | a list, because a request may ask for several alternatives (`n`); we always read `choices[0]` |
# | `choices[0].message` | the assistant message: `role` and `content` (later also `tool_calls`) |
# | `choices[0].finish_reason` | why generation stopped: `stop` (the model finished, or hit a stop string), `length` (hit `max_tokens`), `tool_calls` (notebook 05) |
# | `usage` | tokens billed: `prompt_tokens` (everything we sent) + `completion_tokens` (what it wrote) = `total_tokens`; `prompt_tokens_details.cached_tokens` is the part of the prompt the server did not read again because an earlier request began the same way (its prompt cache, notebook 04) |
#
# The same fields, read one by one:

# %% [markdown] lang="zh-CN"
# 各部分的含义：
#
# | 字段 | 是什么 |
# |---|---|
# | `id` | 每个响应一个 id；向服务商报告问题时要附上它 |
# | `object`、`created`、`model` | 对象类型、创建时间（Unix 秒）、回答的是哪个模型 |
# | `choices` | 是个列表，因为一个请求可以要多个候选回复（`n`）；我们总是读 `choices[0]` |
# | `choices[0].message` | 助手消息：`role` 和 `content`（后面还会有 `tool_calls`） |
# | `choices[0].finish_reason` | 生成为什么停止：`stop`（模型自己说完了，或者碰到了停止序列）、`length`（达到 `max_tokens`）、`tool_calls`（notebook 05） |
# | `usage` | 计费的 token 数：`prompt_tokens`（我们发送的全部内容）+ `completion_tokens`（模型写的内容）= `total_tokens`；`prompt_tokens_details.cached_tokens` 是提示词里服务器不必重读的部分，因为之前有个请求的开头和它一样（它的提示词缓存，第 04 课） |
#
# 逐个读出这些字段：

# %%
# NBVAL_IGNORE_OUTPUT
choice = data["choices"][0]
print("id            :", data.get("id"))
print("model         :", data.get("model"))
print("role          :", choice["message"]["role"])
print("finish_reason :", choice["finish_reason"])
print("usage         :", data.get("usage"))

# %% [markdown]
# `finish_reason` is worth a second look, because agents have to check it. Give the same
# question only 5 tokens: if the answer does not fit, the reply is cut mid-sentence and
# `finish_reason` says `length`; if it happens to fit, it says `stop`. The code prints which.

# %% [markdown] lang="zh-CN"
# `finish_reason` 值得再看一眼，因为智能体必须检查它。同一个问题只给 5 个 token：如果答案放不下，回复会在半句话处被截断，`finish_reason` 为 `length`；如果碰巧放得下，就是 `stop`。代码会打印出是哪一种。

# %%
# NBVAL_IGNORE_OUTPUT
short = post_chat(conn.base_url, conn.headers(), {**body, "max_tokens": 5})
print(repr(short["choices"][0]["message"]["content"]))
print("finish_reason:", short["choices"][0]["finish_reason"],
      "| completion_tokens:", short["usage"]["completion_tokens"])
if short["choices"][0]["finish_reason"] == "length":
    print("-> cut off by max_tokens: an agent must not treat this as a complete answer.")

# %% [markdown]
# We just used `reactlab.http.post_chat`: the POST above plus one thing worth having — an HTTP
# error becomes an exception that carries the provider's own message (section 5).
#
# The SDK returns the same JSON as typed objects. `model_dump()` turns them back into a dict,
# and the keys are the ones we just read:

# %% [markdown] lang="zh-CN"
# 刚才用的是 `reactlab.http.post_chat`：就是上面那个 POST，外加一个很有用的功能——HTTP 错误会变成一个异常，里面带着服务商自己的错误消息（第 5 节）。
#
# SDK 返回的是同样的 JSON，只不过变成了带类型的对象。`model_dump()` 能把它们转回字典，键就是我们刚才读过的那些：

# %%
# NBVAL_IGNORE_OUTPUT
reply = conn.client.chat.completions.create(**body)
print(type(reply).__name__, "->", reply.choices[0].message.content)
print("same keys as the raw JSON:", sorted(reply.model_dump(exclude_none=True)) ,)
print("same text as the raw request:",
      reply.choices[0].message.content == data["choices"][0]["message"]["content"])

# %% [markdown]
# (With `temperature=0` the two texts are usually identical, but a provider does not promise
# it — batching and hardware can change the last digits of the arithmetic. The line above
# says what happened this time.)

# %% [markdown] lang="zh-CN"
# （在 `temperature=0` 下，两段文本通常一模一样，但服务商并不保证这一点——批处理和硬件可能改变计算结果的最后几位。上面那行输出说明了这一次的情况。）

# %% [markdown]
# ## 4. A streamed reply, read line by line
#
# With `"stream": true` the server does not wait for the whole reply. It keeps the HTTP
# response open and sends **Server-Sent Events**: text lines of the form `data: {json}`,
# separated by blank lines, each JSON a *chunk* holding a small `delta` of the message. A last
# line `data: [DONE]` says the stream is over. With `stream_options.include_usage` an extra
# chunk before `[DONE]` carries `usage` and an empty `choices` list.
#
# We ask `requests` not to read the body at once (`stream=True`) and look at the raw lines:

# %% [markdown] lang="zh-CN"
# ## 4. 逐行读取流式回复
#
# 设置 `"stream": true` 后，服务器不会等整个回复生成完。它让 HTTP 响应保持打开，发送 **Server-Sent Events**（SSE）：形如 `data: {json}` 的文本行，行与行之间用空行分隔，每个 JSON 是一个 *chunk*，装着消息的一小段 `delta`。最后一行 `data: [DONE]` 表示流结束。如果设置了 `stream_options.include_usage`，在 `[DONE]` 之前还会多一个 chunk，带着 `usage` 和一个空的 `choices` 列表。
#
# 我们让 `requests` 不要一次读完响应体（`stream=True`），直接看原始的行：

# %%
# NBVAL_IGNORE_OUTPUT
stream_body = {**body, "stream": True, "stream_options": {"include_usage": True}}
raw_lines = []
with requests.post(url, headers=conn.headers(), json=stream_body, stream=True, timeout=120) as r:
    print("HTTP status:", r.status_code, "| content-type:", r.headers.get("content-type"))
    for raw in r.iter_lines():          # bytes, one line at a time, as they arrive
        raw_lines.append(raw.decode("utf-8"))  # SSE is UTF-8; requests would guess Latin-1

print(f"{len(raw_lines)} lines; the first four and the last four:")
for line in raw_lines[:4] + ["…"] + raw_lines[-4:]:
    print("  " + (line if len(line) <= 150 else line[:147] + "..."))

# %% [markdown]
# Each `data:` line is a complete JSON object. Decoding them and gluing the `delta.content`
# pieces back together gives the reply:

# %% [markdown] lang="zh-CN"
# 每个 `data:` 行都是一个完整的 JSON 对象。逐个解码，再把 `delta.content` 片段拼起来，就得到了回复：

# %%
# NBVAL_IGNORE_OUTPUT
pieces, finish, usage = [], None, None
for line in raw_lines:
    if not line.startswith("data:"):
        continue                        # blank separators (and `:` keep-alive comments)
    payload = line[len("data:"):].strip()
    if payload == "[DONE]":
        break
    chunk = json.loads(payload)
    if chunk.get("usage"):
        usage = chunk["usage"]
    for ch in chunk.get("choices", []):
        pieces.append(ch.get("delta", {}).get("content") or "")
        finish = ch.get("finish_reason") or finish
print("pieces:", pieces[:12], "…" if len(pieces) > 12 else "")
print("text  :", "".join(pieces))
print("finish_reason:", finish, "| usage:", usage)

# %% [markdown]
# ### This now lives in the package
#
# `reactlab.http.stream_chat` does exactly this (plus the awkward cases: `:` comment lines,
# `data:` without a space, an error event in the middle of a stream) and yields the chunks as
# dicts. Same request, same way of gluing the text together:

# %% [markdown] lang="zh-CN"
# ### 现在它已经在包里了
#
# `reactlab.http.stream_chat` 做的正是这件事（外加处理几种麻烦情况：`:` 开头的注释行、`data:` 后面不带空格、流中间出现的错误事件），并把一个个 chunk 作为字典逐个产出。同样的请求，同样的拼接方式：

# %%
# NBVAL_IGNORE_OUTPUT
text = "".join((ch.get("delta", {}).get("content") or "")
               for chunk in stream_chat(conn.base_url, conn.headers(), stream_body)
               for ch in chunk.get("choices", []))
print(text)
print("same text as our hand-made reader:", text == "".join(pieces))

# %% [markdown]
# ## 5. When the request is wrong: error responses
#
# Errors come back as JSON too, with an HTTP status that tells you whose fault it is: 4xx for
# the request (our fault), 5xx for the server. OpenAI's shape is
# `{"error": {"message", "type", "param", "code"}}`, and most compatible servers copy it.
# Let us send a request that cannot be answered — an empty `messages` list:

# %% [markdown] lang="zh-CN"
# ## 5. 请求出错时：错误响应
#
# 错误也以 JSON 返回，HTTP 状态码告诉你是谁的错：4xx 是请求的问题（我们的错），5xx 是服务器的问题。OpenAI 的格式是 `{"error": {"message", "type", "param", "code"}}`，大多数兼容服务都照搬了它。我们来发一个无法回答的请求——`messages` 是个空列表：

# %%
# NBVAL_IGNORE_OUTPUT
bad_body = {"model": conn.model, "messages": [], "max_tokens": 5}
bad = requests.post(url, headers=conn.headers(), json=bad_body, timeout=60)
print("HTTP status:", bad.status_code)
try:
    print(json.dumps(bad.json(), ensure_ascii=False, indent=2))
except ValueError:
    print("(the body is not JSON)", bad.text[:300])

# %% [markdown]
# `requests` never raises for a 4xx: it handed us the response and left the checking to us.
# The SDK checks for us and raises an exception whose class names the status. The message is
# the server's own `error.message`, after the SDK's prefix (`Error code: 400 - `):

# %% [markdown] lang="zh-CN"
# `requests` 遇到 4xx 从不抛异常：它把响应交给我们，检查的事留给我们自己。SDK 则替我们做了检查，并抛出一个异常，异常类的名字就对应着状态码。消息内容就是服务器自己的 `error.message`，前面加上 SDK 的前缀（`Error code: 400 - `）：

# %%
# NBVAL_IGNORE_OUTPUT
try:
    conn.client.chat.completions.create(**bad_body)
    print("no exception: this server accepted an empty messages list")
except openai.APIStatusError as exc:
    print(type(exc).__name__, "| status", exc.status_code)
    print("message:", exc.message)
    print("is an openai.APIStatusError:", isinstance(exc, openai.APIStatusError))

# %% [markdown]
# `reactlab.http.post_chat` raises its own `ProviderError`, with the same message in a sentence:

# %% [markdown] lang="zh-CN"
# `reactlab.http.post_chat` 抛出的是它自己的 `ProviderError`，用一句话给出同样的消息：

# %%
# NBVAL_IGNORE_OUTPUT
try:
    post_chat(conn.base_url, conn.headers(), bad_body)
    print("no exception")
except ProviderError as exc:
    print("ProviderError:", exc)
    print("status:", exc.status)

# %% [markdown]
# A model name the server does not know is another request error. OpenAI answers it with a 404;
# other servers pick 400 or even accept any name. The cell prints what this one did:

# %% [markdown] lang="zh-CN"
# 服务器不认识的模型名是另一种请求错误。OpenAI 对此返回 404；其他服务器有的返回 400，有的甚至接受任何名字。这个单元格会打印出当前这个服务器的做法：

# %%
# NBVAL_IGNORE_OUTPUT
try:
    r = conn.client.chat.completions.create(model="no-such-model", max_tokens=5,
                                            messages=[{"role": "user", "content": "hi"}])
    print("accepted; answered as", r.model)
except openai.APIStatusError as exc:
    print(type(exc).__name__, "| status", exc.status_code, "|", exc.message)

# %% [markdown]
# ### A wrong key: 401
#
# A cloud provider answers a wrong or missing key with **401 Unauthorized**, for example
# `{"error": {"message": "Incorrect API key provided: sk-…", "type": "invalid_request_error",
# "code": "invalid_api_key"}}`, and the SDK raises `openai.AuthenticationError`. A server on
# your own machine may not check keys at all (ours does not on 127.0.0.1). Let us see what this
# connection does with a made-up key:

# %% [markdown] lang="zh-CN"
# ### 错误的 key：401
#
# 云服务商对错误或缺失的 key 返回 **401 Unauthorized**，例如 `{"error": {"message": "Incorrect API key provided: sk-…", "type": "invalid_request_error", "code": "invalid_api_key"}}`，SDK 则抛出 `openai.AuthenticationError`。你自己机器上的服务器可能根本不检查 key（我们的服务器在 127.0.0.1 上就不检查）。看看这个连接怎么对待一个现编的 key：

# %%
# NBVAL_IGNORE_OUTPUT
wrong = {"Authorization": "Bearer wrong-key-for-the-demo", "Content-Type": "application/json"}
r = requests.post(url, headers=wrong, json={**body, "max_tokens": 1}, timeout=60)
print(f"provider {conn.provider!r} answered a wrong key with HTTP {r.status_code}")
if r.status_code == 401:
    print(json.dumps(r.json(), ensure_ascii=False, indent=2)[:600])
else:
    print("-> this server does not check keys; against a cloud provider this is a 401.")

# %% [markdown]
# The SDK has one exception class per status, all subclasses of `openai.APIStatusError` (which
# has `.status_code`, `.message` and `.body`). A network failure, where no status exists at
# all, is an `openai.APIConnectionError` instead:

# %% [markdown] lang="zh-CN"
# SDK 为每个状态码准备了一个异常类，它们都是 `openai.APIStatusError` 的子类（有 `.status_code`、`.message` 和 `.body`）。网络故障时根本不存在状态码，这时抛出的是 `openai.APIConnectionError`：

# %%
status_classes = {400: openai.BadRequestError, 401: openai.AuthenticationError,
                  403: openai.PermissionDeniedError, 404: openai.NotFoundError,
                  422: openai.UnprocessableEntityError, 429: openai.RateLimitError,
                  500: openai.InternalServerError}
for status, cls in status_classes.items():
    print(status, cls.__name__, "| an APIStatusError:", issubclass(cls, openai.APIStatusError))
print("no status (network):", openai.APIConnectionError.__name__)

# %% [markdown]
# Which errors are worth retrying? 429 (rate limit) and 5xx, after a pause. Never 400, 401, 404:
# the same request fails the same way. That is why reactlab's raw helpers do not retry — a
# retry would only hide the lesson.

# %% [markdown] lang="zh-CN"
# 哪些错误值得重试？429（限流）和 5xx，等一会儿再试。400、401、404 永远不要重试：同样的请求只会以同样的方式失败。这也是 reactlab 的底层辅助函数不做重试的原因——重试只会把要学的东西藏起来。

# %% [markdown]
# ## Recap
#
# - A chat completion is `POST {base_url}/chat/completions` with a bearer key and a JSON body
#   holding `model` and `messages`; the SDK only wraps that.
# - The reply's text is `choices[0].message.content`; `finish_reason` says why it ended and
#   `usage` counts the tokens.
# - A stream is the same reply cut into `data:` lines of chunks with `delta`s, ending with
#   `data: [DONE]`.
# - Errors are JSON with a status: 4xx is the request, 5xx the server. The SDK raises one
#   `APIStatusError` subclass per status.
#
# | term | 中文 | meaning |
# |---|---|---|
# | endpoint | 端点 | the URL path a request goes to, here `/chat/completions` |
# | base URL | 基础 URL | the provider's address up to `/v1`; everything else is the same everywhere |
# | bearer token | Bearer 令牌 | the API key, sent as `Authorization: Bearer <key>` |
# | token | token（词元） | the unit a model reads and writes (a word piece: a common Chinese word such as 北京, part of a longer one, or a few letters) |
# | `finish_reason` | 结束原因 | why generation stopped: `stop`, `length`, `tool_calls` |
# | `usage` | 用量 | prompt + completion tokens of one request |
# | SSE | 服务器推送事件 | Server-Sent Events: `data: …` lines on an open HTTP response |
# | chunk / delta | 数据块 / 增量 | one streamed event / the piece of the message it adds |
#
# ## Exercises
#
# 1. Send the request of section 1 with `"stop": ["。"]`. What are the text and the
#    `finish_reason` now? Is the `。` in the text? (`answer_1`: the reply's JSON.)
# 2. Stream a longer answer ("用三句话介绍广州。", `max_tokens=120`). Count the chunks that
#    carry text and compare with `completion_tokens` in the usage chunk.
#    (`answer_2 = (text_chunks, completion_tokens)`.)
# 3. Write `ask(messages)` with `requests.post` only: it returns the reply's text, and for any
#    status ≥ 400 raises a `RuntimeError` whose message is the server's `error.message`.
#    (`answer_3 = ask`; the check calls it with `requests.post` replaced by two canned replies,
#    a 200 and a 400, so no request leaves your machine.)
# 4. Which status and which SDK exception do you get for `"temperature": "hot"`? Predict first.
#    (`answer_4`: the exception you caught.)

# %% [markdown] lang="zh-CN"
# ## 小结
#
# - 一次 chat completion 就是 `POST {base_url}/chat/completions`，带上 bearer key 和一个包含 `model`、`messages` 的 JSON 请求体；SDK 只是把这些包装了一下。
# - 回复的文本在 `choices[0].message.content`；`finish_reason` 说明它为什么结束，`usage` 统计 token 数。
# - 流式输出就是把同一个回复切成一行行 `data:`，每行一个带 `delta` 的 chunk，最后以 `data: [DONE]` 结束。
# - 错误是带状态码的 JSON：4xx 是请求的问题，5xx 是服务器的问题。SDK 为每个状态码抛出一个 `APIStatusError` 的子类。
#
# | 术语 | 中文 | 含义 |
# |---|---|---|
# | endpoint | 端点 | 请求发往的 URL 路径，这里是 `/chat/completions` |
# | base URL | 基础 URL | 服务商的地址，到 `/v1` 为止；其余部分在哪家都一样 |
# | bearer token | Bearer 令牌 | 即 API key，以 `Authorization: Bearer <key>` 的形式发送 |
# | token | token（词元） | 模型读写的基本单位（一个词片段：像“北京”这样的常用词、长词的一部分，或者几个字母） |
# | `finish_reason` | 结束原因 | 生成为什么停止：`stop`、`length`、`tool_calls` |
# | `usage` | 用量 | 一次请求的 prompt token 数 + completion token 数 |
# | SSE | 服务器推送事件 | Server-Sent Events：在保持打开的 HTTP 响应上发送的一行行 `data: …` |
# | chunk / delta | 数据块 / 增量 | 流式输出中的一个事件 / 它给消息追加的那一小段 |
#
# ## 练习
#
# 1. 用 `"stop": ["。"]` 发送第 1 节的请求。现在的文本和 `finish_reason` 是什么？文本里有 `。` 吗？（`answer_1`：回复的 JSON。）
# 2. 流式获取一个更长的回答（"用三句话介绍广州。"，`max_tokens=120`）。数一数带文本的 chunk 有多少个，和 usage chunk 里的 `completion_tokens` 比较一下。（`answer_2 = (text_chunks, completion_tokens)`。）
# 3. 只用 `requests.post` 写一个 `ask(messages)`：它返回回复的文本；状态码 ≥ 400 时抛出 `RuntimeError`，消息是服务器的 `error.message`。（`answer_3 = ask`；检查时会把 `requests.post` 换成两个预先准备好的回复，一个 200、一个 400，所以不会有任何请求离开你的机器。）
# 4. `"temperature": "hot"` 会得到什么状态码、什么 SDK 异常？先预测。（`answer_4`：你捕获到的异常。）

# %% [markdown]
# Each exercise has a starter cell (`answer_N = None`) and a check cell. The check
# prints "not attempted yet" until you fill in the answer, ✔ when the result is right,
# and otherwise stops with a message saying what is still wrong. It checks what your
# code returned, never your wording, and never calls the model itself.

# %% [markdown] lang="zh-CN"
# 每道练习都有一个起始单元格（`answer_N = None`）和一个检查单元格。你填入答案之前，检查会打印 "not attempted yet"；结果正确时打印 ✔；否则就停下来，并告诉你还有哪里不对。它检查的是你的代码返回了什么，从不检查你的措辞，也从不自己调用模型。

# %%
from reactlab.exercises.nb01 import check_1, check_2, check_3, check_4

# %%
answer_1 = None  # your code: the reply JSON (a dict) of section 1's request sent with "stop": ["。"]

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: (chunks that carried text, completion_tokens) for "用三句话介绍广州。"

# %%
check_2(answer_2)

# %%
answer_3 = None  # your code: def ask(messages): ... with requests.post; then answer_3 = ask

# %%
check_3(answer_3)

# %%
answer_4 = None  # your code: try: ...temperature="hot"... except openai.APIStatusError as exc: answer_4 = exc

# %%
check_4(answer_4)

# %% [markdown]
# Solutions: [solutions/01_raw_requests_solutions.ipynb](solutions/01_raw_requests_solutions.ipynb)
#
# ---
# Prev: [00 · Start here](00_start_here.ipynb) | Index: [README](../README.md) | Next: [02 · The stop token](02_stop_token.ipynb)

# %% [markdown] lang="zh-CN"
# 参考答案：[solutions/01_raw_requests_solutions.ipynb](solutions/01_raw_requests_solutions.ipynb)
#
# ---
# 上一篇：[00 · 从这里开始](00_start_here.ipynb) | 索引：[README](../../README.zh-CN.md) | 下一篇：[02 · 停止序列](02_stop_token.ipynb)
