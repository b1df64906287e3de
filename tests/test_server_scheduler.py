"""Parallel slots: the scheduler runs up to N generations at once, each request keeps its own
reply, a client that leaves frees its slot, and /health counts slots, running and queued.

Driven through the real `openai` SDK against the replay engine (no model). Concurrency is
observed with counters (the engine's `max_active`, the scheduler's `running`), never timed;
gates (a scripted reply that waits for an event) hold a generation open while the test looks,
and barriers make requests meet inside the engine, so a loaded machine cannot make them miss
each other.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import threading
import time
import types

import httpx
import openai
import pytest

from reactlab.server import engines
from reactlab.server.engines import EngineError, XllamacppEngine
from reactlab.server.replay import ReplayEngine, pieces, serve_replay
from reactlab.server.scheduler import Scheduler
from reactlab.server.template import ChatTemplate

MODEL = "qwen2.5-coder-1.5b-instruct"
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather of a city.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"]}}}
TAG = re.compile(r"client-\d+")
http = httpx.Client(timeout=20)


def ask(tag: str) -> list[dict]:
    return [{"role": "user", "content": f"I am {tag}. 北京今天天气怎么样？"}]


def last_tag(prompt: str) -> str:
    """The tag of the request this prompt belongs to (the last one: the tools list has none)."""
    return TAG.findall(prompt)[-1]


def echo(prompt: str) -> str:
    """A reply only this request can get: its own tag, then enough words to interleave."""
    tag = last_tag(prompt)
    return f"reply to {tag}: " + " ".join(f"{tag}-w{i}" for i in range(30))


def call_for(prompt: str) -> str:
    """A tool call whose argument is the request's own tag."""
    return json.dumps({"name": "get_weather", "arguments": {"location": last_tag(prompt)}})


def until(condition, what: str, seconds: float = 10.0) -> None:
    """Wait for `condition()` (a hang guard, not a timing assert)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.01)


def health(url: str) -> dict:
    return http.get(url.removesuffix("/v1") + "/health").json()


def client_for(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=20)


def in_threads(fn, args_list) -> list:
    results: list = [None] * len(args_list)
    errors: list = []

    def run(i, args):
        try:
            results[i] = fn(*args)
        except Exception as exc:  # noqa: BLE001 — reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(args_list)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    return results


# --- the scheduler alone --------------------------------------------------------------------

@pytest.mark.parametrize("slots", [0, -1, 1.5, True, "4"])
def test_scheduler_refuses_a_bad_slot_count(slots):
    with pytest.raises(ValueError, match="at least 1"):
        Scheduler(slots=slots)


def test_scheduler_counts_running_and_waiting_and_never_exceeds_its_slots():
    gate = threading.Event()
    seen = {"now": 0, "max": 0}
    lock = threading.Lock()

    def call(on_text):
        with lock:
            seen["now"] += 1
            seen["max"] = max(seen["max"], seen["now"])
        gate.wait(10)
        on_text("x")
        with lock:
            seen["now"] -= 1
        return "done"

    async def main():
        s = Scheduler(slots=2)

        async def one():
            return [kind async for kind, _ in s.events(call)]

        tasks = [asyncio.ensure_future(one()) for _ in range(3)]
        while s.running + s.waiting < 3:
            await asyncio.sleep(0.01)
        counts = (s.running, s.waiting, s.busy)
        gate.set()
        results = await asyncio.gather(*tasks)
        after = (s.running, s.waiting, s.busy)
        s.shutdown()
        return counts, results, after

    counts, results, after = asyncio.run(main())
    assert counts == (2, 1, True)
    assert results == [["text", "done"]] * 3
    assert after == (0, 0, False) and seen["max"] == 2


def test_a_failing_call_frees_its_slot():
    def boom(on_text):
        raise RuntimeError("llama.cpp fell over")

    async def main():
        s = Scheduler(slots=1)
        with pytest.raises(EngineError, match="The engine failed: RuntimeError"):
            async for _ in s.events(boom):
                pass
        kinds = [k async for k, _ in s.events(lambda on_text: "fine")]
        s.shutdown()
        return kinds, s.running

    assert asyncio.run(main()) == (["done"], 0)


# --- slots through the server ---------------------------------------------------------------

def meeting(n: int):
    """A script entry that answers like `echo` once `n` requests are generating at once.

    Four slow requests would overlap anyway; the barrier makes it certain on a loaded machine
    (and fails with a 500 if they never all run together)."""
    barrier = threading.Barrier(n, timeout=20)

    def reply(prompt):
        barrier.wait()
        return echo(prompt)

    return reply


def test_four_slots_run_four_requests_together():
    engine = ReplayEngine([meeting(4)] * 4, parallel=4)
    with serve_replay(engine, more_calls=False) as url:
        client = client_for(url)
        replies = in_threads(lambda tag: client.chat.completions.create(
            model=MODEL, messages=ask(tag)).choices[0].message.content,
            [(f"client-{i}",) for i in range(4)])
        assert health(url)["slots"] == 4
    assert engine.max_active == 4  # the engine's own counter of overlapping generations
    assert replies == [echo(f"client-{i}") for i in range(4)]


def test_one_slot_never_runs_two_requests_together():
    engine = ReplayEngine([echo] * 4, delay=0.002, parallel=1)
    with serve_replay(engine, more_calls=False) as url:
        client = client_for(url)
        replies = in_threads(lambda tag: client.chat.completions.create(
            model=MODEL, messages=ask(tag)).choices[0].message.content,
            [(f"client-{i}",) for i in range(4)])
        assert health(url)["slots"] == 1
    assert engine.max_active == 1
    assert replies == [echo(f"client-{i}") for i in range(4)]


def test_every_concurrent_reply_is_its_own_streamed_or_not_with_tool_calls_too():
    n = 12
    script = [echo if i % 3 else call_for for i in range(n)]
    engine = ReplayEngine([], delay=0.002, parallel=4)

    meet, arrived, lock = threading.Barrier(4, timeout=20), [], threading.Lock()

    def route(prompt):  # texts are taken in arrival order: decide by the request itself
        with lock:
            arrived.append(prompt)
            first = len(arrived) <= 4
        if first:  # the first four generate together, so their pieces surely interleave
            meet.wait()
        i = int(last_tag(prompt).split("-")[1])
        return script[i](prompt)

    engine.reset([route] * n, delay=0.002)
    with serve_replay(engine, more_calls=False) as url:
        client = client_for(url)

        def one(i: int):
            tag = f"client-{i}"
            kw = {"model": MODEL, "messages": ask(tag)}
            if i % 3 == 0:
                kw["tools"] = [WEATHER]
            if i % 2:
                chunks = list(client.chat.completions.create(**kw, stream=True))
                text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
                args = "".join(tc.function.arguments or "" for c in chunks if c.choices
                               for tc in (c.choices[0].delta.tool_calls or []))
                return text, args
            message = client.chat.completions.create(**kw).choices[0].message
            args = message.tool_calls[0].function.arguments if message.tool_calls else ""
            return message.content or "", args

        results = in_threads(one, [(i,) for i in range(n)])
    assert engine.max_active == 4  # they did overlap, never more than the slots
    for i, (text, args) in enumerate(results):
        tag = f"client-{i}"
        if i % 3 == 0:
            assert text == "" and args == json.dumps({"location": tag})
        else:
            assert text == echo(tag) and args == ""
        assert set(TAG.findall(text + args)) == {tag}  # nothing of another request in it


def gated(gates: dict[str, threading.Event], long_text: str, long_tag: str = "client-9"):
    """A script entry: a tagged request waits for its gate (if it has one), then answers
    "<tag> done", or `long_text` for `long_tag`."""

    def reply(prompt):
        tag = last_tag(prompt)
        if tag in gates:
            assert gates[tag].wait(20), f"{tag}'s gate never opened"
        return long_text if tag == long_tag else f"{tag} done"

    return reply


def test_a_streaming_client_that_leaves_frees_its_slot_for_the_next_request():
    gates = {"client-1": threading.Event()}
    engine = ReplayEngine([], delay=0.01, parallel=2)
    long_text = " ".join(f"word{i}" for i in range(400))
    engine.reset([gated(gates, long_text)] * 3, delay=0.01)
    with serve_replay(engine, more_calls=False) as url:
        client = client_for(url)
        held = {}
        holder = threading.Thread(target=lambda: held.update(r=client.chat.completions.create(
            model=MODEL, messages=ask("client-1")).choices[0].message.content))
        holder.start()  # slot 1: a generation held open by its gate
        until(lambda: engine.active == 1, "the held request to start")
        body = {"model": MODEL, "messages": ask("client-9"), "stream": True}
        with http.stream("POST", url + "/chat/completions", json=body) as resp:
            lines = resp.iter_lines()
            for _ in range(4):
                next(lines)
            assert health(url)["running"] == 2 and health(url)["busy"] is True
        # slot 2's client left after a few chunks: that generation alone stops
        until(lambda: engine.cancelled == 1 and engine.active == 1, "the cancellation")
        state = health(url)
        assert (state["running"], state["queued"], state["busy"]) == (1, 0, False)
        # the freed slot serves a new request while the held one still runs
        assert client.chat.completions.create(
            model=MODEL, messages=ask("client-2")).choices[0].message.content == "client-2 done"
        assert holder.is_alive()
        gates["client-1"].set()
        holder.join(timeout=20)
    assert held["r"] == "client-1 done" and engine.max_active == 2


def test_health_shows_slots_running_and_queued():
    gates = {f"client-{i}": threading.Event() for i in range(3)}
    engine = ReplayEngine([gated(gates, "")] * 3, parallel=2)
    with serve_replay(engine, more_calls=False) as url:
        client = client_for(url)
        idle = health(url)
        assert (idle["slots"], idle["running"], idle["queued"], idle["busy"]) == (2, 0, 0, False)
        threads = [threading.Thread(target=client.chat.completions.create,
                                    kwargs={"model": MODEL, "messages": ask(tag)})
                   for tag in gates]
        for t in threads:
            t.start()
        until(lambda: health(url)["queued"] == 1, "the third request to queue")
        full = health(url)
        assert (full["running"], full["queued"], full["busy"]) == (2, 1, True)
        for gate in gates.values():
            gate.set()
        for t in threads:
            t.join(timeout=20)
        done = health(url)
        assert (done["running"], done["queued"], done["busy"]) == (0, 0, False)
    assert engine.max_active == 2


# --- the replay engine's slots ---------------------------------------------------------------

def test_replay_keeps_a_prompt_cache_per_slot():
    a1 = "Conversation A asks about the weather in Beijing"
    b1 = "B, another conversation, asks about a stock price"
    a2 = a1 + " and then about Guangzhou"
    two = ReplayEngine(["x"] * 3, parallel=2)
    one = ReplayEngine(["x"] * 3, parallel=1)
    for engine in (two, one):
        engine.generate(a1)
        engine.generate(b1)
    # with two slots, B went to the unused one and A's second step finds A's first prompt
    # still cached; with one, B's prompt replaced it
    assert two.generate(a2).cached_tokens == len(pieces(a1))
    assert one.generate(a2).cached_tokens == 0
    assert [c["prompt"] for c in two.calls] == [a1, b1, a2]


def test_replay_refuses_zero_slots_and_says_when_the_script_is_used_up():
    with pytest.raises(EngineError, match="at least 1 slot"):
        ReplayEngine([], parallel=0)
    engine = ReplayEngine(["only one"], parallel=2)
    assert engine.generate("p").text == "only one"
    with pytest.raises(EngineError, match="request 2 found no text left"):
        engine.generate("p")
    assert engine.active == 0 and sorted(engine._free) == [0, 1]


# --- the real engine's settings and thread safety (a fake xllamacpp: no model) ----------------

class FakeServer:
    """Streams each prompt back word by word, sleeping between chunks so threads interleave."""

    def __init__(self, p):
        self.params = p

    def handle_completions(self, body, on_chunk):
        words = body["prompt"].split()
        for w in words:
            time.sleep(0.001)
            if on_chunk({"choices": [{"text": w + " "}]}):
                return
        on_chunk({"choices": [{"text": "", "finish_reason": "stop"}],
                  "usage": {"prompt_tokens": len(words), "completion_tokens": len(words)}})


def fake_xllamacpp():
    ns = types.SimpleNamespace
    return ns(CommonParams=lambda: ns(model=ns(), cpuparams=ns(), cpuparams_batch=ns()),
              Server=FakeServer)


def test_the_engine_asks_llama_cpp_for_n_slots_of_n_ctx_each(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "xllamacpp", fake_xllamacpp())
    monkeypatch.setattr(ChatTemplate, "from_gguf", staticmethod(lambda path: ChatTemplate.packaged()))
    engine = XllamacppEngine("1.5b", path=tmp_path / "m.gguf", n_ctx=8192, parallel=4)
    p = engine._server.params
    assert (p.n_parallel, p.n_ctx, p.kv_unified) == (4, 4 * 8192, False)
    assert (engine.n_ctx, engine.parallel) == (8192, 4)
    with pytest.raises(EngineError, match="at least 1 slot"):
        XllamacppEngine("1.5b", path=tmp_path / "m.gguf", parallel=0)


def test_concurrent_generate_calls_keep_their_own_text_and_counts(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "xllamacpp", fake_xllamacpp())
    monkeypatch.setattr(ChatTemplate, "from_gguf", staticmethod(lambda path: ChatTemplate.packaged()))
    engine = XllamacppEngine("1.5b", path=tmp_path / "m.gguf", parallel=4)
    prompts = [" ".join(f"p{i}w{j}" for j in range(10 + i)) for i in range(8)]
    results = in_threads(engine.generate, [(p,) for p in prompts])
    for prompt, g in zip(prompts, results):
        assert g.text == prompt + " " and g.finish_reason == "stop"
        assert g.completion_tokens == len(prompt.split())


def test_the_engine_settings_exist_in_the_installed_xllamacpp(tmp_path):
    xlc = pytest.importorskip("xllamacpp", reason="the local extra is not installed")
    p = engines.params(xlc, tmp_path / "m.gguf", 8192, 2, 3)  # settings only: no model loads
    assert (p.n_parallel, p.n_ctx, p.kv_unified, p.cont_batching) == (3, 3 * 8192, False, True)


# --- benchmarks/load_test.py, end to end on the replay engine --------------------------------

def test_the_load_test_runs_end_to_end_on_the_replay_engine(tmp_path):
    from benchmarks import load_test

    out = tmp_path / "load.md"
    code = load_test.main(["--engine", "replay", "--replay-delay", "0", "--slots", "1,2",
                           "--levels", "3", "--out", str(out)])
    assert code == 0
    records = [json.loads(line) for line in (tmp_path / "load_runs.jsonl").read_text(
        encoding="utf-8").splitlines()]
    levels = [r for r in records if r["kind"] == "level"]
    assert [(r["slots"], r["sessions"], r["completed"], r["lost"], r["malformed"], r["solved"])
            for r in levels] == [(1, 3, 3, 0, 0, 3), (2, 3, 3, 0, 0, 3)]
    sessions = [r for r in records if r["kind"] == "session"]
    assert len(sessions) == 6 and all(r["responses"] for r in sessions)
    text = out.read_text(encoding="utf-8")
    assert "1 slot vs 2 slots" in text and "Replay engine" in text


def test_the_load_test_flags_a_malformed_response():
    from types import SimpleNamespace as NS

    from benchmarks.load_test import percentile, problem

    usage = NS(prompt_tokens=10, completion_tokens=2, total_tokens=12)
    message = NS(role="assistant", content="hi", tool_calls=None)
    good = NS(object="chat.completion", id="chatcmpl-1", model=MODEL, usage=usage,
              choices=[NS(message=message, finish_reason="stop")])
    assert problem(good, MODEL) is None
    assert "finish_reason" in problem(NS(**{**vars(good), "choices": [
        NS(message=message, finish_reason="cancelled")]}), MODEL)
    assert "model" in problem(NS(**{**vars(good), "model": "other"}), MODEL)
    assert "usage" in problem(NS(**{**vars(good), "usage": NS(
        prompt_tokens=10, completion_tokens=2, total_tokens=99)}), MODEL)
    assert problem(NS(**{**vars(good), "choices": []}), MODEL).startswith("IndexError")
    assert (percentile([], 50), percentile([1, 2, 3, 4], 50), percentile([1, 2, 3, 4], 95)) == (
        0.0, 2, 4)
