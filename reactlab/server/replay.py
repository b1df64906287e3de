"""A scripted engine for tests: the real server, the real protocol, replies you wrote.

`ReplayEngine(texts)` answers request N with `texts[N]`, as if the model had written it, and
sends it through the same path as the real engine: the prompt is rendered with the Qwen2.5
template, the text is cut at stop strings and `max_tokens`, streamed piece by piece (about a
token each: a word, a digit, one CJK character or one symbol), then parsed for tool calls.
So a script of `'```json\\n{"name": "get_weather", …}\\n```'` comes back as `tool_calls`,
exactly as it would from the 1.5B model. A script entry may also be a callable
`(prompt) -> str`, or an exception instance to make that request fail with a 500.

    from reactlab.server.replay import ReplayEngine, serve_replay
    with serve_replay(['{"name": "get_today", "arguments": {}}', "今天是 2024-06-01。"]) as url:
        client = openai.OpenAI(base_url=url, api_key="unused")   # url ends in /v1
        ...
    eng = ReplayEngine([...], delay=0.01)   # pass an engine to inspect eng.calls afterwards
    with serve_replay(eng) as url: ...

`delay` (seconds per piece) makes a reply take time, so that streaming and concurrency can be
watched; `parallel=N` serves N requests at once, like the real engine's slots, and
`max_active` records how many generations ever overlapped. With several requests in flight,
which one takes the next scripted text depends on timing: give such tests callables that
answer from the prompt.

Token counts are approximations (the piece count); `cached_tokens` is the common prefix with
the prompt last read by the same slot, like llama.cpp's prompt cache; a request takes a free
slot as llama.cpp does (the longest shared prefix, else the least recently used slot). This module
does not load a model and does not check a script against the tools: it replays what you
wrote. Used by the tests and by `benchmarks/load_test.py --engine replay`.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterator

from reactlab.config import DEFAULT_MODEL
from reactlab.server.app import serve_in_thread
from reactlab.server.engines import EngineError, Generation
from reactlab.server.limits import Limits
from reactlab.server.scheduler import ModelPool
from reactlab.server.template import END_OF_TURN, ChatTemplate
from reactlab.server.weights import resolve_name

_PIECE = re.compile(r"\s*[A-Za-z_]+|\s*\d|\s+|\s*[^\sA-Za-z_\d]")


def pieces(text: str) -> list[str]:
    """Token-like pieces. Example: pieces("Hi 北京<tool") -> ["Hi", " 北", "京", "<", "tool"]"""
    return _PIECE.findall(text)


class ReplayEngine:
    """An engine that replays scripted raw texts (see the module docstring)."""

    kind = "replay"

    def __init__(self, texts, model: str = DEFAULT_MODEL, delay: float = 0.0, parallel: int = 1):

        if parallel < 1:
            raise EngineError(f"parallel must be at least 1 slot, not {parallel}.")
        self.model = resolve_name(model)
        self.template = ChatTemplate.packaged()
        self.parallel = parallel
        self._lock = threading.Lock()
        self.reset(texts, delay)

    def reset(self, texts, delay: float = 0.0) -> ReplayEngine:
        """A new script and a clean record, for reusing one server across tests."""
        with self._lock:
            self.texts, self.delay = list(texts), delay  # delay: seconds per piece
            self.calls: list[dict] = []  # the arguments of every generate() call, prompt first
            self.cancelled = 0           # generations stopped by on_text (a client gone, a repeat stop)
            self.active = self.max_active = 0
            self._cache: list[list[str]] = [[] for _ in range(self.parallel)]  # per slot
            self._free = list(range(self.parallel))
            self._used, self._clock = [0] * self.parallel, 0  # when each slot was last taken
        return self

    def _take_slot(self, prompt: list[str]) -> int | None:
        """A free slot, chosen as llama.cpp does (the caller holds the lock): the one whose
        cached prompt shares the longest prefix, if that is over a tenth of the prompt
        (`slot_prompt_similarity`), else the least recently used."""
        if not self._free:  # more callers than slots (no scheduler in front): no cache
            return None
        best = max(self._free, key=lambda i: _common(prompt, self._cache[i]))
        if _common(prompt, self._cache[best]) <= 0.1 * len(prompt):
            best = min(self._free, key=lambda i: self._used[i])
        self._free.remove(best)
        self._clock += 1
        self._used[best] = self._clock
        return best

    def generate(self, prompt: str, *, max_tokens: int = 256, stop=(), on_text=None,
                 cache_prompt: bool = True, **options) -> Generation:
        prompt_pieces = pieces(prompt)
        with self._lock:
            self.calls.append({"prompt": prompt, "max_tokens": max_tokens, "stop": list(stop),
                               "cache_prompt": cache_prompt, **options})
            number, item = len(self.calls), self.texts.pop(0) if self.texts else _USED_UP
            slot = self._take_slot(prompt_pieces)
            cached = _common(prompt_pieces, self._cache[slot]) if slot is not None else 0
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            if item is _USED_UP:
                raise EngineError(f"The replay script is used up: request {number} found no "
                                  f"text left. Give ReplayEngine one text per request.")
            if isinstance(item, BaseException):
                raise item
            text = item(prompt) if callable(item) else str(item)
            sent, finish = self._replay(text, max_tokens, [END_OF_TURN, *stop], on_text)
            if slot is not None:
                self._cache[slot] = prompt_pieces  # this slot now holds this prompt
        finally:
            with self._lock:
                self.active -= 1
                if slot is not None:
                    self._free.append(slot)
        cached = cached if cache_prompt else 0
        return Generation("".join(sent), finish, len(prompt_pieces), len(sent),
                          max(0, min(cached, len(prompt_pieces) - 1)),
                          {"engine": "replay", "slot": slot})

    def _replay(self, text, max_tokens, stop, on_text) -> tuple[list[str], str]:
        cuts = [i for i in (text.find(s) for s in stop) if i >= 0]
        finish = "stop"
        out = pieces(text[: min(cuts)] if cuts else text)
        if len(out) > max_tokens:
            out, finish = out[:max_tokens], "length"
        sent = []
        for piece in out:
            if self.delay:
                time.sleep(self.delay)
            sent.append(piece)
            if on_text is not None and on_text(piece):
                with self._lock:
                    self.cancelled += 1
                finish = "cancelled"
                break
        return sent, finish


_USED_UP = object()


def _common(a: list[str], b: list[str]) -> int:
    """Length of the common prefix. Example: _common(["a", "b"], ["a", "c"]) -> 1"""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@contextlib.contextmanager
def serve_replay(texts_or_engine, api_key: str | None = None, limits: Limits | None = None,
                 parallel: int | None = None, help: bool = True,
                 more_calls: bool = True) -> Iterator[str]:
    """Run the real app with a ReplayEngine on a free loopback port; yield its base URL.

    `parallel` (slots in the scheduler) defaults to the engine's own.
    Example: with serve_replay(["Hello!"]) as url: url -> "http://127.0.0.1:41873/v1"
    """

    engine = (texts_or_engine if isinstance(texts_or_engine, ReplayEngine)
              else ReplayEngine(texts_or_engine, parallel=parallel or 1))
    pool = ModelPool(lambda name: engine, engine.model)
    pool.load()  # like `python -m reactlab.server`: the default model is loaded before serving
    with serve_in_thread(pool, api_key=api_key, limits=limits,
                         parallel=parallel or engine.parallel, help=help,
                         more_calls=more_calls) as url:
        yield url
