"""Where `make test`'s model pass spends its time: reading prompts, generating, or elsewhere?

    .venv/bin/python benchmarks/profile_test_pass.py run       # the model pass, ~20-25 min
    .venv/bin/python benchmarks/profile_test_pass.py report    # results/test_time.md again

`run` starts reactlab's server in this process on a free loopback port, with the 1.5B engine's
`generate` wrapped to log every call (llama.cpp's own timings: prompt tokens read and their
milliseconds, tokens generated and theirs, cached tokens, why the reply ended) to
`results/archive/test_pass_calls.jsonl`, then runs what `make test` runs second,
`pytest -m model` (the real-model tests and every notebook and solutions notebook, one at a
time), against it in a child process, with pytest's per-item times in
`results/archive/test_pass_junit.xml`. One model loaded; the machine should be otherwise idle.
`report` turns both files into `results/test_time.md`.

The pass here is the same work as `make test`'s second pass; only the server differs (in this
process instead of `reactlab start`'s background process: same engine, same settings). This
measures and changes nothing; no notebook or test imports it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
CALLS = HERE / "results" / "archive" / "test_pass_calls.jsonl"
JUNIT = HERE / "results" / "archive" / "test_pass_junit.xml"
META = HERE / "results" / "archive" / "test_pass_meta.json"  # wall time, exit code, machine
OUT = HERE / "results" / "test_time.md"
NOTES = "## Notes (hand-written)"  # this section of OUT survives `report`
KEEP = 300  # characters of each prompt's end and each reply's start kept in the log


def logged_engine(log: Path):
    """The 1.5B engine, every `generate` call appended to `log` as one JSON line."""
    from reactlab.server import engines

    engine = engines.XllamacppEngine("1.5b")
    generate = engine.generate

    def wrapped(prompt, **options):
        start = time.perf_counter()
        g = generate(prompt, **options)
        row = {"t": round(time.time(), 3), "s": round(time.perf_counter() - start, 3),
               "timings": g.timings, "prompt_tokens": g.prompt_tokens,
               "cached": g.cached_tokens, "completion": g.completion_tokens,
               "schema": options.get("json_schema") is not None,
               "max_tokens": options.get("max_tokens"), "finish": g.finish_reason,
               "prompt": prompt[-KEEP:], "text": g.text[:KEEP]}
        with log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        return g

    engine.generate = wrapped
    return engine


def run() -> int:
    from reactlab.server.app import serve_in_thread
    from reactlab.server.scheduler import ModelPool

    CALLS.unlink(missing_ok=True)
    engine = logged_engine(CALLS)
    pool = ModelPool(lambda name: engine, engine.model)
    pool.engines[engine.model] = engine
    started = time.perf_counter()
    with serve_in_thread(pool) as url:
        env = {**os.environ, "REACTLAB_PORT": str(urlsplit(url).port)}
        code = subprocess.run([sys.executable, "-m", "pytest", "-m", "model",
                               f"--junitxml={JUNIT}"], check=False, env=env,
                              cwd=ROOT).returncode
    pool.close()
    wall = time.perf_counter() - started
    from benchmarks.bench_server import machine

    META.write_text(json.dumps({"wall_s": round(wall, 1), "pytest_exit": code,
                                "machine": machine()}) + "\n", encoding="utf-8")
    print(f"pytest exited {code}; {wall:.0f} s; report: {report()}")
    return code


def summarize(calls: list[dict], items: list[tuple[str, str, float]]) -> dict:
    """Totals over the logged engine calls and pytest's items ((file, name, seconds)).

    Example: summarize([{"s": 2.0, "timings": {"prompt_n": 100, "prompt_ms": 2000.0,
    "predicted_n": 0, "predicted_ms": 0.0}, "prompt_tokens": 120, "cached": 20,
    "completion": 0, "finish": "stop"}], [("nb", "Cell 1", 2.5)])["engine_s"] -> 2.0
    """
    def t(c, key):
        return float((c.get("timings") or {}).get(key) or 0)

    cut = [c for c in calls if c.get("finish") == "length"]
    per_file = Counter()
    for file, _, seconds in items:
        per_file[file] += seconds
    return {
        "calls": len(calls),
        "engine_s": sum(c["s"] for c in calls),
        "prompt_s": sum(t(c, "prompt_ms") for c in calls) / 1000,
        "prompt_read": int(sum(t(c, "prompt_n") for c in calls)),
        "prompt_tokens": sum(c.get("prompt_tokens", 0) for c in calls),
        "cached": sum(c.get("cached", 0) for c in calls),
        "gen_s": sum(t(c, "predicted_ms") for c in calls) / 1000,
        "generated": int(sum(t(c, "predicted_n") for c in calls)),
        "cut": len(cut),
        "cut_gen_s": sum(t(c, "predicted_ms") for c in cut) / 1000,
        "cut_generated": int(sum(t(c, "predicted_n") for c in cut)),
        "items_s": sum(s for _, _, s in items),
        "per_file": per_file.most_common(),
        "slowest": sorted(items, key=lambda i: -i[2]),
        "slowest_reads": sorted(calls, key=lambda c: -t(c, "prompt_ms")),
        "cut_calls": cut,
    }


def junit_items(path: Path) -> list[tuple[str, str, float]]:
    """(file, item, seconds) for every test pytest ran, from its JUnit XML."""
    return [(tc.get("classname", ""), tc.get("name", ""), float(tc.get("time") or 0))
            for tc in ET.parse(path).iter("testcase")]


def _rate(tokens: float, seconds: float) -> str:
    return f"{tokens / seconds:.1f}" if seconds else "—"


def report() -> Path:
    calls = [json.loads(line) for line in CALLS.open(encoding="utf-8")]
    s = summarize(calls, junit_items(JUNIT))
    meta = json.loads(META.read_text(encoding="utf-8")) if META.exists() else {}
    wall = meta.get("wall_s") or s["items_s"]
    when = datetime.fromtimestamp(calls[-1]["t"], timezone.utc) if calls else None
    other = wall - s["engine_s"]
    lines = [
        "# Where the model pass of `make test` spends its time",
        "",
        (f"Measured {when:%Y-%m-%d %H:%M} UTC by `benchmarks/profile_test_pass.py run`: "
         "`pytest -m model` (what `make test` runs after the unit tests) against reactlab's "
         "server in the same process as the profiler, every engine call logged with "
         "llama.cpp's own timings."),
        "",
        meta.get("machine", "- machine: not recorded"),
        (f"- model pass: {wall:.0f} s ({wall / 60:.1f} min), pytest exit code "
         f"{meta.get('pytest_exit', '?')}; {len(calls)} engine calls"),
        "",
        "| where | seconds | share | tokens | tokens/s |",
        "|---|---:|---:|---:|---:|",
        (f"| reading prompts (not cached) | {s['prompt_s']:.0f} | {s['prompt_s'] / wall:.0%} "
         f"| {s['prompt_read']:,} | {_rate(s['prompt_read'], s['prompt_s'])} |"),
        (f"| generating | {s['gen_s']:.0f} | {s['gen_s'] / wall:.0%} | {s['generated']:,} "
         f"| {_rate(s['generated'], s['gen_s'])} |"),
        (f"| … of which replies cut at max_tokens ({s['cut']}) | {s['cut_gen_s']:.0f} "
         f"| {s['cut_gen_s'] / wall:.0%} | {s['cut_generated']:,} | |"),
        (f"| everything else (kernels, tools, HTTP, the tests' own code) | {other:.0f} "
         f"| {other / wall:.0%} | | |"),
        "",
        (f"Prompt tokens in all: {s['prompt_tokens']:,}, of which {s['cached']:,} "
         f"({s['cached'] / max(s['prompt_tokens'], 1):.0%}) came from llama.cpp's prompt "
         "cache and were not read again."),
        "",
        "## Per file",
        "",
        "| file | seconds |",
        "|---|---:|",
        *[f"| {f} | {sec:.0f} |" for f, sec in s["per_file"]],
        "",
        "## The 15 slowest items",
        "",
        "| item | seconds |",
        "|---|---:|",
        *[f"| {f} {n} | {sec:.1f} |" for f, n, sec in s["slowest"][:15]],
        "",
        "## The 8 longest prompt reads",
        "",
        "| read s | tokens read / in the prompt | prompt ends with |",
        "|---:|---|---|",
        *[f"| {c['timings'].get('prompt_ms', 0) / 1000:.1f} | {c['timings'].get('prompt_n', 0)} "
          f"/ {c.get('prompt_tokens', 0)} | `{_cell(c['prompt'][-90:])}` |"
          for c in s["slowest_reads"][:8]],
        "",
        "## Replies cut at max_tokens",
        "",
        "| generating s | tokens | reply begins |",
        "|---:|---:|---|",
        *[f"| {c['timings'].get('predicted_ms', 0) / 1000:.1f} | "
          f"{c['timings'].get('predicted_n', 0)} | `{_cell(c['text'][:110])}` |"
          for c in s["cut_calls"]],
        "",
    ]
    kept = OUT.read_text(encoding="utf-8").partition(NOTES) if OUT.exists() else ("", "", "")
    if kept[1]:
        lines += [NOTES + kept[2].rstrip("\n"), ""]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    return OUT


def _cell(text: str) -> str:
    """Text safe inside a markdown table cell and a code span. Example: 'a|b\\nc' -> 'a\\|b⏎c'"""
    return text.replace("|", "\\|").replace("`", "'").replace("\n", "⏎")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("run", "report"))
    args = ap.parse_args(argv)
    if args.what == "run":
        return run()
    print(report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
