"""Who gets the engine, and when: one generation at a time, models loaded on first use.

A 2-core machine runs one generation well and two badly, so every engine call takes one
lock, in a worker thread (llama.cpp blocks; the event loop must keep answering `/health` and
other clients meanwhile). Waiting requests queue on that lock in arrival order, more or less:
a simplification, `threading.Lock` promises no strict fairness.

Generated text travels from the worker thread to the event loop through an `asyncio.Queue`.
When the consumer goes away (a streaming client disconnects, its task is cancelled), the
`finally` below sets a flag; the engine's `on_text` callback sees it and returns True, llama.cpp
stops, and the lock is released for the next request. A request still waiting in the queue
when its client leaves never starts.

This module does not build prompts or responses (`chat` does). Introduced in notebook 06.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor

from reactlab.server.engines import EngineError
from reactlab.server.errors import APIError
from reactlab.server.weights import ALIASES, MODELS, WeightsError, resolve_name


class Scheduler:
    """Run engine calls one at a time. Example: `async for kind, value in s.events(fn): …`"""

    def __init__(self, max_waiting: int = 64):
        self._lock = threading.Lock()
        self._count_lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_waiting, thread_name_prefix="reactlab-engine")
        self.waiting = 0   # requests queued for the engine
        self.busy = False  # a generation is running

    async def events(self, call: Callable[[Callable[[str], bool]], object]) -> AsyncIterator:
        """Run `call(on_text)` under the lock; yield ("text", piece)… then ("done", result).

        Exceptions raised by `call` are re-raised here, in the caller's task, as EngineError
        (APIError and EngineError unchanged).
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        stop = threading.Event()

        def put(item) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the event loop is gone (server shutting down)
                stop.set()

        def on_text(piece: str) -> bool:
            put(("text", piece))
            return stop.is_set()

        def work() -> None:
            with self._count_lock:
                self.waiting += 1
            with self._lock:
                with self._count_lock:
                    self.waiting -= 1
                if stop.is_set():  # the client left while we waited
                    return
                self.busy = True
                try:
                    put(("done", call(on_text)))
                except BaseException as exc:  # noqa: BLE001 — handed to the request's task
                    put(("error", exc))
                finally:
                    self.busy = False

        loop.run_in_executor(self._executor, work)
        try:
            while True:
                kind, value = await queue.get()
                if kind == "error":
                    if isinstance(value, (APIError, EngineError)) or not isinstance(value,
                                                                                    Exception):
                        raise value
                    # Named as the engine's failure here, where it is known to be one: the
                    # app labels any other exception a server bug, never the request's fault.
                    raise EngineError(f"The engine failed: {type(value).__name__}: "
                                      f"{value}") from value
                yield kind, value
                if kind == "done":
                    return
        finally:
            stop.set()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class ModelPool:
    """Engines by model name, created on first request. `factory(name)` builds one.

    Example: pool.get("0.5b") -> the qwen2.5-coder-0.5b-instruct engine (loaded once)
    """

    def __init__(self, factory: Callable[[str], object], default: str):

        self._factory = factory
        self._resolve = resolve_name
        self.default = resolve_name(default)
        self.engines: dict[str, object] = {}
        self._load_lock = threading.Lock()

    def resolve(self, name: str | None) -> str:
        """A canonical model name, or APIError(404) listing what exists."""

        try:
            return self._resolve(name or self.default)
        except WeightsError:
            aliases = ", ".join(sorted(ALIASES))
            raise APIError(404, f"The model {name!r} does not exist on this server. Use one of "
                                f"{', '.join(MODELS)} (aliases: {aliases}).", param="model",
                           code="model_not_found") from None

    def load(self, name: str | None = None):
        """The engine for `name`, building it if needed (blocking: call from a worker thread)."""
        name = self.resolve(name)
        with self._load_lock:
            if name not in self.engines:
                self.engines[name] = self._factory(name)
            return self.engines[name]

    async def get(self, name: str | None):
        name = self.resolve(name)  # a 404 needs no thread
        if name in self.engines:
            return self.engines[name]
        try:
            return await asyncio.to_thread(self.load, name)
        except APIError:
            raise
        except Exception as exc:  # noqa: BLE001 — a load failure is the server's 500
            raise APIError(500, f"The model {name} could not be loaded: {exc}",
                           code="model_load_failed") from None

    def close(self) -> None:
        for engine in self.engines.values():
            close = getattr(engine, "close", None)
            if close:
                close()
        self.engines.clear()
