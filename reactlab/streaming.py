"""Assemble a streamed chat completion — text, reasoning and tool calls — from its chunks.

With `stream=True` a tool call arrives in pieces: the first chunk of a call usually carries
`index`, `id`, `type` and `function.name`; later chunks carry more `function.arguments` text.
Providers differ in the details, and each difference has broken real agents:

- DashScope (Qwen) repeats `"id": ""` on every later chunk: an empty id means "same call".
- Some servers repeat the full id and name on every chunk: take them once, never concatenate.
- Some send a whole call in one chunk; some interleave two parallel calls by `index`.
- Some omit `index`: then the id says which call a fragment belongs to.
- With `stream_options.include_usage` the last chunk has `choices: []` and only `usage`.
- A server that escapes non-ASCII as `\\ud83d\\ude00` may cut between the two halves of a
  surrogate pair: the halves are joined again; a half that never finds its partner becomes
  U+FFFD, so the text always encodes as UTF-8.

Garbage never raises (only `add()` of something that is not a chunk at all does): an index
that is not an int (or a digit string) counts as missing; an id that is not a string or int
is ignored, as are a non-string `type` or `name`, a `function`, `delta` or `usage` that is not
an object, and a `choices` or `tool_calls` that is not a list; `arguments` that are not a
string are JSON-encoded; content or reasoning given as a list keeps the text of its
`{"type": "text", "text": …}` parts, and any other non-string is ignored.

A stream that ends without any `finish_reason` was cut (`acc.finished` is False): the agent
should treat it as an error, not as the model's answer.

`ToolCallAccumulator` deliberately does NOT validate the arguments (they are kept as the raw
string the model wrote; the agent decodes them and reports bad JSON), does not track more
than one choice (`n=1` is assumed: chunks for other choices are ignored), and does not read
the deprecated `function_call` field. Introduced in notebook 05; notebook 07 reuses it for
`reasoning_content`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from reactlab.runlog import as_dict


class _Text:
    """Text assembled from pieces; a surrogate pair cut between two pieces is joined again.

    Example: t = _Text(); t.add("\\ud83d") -> ""; t.add("\\ude00!") -> "😀!"; str(t) -> "😀!"
    """

    def __init__(self) -> None:
        self._done: list[str] = []
        self._pending = ""  # a high surrogate waiting for its low half

    def add(self, piece: str) -> str:
        """Append a piece; return the text it completed (valid, encodable)."""
        text = self._pending + piece
        self._pending = ""
        if text and "\ud800" <= text[-1] <= "\udbff":
            text, self._pending = text[:-1], text[-1]
        text = _fix_surrogates(text)
        if text:
            self._done.append(text)
        return text

    def __str__(self) -> str:
        return "".join(self._done) + ("\ufffd" if self._pending else "")

    def __bool__(self) -> bool:
        return bool(self._done or self._pending)


def _fix_surrogates(text: str) -> str:
    """Join surrogate pairs into one character; replace lone halves with U+FFFD."""
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


@dataclass
class _Call:
    index: int | None
    seq: int  # arrival order, breaks ties between calls that share an index
    id: str | None = None
    type: str | None = None
    name: str | None = None
    arguments: _Text = field(default_factory=_Text)


def _as_dict(obj: Any) -> dict | None:
    """An SDK chunk (pydantic model) or a parsed SSE dict as a plain dict; None for garbage."""
    data = as_dict(obj)  # openai.types.chat.ChatCompletionChunk keeps its extra fields
    return data if isinstance(data, dict) else None


def _index(value: Any) -> int | None:
    """An index as int: 0, "0" -> 0; anything else (None, 1.5, True, "a") -> None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _text_of(value: Any) -> str:
    """Content as text: a string, or the text parts of a list of content parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(p["text"] for p in value
                       if isinstance(p, dict) and p.get("type", "text") == "text"
                       and isinstance(p.get("text"), str))
    return ""


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class ToolCallAccumulator:
    """Feed it every chunk of one streamed reply; read the assembled message at the end.

    Example:
        acc = ToolCallAccumulator()
        for chunk in client.chat.completions.create(..., stream=True):
            acc.add(chunk)
        acc.tool_calls   # [{"id": "call_0", "type": "function",
                         #   "function": {"name": "get_weather", "arguments": '{"location": "北京"}'}}]
        acc.content, acc.finish_reason, acc.finished, acc.usage, acc.message()

    A call whose id never arrived gets a generated id `call_<n>` (n = its position in
    `tool_calls`), so the tool message that answers it has something to point at.
    """

    def __init__(self) -> None:
        self._content = _Text()
        self._reasoning = _Text()  # DeepSeek-style thinking, streamed beside content
        self.finish_reason: str | None = None
        self.usage: dict | None = None
        self.model: str | None = None
        self.chunks: int = 0
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}  # the latest call seen at each index
        self._by_id: dict[str, _Call] = {}
        self._last: _Call | None = None  # the call the previous fragment went to

    @property
    def content(self) -> str:
        return str(self._content)

    @property
    def reasoning_content(self) -> str:
        return str(self._reasoning)

    @property
    def finished(self) -> bool:
        """Did any chunk carry a `finish_reason`? False means the stream was cut."""
        return self.finish_reason is not None

    def add(self, chunk: Any) -> str:
        """Take one chunk; return the content text it completed ("" if none), for printing.

        Raises TypeError only when `chunk` is neither a dict nor an SDK chunk.
        Example: acc.add({"choices": [{"index": 0, "delta": {"content": "你好"}}]}) -> "你好"
        """
        data = _as_dict(chunk)
        if data is None:
            raise TypeError(f"ToolCallAccumulator.add() takes a dict or an SDK chunk, not "
                            f"{type(chunk).__name__}.")
        self.chunks += 1
        self.model = self.model or _name(data.get("model"))
        usage = _as_dict(data.get("usage"))
        if usage:  # the include_usage chunk (choices: []); some put it on the last one
            self.usage = usage
        choices = data.get("choices")
        added = ""
        for choice in choices if isinstance(choices, list) else []:
            choice = _as_dict(choice)
            if choice is None or (_index(choice.get("index")) or 0) != 0:
                continue  # simplification: only the first choice (n=1)
            delta = _as_dict(choice.get("delta")) or {}
            added += self._content.add(_text_of(delta.get("content")))
            self._reasoning.add(_text_of(delta.get("reasoning_content") or delta.get("reasoning")))
            fragments = delta.get("tool_calls")
            for fragment in fragments if isinstance(fragments, list) else []:
                fragment = _as_dict(fragment)
                if fragment is not None:
                    self._add_fragment(fragment)
            finish = choice.get("finish_reason")
            if isinstance(finish, str) and finish:
                self.finish_reason = finish
        return added

    def _add_fragment(self, frag: dict) -> None:
        index = _index(frag.get("index"))
        raw_id = frag.get("id")
        # "" (DashScope) means "not given", not a new call; an int id is taken as its digits.
        call_id = (str(raw_id) if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool)
                   else "") or None
        function = _as_dict(frag.get("function")) or {}
        call = self._last = self._find(index, call_id)
        # First non-empty value wins: servers that repeat id/name on every chunk must not
        # produce "call_1call_1" or "get_weatherget_weather".
        call.id = call.id or call_id
        call.type = call.type or _name(frag.get("type"))
        call.name = call.name or _name(function.get("name"))
        args = function.get("arguments")
        if isinstance(args, str):
            call.arguments.add(args)
        elif args is not None:  # a few servers send an object, not a JSON string
            call.arguments.add(json.dumps(args, ensure_ascii=False, default=str))
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
                        "function": {"name": call.name or "", "arguments": str(call.arguments)}})
        return out

    def message(self) -> dict:
        """The assistant message to append to `messages` (echo it back exactly like this).

        Example: {"role": "assistant", "content": None, "tool_calls": [...]}
        `reasoning_content` is included when the model streamed any (DeepSeek needs it back
        on messages that carry tool calls).
        """
        calls = self.tool_calls
        content = self.content
        msg: dict[str, Any] = {"role": "assistant",
                               "content": content if (content or not calls) else None}
        if calls:
            msg["tool_calls"] = calls
        if self._reasoning:
            msg["reasoning_content"] = self.reasoning_content
        return msg


__all__ = ["ToolCallAccumulator"]
