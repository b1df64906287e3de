"""Build benchmarks/results/bfcl.md from the BFCL harness's JSONL records (`benchmarks/bfcl.py`).

One table: accuracy per category and pooled, for every label side by side, with n and a 95 %
Wilson interval, and the ratio between two labels; then the published reference row for plain
Qwen2.5-1.5B-Instruct, quoted (not measured); latency and BFCL's error types per label.

It only reads records, so it can be re-run at any time. It does not run a model or need
bfcl-eval. Usage: .venv/bin/python benchmarks/bfcl.py --report [--out FILE] [--ratio A B]
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from pathlib import Path

from benchmarks.bfcl_data import CATEGORIES, DATA_VERSION, read_jsonl
from benchmarks.report import wilson

AST = ("simple", "multiple", "parallel", "parallel_multiple")
# Published BFCL V3 leaderboard row for Qwen2.5-1.5B-Instruct (FC); the Coder model has none.
REFERENCE = {"model": "Qwen2.5-1.5B-Instruct (FC), BFCL V3 leaderboard",
             "non_live_ast": 79.1, "live": 64.8, "irrelevance": 62.7}


def latest(records: list[dict]) -> dict[str, dict[str, dict]]:
    """label -> id -> the last record of that case (records with a request error are kept
    only while no answered record exists, and count as failures)."""
    out: dict[str, dict[str, dict]] = {}
    for r in records:
        cases = out.setdefault(r["label"], {})
        old = cases.get(r["id"])
        if old is None or not r.get("request_error") or old.get("request_error"):
            cases[r["id"]] = r
    return out


def accuracy(recs: list[dict]) -> tuple[int, int]:
    """(successes, n). Example: accuracy([{"ok": True}, {"ok": False}]) -> (1, 2)"""
    return sum(1 for r in recs if r.get("ok")), len(recs)


def cell(k: int, n: int) -> str:
    """Example: cell(15, 20) -> "75 % (15/20) [53–89]" """
    if n == 0:
        return "—"
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.0f} % ({k}/{n}) [{100 * lo:.0f}–{100 * hi:.0f}]"


def ratio(a: tuple[int, int], b: tuple[int, int]) -> str:
    """Accuracy of A over accuracy of B. Example: ratio((15, 20), (10, 20)) -> "1.50" """
    if a[1] == 0 or b[1] == 0 or b[0] == 0:
        return "—"
    return f"{(a[0] / a[1]) / (b[0] / b[1]):.2f}"


def run_days(recs: list[dict]) -> str:
    """The days (UTC) a label's records were made, from their `at` stamps: "2026-12-07", or
    "2026-12-01 – 2026-12-07" over several days, "—" without stamps.
    Example: run_days([{"at": "2026-12-07T15:20:36"}]) -> "2026-12-07"
    """
    days = sorted({str(r["at"])[:10] for r in recs if r.get("at")})
    if not days:
        return "—"
    return days[0] if len(days) == 1 else f"{days[0]} – {days[-1]}"


def sampled(recs: list[dict]) -> str:
    """How the cases were drawn, from the records' seeds (a record without one used seed 0).
    Example: sampled([{"seed": 5}]) -> "a fixed seeded sample per category (seed 5)"
    """
    seeds = sorted({r.get("seed", 0) for r in recs})
    if len(seeds) == 1:
        return f"a fixed seeded sample per category (seed {seeds[0]})"
    return (f"the seeded samples of seeds {', '.join(map(str, seeds))} pooled, a case that "
            "two samples drew counted once")


def build(records: list[dict], pair: list[str] | None = None) -> str:
    by_label = latest(records)
    labels = list(by_label)
    if pair and not all(p in by_label for p in pair):
        raise ValueError(f"--ratio {' '.join(pair)}: the records hold only the labels "
                         f"{', '.join(labels) or '(none)'}.")
    pair = pair or (labels[:2] if len(labels) >= 2 else None)
    rows = [(c, (c,)) for c in CATEGORIES] + [("non-live AST (4 categories pooled)", AST),
                                              ("all 5 categories", tuple(CATEGORIES))]
    head = ["category", *labels] + ([f"{pair[0]} / {pair[1]}"] if pair else [])
    lines = ["# BFCL (non-live) on OpenAI-compatible endpoints", "",
             (f"Generated {time.strftime('%Y-%m-%d %H:%M')} by `benchmarks/bfcl.py --report` "
             f"from {sum(len(v) for v in by_label.values())} case records."), "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, cats in rows:
        stats = {lab: accuracy([r for r in by_label[lab].values() if r["category"] in cats])
                 for lab in labels}
        cells = [cell(*stats[lab]) for lab in labels]
        if pair:
            cells.append(ratio(stats[pair[0]], stats[pair[1]]))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    ref = REFERENCE
    sizes = sorted({len([r for r in by_label[lab].values() if r["category"] == cat])
                    for lab in labels for cat in CATEGORIES} - {0})
    spread = (f"with {sizes[0]} cases per category an interval spans about "
              f"±{100 * 1.96 * (0.25 / sizes[0]) ** 0.5:.0f} points" if len(sizes) == 1 else
              f"with {sizes[0]}–{sizes[-1]} cases per category an interval spans "
              f"±{100 * 1.96 * (0.25 / sizes[-1]) ** 0.5:.0f} points or more" if sizes else
              "with so few cases an interval is wide")
    lines += ["", (f"Reference, quoted, not measured here: {ref['model']}: non-live AST "
              f"{ref['non_live_ast']} %, live {ref['live']} %, irrelevance {ref['irrelevance']} %. "
              "It is the general instruct model, not the Coder model measured above, and the "
              "leaderboard averages all non-live cases (simple over Python, Java and "
              "JavaScript), not a sample of it."), "",
              (f"Cells: accuracy (successes/n) [95 % Wilson interval]; {spread} around 50 %, "
               "so read per-category differences with care."
               + (" The ratio divides the two accuracies." if pair else "")),
              "", "## Runs", "",
              ("Latency is the wall time per case on the machine the label ran on. Labels run "
               "at different times may have run on different machines (`bfcl_notes.md` says "
               "which ran together): compare times only between labels run together."), "",
              ("| label | model | base URL | run (UTC) | cases | request errors "
               "| latency median / mean |"),
              "|---|---|---|---|---|---|---|"]
    for lab in labels:
        recs = list(by_label[lab].values())
        lat = [r["latency_s"] for r in recs if r.get("latency_s") is not None]
        lat_text = (f"{statistics.median(lat):.1f} s / {statistics.mean(lat):.1f} s"
                    if lat else "—")
        errors = sum(1 for r in recs if r.get("request_error"))
        lines.append(f"| {lab} | {recs[0].get('model')} | {recs[0].get('base_url')} | "
                     f"{run_days(recs)} | {len(recs)} | {errors} | {lat_text} |")
    lines += ["", "## Failures by BFCL error type", ""]
    for lab in labels:
        kinds = Counter(r.get("error_type") or ("request error" if r.get("request_error")
                                                 else "?")
                        for r in by_label[lab].values() if not r.get("ok"))
        text = ", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "none"
        lines.append(f"- {lab}: {text}")
    lines += ["", "## Method", "",
              (f"BFCL data `{DATA_VERSION}_*.json` from bfcl-eval; "
               f"{sampled([r for v in by_label.values() for r in v.values()])}; the same ids "
              "for every label; `simple` is BFCL's simple_python. One "
              "request per case: the question, `tools=` converted as BFCL converts them for "
              "OpenAI models, `tool_choice=\"auto\"`, `parallel_tool_calls=true`, `temperature=0`, "
               "`max_tokens=512`, no "
              "system prompt. The calls are scored by BFCL's own `ast_checker`; irrelevance "
              "succeeds when no call is made. A request error counts as a failure."), ""]
    return "\n".join(lines)


def write_report(runs: Path, out: Path, pair: list[str] | None = None) -> str:
    records = read_jsonl(runs) if runs.is_file() else []
    if not records:
        raise SystemExit(f"No records in {runs}: run benchmarks/bfcl.py against an endpoint first.")
    text = build(records, pair)
    out.write_text(text, encoding="utf-8")
    return text
