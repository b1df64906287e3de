"""Assemble a streamed chat completion — text, reasoning and tool calls — from its chunks.

With `stream=True` a tool call arrives in pieces: the first chunk of a call usually carries
`index`, `id`, `type` and `function.name`; later chunks carry more `function.arguments` text.
Providers differ in the details, and each difference has broken real agents:

- DashScope (Qwen) repeats `"id": ""` on every later chunk: an empty id means "same call".
- Some servers repeat the full id and name on every chunk: take them once, never concatenate.
- Some send a whole call in one chunk; some interleave two parallel calls by `index`.
- Some omit `index`: then the id says which call a fragment belongs to.
- With `stream_options.include_usage` the last chunk has `choices: []` and only `usage`.

`ToolCallAccumulator` handles all of these. It deliberately does NOT validate the arguments
(they are kept as the raw string the model wrote; the agent decodes them and reports bad JSON),
does not track more than one choice (`n=1` is assumed: chunks for other choices are ignored), and
does not read the deprecated `function_call` field. Introduced in notebook 07.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass
class _Call:
    index: int | None
    seq: int  # arrival order, breaks ties between calls that share an index
    id: str | None = None
    type: str | None = None
    name: str | None = None
    arguments: str = ""


def _as_dict(obj: Any) -> dict:
    """An SDK chunk (pydantic model) or a parsed SSE dict, as a plain dict."""
    if isinstance(obj, dict):
        return obj
    if hasattr(obj, "model_dump"):  # openai.types.chat.ChatCompletionChunk; keeps extra fields
        return obj.model_dump()
    raise TypeError(f"ToolCallAccumulator.add() takes a dict or an SDK chunk, not "
                    f"{type(obj).__name__}.")


class ToolCallAccumulator:
    """Feed it every chunk of one streamed reply; read the assembled message at the end.

    Example:
        acc = ToolCallAccumulator()
        for chunk in client.chat.completions.create(..., stream=True):
            acc.add(chunk)
        acc.tool_calls   # [{"id": "call_0", "type": "function",
                         #   "function": {"name": "get_weather", "arguments": '{"location": "北京"}'}}]
        acc.content, acc.finish_reason, acc.usage, acc.message()

    A call whose id never arrived gets a generated id `call_<n>` (n = its position in
    `tool_calls`), so the tool message that answers it has something to point at.
    """

    def __init__(self) -> None:
        self.content: str = ""
        self.reasoning_content: str = ""  # DeepSeek-style thinking, streamed beside content
        self.finish_reason: str | None = None
        self.usage: dict | None = None
        self.model: str | None = None
        self.chunks: int = 0
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}  # the latest call seen at each index
        self._by_id: dict[str, _Call] = {}
        self._last: _Call | None = None  # the call the previous fragment went to

    def add(self, chunk: Any) -> str:
        """Take one chunk; return the content text it added ("" if none), handy for printing.

        Example: acc.add({"choices": [{"index": 0, "delta": {"content": "你好"}}]}) -> "你好"
        """
        data = _as_dict(chunk)
        self.chunks += 1
        self.model = self.model or data.get("model")
        if data.get("usage"):  # the include_usage chunk (choices: []); some put it on the last one
            usage = data["usage"]
            self.usage = usage if isinstance(usage, dict) else _as_dict(usage)
        added = ""
        for choice in data.get("choices") or []:
            choice = _as_dict(choice)
            if (choice.get("index") or 0) != 0:
                continue  # simplification: only the first choice (n=1)
            delta = choice.get("delta") or {}
            text = delta.get("content")
            if isinstance(text, str) and text:
                self.content += text
                added += text
            thinking = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thinking, str):
                self.reasoning_content += thinking
            for fragment in delta.get("tool_calls") or []:
                self._add_fragment(_as_dict(fragment))
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        return added

    def _add_fragment(self, frag: dict) -> None:
        index = frag.get("index")
        call_id = frag.get("id") or None  # "" (DashScope) means "not given", not a new call
        function = frag.get("function") or {}
        call = self._last = self._find(index, call_id)
        # First non-empty value wins: servers that repeat id/name on every chunk must not
        # produce "call_1call_1" or "get_weatherget_weather".
        call.id = call.id or call_id
        call.type = call.type or frag.get("type") or None
        call.name = call.name or function.get("name") or None
        args = function.get("arguments")
        if isinstance(args, str):
            call.arguments += args
        elif isinstance(args, dict):  # a few servers send an object, not a JSON string
            call.arguments += json.dumps(args, ensure_ascii=False)
        if call.id:
            self._by_id.setdefault(call.id, call)

    def _find(self, index: int | None, call_id: str | None) -> _Call:
        if index is not None:
            call = self._by_index.get(index)
            # A different id at a known index is a new call (servers that restart at index 0
            # for each call of a parallel reply).
            if call is None or (call_id and call.id and call_id != call.id):
                call = self._new(index)
                self._by_index[index] = call
            return call
        if call_id:  # no index: the id says which call this fragment belongs to
            return self._by_id.get(call_id) or self._new(None)
        # Neither index nor id: a continuation of the call the previous fragment went to.
        return self._last or self._new(None)

    def _new(self, index: int | None) -> _Call:
        call = _Call(index=index, seq=len(self._calls))
        self._calls.append(call)
        return call

    @property
    def tool_calls(self) -> list[dict]:
        """The assembled calls in OpenAI's message shape, ordered by index (then arrival)."""
        ordered = sorted(self._calls, key=lambda c: (c.index if c.index is not None else c.seq,
                                                     c.seq))
        taken = {c.id for c in ordered if c.id}
        out = []
        for n, call in enumerate(ordered):
            call_id = call.id
            if not call_id:
                call_id = f"call_{n}"
                while call_id in taken:  # never collide with an id the server did send
                    call_id += "_"
                taken.add(call_id)
            out.append({"id": call_id, "type": "function",
                        "function": {"name": call.name or "", "arguments": call.arguments}})
        return out

    def message(self) -> dict:
        """The assistant message to append to `messages` (echo it back exactly like this).

        Example: {"role": "assistant", "content": None, "tool_calls": [...]}
        `reasoning_content` is included when the model streamed any (DeepSeek needs it back
        on messages that carry tool calls).
        """
        calls = self.tool_calls
        msg: dict[str, Any] = {"role": "assistant",
                               "content": self.content if (self.content or not calls) else None}
        if calls:
            msg["tool_calls"] = calls
        if self.reasoning_content:
            msg["reasoning_content"] = self.reasoning_content
        return msg


__all__ = ["ToolCallAccumulator"]
