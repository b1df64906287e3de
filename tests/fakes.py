"""Fake OpenAI-style connections for the unit tests: scripted model replies, no model, no network.

What it fakes: the part of a reactlab Connection that the agents and helpers touch — `.model`,
`.provider` and `.client.chat.completions.create(**kw)` — and the model's replies as real
`openai.types.chat` objects: a ChatCompletion, or, when the request says `stream=True`, an
iterator of ChatCompletionChunk cut the way DashScope cuts tool calls (later fragments of a call
carry "id": ""). So the code under test parses exactly what the openai SDK would hand it. Every
request is kept, deep-copied, in `.requests` for the test to check.

What it does NOT fake: HTTP or any network (no httpx, no status codes, no SDK retries or
timeouts — a test that wants a provider failure puts an `openai` exception in the script), the
server and its chat template, tokenization (usage numbers are whatever the test scripts),
`.api_key`, `.headers()`, `.base_url`, and every endpoint but chat completions. It does not
validate requests against the API: the tests assert on `.requests` themselves.

Test-only; no notebook introduces it. Pytest puts tests/ on sys.path, hence `from fakes import …`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionChunk

from reactlab.runlog import as_dict
from reactlab.server.conversation import check_messages
from reactlab.server.errors import APIError

USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


def token_usage(prompt: int, completion: int, cached: int | None = None) -> dict:
    """A `usage` dict; `cached` adds prompt_tokens_details as vLLM/DashScope report it.

    >>> token_usage(300, 20, cached=0)["total_tokens"]
    320
    """
    usage: dict = {"prompt_tokens": prompt, "completion_tokens": completion,
                   "total_tokens": prompt + completion}
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return usage


def tool_call(call_id: str, name: str, arguments: str) -> dict:
    """One tool call in wire form, arguments as the raw string the model wrote.

    >>> tool_call("call_1", "get_today", "{}")["function"]
    {'name': 'get_today', 'arguments': '{}'}
    """
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@dataclass
class Reply:
    """What the fake model says at one request.

    finish=None means "tool_calls" when there are calls, else "stop"; `reasoning` is sent as
    DeepSeek's `reasoning_content`. Example: Reply("北京晴。").completion().choices[0].message
    """

    content: str | None = None
    tool_calls: list[dict] = field(default_factory=list)
    reasoning: str | None = None
    finish: str | None = None
    usage: dict | None = field(default_factory=lambda: dict(USAGE))
    id: str = "chatcmpl-fake"

    @property
    def finish_reason(self) -> str:
        return self.finish or ("tool_calls" if self.tool_calls else "stop")

    def completion(self) -> ChatCompletion:
        """The reply as one non-streamed ChatCompletion."""
        message: dict = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = self.tool_calls
        if self.reasoning:
            message["reasoning_content"] = self.reasoning
        return ChatCompletion.model_validate({
            "id": self.id, "object": "chat.completion", "created": 0, "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}],
            "usage": self.usage})

    def chunks(self) -> list[ChatCompletionChunk]:
        """The reply as a DashScope-style stream: text in two pieces, each call's arguments in
        two fragments of which the second carries "id": "", usage in a last choice-less chunk."""
        def chunk(delta=None, finish=None, usage=None, choices=True):
            return ChatCompletionChunk.model_validate({
                "id": self.id, "object": "chat.completion.chunk", "created": 0,
                "model": "fake-model", "usage": usage,
                "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
                if choices else []})

        out = [chunk({"role": "assistant", "content": ""})]
        if self.reasoning:
            out.append(chunk({"reasoning_content": self.reasoning}))
        text = self.content or ""
        for piece in (text[: len(text) // 2], text[len(text) // 2:]):
            if piece:
                out.append(chunk({"content": piece}))
        for i, call in enumerate(self.tool_calls):
            args = call["function"]["arguments"]
            half = len(args) // 2
            out.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                              "function": {"name": call["function"]["name"],
                                                           "arguments": args[:half]}}]}))
            out.append(chunk({"tool_calls": [{"index": i, "id": "", "type": "function",
                                              "function": {"arguments": args[half:]}}]}))
        out.append(chunk(finish=self.finish_reason))
        if self.usage:
            out.append(chunk(usage=self.usage, choices=False))
        return out


class RecordingConn:
    """A conn whose `client.chat.completions.create(**kw)` records the request, then returns
    `respond(request)` (pass a function, or override the method in a subclass).

    >>> conn = RecordingConn(lambda request: "ok")
    >>> conn.client.chat.completions.create(model=conn.model, messages=[]), len(conn.requests)
    ('ok', 1)
    """

    def __init__(self, respond: Callable[[dict], Any] | None = None, *,
                 model: str = "fake-model", provider: str = "local"):
        self.model, self.provider = model, provider
        self.requests: list[dict] = []
        if respond is not None:
            self.respond = respond  # type: ignore[method-assign]
        self.client = self  # .client.chat.completions.create -> self.create
        self.chat = self
        self.completions = self

    def create(self, **kw: Any) -> Any:
        # a deep copy: the agents keep appending to the message list they just sent
        self.requests.append(copy.deepcopy(kw))
        return self.respond(kw)

    def respond(self, request: dict) -> Any:
        raise NotImplementedError("Pass respond=... or override respond() in a subclass.")


class ScriptedConn(RecordingConn):
    """Plays a script, one item per request:

    - a Reply: its ChatCompletion, or its chunk stream when the request says stream=True;
    - a str: a text reply billed `text_usage` tokens;
    - an exception: raised, the way the SDK raises provider failures;
    - anything else (say a hand-made ChatCompletion): returned as it is.

    One request more than the script holds fails the test with an AssertionError.
    Example: ScriptedConn(Reply(None, [tool_call("c1", "get_today", "{}")]), "今天是 3 月 1 日。")
    """

    text_usage: dict | None = USAGE

    def __init__(self, *script: Any, model: str = "fake-model", provider: str = "local"):
        super().__init__(model=model, provider=provider)
        self.script = list(script)

    def respond(self, request: dict) -> Any:
        if not self.script:
            raise AssertionError(f"The agent asked the model {len(self.requests)} times; "
                                 "the test scripted fewer replies.")
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, str):
            item = Reply(item, usage=copy.deepcopy(self.text_usage))
        if isinstance(item, Reply):
            return iter(item.chunks()) if request.get("stream") else item.completion()
        return item



def message_problems(messages: list) -> list[str]:
    """What an OpenAI-style API would reject about a message list; [] when it is valid.

    The server's own check (`reactlab.server.conversation.check_messages`, the rules OpenAI
    enforces) applied to what an agent sent, so the tests and the server share one checker.

    >>> message_problems([{"role": "user", "content": "hi"},
    ...                   {"role": "tool", "tool_call_id": "c1", "content": "x"}])[0][:26]
    "messages[1] is a 'tool' me"
    """
    try:
        check_messages(json.loads(json.dumps([as_dict(m) for m in messages], default=str)))
    except APIError as exc:
        return [exc.message]
    return []
