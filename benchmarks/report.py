"""Build benchmarks/results/agents.md (+ plots) from the runner's JSONL records.

Tables: what ran; success rate per configuration (with a 95 % Wilson interval, since a few
dozen tasks are a small sample), steps, time and tokens per run, tokens per solved task;
failure modes per configuration; success by task kind; every task x configuration; one
example transcript per failure mode; the machine and versions. Plots: success rate, tokens
per solved task, failure modes (PNG, matplotlib).

It only reads records: it never runs a model, so it can be re-run at any time, also while the
runner is still appending. Records of tasks that changed since they ran are ignored (counted as
stale). Usage: .venv/bin/python benchmarks/report.py [--runs FILE] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.scoring import MODE_TEXT, MODES, reclassify
from benchmarks.tasks import QUICK_IDS, TASKS, TASKS_BY_ID, TODAY, suite_digest

RESULTS = ROOT / "benchmarks" / "results"
KINDS = ("no_tool", "1_call", "2_calls", "3_calls", "4_calls", "5_calls", "docs", "fails_once",
         "fails_always", "unknown")


def latest(records: list[dict]) -> tuple[list[dict], int]:
    """The last record per (config, task) whose task is unchanged; and how many were stale."""
    digests = {t.id: t.digest() for t in TASKS}
    keep: dict[tuple[str, str], dict] = {}
    stale = 0
    for r in records:
        if digests.get(r.get("task")) != r.get("task_digest"):
            stale += 1
            continue
        # the failure-mode rules may have been refined since the run: apply the current ones
        success, mode = reclassify(r)
        keep[(r["config"], r["task"])] = {**r, "success": success, "mode": mode}
    return list(keep.values()), stale


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % interval for a success rate. Example: wilson(24, 30) -> (0.63, 0.90)."""
    if n == 0:
        return 0.0, 0.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def summarise(runs: list[dict]) -> dict:
    n = len(runs)
    solved = [r for r in runs if r["success"]]
    tokens = sum(r["total_tokens"] for r in runs)
    prompt = sum(r["prompt_tokens"] for r in runs)
    lo, hi = wilson(len(solved), n)
    return {
        "n": n, "solved": len(solved), "rate": len(solved) / n if n else 0.0, "lo": lo, "hi": hi,
        "steps": sum(r["steps"] for r in runs) / n if n else 0.0,
        "wall": sum(r["wall_s"] for r in runs) / n if n else 0.0,
        "wall_total": sum(r["wall_s"] for r in runs),
        "tokens": tokens / n if n else 0.0,
        "per_solved": tokens / len(solved) if solved else float("nan"),
        "cached": sum(r["cached_tokens"] for r in runs) / prompt if prompt else 0.0,
        "modes": Counter(r["mode"] for r in runs if not r["success"]),
        "after_budget": sum(r.get("after_budget", False) for r in runs),
    }


def config_order(configs: list[str]) -> list[str]:
    from benchmarks.run_agents import ALL, DEFAULT, EXTENDED, PROVIDER

    known = [c.id for c in DEFAULT + EXTENDED + ALL + PROVIDER]
    rank = {c: i for i, c in enumerate(dict.fromkeys(known))}
    return sorted(configs, key=lambda c: (rank.get(c, 10_000), c))


def short(config: str) -> str:
    """Example: "react-json|guards-on|cd-off|1.5b" -> "react-json · guards on · CD off · 1.5b"."""
    parts = config.split("|")
    if len(parts) != 4:
        return config
    return f"{parts[0]} · {parts[1].replace('-', ' ')} · {parts[2].replace('cd-', 'CD ')} · {parts[3]}"


def _fmt(x: float, digits: int = 0) -> str:
    return "—" if math.isnan(x) else f"{x:,.{digits}f}"


# --- machine and versions -------------------------------------------------------------------

def machine() -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kb = int(next(x for x in Path("/proc/meminfo").read_text().splitlines()
                      if x.startswith("MemTotal")).split()[1])
        mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    vers = []
    for pkg in ("reactlab", "openai", "xllamacpp", "fastapi", "uvicorn"):
        try:
            vers.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            vers.append(f"{pkg} (not installed)")
    models = []
    try:
        from reactlab.config import reactlab_home

        for f in sorted((reactlab_home() / "models").glob("*.verified.json")):
            info = json.loads(f.read_text())
            sha = info.get("sha256") or info.get("sha") or "?"
            models.append(f"{f.name.removesuffix('.verified.json')} (sha256 {str(sha)[:16]}…)")
    except Exception:  # noqa: BLE001 - the report must not fail on a missing cache
        models = []
    return [f"- CPU: {cpu}, {os.cpu_count()} cores; memory {mem}; no GPU",
            f"- OS: {platform.platform()}; Python {platform.python_version()}",
            f"- Packages: {', '.join(vers)}",
            f"- Local models (GGUF, Q4_K_M): {'; '.join(models) or 'not found in the cache'}",
            ("- Server: `reactlab.server` (xllamacpp, one generation at a time, prompt cache on); "
            "agents at temperature 0, max 6 steps, max_tokens 512 per reply"),
            f"- Tools pinned: REACTLAB_TODAY={TODAY}, weather from the bundled snapshot"]


# --- plots ----------------------------------------------------------------------------------

def plots(stats: dict[str, dict], order: list[str], out: Path) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    labels = [short(c).replace(" · ", "\n") for c in order]
    files = []
    width = max(6.0, 1.25 * len(order))

    fig, ax = plt.subplots(figsize=(width, 4))
    rates = [100 * stats[c]["rate"] for c in order]
    err = [[100 * (stats[c]["rate"] - stats[c]["lo"]) for c in order],
           [100 * (stats[c]["hi"] - stats[c]["rate"]) for c in order]]
    ax.bar(range(len(order)), rates, yerr=err, capsize=4, color="#4C72B0")
    ax.axhline(80, color="#C44E52", linestyle="--", linewidth=1, label="goal 80 %")
    for i, c in enumerate(order):
        ax.text(i + 0.05, min(rates[i], 92) + 2, f"{stats[c]['solved']}/{stats[c]['n']}",
                ha="left", fontsize=8)
    ax.set_xticks(range(len(order)), labels, fontsize=7)
    ax.set_ylim(0, 100)
    ax.set_ylabel("tasks solved (%)")
    ax.set_title("Success rate per configuration (95 % Wilson interval)")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "agents_success.png", dpi=110)
    plt.close(fig)
    files.append("agents_success.png")

    fig, ax = plt.subplots(figsize=(width, 4))
    vals = [stats[c]["per_solved"] if stats[c]["solved"] else 0 for c in order]
    ax.bar(range(len(order)), vals, color="#55A868")
    ax.set_xticks(range(len(order)), labels, fontsize=7)
    ax.set_ylabel("tokens (prompt + completion)")
    ax.set_title("Tokens spent per solved task (all runs' tokens / tasks solved)")
    fig.tight_layout()
    fig.savefig(out / "agents_tokens.png", dpi=110)
    plt.close(fig)
    files.append("agents_tokens.png")

    fig, ax = plt.subplots(figsize=(width, 4))
    bottom = [0.0] * len(order)
    colours = ["#8172B2", "#CCB974", "#64B5CD", "#DD8452", "#C44E52", "#DA8BC3", "#937860"]
    for mode, colour in zip(MODES, colours):
        counts = [stats[c]["modes"].get(mode, 0) for c in order]
        if any(counts):
            ax.bar(range(len(order)), counts, bottom=bottom, label=mode, color=colour)
            bottom = [b + x for b, x in zip(bottom, counts)]
    ax.set_xticks(range(len(order)), labels, fontsize=7)
    ax.set_ylabel("failed runs")
    ax.set_title("Failure modes per configuration")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "agents_failures.png", dpi=110)
    plt.close(fig)
    files.append("agents_failures.png")
    return files


# --- the markdown ---------------------------------------------------------------------------

def _example(r: dict) -> list[str]:
    task = TASKS_BY_ID[r["task"]]
    lines = [f"**{r['mode']}** — `{short(r['config'])}`, task `{r['task']}`: {task.question}",
             f"status `{r['status']}`, {r['steps']} steps; checker missing: "
             f"{', '.join(r['missing']) or '—'}"
             + (f"; facts never fetched: {', '.join(r['needs_unmet'])}" if r.get("needs_unmet")
                else ""), "", "```"]
    for s in r["trace"][-4:]:
        text = (s.get("text") or "").strip().replace("```", "'''")
        lines.append(f"[{s['n']}] {s['kind']}: {text[:300]}")
        for name, args, obs, err in s.get("calls", []):
            lines.append(f"     -> {name}({json.dumps(args, ensure_ascii=False)[:120]})"
                         f"{' ERROR' if err else ''}: {str(obs)[:160]}")
        if s.get("error"):
            lines.append(f"     parse error: {s['error'][:160]}")
        for e in s.get("events", []):
            lines.append(f"     guard: {e}")
    lines.append(f"answer: {str(r['answer'])[:300]}")
    lines += ["```", ""]
    return lines


def build(records: list[dict], out: Path, source: str = "benchmarks/results/agents_runs.jsonl") -> str:
    runs, stale = latest(records)
    by_config: dict[str, list[dict]] = defaultdict(list)
    for r in runs:
        by_config[r["config"]].append(r)
    order = config_order(list(by_config))
    stats = {c: summarise(by_config[c]) for c in order}
    files = plots(stats, order, out) if order else []
    n_tasks = len(TASKS)
    kinds = Counter(t.kind for t in TASKS)
    quick = set(QUICK_IDS)

    L = ["# Agent benchmark: how well the agents solve the task suite", "",
         f"Generated by `benchmarks/report.py` on {time.strftime('%Y-%m-%d %H:%M')} from "
         f"`{source}` ({len(runs)} runs; suite {suite_digest()}: "
         f"{n_tasks} tasks in Chinese and English, 0-{max(t.calls for t in TASKS)} tool calls, "
         f"{kinds['docs']} long-document, {kinds['fails_once']} with a tool that fails once, "
         f"{kinds['fails_always']} with a tool that fails for good, {kinds['unknown']} about an "
         "unknown stock; see `benchmarks/tasks.py`)."
         + (f" {stale} older records of since-changed tasks were ignored." if stale else ""), ""]
    if not order:
        return "\n".join(L + ["No runs recorded yet: run `benchmarks/run_agents.py`.", ""])

    L += ["## What ran", "",
          "| configuration | tasks run | task set | wall time (min) | mean s/run |",
          "|---|---|---|---|---|"]
    for c in order:
        ids = {r["task"] for r in by_config[c]}
        subset = ("all" if len(ids) == n_tasks else "quick subset" if ids <= quick and
                  len(ids) == len(quick) else f"partial ({len(ids)}/{n_tasks})")
        L.append(f"| `{short(c)}` | {len(ids)} | {subset} | {stats[c]['wall_total'] / 60:.1f} | "
                 f"{stats[c]['wall']:.0f} |")
    L += ["", ("Configurations not listed did not run. Protocols: `react-json` = text ReAct, "
          "JSON-blob style; `react-action_input` = text ReAct, `Action:`/`Action Input:` style "
          "(both with the scratchpad layout and `stop=[\"Observation:\"]`); `native` = native "
          "`tool_calls`. Guards on = the defaults before the levers were kept, `Guards.basic()` "
          "today (observation compaction at 2,000 characters, loop detector, 3 parse errors, a "
          "tool-naming plan sent back once); levers = `Guards.on()`, the agents' defaults now: "
          "on plus the grader's corrections, the quiet retry, calls held back until their "
          "figures arrive and the hints that name the next call (chained, with up to 4 hinted "
          "fetches not counted as steps, and the aggregate hint; the per-day hint came after "
          "these rows and changed no outcome on the seven tasks it can act on), and the ReAct "
          "closing request "
          "as plain chat (`benchmarks/results/levers.md`; its rows are the latest run of each "
          "task, so they follow the defaults as they changed); grounding = an earlier grounding "
          "check that showed the model its rejected draft; off = `Guards.off()` (step budget "
          "only). CD = "
          "constrained decoding: native `tool_choice=\"required\"` on the first request; "
          "react-json a JSON schema for every reply (see `benchmarks/README.md`)."), "",
          "## Success per configuration", ""]
    if files:
        L += [f"![success rate]({files[0]})", ""]
    L += [("| configuration | solved | rate | 95 % interval | mean steps | mean s/run | "
          "tokens/run | tokens per solved task | cached prompt share | solved after a budget "
          "ran out |"), "|---|---|---|---|---|---|---|---|---|---|"]
    for c in order:
        s = stats[c]
        L.append(f"| `{short(c)}` | {s['solved']}/{s['n']} | **{100 * s['rate']:.0f} %** | "
                 f"{100 * s['lo']:.0f}-{100 * s['hi']:.0f} % | {s['steps']:.1f} | {s['wall']:.0f} | "
                 f"{_fmt(s['tokens'])} | {_fmt(s['per_solved'])} | {100 * s['cached']:.0f} % | "
                 f"{s['after_budget']} |")
    partial = [c for c in order if len({r["task"] for r in by_config[c]}) < n_tasks]
    if partial and len(order) > len(partial):
        L += ["", ("Configurations that ran only some tasks are not comparable with the others "
              "on the rates above. On the same quick subset of "
              f"{len(quick)} tasks (`{', '.join(QUICK_IDS)}`), every configuration:"), "",
              "| configuration | solved (quick subset) |", "|---|---|"]
        for c in order:
            sub = [r for r in by_config[c] if r["task"] in quick]
            if sub:
                k = sum(r["success"] for r in sub)
                L.append(f"| `{short(c)}` | {k}/{len(sub)} ({100 * k / len(sub):.0f} %) |")
    if len(files) > 1:
        L += ["", f"![tokens per solved task]({files[1]})"]

    L += ["", "## Failure modes", "", ("Each failed run gets exactly one mode, decided from the "
          "RunResult in this order (`benchmarks/scoring.py`):"), ""]
    L += [f"- `{m}`: {MODE_TEXT[m]}" for m in MODES]
    L += ["", "| configuration | failed | " + " | ".join(MODES) + " |",
          "|---|---|" + "---|" * len(MODES)]
    for c in order:
        s = stats[c]
        L.append(f"| `{short(c)}` | {s['n'] - s['solved']} | "
                 + " | ".join(str(s["modes"].get(m, 0) or "·") for m in MODES) + " |")
    if len(files) > 2:
        L += ["", f"![failure modes]({files[2]})"]

    L += ["", "## Success by task kind", "", "| configuration | " + " | ".join(KINDS) + " |",
          "|---|" + "---|" * len(KINDS)]
    for c in order:
        cells = []
        for k in KINDS:
            sub = [r for r in by_config[c] if r["kind"] == k]
            cells.append(f"{sum(r['success'] for r in sub)}/{len(sub)}" if sub else "·")
        L.append(f"| `{short(c)}` | " + " | ".join(cells) + " |")

    letter = {"solved": "✓", "provider_error": "P", "loop": "L", "format_error": "F",
              "step_limit": "S", "invented_data": "I", "incomplete": "H",
              "wrong_answer": "W"}
    L += ["", "## Every task", "", ("✓ solved · W wrong answer · H incomplete (half an answer) · I invented data · "
          "F format error · "
          "S step limit · L loop · P provider error · (blank) not run"), "",
          "| task | kind | " + " | ".join(f"C{i + 1}" for i in range(len(order))) + " |",
          "|---|---|" + "---|" * len(order)]
    index = {(r["config"], r["task"]): r for r in runs}
    for t in TASKS:
        L.append(f"| `{t.id}` | {t.kind} | " + " | ".join(
            letter.get(index[(c, t.id)]["mode"], "?") if (c, t.id) in index else " "
            for c in order) + " |")
    L += [""] + [f"C{i + 1} = `{short(c)}`  " for i, c in enumerate(order)]

    L += ["", "## One example per failure mode", ""]
    seen = set()
    for c in order:
        for r in sorted(by_config[c], key=lambda r: r["task"]):
            if not r["success"] and r["mode"] not in seen:
                seen.add(r["mode"])
                L += _example(r)
    if not seen:
        L.append("No failures recorded.")
    notes = out / "agents_notes.md"
    if notes.exists():  # hand-written notes on how this run went (load, re-plans)
        L += [notes.read_text(encoding="utf-8").strip(), ""]
    L += ["## Machine and versions", ""] + machine() + [
        "", ("Wall times depend on what else used the 2 cores during the run (the notes above "
        "say); token counts and success rates do not depend on load."), ""]
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    from benchmarks.run_agents import DEFAULT_OUT, load_records

    ap = argparse.ArgumentParser(description="Write benchmarks/results/agents.md and plots.")
    ap.add_argument("--runs", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        source = str(args.runs.resolve().relative_to(ROOT))
    except ValueError:
        source = str(args.runs)
    text = build(load_records(args.runs), args.out, source)
    (args.out / "agents.md").write_text(text, encoding="utf-8")
    print(f"wrote {args.out / 'agents.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
