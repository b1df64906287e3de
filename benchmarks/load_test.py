"""Load test: many agent sessions at once against one local server, one slot vs N, in one run.

    .venv/bin/python benchmarks/load_test.py                     # --slots 1,4 --levels 1,4,8,16
    .venv/bin/python benchmarks/load_test.py --slots 1,4,8 --protocol react
    .venv/bin/python benchmarks/load_test.py --soak --levels none  # 30 learners, one task each
    .venv/bin/python benchmarks/load_test.py --engine replay       # the script end to end, no model

For each slot count it starts ONE server (`python -m reactlab.server --parallel N`, on a free
loopback port), waits for `/health`, runs each level (that many agent sessions started at the
same moment, one thread each: the real `run_function_calling` or `run_react` with the course
tools, seed-style tasks from `tasks.py`, date pinned to 2026-03-01), then stops the server by
its PID. Per level it reports sessions completed / started (a session is lost if it did not
return within `--timeout`, or returned a provider error), responses that were not a
well-formed chat completion (or repeated another's id), answers the grader accepts
(`scoring.record`: the task's anchors and `reactlab.grader.grade`), aggregate generation speed
(completion tokens of every response / the level's wall time) and p50 / p95 step latency (one
request's round trip, as the agent waited for it). `--soak` adds 30 simulated learners, each
running one short task (one tool call), bounded by `--timeout`: "completed 30/30, lost 0".

Writes benchmarks/results/load.md and load_runs.jsonl (one record per session and one per
level). With `--engine replay` the server replays one no-tool answer (`REPLAY_TEXT`, with
`--replay-delay` seconds per piece) to every request, whatever its order, so the whole script
runs in a minute without the model; it measures the server's scheduling, not the model, and
writes load_replay.md unless `--out` says otherwise. Timings on a shared 2-core machine are
noisy: the report records the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import httpx
from openai import OpenAI

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_server import machine
from benchmarks.run_agents import MAX_STEPS, MODELS, pin_environment
from benchmarks.scoring import record
from benchmarks.tasks import TASKS_BY_ID, registry_for
from reactlab.connection import Connection
from reactlab.server.engines import free_port

RESULTS = ROOT / "benchmarks" / "results"
# Seed-style tasks for the levels (1 to 3 tool calls, both languages), cycled over sessions.
LEVEL_TASKS = ("t13_weather_bj_gz_zh", "t07_price_qd_zh", "t14_qd_vs_mt_zh", "t06_weather_sh_en",
               "t19_savings_zh", "t09_today_zh", "t10_calc_en", "t08_price_mt_en")
# Short ones for the soak: one tool call each.
SOAK_TASKS = ("t05_weather_bj_zh", "t06_weather_sh_en", "t07_price_qd_zh", "t08_price_mt_en",
              "t09_today_zh", "t10_calc_en", "t11_humidity_hrb_zh", "t12_days_en")
SOAK_LEARNERS = 30
# The replay engine answers every request with this, so any order of requests is right: it is
# a final answer for both agents (content for native calls, "Final Answer:" for ReAct).
REPLAY_TASK = "t01_capital_zh"
REPLAY_TEXT = "Thought: 这个问题不需要工具。\nFinal Answer: 中国的首都是北京。"
FINISH = {"stop", "tool_calls", "length"}


# --- the server -----------------------------------------------------------------------------

def start_server(args, slots: int, log: Path) -> tuple[subprocess.Popen, str]:
    """`python -m reactlab.server --parallel slots` on a free port; (process, base URL)."""
    port = free_port()
    cmd = [sys.executable, "-m", "reactlab.server", "--port", str(port), "--parallel",
           str(slots), "--model", MODELS[args.model], "--threads", str(args.threads)]
    if args.engine == "replay":
        script = log.with_suffix(".replay.json")
        script.write_text(json.dumps([REPLAY_TEXT] * 5000, ensure_ascii=False), encoding="utf-8")
        cmd += ["--engine", "replay", "--replay-file", str(script),
                "--replay-delay", str(args.replay_delay)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log.open("w"), cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 600  # loading the model on a slow disk
    while True:
        try:
            health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).json()
            if health.get("slots") != slots:
                stop_server(proc)
                raise SystemExit(f"The server on port {port} reports {health.get('slots')} "
                                 f"slots, not {slots}: is it an older reactlab?")
            return proc, f"http://127.0.0.1:{port}/v1"
        except httpx.HTTPError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_server(proc)
                raise SystemExit(f"The server did not start; its log ({log}):\n"
                                 f"{log.read_text()[-2000:]}") from None
            time.sleep(0.5)


def stop_server(proc: subprocess.Popen) -> None:
    """SIGTERM to this PID (never by name), then SIGKILL if it has not gone in 60 s."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def watch(base_url: str, seen: dict, stop: threading.Event) -> None:
    """Poll /health: the most generations running and requests queued at any moment."""
    url = base_url.removesuffix("/v1") + "/health"
    with httpx.Client(timeout=2) as http:
        while not stop.wait(0.2):
            try:
                h = http.get(url).json()
            except httpx.HTTPError:
                continue
            seen["running"] = max(seen["running"], h.get("running", 0))
            seen["queued"] = max(seen["queued"], h.get("queued", 0))


# --- one session ----------------------------------------------------------------------------

def problem(resp, model: str) -> str | None:
    """Why a response is not a well-formed chat completion, or None. Example: None"""
    try:
        choice, usage = resp.choices[0], resp.usage
        message = choice.message
        if resp.object != "chat.completion" or not resp.id.startswith("chatcmpl-"):
            return f"object {resp.object!r}, id {resp.id!r}"
        if len(resp.choices) != 1 or message.role != "assistant" or resp.model != model:
            return f"{len(resp.choices)} choices, role {message.role!r}, model {resp.model!r}"
        if choice.finish_reason not in FINISH:
            return f"finish_reason {choice.finish_reason!r}"
        if not (isinstance(message.content, str) or message.tool_calls):
            return "neither content nor tool calls"
        for call in message.tool_calls or []:
            if not call.id or not call.function.name or not isinstance(
                    json.loads(call.function.arguments), dict):
                return f"a malformed tool call {call!r}"
        if usage.prompt_tokens < 1 or usage.total_tokens != (usage.prompt_tokens
                                                             + usage.completion_tokens):
            return f"usage {usage!r}"
    except (AttributeError, IndexError, TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


class Recorder:
    """Looks like `conn.client` to the agents; times and checks every response."""

    def __init__(self, client: OpenAI, model: str, log: list, lock: threading.Lock):
        self._client, self._model, self._log, self._lock = client, model, log, lock
        self.chat = self.completions = self

    def create(self, **kw):
        t0 = time.perf_counter()
        resp = self._client.chat.completions.create(**kw)
        entry = {"latency_s": time.perf_counter() - t0, "id": getattr(resp, "id", None),
                 "completion_tokens": getattr(getattr(resp, "usage", None), "completion_tokens",
                                              0) or 0,
                 "problem": problem(resp, self._model)}
        with self._lock:
            self._log.append(entry)
        return resp


def session(task_id: str, base_url: str, model: str, protocol: str) -> dict:
    """One learner: one agent run on one task; its record, with every response it got."""
    from reactlab.fc_agent import run_function_calling
    from reactlab.react_agent import run_react

    task, responses, lock = TASKS_BY_ID[task_id], [], threading.Lock()
    client = OpenAI(base_url=base_url, api_key="not-needed", timeout=600, max_retries=0)
    conn = Connection(client=Recorder(client, model, responses, lock), model=model,
                      base_url=base_url, provider="local")
    run = run_function_calling if protocol == "native" else run_react
    t0 = time.perf_counter()
    result = run(task.question, tools=registry_for(task), conn=conn, max_steps=MAX_STEPS)
    rec = record(task, result, time.perf_counter() - t0)
    rec["responses"] = responses
    return rec


def run_level(args, base_url: str, slots: int, tasks: tuple[str, ...], n: int,
              label: str) -> tuple[dict, list[dict]]:
    """`n` sessions started together; (the level's summary, the sessions' records)."""
    model = MODELS[args.model]
    chosen = [REPLAY_TASK] * n if args.engine == "replay" else [tasks[i % len(tasks)]
                                                                for i in range(n)]
    records: list[dict | None] = [None] * n
    errors: list[str | None] = [None] * n
    barrier = threading.Barrier(n)

    def learner(i: int) -> None:
        barrier.wait()
        try:
            records[i] = session(chosen[i], base_url, model, args.protocol)
        except Exception as exc:  # noqa: BLE001 — counted as lost, with its reason
            errors[i] = f"{type(exc).__name__}: {exc}"

    seen, stop = {"running": 0, "queued": 0}, threading.Event()
    watcher = threading.Thread(target=watch, args=(base_url, seen, stop), daemon=True)
    watcher.start()
    threads = [threading.Thread(target=learner, args=(i,), daemon=True) for i in range(n)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    deadline = time.monotonic() + args.timeout
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    wall = time.perf_counter() - t0
    stop.set()
    watcher.join(timeout=5)

    out = []
    for i, rec in enumerate(records):
        base = {"kind": "session", "level": label, "slots": slots, "session": i,
                "protocol": args.protocol, "engine": args.engine}
        if rec is None:
            out.append({**base, "task": chosen[i], "lost": True,
                        "error": errors[i] or f"not finished within {args.timeout:g} s"})
        else:
            out.append({**rec, "task_kind": rec["kind"], **base,
                        "lost": rec["mode"] == "provider_error"})
    responses = [r for rec in out for r in rec.get("responses", [])]
    ids = [r["id"] for r in responses]
    latencies = sorted(r["latency_s"] for r in responses)
    tokens = sum(r["completion_tokens"] for r in responses)
    summary = {"kind": "level", "level": label, "slots": slots, "sessions": n,
               "protocol": args.protocol, "engine": args.engine,
               "completed": sum(not r["lost"] for r in out), "lost": sum(r["lost"] for r in out),
               "solved": sum(bool(r.get("success")) for r in out),
               "responses": len(responses),
               "malformed": sum(r["problem"] is not None for r in responses)
               + (len(ids) - len(set(ids))),
               "wall_s": round(wall, 2), "completion_tokens": tokens,
               "tokens_per_s": round(tokens / wall, 2) if wall else 0.0,
               "p50_step_s": round(percentile(latencies, 50), 2),
               "p95_step_s": round(percentile(latencies, 95), 2),
               "max_running": seen["running"], "max_queued": seen["queued"]}
    return summary, out


def percentile(xs: list[float], p: float) -> float:
    """Nearest rank on sorted `xs`. Example: percentile([1, 2, 3, 4], 50) -> 2"""
    if not xs:
        return 0.0
    rank = max(1, -(-len(xs) * p // 100))  # ceil(len * p / 100)
    return xs[int(rank) - 1]


# --- the report -----------------------------------------------------------------------------

def report(args, levels: list[dict], load: tuple, started: str) -> str:
    slots = sorted({s["slots"] for s in levels})
    named = " vs ".join(f"{s} slot{'s' if s > 1 else ''}" for s in slots)
    command = " ".join(["benchmarks/load_test.py", *sys.argv[1:]])
    lines = [f"# Load test: {args.protocol} agents, one local server, {named}", "",
             f"Generated by `{command}` on {started} (UTC).", ""]
    if args.engine == "replay":
        lines += [(f"> **Replay engine**: every request gets the same scripted answer "
                   f"({args.replay_delay:g} s per piece). This checks the script and the "
                   f"server's scheduling; it says nothing about the model's speed."), ""]
    before, after = (" / ".join(f"{x:.1f}" for x in avg) for avg in load)
    lines += [machine(),
              (f"- model {MODELS[args.model]}, {args.threads} engine threads; agents at "
               f"temperature 0, max {MAX_STEPS} steps; REACTLAB_TODAY=2026-03-01"),
              f"- load average before: {before}, after: {after}", "",
              (f"Sessions start together (one thread each). *lost*: no result within "
               f"{args.timeout:g} s, or a provider error. *malformed*: responses that are not "
               f"a well-formed chat completion, or repeat another's id. *solved*: the grader "
               f"accepts the answer. *gen tok/s*: completion tokens of all responses / wall "
               f"time. *step*: one request's round trip. *max running / queued*: the most seen "
               f"in `/health` (polled every 0.2 s)."), "",
              ("| sessions | slots | completed | lost | malformed | solved | wall s | gen tok/s "
               "| p50 step s | p95 step s | max running / queued |"),
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    order = sorted(levels, key=lambda s: (s["level"] == "soak", s["sessions"], s["slots"]))
    for s in order:
        name = "soak: " if s["level"] == "soak" else ""
        lines.append(f"| {name}{s['sessions']} | {s['slots']} | {s['completed']}/{s['sessions']}"
                     f" | {s['lost']} | {s['malformed']} | {s['solved']}/{s['sessions']} | "
                     f"{s['wall_s']:.1f} | {s['tokens_per_s']:.1f} | {s['p50_step_s']:.2f} | "
                     f"{s['p95_step_s']:.2f} | {s['max_running']} / {s['max_queued']} |")
    first = {s["level"]: s for s in levels if s["slots"] == slots[0]}
    if len(slots) > 1:
        lines += ["", f"Aggregate generation speed against {named.split(' vs ')[0]}:", ""]
        for s in order:
            one = first.get(s["level"])
            if s["slots"] != slots[0] and one and one["tokens_per_s"]:
                what = "the soak" if s["level"] == "soak" else f"{s['sessions']} sessions"
                lines.append(f"- {what}, {s['slots']} slots: "
                             f"{s['tokens_per_s'] / one['tokens_per_s']:.2f}x tokens/s "
                             f"(wall {s['wall_s']:.1f} s vs {one['wall_s']:.1f} s)")
    for s in levels:
        if s["level"] == "soak":
            lines += ["", (f"Soak ({SOAK_LEARNERS} learners, one short task each), {s['slots']} "
                           f"slot(s): completed {s['completed']}/{s['sessions']}, lost "
                           f"{s['lost']}, malformed {s['malformed']}.")]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slots", default="1,4", help="slot counts, one server each (default 1,4)")
    ap.add_argument("--levels", default="1,4,8,16",
                    help="concurrent sessions per level, or 'none' (default 1,4,8,16)")
    ap.add_argument("--soak", action="store_true",
                    help=f"also {SOAK_LEARNERS} learners with one short task each")
    ap.add_argument("--protocol", choices=("native", "react"), default="native")
    ap.add_argument("--model", choices=tuple(MODELS), default="1.5b")
    ap.add_argument("--engine", choices=("xllamacpp", "replay"), default="xllamacpp")
    ap.add_argument("--replay-delay", type=float, default=0.02, help="with --engine replay")
    ap.add_argument("--threads", type=int, default=2, help="the engine's CPU threads")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds a level may take")
    ap.add_argument("--out", type=Path, default=None,
                    help="the report (default results/load.md, load_replay.md for replay); "
                         "the records go next to it as <name>_runs.jsonl")
    args = ap.parse_args(argv)
    try:
        slot_counts = [int(x) for x in args.slots.split(",") if x.strip()]
        levels = [] if args.levels == "none" else [int(x) for x in args.levels.split(",")
                                                   if x.strip()]
    except ValueError:
        raise SystemExit("--slots and --levels take comma-separated whole numbers, e.g. "
                         "--slots 1,4 --levels 1,4,8,16 (or --levels none).") from None
    if not slot_counts or min(slot_counts) < 1 or (levels and min(levels) < 1):
        raise SystemExit("Give at least one slot count, and whole numbers of at least 1.")
    if not levels and not args.soak:
        raise SystemExit("Nothing to run: give --levels, or --soak.")
    out = args.out or RESULTS / ("load_replay.md" if args.engine == "replay" else "load.md")
    runs = out.with_name(out.stem + "_runs.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)

    pin_environment()
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M")
    load_before = os.getloadavg()
    summaries = []
    with runs.open("w", encoding="utf-8") as raw, tempfile.TemporaryDirectory() as tmp:
        for slots in slot_counts:
            proc, base_url = start_server(args, slots, Path(tmp) / f"server-{slots}.log")
            try:
                plan = [(str(n), LEVEL_TASKS, n) for n in levels]
                if args.soak:
                    plan.append(("soak", SOAK_TASKS, SOAK_LEARNERS))
                for label, tasks, n in plan:
                    print(f"[{time.strftime('%H:%M:%S')}] {slots} slot(s): {label} "
                          f"({n} sessions)", file=sys.stderr, flush=True)
                    summary, sessions = run_level(args, base_url, slots, tasks, n, label)
                    summaries.append(summary)
                    for rec in [*sessions, summary]:
                        raw.write(json.dumps(rec, ensure_ascii=False) + "\n")
                    raw.flush()
                    print(f"    completed {summary['completed']}/{n}, lost {summary['lost']}, "
                          f"malformed {summary['malformed']}, solved {summary['solved']}, "
                          f"{summary['tokens_per_s']:.1f} tok/s, wall {summary['wall_s']:.1f} s",
                          file=sys.stderr, flush=True)
            finally:
                stop_server(proc)
    out.write_text(report(args, summaries, (load_before, os.getloadavg()), started),
                   encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} and {runs.name}")
    return 0 if all(s["lost"] == 0 and s["malformed"] == 0 for s in summaries) else 1


if __name__ == "__main__":
    sys.exit(main())
