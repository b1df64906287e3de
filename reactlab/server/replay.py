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

Token counts are approximations (the piece count); `cached_tokens` is the common prefix with
the previous prompt, like llama.cpp's prompt cache. This module does not load a model and
does not check a script against the tools: it replays what you wrote. Used by the tests.
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

    def __init__(self, texts, model: str = DEFAULT_MODEL, delay: float = 0.0):

        self.texts = list(texts)
        self.model = resolve_name(model)
        self.delay = delay               # seconds per piece, to make streams observable
        self.template = ChatTemplate.packaged()
        self.calls: list[dict] = []      # the arguments of every generate() call, prompt first
        self.cancelled = 0               # generations stopped because the client went away
        self.active = self.max_active = 0
        self._lock = threading.Lock()
        self._last_prompt: list[str] = []

    def reset(self, texts, delay: float = 0.0) -> ReplayEngine:
        """A new script and a clean record, for reusing one server across tests."""
        self.texts, self.delay = list(texts), delay
        self.calls, self.cancelled, self.max_active, self._last_prompt = [], 0, 0, []
        return self

    def generate(self, prompt: str, *, max_tokens: int = 256, stop=(), on_text=None,
                 cache_prompt: bool = True, **options) -> Generation:
        self.calls.append({"prompt": prompt, "max_tokens": max_tokens, "stop": list(stop),
                           "cache_prompt": cache_prompt, **options})
        with self._lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            return self._replay(prompt, max_tokens, [END_OF_TURN, *stop], on_text, cache_prompt)
        finally:
            with self._lock:
                self.active -= 1

    def _replay(self, prompt, max_tokens, stop, on_text, cache_prompt) -> Generation:
        if not self.texts:
            raise EngineError(f"The replay script is used up: request {len(self.calls)} found "
                              f"no text left. Give ReplayEngine one text per request.")
        item = self.texts.pop(0)
        if isinstance(item, BaseException):
            raise item
        text = item(prompt) if callable(item) else str(item)
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
                self.cancelled += 1
                finish = "cancelled"
                break
        prompt_pieces = pieces(prompt)
        cached = 0
        if cache_prompt:
            for a, b in zip(prompt_pieces, self._last_prompt):
                if a != b:
                    break
                cached += 1
        self._last_prompt = prompt_pieces
        return Generation("".join(sent), finish, len(prompt_pieces), len(sent),
                          max(0, min(cached, len(prompt_pieces) - 1)), {"engine": "replay"})


@contextlib.contextmanager
def serve_replay(texts_or_engine, api_key: str | None = None,
                 limits: Limits | None = None, help: bool = True) -> Iterator[str]:
    """Run the real app with a ReplayEngine on a free loopback port; yield its base URL.

    Example: with serve_replay(["Hello!"]) as url: url -> "http://127.0.0.1:41873/v1"
    """

    engine = (texts_or_engine if isinstance(texts_or_engine, ReplayEngine)
              else ReplayEngine(texts_or_engine))
    pool = ModelPool(lambda name: engine, engine.model)
    pool.load()  # like `python -m reactlab.server`: the default model is loaded before serving
    with serve_in_thread(pool, api_key=api_key, limits=limits, help=help) as url:
        yield url
