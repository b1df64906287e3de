"""Send recorded BFCL cases again with the server's debug view on; keep what the help did.

A contrast tool for the server's help (`reactlab_debug`: which calls `assist` and `more_calls`
dropped, opened or kept), used beside benchmarks/bfcl.py when a rule of the help changes: it
takes the (seed, id) pairs of earlier records, so a change is measured on exactly the cases
those records hold, and writes one JSON line per case in the records' format, with the debug
view's `help` and `more` added. Scoring is bfcl.py's (BFCL's own checker).

What it does NOT do: draw samples (bfcl.py does), write bfcl.md, or talk to any server but
reactlab's (the debug view is reactlab's own). No notebook uses it.

Usage (server running, BFCL_EVAL_DIR set as for bfcl.py):
    .venv/bin/python benchmarks/bfcl_debug_run.py --label after \\
        --ids-from benchmarks/results/archive/bfcl_s36_contrast.jsonl:after \\
        --out benchmarks/results/archive/bfcl_s37_contrast.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bfcl import DEFAULT_BASE_URL, run_case
from benchmarks.bfcl_data import load_cases, read_jsonl

ORDER = ("parallel", "parallel_multiple", "multiple", "simple", "irrelevance")


def _order(pair: tuple[int, str, str]) -> tuple[int, int, str]:
    """Calling categories first (where the help acts), then by seed and id."""
    seed, category, cid = pair
    return ORDER.index(category), seed, cid


def pairs(spec: str) -> list[tuple[int, str, str]]:
    """(seed, category, id) of the records in FILE whose label is LABEL ("FILE:LABEL")."""
    path, _, label = spec.rpartition(":")
    out = [(r.get("seed", 0), r["category"], r["id"]) for r in read_jsonl(Path(path))
           if r.get("label") == label]
    return sorted(set(out), key=_order)


def main(argv: list[str] | None = None) -> int:
    from openai import OpenAI

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--ids-from", action="append", required=True, metavar="FILE:LABEL")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--base-url", default=DEFAULT_BASE_URL)
    ap.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    ap.add_argument("--max-tokens", type=int, default=512)
    a = ap.parse_args(argv)
    todo = sorted({p for spec in a.ids_from for p in pairs(spec)}, key=_order)
    done = ({(r.get("seed", 0), r["id"]) for r in read_jsonl(a.out)
             if r.get("label") == a.label and not r.get("request_error")}
            if a.out.is_file() else set())
    cases = {cat: {c["id"]: c for c in load_cases(cat)} for cat in {p[1] for p in todo}}
    client = OpenAI(base_url=a.base_url, api_key="none", timeout=300, max_retries=0)
    todo = [p for p in todo if (p[0], p[2]) not in done]
    print(f"{a.label}: {len(todo)} cases to run", flush=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    for i, (seed, cat, cid) in enumerate(todo, 1):
        rec = {"label": a.label, "seed": seed,
               **run_case(client, a.model, cases[cat][cid], a.max_tokens,
                          extra_body={"reactlab_debug": True})}
        with open(a.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        verdict = "request error" if rec["request_error"] else ("ok" if rec["ok"] else "wrong")
        print(f"[{i}/{len(todo)}] {seed} {cid}: {verdict} ({rec['latency_s']:.1f} s)",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
