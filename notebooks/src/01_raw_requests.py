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
# use three things from that connection: `conn.base_url`, `conn.model` and `conn.headers()`.
#
# > 为什么要手写请求？Agent 的每一步——工具调用、Observation、stop——最后都只是一个 HTTP 请求里的
# > JSON。看懂这一个请求，后面的一切都只是在改这份 JSON。

# %% [markdown]
# ## Setup

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

# %%
print(list(conn.headers()))

# %% [markdown]
# Now the request itself: one `requests.post`. The reply is JSON too; the text the model wrote
# sits three levels deep, in `choices[0]["message"]["content"]`.

# %%
# NBVAL_IGNORE_OUTPUT
resp = requests.post(url, headers=conn.headers(), json=body, timeout=120)
print("HTTP status:", resp.status_code, "| content-type:", resp.headers.get("content-type"))
data = json.loads(resp.content.decode("utf-8"))  # decode as UTF-8 ourselves: never let 北京 be guessed
print(data["choices"][0]["message"]["content"])

# %% [markdown]
# That is all the SDK does for `client.chat.completions.create(...)`: it builds this body,
# adds these headers, POSTs, and turns the JSON into Python objects.

# %% [markdown]
# ## 2. The same request as curl — without the key
#
# A curl command is the easiest thing to paste into a bug report or a chat with a colleague.
# It is also the easiest way to leak a key. `reactlab.http.to_curl` writes the command with
# `$OPENAI_API_KEY` in place of the key, so the shell fills it in and the text never contains
# it. (The usual recipe is the same: `export OPENAI_API_KEY="sk-xxx"` once in the shell, then
# `-H "Authorization: Bearer $OPENAI_API_KEY"` in every command.)

# %%
print(to_curl(url, conn.headers(), body))

# %% [markdown]
# Even a header that carries a real-looking key is masked. Here is one made up on the spot:

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
# | `usage` | tokens billed: `prompt_tokens` (everything we sent) + `completion_tokens` (what it wrote) = `total_tokens` |
#
# The same fields, read one by one:

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
# error becomes an exception that carries the provider's own message (section 6).
#
# The SDK returns the same JSON as typed objects. `model_dump()` turns them back into a dict,
# and the keys are the ones we just read:

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
# the server's own `error.message`:

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
# | term | meaning |
# |---|---|
# | endpoint | the URL path a request goes to, here `/chat/completions` |
# | base URL | the provider's address up to `/v1`; everything else is the same everywhere |
# | bearer token | the API key, sent as `Authorization: Bearer <key>` |
# | token | the unit a model reads and writes (a word piece; often one Chinese character) |
# | `finish_reason` | why generation stopped: `stop`, `length`, `tool_calls` |
# | `usage` | prompt + completion tokens of one request |
# | SSE | Server-Sent Events: `data: …` lines on an open HTTP response |
# | chunk / delta | one streamed event / the piece of the message it adds |
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

# %% [markdown]
# Each exercise has a starter cell (`answer_N = None`) and a check cell. The check
# prints "not attempted yet" until you fill in the answer, ✔ when the result is right,
# and otherwise stops with a message saying what is still wrong. It checks what your
# code returned, never your wording, and never calls the model itself.

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
