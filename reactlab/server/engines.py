"""Engines: the thing that turns a prompt string into text. One real, one scripted (`replay`).

Every engine has the same small surface, so the server's template -> generate -> parse ->
stream path is identical for both:

    engine.model      "qwen2.5-coder-1.5b-instruct"
    engine.template   a ChatTemplate (from the GGUF file, repaired)
    engine.generate(prompt, max_tokens=…, temperature=…, top_p=…, seed=…, stop=[…],
                    json_schema=None, cache_prompt=True, on_text=callback) -> Generation

`on_text(piece)` is called for every piece of text as it is generated; returning True stops
generation (the server does that when a streaming client goes away).

`XllamacppEngine` runs llama.cpp in this process through xllamacpp. Its
prompt cache keeps the longest common prefix of the previous prompt, which is what makes
step 5 of an agent cheap; `Generation.cached_tokens` reports how much was reused.

`parallel=N` gives llama.cpp N slots (its server's `--parallel`): N generations decode
together in one batch (continuous batching). On a CPU each step mostly reads the weights, so
a batch of N should cost far less than N steps (not measured here: benchmarks/load_test.py
measures it). Each slot has its own `n_ctx` tokens of KV cache (the pool is `n_ctx * N`, not
unified: a prompt that fits one slot fits N, and no conversation can crowd out another) and
its own prompt cache. llama.cpp gives a request the idle slot whose cached prompt shares the
longest prefix with it (`slot_prompt_similarity`), so an agent's next step goes back to the
slot holding its last prompt when that slot is idle. Pinning a conversation to a slot
(`id_slot`) is deliberately not done: the request would wait for that one slot even with
others free. Memory: about 28 KB of KV cache per token for the 1.5B (f16), 224 MB per
8192-token slot. `generate` keeps nothing of a call on `self`, so N threads may call it at
once.

This module does not queue requests (`scheduler` does) and does not know about HTTP. No
notebook imports it: notebook 06 (under the hood) shows what it reads and writes, the rendered
prompt and the raw text.
"""

from __future__ import annotations

import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from reactlab.server.template import END_OF_TURN, ChatTemplate
from reactlab.server.weights import ensure_model, resolve_name

OnText = Callable[[str], bool]


class EngineError(RuntimeError):
    """The engine failed or refused; `status` is 400 when the request itself was too big."""

    def __init__(self, message: str, status: int = 500):
        super().__init__(message)
        self.status = status


@dataclass
class Generation:
    text: str
    finish_reason: str           # "stop" | "length" | "cancelled"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0       # prompt tokens reused from the prompt cache
    timings: dict = field(default_factory=dict)  # llama.cpp's: prompt_ms, predicted_per_second …


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now. Example: free_port() -> 41873"""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def params(xlc, path: Path, n_ctx: int = 8192, threads: int = 2, parallel: int = 1):
    """xllamacpp's CommonParams for one engine: `parallel` slots of `n_ctx` tokens each.

    Example: params(xllamacpp, path, 8192, 2, 4).n_ctx -> 32768 (4 slots x 8192)
    """
    p = xlc.CommonParams()
    p.model.path = str(path)
    # llama.cpp gives each slot n_ctx / n_parallel unless the KV cache is unified; asking for
    # n_ctx per slot keeps a prompt that fits one slot fitting N.
    p.n_parallel = parallel
    p.n_ctx = n_ctx * parallel
    p.kv_unified = False
    p.warmup = False
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = threads
    # Creating the engine also opens llama.cpp's own HTTP listener: keep it on loopback, on a
    # port of its own, locked with a random key nobody knows, and quiet.
    p.port = free_port()
    p.api_keys = [secrets.token_hex(16)]
    p.ui = False
    p.verbosity = -1
    return p


class XllamacppEngine:
    """llama.cpp in-process. Example: XllamacppEngine("1.5b").generate("<|im_start|>…", …)"""

    kind = "xllamacpp"

    def __init__(self, model: str, path: str | Path | None = None, n_ctx: int = 8192,
                 threads: int = 2, parallel: int = 1):

        if parallel < 1:
            raise EngineError(f"parallel must be at least 1 slot, not {parallel}.")
        self.model = resolve_name(model)
        self.path = Path(path) if path else ensure_model(self.model)
        self.template = ChatTemplate.from_gguf(self.path)  # reads metadata: catches a bad file fast
        import xllamacpp as xlc

        p = params(xlc, self.path, n_ctx, threads, parallel)
        try:
            self._server = xlc.Server(p)
        except RuntimeError:
            advice = ("Check that it is a complete Qwen2.5 instruct GGUF." if path else
                      "Delete it and start again to re-assemble it from the weight packages.")
            raise EngineError(f"llama.cpp could not load {self.path}: the file is corrupt or not "
                              f"a model llama.cpp supports. {advice}") from None
        self.n_ctx = n_ctx  # per slot
        self.parallel = parallel

    def generate(self, prompt: str, *, max_tokens: int = 256, temperature: float = 0.0,
                 top_p: float | None = None, seed: int | None = None, stop=(),
                 json_schema: dict | None = None, cache_prompt: bool = True,
                 on_text: OnText | None = None) -> Generation:
        # Safe from several threads at once: everything of this call lives in locals, and
        # xllamacpp's handle_completions releases the GIL and builds a request of its own per
        # call, handed to llama.cpp's task queue like one from its own HTTP threads.
        body = {"prompt": prompt, "max_tokens": max_tokens, "temperature": temperature,
                "stop": [END_OF_TURN, *stop], "stream": True, "cache_prompt": cache_prompt,
                # timings on every chunk: a generation stopped early (`on_text` returned True)
                # gets no final chunk, and still knows its prompt and cache counts
                "timings_per_token": True}
        for key, value in (("top_p", top_p), ("seed", seed), ("json_schema", json_schema)):
            if value is not None:
                body[key] = value
        pieces: list[str] = []
        final: dict = {}

        def on_chunk(chunk: dict) -> bool:
            if "error" in chunk:
                final["error"] = chunk["error"]
                return True
            if chunk.get("timings"):
                final["last_timings"] = chunk["timings"]
            choice = (chunk.get("choices") or [{}])[0]
            if choice.get("finish_reason"):
                final.update(chunk, finish_reason=choice["finish_reason"])
            text = choice.get("text") or ""
            if text:
                pieces.append(text)
                if on_text is not None and on_text(text):
                    final["cancelled"] = True
                    return True
            return False

        result = self._server.handle_completions(body, on_chunk)
        error = final.get("error") or (result or {}).get("error")
        if error:
            code = error.get("code") if isinstance(error, dict) else None
            message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
            raise EngineError(f"The engine refused the request: {message}.",
                              400 if code == 400 else 500)
        usage = final.get("usage") or {}
        timings = final.get("timings") or final.get("last_timings") or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens",
                                                                 timings.get("cache_n", 0))
        return Generation(
            text="".join(pieces),
            finish_reason="cancelled" if final.get("cancelled") else final.get("finish_reason",
                                                                                "stop"),
            prompt_tokens=usage.get("prompt_tokens",
                                    timings.get("prompt_n", 0) + timings.get("cache_n", 0)),
            completion_tokens=usage.get("completion_tokens",
                                        timings.get("predicted_n", len(pieces))),
            cached_tokens=cached or 0, timings=timings)

    def close(self) -> None:
        self._server = None  # the xllamacpp Server stops its threads when collected
