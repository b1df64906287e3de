"""Measure the local server, side by side in one run, on the real model.

    .venv/bin/python benchmarks/bench_server.py [--model 1.5b] [--reps 3]

1. Overhead: the same prompt through a direct engine call (xllamacpp `handle_completions`,
   no HTTP) and through the server (openai SDK -> FastAPI -> template -> engine -> parser),
   with a warm prompt cache (latency = generation) and a cold one (cache_prompt false).
   Goal: the server adds at most 5 % latency. On a shared machine the engine's own speed
   swings more than that between runs, so the added latency is measured as time *outside*
   the engine (wall time minus llama.cpp's own prompt + generation timings) per path, and
   compared with the direct call's; raw wall times are shown too.
2. Throughput: prompt and generation tokens/s, from llama.cpp's own timings.
3. HTTP cost alone: the server with the replay engine (a zero-cost "model").
4. Prefix cache on a 5-step agent: a scripted tool conversation growing step by step;
   step 5's latency with the cache (after steps 1-4) and without (cache_prompt false).

Writes benchmarks/results/server.md. Loads the model once, in this process; stops the
in-process server at the end. Timings on a shared 2-core machine are noisy: the file records
the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

import httpx
import openai

from reactlab.server.app import serve_in_thread
from reactlab.server.engines import XllamacppEngine
from reactlab.server.replay import ReplayEngine, serve_replay
from reactlab.server.scheduler import ModelPool

OUT = Path(__file__).parent / "results" / "server.md"


def fn(name, desc, props):
    return {"type": "function", "function": {"name": name, "description": desc, "parameters": {
        "type": "object", "properties": {k: {"type": "string", "description": v}
                                         for k, v in props.items()}, "required": list(props)}}}


TOOLS = [fn("get_weather", "Get the current weather of a Chinese city.", {"location": "e.g. 北京"}),
         fn("get_closing_price", "Latest closing price of a stock.", {"name": "e.g. 贵州茅台"}),
         fn("calculator", "Evaluate an arithmetic expression.", {"expression": "e.g. 306 * 5"}),
         fn("get_today", "Get today's date.", {}),
         fn("days_between", "Days between two dates.", {"start": "YYYY-MM-DD", "end": "YYYY-MM-DD"})]
QUESTION = [{"role": "user", "content": "比较北京、广州、上海今天的天气，再查一下贵州茅台的收盘价。"}]
STEPS = [("get_weather", {"location": c}) for c in ("北京", "广州", "上海")] + [
    ("get_closing_price", {"name": "贵州茅台"})]


def observation(name: str, args: dict) -> str:
    """A realistic tool result (~100 tokens), so the prompt grows like a real agent's."""
    if name == "get_weather":
        days = [{"date": f"2026-03-0{i}", "text": "多云", "high": 12 + i, "low": 2 + i}
                for i in range(1, 4)]
        return json.dumps({"city": args["location"], "now": {"text": "晴", "temp": 9,
                           "humidity": 41, "wind": "北风 3 级"}, "forecast": days},
                          ensure_ascii=False)
    return json.dumps({"name": args["name"], "code": "600519", "close": 1520.5, "change": -0.8,
                       "date": "2026-02-27"}, ensure_ascii=False)


def agent_messages(step: int) -> list[dict]:
    """The conversation an agent sends at `step` (1-5): question + step-1 calls and results."""
    messages = list(QUESTION)
    for i, (name, args) in enumerate(STEPS[: step - 1]):
        cid = f"call_{i:024x}"
        messages += [{"role": "assistant", "content": None, "tool_calls": [{
            "id": cid, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}]},
            {"role": "tool", "tool_call_id": cid, "content": observation(name, args)}]
    return messages


def timed(f):
    t = time.perf_counter()
    result = f()
    return time.perf_counter() - t, result


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def direct(engine, prompt, max_tokens, cache):
    return engine._server.handle_completions({  # the raw engine call, no reactlab code at all
        "prompt": prompt, "max_tokens": max_tokens, "temperature": 0, "stop": ["<|im_end|>"],
        "cache_prompt": cache})


def via_server(client, model, messages, max_tokens, cache, stream=False):
    kw = {"model": model, "messages": messages, "tools": TOOLS, "max_tokens": max_tokens,
          "temperature": 0, "extra_body": {"cache_prompt": cache}}
    if not stream:
        return client.chat.completions.create(**kw).usage
    chunks = list(client.chat.completions.create(**kw, stream=True,
                                                 stream_options={"include_usage": True}))
    return chunks[-1].usage


def engine_seconds(timings: dict) -> float:
    """Time spent inside llama.cpp, by its own clock: prompt reading + generation."""
    return (timings["prompt_ms"] + timings["predicted_ms"]) / 1000


def overhead(engine, client, model, reps, max_tokens, cache):
    """Per path: [(wall s, engine s)] and (prompt, completion, cached tokens, timings)."""
    prompt = engine.template.render(QUESTION, TOOLS)
    direct(engine, prompt, max_tokens, True)  # warm up the cache and the threads
    last = str(client.base_url).rstrip("/") + "/debug/last"
    rows = {"direct engine call": [], "server, non-stream": [], "server, stream": []}
    info = {"timings": []}  # every call's llama.cpp timings, for the throughput section
    for _ in range(reps):  # interleaved, so drifting machine load hits all paths alike
        secs, r = timed(lambda: direct(engine, prompt, max_tokens, cache))
        u = r["usage"]
        rows["direct engine call"].append((secs, engine_seconds(r["timings"])))
        info["direct engine call"] = (u["prompt_tokens"], u["completion_tokens"],
                                      u["prompt_tokens_details"]["cached_tokens"], r["timings"])
        info["timings"].append(r["timings"])
        for label, stream in (("server, non-stream", False), ("server, stream", True)):
            secs, u = timed(lambda s=stream: via_server(client, model, QUESTION, max_tokens,
                                                        cache, s))
            timings = httpx.get(last).json()["timings"]  # outside the timed call
            rows[label].append((secs, engine_seconds(timings)))
            info[label] = (u.prompt_tokens, u.completion_tokens,
                           u.prompt_tokens_details.cached_tokens, timings)
            info["timings"].append(timings)
    return rows, info


def http_cost(n=40):
    engine = ReplayEngine(["北京今天晴，25°C。"] * (2 * n + 2))
    with serve_replay(engine) as url:
        client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
        out = {}
        for label, stream in (("non-stream", False), ("stream", True)):
            secs = []
            for _ in range(n):
                secs.append(timed(lambda s=stream: via_server(
                    client, engine.model, QUESTION, 64, True, s))[0])
            out[label] = statistics.median(secs)
    return out


def agent(client, model, max_tokens):
    """Steps 1-5 with the cache, then step 5 again with cache_prompt false."""
    last = str(client.base_url).rstrip("/") + "/debug/last"
    rows = []
    for step, cache in [(1, True), (2, True), (3, True), (4, True), (5, True), (5, False)]:
        secs, u = timed(lambda s=step, c=cache: via_server(client, model, agent_messages(s),
                                                           max_tokens, c))
        prompt_ms = httpx.get(last).json()["timings"]["prompt_ms"]
        rows.append((f"{step}" + ("" if cache else ", cache off"), u.prompt_tokens,
                     u.prompt_tokens_details.cached_tokens, prompt_ms / 1000, secs))
    return rows


def machine() -> str:
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text()
                .splitlines() if ln.startswith("model name")), platform.processor())
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    vers = ", ".join(f"{p} {version(p)}" for p in ("xllamacpp", "fastapi", "uvicorn", "openai",
                                                   "reactlab"))
    return (f"- machine: {cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, "
            f"{platform.system()} {platform.release()}\n- Python {platform.python_version()}; "
            f"{vers}")


def med(xs):
    return statistics.median(xs)


def overhead_table(title: str, rows: dict, info: dict) -> list[str]:
    base_wall = med([w for w, _ in rows["direct engine call"]])
    base_out = med([w - e for w, e in rows["direct engine call"]])
    lines = ["", f"## 1. Server overhead, {title}", "",
             ("| path | prompt tok | cached | completion tok | wall s | in engine s "
              "| outside engine ms | added (outside engine) |"),
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for label, runs in rows.items():
        p, c, k, _ = info[label]
        wall, eng, out = (med([w for w, _ in runs]), med([e for _, e in runs]),
                          med([w - e for w, e in runs]))
        added = "—" if label.startswith("direct") else (
            f"{(out - base_out) * 1000:+.0f} ms ({(out - base_out) / base_wall * 100:+.1f} %)")
        lines.append(f"| {label} | {p} | {k} | {c} | {wall:.3f} | {eng:.3f} | {out * 1000:.0f} "
                     f"| {added} |")
    worst = max(med([w - e for w, e in runs]) for runs in rows.values()) - base_out
    share = worst / base_wall
    lines += ["", (f"Goal (server adds ≤ 5 %): {'met' if share <= 0.05 else 'NOT met'} — at most "
                   f"{worst * 1000:+.0f} ms on a {base_wall:.1f} s request ({share * 100:+.2f} %).")]
    return lines


def throughput(all_timings: dict) -> list[str]:
    """Median and best tokens/s over the section-1 calls (prompt speed from the cold ones)."""
    prompt = [t["prompt_per_second"] for t in all_timings[False]]
    gen = [t["predicted_per_second"] for ts in all_timings.values() for t in ts]
    return ["", "## 2. Throughput (llama.cpp's own timings over the calls above)", "",
            (f"- prompt reading: median {med(prompt):.1f} tok/s, best {max(prompt):.1f} tok/s "
             f"({len(prompt)} cold calls)"),
            (f"- generation: median {med(gen):.1f} tok/s, best {max(gen):.1f} tok/s "
             f"({len(gen)} calls)")]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="1.5b")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    progress(f"loading {args.model}")
    load_s, engine = timed(lambda: XllamacppEngine(args.model))
    pool = ModelPool(lambda name: engine, engine.model)
    pool.engines[engine.model] = engine
    size = engine.path.stat().st_size / 2**30
    lines = [f"# Local server benchmark ({engine.model})", "",
             (f"Run {started} with `python benchmarks/bench_server.py --model {args.model} "
              f"--reps {args.reps}`; medians of {args.reps} interleaved runs, temperature 0, "
              f"max_tokens {args.max_tokens}."), "", machine(),
             (f"- model file: {engine.path.name} ({size:.2f} GiB), loaded in {load_s:.1f} s; "
              f"n_ctx {engine.n_ctx}, 2 threads"),
             f"- load average (1/5/15 min) before: {' / '.join(f'{x:.1f}' for x in load_before)}"]
    if load_before[0] > (os.cpu_count() or 2) * 0.75:
        lines += ["", ("> The machine was busy (load above its core count): absolute speeds are "
                       "below an idle machine's, the overhead measure (time outside the engine) "
                       "is not.")]
    with serve_in_thread(pool) as url:
        client = openai.OpenAI(base_url=url, api_key="x", max_retries=0, timeout=600)
        all_timings = {}
        for title, cache in (("warm prompt cache: latency is generation", True),
                             ("cold: cache_prompt false, the whole prompt is read", False)):
            progress(f"overhead, {title}")
            rows, info = overhead(engine, client, engine.model, args.reps, args.max_tokens, cache)
            lines += overhead_table(title, rows, info)
            all_timings[cache] = info["timings"]
        lines += throughput(all_timings)
        progress("5-step agent")
        agent_rows = agent(client, engine.model, args.max_tokens)
    progress("HTTP cost with the replay engine")
    cost = http_cost()
    lines += ["", "## 3. HTTP cost alone (replay engine, no model; median of 40 requests)", "",
              f"- non-stream: {cost['non-stream'] * 1000:.1f} ms per request",
              f"- stream: {cost['stream'] * 1000:.1f} ms per request (until `[DONE]`)",
              "", "## 4. Prefix cache on a 5-step agent (server, non-stream)", "",
              "| step | prompt tok | cached tok | prompt reading s (engine) | latency s |",
              "|---|---:|---:|---:|---:|"]
    lines += [f"| {s} | {p} | {k} | {r:.2f} | {secs:.2f} |" for s, p, k, r, secs in agent_rows]
    with_cache, without = agent_rows[4][4], agent_rows[5][4]
    lines += ["", (f"Step 5 with the prefix cache: {with_cache:.2f} s; without: {without:.2f} s "
                   f"({without / with_cache:.1f}x slower without)."), "",
              f"- load average after: {' / '.join(f'{x:.1f}' for x in os.getloadavg())}", ""]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    pool.close()


if __name__ == "__main__":
    main()
