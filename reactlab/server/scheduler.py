"""Who gets the engine, and when: up to `slots` generations at once, models loaded on first use.

Every engine call runs in a worker thread (llama.cpp blocks; the event loop must keep
answering `/health` and other clients meanwhile) and first takes one of `slots` permits of a
semaphore. With one slot (the default, a learner's laptop) that is one generation at a time:
a 2-core machine runs one well and two badly. A class server started with `--parallel N`
gives the engine N slots (llama.cpp's continuous batching decodes them together, see
`engines`), and the semaphore lets N calls in at once; the rest wait, in arrival order more
or less: a simplification, `threading.Semaphore` promises no strict fairness.

`running` counts the generations in progress, `waiting` the requests queued for a slot;
`/health` reports them as `running` and `queued`, with `slots` and `busy` (all slots taken).

Generated text travels from the worker thread to the event loop through an `asyncio.Queue`,
one per request. When the consumer goes away (a streaming client disconnects, its task is
cancelled), the `finally` below sets that request's flag; the engine's `on_text` callback sees
it and returns True, llama.cpp stops that generation only, and its slot is released for the
next request. A request still waiting for a slot when its client leaves never starts.

This module does not build prompts or responses (`chat` does), and does not pick a slot for a
request: llama.cpp does (see `engines`). No notebook imports it: notebook 06 looks under the
hood of the server it belongs to, and TEACHING.md ("A class on one server") explains
`--parallel`.
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
    """Run up to `slots` engine calls at once. Example: `async for kind, v in s.events(fn): …`"""

    def __init__(self, slots: int = 1, max_waiting: int = 64):
        if not isinstance(slots, int) or isinstance(slots, bool) or slots < 1:
            raise ValueError(f"slots must be a whole number of at least 1, not {slots!r}.")
        self.slots = slots
        self._slots = threading.Semaphore(slots)
        self._count_lock = threading.Lock()
        # One thread per running or waiting request: past `slots + max_waiting` of them, a
        # request waits for a thread before it even counts as waiting (a simplification).
        self._executor = ThreadPoolExecutor(slots + max_waiting,
                                            thread_name_prefix="reactlab-engine")
        self.waiting = 0   # requests queued for a slot
        self.running = 0   # generations in progress, at most `slots`

    @property
    def busy(self) -> bool:
        """Every slot is generating: a new request would wait."""
        return self.running >= self.slots

    async def events(self, call: Callable[[Callable[[str], bool]], object]) -> AsyncIterator:
        """Run `call(on_text)` in a slot; yield ("text", piece)… then ("done", result).

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
            with self._slots:
                with self._count_lock:
                    self.waiting -= 1
                    if stop.is_set():  # the client left while we waited
                        return
                    self.running += 1
                try:
                    item = ("done", call(on_text))
                except BaseException as exc:  # noqa: BLE001 — handed to the request's task
                    item = ("error", exc)
                with self._count_lock:
                    self.running -= 1
            # Counted out and the slot released before the client hears: a client that got
            # its reply sees its own generation gone from `/health`.
            put(item)

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
