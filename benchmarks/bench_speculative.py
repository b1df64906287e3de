"""Speculative decoding on the local engine: faster agent steps on 2 cores, and the same replies?

    .venv/bin/python benchmarks/bench_speculative.py capture [--tasks t05,t13,…]  # ~12 min
    .venv/bin/python benchmarks/bench_speculative.py replay [--calls 50]       # ~5 min a setting
    .venv/bin/python benchmarks/bench_speculative.py replay --calls 119 --only off,KV \
        --out benchmarks/results/cache_reuse.md                              # ~20 min

llama.cpp can guess the next few tokens cheaply and check the guesses in one batch
(speculative decoding). The guesses here come from n-grams already in the context (no draft
model to load): an agent's reply often copies a city, a figure or a tool name from its prompt.
At temperature 0 the output should not change; a batch is not computed in exactly the same
order as one token at a time, though, so a near tie can come out the other way.

1. `capture`: reactlab's server in this process, on a free loopback port, with every
   `engine.generate` call logged (prompt, options, text, time) to
   `results/archive/speculative_calls.jsonl`; `run_agents.py` runs the tasks (both protocols,
   the defaults) against it in a child process. One model loaded.
2. `replay`: for each setting in SETTINGS, the engine alone in this process replays the first
   `--calls` logged calls in order (the prefix cache sees what it saw when they were logged)
   and times them; a reply is *identical* when its text equals the logged one. Settings run
   one after another, so the ratios are side by side in one run. Writes `results/speculative.md`
   (`--out` another file; `--only` the settings whose names contain one of the given words).

The same replay measures one setting that is not speculation: llama.cpp's KV chunk reuse
(`--cache-reuse` in its server). A ReAct scratchpad puts the model's last reply inside the next
user message, so the reply is read again as prompt at a new position; with chunk reuse, llama.cpp
shifts the cached tokens there instead of reading them again. Their cache was computed after
other tokens, though, so the replies that follow can change (`results/cache_reuse.md`).

This measures; it does not change the server (`reactlab.server.engines` runs without
speculation and without chunk reuse). Not used by any notebook.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
CALLS = HERE / "results" / "archive" / "speculative_calls.jsonl"
OUT = HERE / "results" / "speculative.md"
# the twelve tasks the archived capture ran (both protocols): 1-5 calls, both languages
TASKS = "t05,t13,t14,t19,t21,t25,t31,t42,t47,t54,t58,t66"

# name -> llama.cpp speculative settings (`speculative.types` and sub-settings)
SETTINGS: dict[str, dict] = {
    "off (today's server)": {},
    "n-gram, key 12, draft up to 48 (llama.cpp's defaults)": {"types": ["NGRAM_SIMPLE"]},
    "n-gram, key 3, draft up to 3": {"types": ["NGRAM_SIMPLE"], "sub": {
        "ngram_simple.size_n": 3, "ngram_simple.size_m": 3}},
    "KV chunk reuse, chunks of 16 tokens or more": {"params": {"n_cache_reuse": 16}},
}


def apply(params, setting: dict) -> None:
    """Put one SETTINGS entry on xllamacpp's CommonParams (no model is loaded here).

    Example: apply(p, {"types": ["NGRAM_SIMPLE"], "sub": {"ngram_simple.size_n": 3}})
    A "params" entry sets CommonParams' own fields: {"params": {"n_cache_reuse": 16}}.
    """
    for key, value in setting.get("params", {}).items():
        setattr(params, key, value)  # a misspelt field raises AttributeError naming it
    if "types" not in setting:
        return
    import xllamacpp as xlc

    kinds = xlc.common_speculative_type
    params.speculative.types = [getattr(kinds, "COMMON_SPECULATIVE_TYPE_" + t)
                                for t in setting["types"]]
    for key, value in setting.get("sub", {}).items():
        group, name = key.split(".")
        setattr(getattr(params.speculative, group), name, value)


def _engine(setting: dict, log: Path | None = None):
    """The 1.5B engine with `setting`, optionally logging every generate call to `log`."""
    from reactlab.server import engines

    plain = engines.params

    def with_setting(*args, **kwargs):
        p = plain(*args, **kwargs)
        apply(p, setting)
        return p

    engines.params = with_setting
    try:
        engine = engines.XllamacppEngine("1.5b")
    finally:
        engines.params = plain
    if log is not None:
        generate = engine.generate

        def logged(prompt, **options):
            start = time.perf_counter()
            g = generate(prompt, **options)
            kept = {k: v for k, v in options.items() if k != "on_text"}
            with log.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"prompt": prompt, "options": kept, "text": g.text,
                                    "s": round(time.perf_counter() - start, 3)},
                                   ensure_ascii=False) + "\n")
            return g

        engine.generate = logged
    return engine


def capture(tasks: str) -> None:
    from reactlab.server.app import serve_in_thread
    from reactlab.server.scheduler import ModelPool

    CALLS.unlink(missing_ok=True)
    engine = _engine({}, log=CALLS)
    pool = ModelPool(lambda name: engine, engine.model)
    pool.engines[engine.model] = engine
    runs = CALLS.with_name("speculative_runs.jsonl")
    runs.unlink(missing_ok=True)
    with serve_in_thread(pool) as url:
        env = {**os.environ, "REACTLAB_PORT": str(urlsplit(url).port), "REACTLAB_TODAY": "2026-03-01"}
        from benchmarks.tasks import TASKS as ALL

        ids = ",".join(t.id for t in ALL if t.id.split("_")[0] in tasks.split(","))
        subprocess.run([sys.executable, str(HERE / "run_agents.py"), "--order", "task",
                        "--tasks", ids, "--out", str(runs)], env=env, check=True, cwd=ROOT)
    pool.close()
    print(f"{sum(1 for _ in CALLS.open(encoding='utf-8'))} calls logged in {CALLS}")


def chosen(only: str | None) -> dict[str, dict]:
    """The SETTINGS whose names contain one of the comma-separated words (all without `only`).

    Example: list(chosen("off,KV")) -> ["off (today's server)", "KV chunk reuse, …"]
    """
    if not only:
        return dict(SETTINGS)
    words = [w.strip() for w in only.split(",") if w.strip()]
    picked = {k: v for k, v in SETTINGS.items() if any(w in k for w in words)}
    if not picked:
        raise SystemExit(f"--only {only!r} matches no setting: {', '.join(SETTINGS)}")
    return picked


def replay(n: int, only: str | None = None, out: Path | None = None) -> None:
    calls = [json.loads(line) for line in CALLS.open(encoding="utf-8")][:n]
    rows = []
    for name, setting in chosen(only).items():
        engine = _engine(setting)
        engine.generate("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", max_tokens=4)
        same = drafted = accepted = 0
        wall = gen_ms = prompt_ms = 0.0
        for c in calls:
            start = time.perf_counter()
            g = engine.generate(c["prompt"], **c["options"])
            wall += time.perf_counter() - start
            same += g.text == c["text"]
            gen_ms += g.timings.get("predicted_ms", 0)
            prompt_ms += g.timings.get("prompt_ms", 0)
            drafted += g.timings.get("draft_n", 0)
            accepted += g.timings.get("draft_n_accepted", 0)
        engine.close()
        rows.append((name, wall, gen_ms / 1000, prompt_ms / 1000, same, drafted, accepted))
        print(f"{name}: {wall:.1f} s, identical {same}/{len(calls)}")
    write(rows, len(calls), out, only)


def write(rows: list[tuple], n: int, out: Path | None = None, only: str | None = None) -> None:
    out = out or OUT  # read at call time, so a test can point OUT elsewhere
    base = rows[0]
    args = f" --only {only}" if only else ""
    if out != OUT:
        args += f" --out {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}"
    lines = [
        "# Engine settings replayed on logged agent calls",
        "",
        (f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC by "
         f"`benchmarks/bench_speculative.py replay --calls {n}{args}`: the first {n} engine calls "
         "logged while the defaults ran the tasks, replayed in order on the 1.5B (2 threads), "
         "one setting after another in one run. Ratios are against the first row."),
        "",
        ("| setting | wall s | ratio | generating s | reading the prompt s | identical replies "
         "| drafted tokens | accepted |"),
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, wall, gen, prompt, same, drafted, accepted in rows:
        lines.append(f"| {name} | {wall:.1f} | {wall / base[1]:.2f} | {gen:.1f} | {prompt:.1f} "
                     f"| {same}/{n} | {drafted} | {accepted} |")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="phase", required=True)
    c = sub.add_parser("capture", help="log the engine calls of a suite run")
    c.add_argument("--tasks", default=TASKS, help="short task ids, comma-separated")
    r = sub.add_parser("replay", help="replay the logged calls under each setting")
    r.add_argument("--calls", type=int, default=50)
    r.add_argument("--only", help="settings whose names contain one of these comma-separated words")
    r.add_argument("--out", type=Path, default=OUT, help="the report (default: %(default)s)")
    args = p.parse_args(argv)
    if args.phase == "capture":
        capture(args.tasks)
    else:
        replay(args.calls, args.only, args.out.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
