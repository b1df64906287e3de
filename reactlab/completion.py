"""One request to the model and its reply: the provider boundary of both agents.

`complete(conn, request)` sends one chat-completions request through `conn.client` (the openai
SDK, or anything shaped like it) and returns a `Reply` — the same shape whether the answer came
whole or streamed (`stream=True` assembles the SSE chunks with `ToolCallAccumulator`). Whatever
goes wrong on the way — the network, an HTTP status, a client that raises, a body that is not a
chat completion, content that is neither text nor text parts, a stream cut before its end — is
raised as one `ProviderError` with a sentence saying what happened. Nothing else escapes.

It deliberately does NOT retry (a lesson wants to see failures; the SDK's own retries are
whatever `conn.client` was built with), interpret the reply (the protocols in `react_agent` and
`fc_agent` do) or parse tool calls out of text (the server does). Introduced in notebook 04,
where the ReAct loop first calls the model through the SDK.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reactlab.http import ProviderError
from reactlab.runlog import add_usage, as_dict, encodable
from reactlab.streaming import ToolCallAccumulator


@dataclass
class Reply:
    """One model reply: text, tool calls in OpenAI's shape (ids unique), usage, timing."""

    content: str = ""
    tool_calls: list[dict] = field(default_factory=list)
    reasoning: str | None = None  # a reasoning model's reasoning_content
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)  # normalised by runlog.add_usage
    latency_ms: float = 0.0


def complete(conn: Any, request: dict, *, stream: bool = False, echo: bool = False) -> Reply:
    """Send `request` (the keyword arguments of chat.completions.create) and read the reply.

    echo=True prints streamed text as it arrives. Raises only ProviderError.
    Example: complete(conn, {"model": conn.model, "messages": [...]}).content -> "北京晴。"
    """
    start = time.perf_counter()
    try:
        if stream:
            reply = _read_stream(conn.client.chat.completions.create(
                stream=True, stream_options={"include_usage": True}, **request), echo)
        else:
            reply = _read_completion(conn.client.chat.completions.create(**request))
    except ProviderError:
        raise
    except Exception as exc:  # the provider boundary: anything the client raises
        raise ProviderError.from_exception(exc) from exc
    reply.latency_ms = (time.perf_counter() - start) * 1000
    return reply


def _read_completion(response: Any) -> Reply:
    data = as_dict(response)
    if not isinstance(data, Mapping):
        raise ProviderError(None, f"the reply is not a chat completion (got "
                                  f"{type(response).__name__}: {str(response)[:80]!r}).")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ProviderError(None, "the reply has no choices, so there is nothing to read.")
    choice = as_dict(choices[0])
    message = as_dict(choice.get("message")) if isinstance(choice, Mapping) else None
    if not isinstance(message, Mapping):
        raise ProviderError(None, "the reply's first choice has no message.")
    return Reply(content=_text(message.get("content")),
                 tool_calls=_calls(message.get("tool_calls")),
                 reasoning=_text(message.get("reasoning_content")) or None,
                 finish_reason=_finish(choice.get("finish_reason")),
                 usage=add_usage({}, data.get("usage")))


def _read_stream(chunks: Any, echo: bool) -> Reply:
    acc = ToolCallAccumulator()
    for chunk in chunks:
        text = acc.add(chunk)
        if echo and text:
            print(text, end="", flush=True)
    if echo and acc.content:
        print()
    if not acc.finished:
        raise ProviderError(None, "the stream ended before the model finished (no "
                                  "finish_reason arrived): the connection was cut.")
    return Reply(content=_text(acc.content), tool_calls=_calls(acc.tool_calls),
                 reasoning=_text(acc.reasoning_content) or None,
                 finish_reason=_finish(acc.finish_reason), usage=add_usage({}, acc.usage))


def _text(content: Any) -> str:
    """Message content as text: None -> "", text parts joined; a number or an object is not
    content. Lone surrogates (half an emoji) become U+FFFD so the text can be sent back."""
    if content is None:
        return ""
    if isinstance(content, list):  # [{"type": "text", "text": …}, …]
        parts = [as_dict(p) for p in content]
        content = "".join(str(p.get("text") or "") if isinstance(p, Mapping) else
                          (p if isinstance(p, str) else "") for p in parts)
    if not isinstance(content, str):
        raise ProviderError(None, f"the reply's content is a {type(content).__name__}, not text.")
    return encodable(content)


def _finish(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _calls(raw: Any) -> list[dict]:
    """Tool calls in OpenAI's shape with unique ids, so every tool message answers one call."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ProviderError(None, f"the reply's tool_calls is a {type(raw).__name__}, not a list.")
    seen: set[str] = set()
    calls = []
    for n, call in enumerate(as_dict(c) for c in raw):
        if not isinstance(call, Mapping):
            raise ProviderError(None, f"tool call {n} of the reply is not an object.")
        fn = as_dict(call.get("function")) or {}
        fn = fn if isinstance(fn, Mapping) else {}
        call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_{n}"
        while call_id in seen:  # providers that omit ids, or repeat one
            call_id += "_"
        seen.add(call_id)
        args = fn.get("arguments")
        if isinstance(args, (dict, list)):  # a few servers send an object, not a JSON string
            args = json.dumps(args, ensure_ascii=False)
        calls.append({"id": call_id, "type": "function", "function": {
            "name": _text(fn.get("name")) if isinstance(fn.get("name"), (str, type(None)))
            else str(fn.get("name")),
            "arguments": _text(args) if isinstance(args, (str, type(None))) else str(args)}})
    return calls
