"""How well `parse_react` reads replies it was NOT fitted to: the outside corpus.

Corpus: tests/data/react_outside.json, real replies collected from other projects' issue
trackers and test suites (recorded model responses in test cassettes, replies pasted in issues,
strings in parser tests), each with the parse we expect and its source. Every entry has a fixed
`split`, decided by a hash of its source address before the parser was changed: `dev` replies
may be read while improving the parser, `holdout` replies are only measured.

The script scores the current `reactlab.parsing` and, for comparison, the parser of an older
commit (`--baseline REV`, default: the commit before the outside corpus was used), which it
extracts with `git archive` into a temporary folder and runs in a subprocess. Offline: no model,
no network. Scoring is `parsers_compare.judge` (same kind; same tool and arguments, or the same
answer; a refusal where a refusal is expected).

Usage: .venv/bin/python benchmarks/parsers_outside.py [--baseline REV]
       -> benchmarks/results/parsers_outside.md, and the summary section of results/parsers.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # `benchmarks.parsers_compare` as a script; last, so --baseline wins

from benchmarks.parsers_compare import judge

CORPUS = ROOT / "tests" / "data" / "react_outside.json"
OWN_CORPUS = ROOT / "tests" / "data" / "react_outputs.json"
RESULTS = ROOT / "benchmarks" / "results"
BASELINE = "7a706c6"  # main when the outside corpus was collected: the parser before this work
MARK_BEGIN, MARK_END = "<!-- outside:begin -->", "<!-- outside:end -->"


def read(entries: list[dict]) -> list[dict]:
    """parse_react on every entry, as plain data (runs with whatever reactlab is importable)."""
    from reactlab.parsing import Action, FinalAnswer, parse_react

    out = []
    for e in entries:
        try:
            r = parse_react(e["text"])
        except Exception as exc:  # noqa: BLE001 - an exception is a result here
            out.append({"kind": "error", "error_type": type(exc).__name__,
                        "code": getattr(exc, "code", None), "message": str(exc)[:160]})
            continue
        if isinstance(r, Action):
            out.append({"kind": "action", "tool": r.tool, "args": r.args})
        elif isinstance(r, FinalAnswer):
            out.append({"kind": "final", "answer": r.answer})
        else:
            out.append({"kind": "other", "repr": repr(r)[:160]})
    return out


def read_with(rev: str, corpus: Path) -> list[dict]:
    """The same reading with reactlab as it was at git revision `rev`."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "reactlab"],
                             capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        env = {**os.environ, "PYTHONPATH": tmp + os.pathsep + str(ROOT),
               "REACTLAB_SKIP_MODEL": "1"}
        proc = subprocess.run([sys.executable, __file__, "--worker", str(corpus)],
                              capture_output=True, text=True, env=env, check=True, cwd=tmp)
    return json.loads(proc.stdout)


def score(entries: list[dict], results: list[dict]) -> dict:
    """{"dev": (correct, total), "holdout": (...), "all": (...)} and the verdict per entry."""
    verdicts = [judge(e["expected"], r) for e, r in zip(entries, results)]
    out: dict = {"verdicts": verdicts}
    for split in ("dev", "holdout", None):
        v = [x for x, e in zip(verdicts, entries) if split is None or e.get("split") == split]
        out[split or "all"] = (v.count("correct"), len(v))
    return out


def _pct(pair: tuple[int, int]) -> str:
    n, d = pair
    return f"{100 * n / d:.0f} % ({n}/{d})" if d else "—"


def build(entries: list[dict], now: dict, before: dict, own: dict, rev: str) -> tuple[str, str]:
    """(the full report, the short summary for parsers.md)."""
    repos: dict = {}
    for e in entries:
        repos[e["source"]["repo"]] = repos.get(e["source"]["repo"], 0) + 1
    kinds: dict = {}
    for e in entries:
        kinds[e["expected"]["kind"]] = kinds.get(e["expected"]["kind"], 0) + 1
    summary = [
        "## Outside corpus (replies the parser was not fitted to)", "",
        (f"`tests/data/react_outside.json`: {len(entries)} real replies from "
         f"{len(repos)} projects' issues and tests, split by a hash of the source "
         f"({now['dev'][1]} dev, {now['holdout'][1]} holdout). Full report: "
         f"`benchmarks/results/parsers_outside.md` (`benchmarks/parsers_outside.py`)."), "",
        "| parser | dev | holdout | all | own 55-reply corpus |",
        "|---|---|---|---|---|",
        (f"| `parse_react` before (git {rev}) | {_pct(before['dev'])} | "
         f"{_pct(before['holdout'])} | {_pct(before['all'])} | {_pct(own['before'])} |"),
        (f"| `parse_react` now | {_pct(now['dev'])} | {_pct(now['holdout'])} | "
         f"{_pct(now['all'])} | {_pct(own['now'])} |"), ""]
    lines = ["# parse_react on the outside corpus", "",
             f"Generated by `benchmarks/parsers_outside.py` on {time.strftime('%Y-%m-%d %H:%M')}.",
             "",
             ("Sources: " + ", ".join(f"{r} ({n})" for r, n in
                                      sorted(repos.items(), key=lambda kv: -kv[1])) + ". "
              "Expected: " + ", ".join(f"{k} {n}" for k, n in kinds.items()) + "."), "",
             *summary[4:],
             ("The dev part was read while the parser was changed; the holdout part was only "
              "measured, so the holdout figure is the estimate of how the parser does on replies "
              "it has not seen. How far to trust it: (1) the first 166 replies were collected and "
              "split before any parser change; the last 50 (49 from vLLM's parser tests, one "
              "crewAI issue reply) were added after "
              "it and labelled before the parser was run on them (all 50 were read as labelled); "
              "(2) the labels were written by the parser's author, by the rules in "
              "`reactlab/parsing.py`, so agreement is not independent; (3) the holdout is easy: "
              "most of it is crewAI's recorded OpenAI responses, which follow the format well "
              "(the old parser already read 90 % of it). The issue replies are the hard ones, "
              "and there are few of them."),
             "", "## Every reply", "",
             ("✓ correct · ✗ wrong · E raised (a valid reading was refused) · "
              "A accepted_bad (a parse for a reply that must be refused)"), "",
             "| id | split | source | expected | before | now |", "|---|---|---|---|---|---|"]
    mark = {"correct": "✓", "wrong": "✗", "raised": "E", "accepted_bad": "A"}
    for e, b, n in zip(entries, before["verdicts"], now["verdicts"]):
        exp = e["expected"]
        want = exp["kind"] + (f" `{exp['tool']}`" if exp["kind"] == "action" else "")
        src = f"[{e['source']['repo']} {e['source']['ref'][:40]}]({e['source']['url']})"
        lines.append(f"| {e['id']} | {e['split']} | {src} | {want} | {mark[b]} | {mark[n]} |")
    misses = [e for e, v in zip(entries, now["verdicts"]) if v != "correct"]
    lines += ["", "## Where parse_react now disagrees with the label", ""]
    for e, r in ((e, now["results"][entries.index(e)]) for e in misses):
        lines.append(f"- `{e['id']}` ({e['split']}): expected "
                     f"{json.dumps(e['expected'], ensure_ascii=False)[:160]}, got "
                     f"{json.dumps(r, ensure_ascii=False)[:200]}")
    if not misses:
        lines.append("Nowhere.")
    return "\n".join(lines) + "\n", "\n".join(summary)


def update_summary(path: Path, summary: str) -> None:
    """Put `summary` between the outside markers of `path` (appended the first time)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{MARK_BEGIN}\n{summary}\n{MARK_END}"
    if MARK_BEGIN in text and MARK_END in text:
        head, _, rest = text.partition(MARK_BEGIN)
        text = head + block + rest.partition(MARK_END)[2]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE, help="git revision of the 'before' parser")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:  # inside read_with: print the readings as JSON
        entries = json.loads(Path(args.worker).read_text(encoding="utf-8"))["entries"]
        print(json.dumps(read(entries), ensure_ascii=False))
        return 0
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))["entries"]
    own_entries = json.loads(OWN_CORPUS.read_text(encoding="utf-8"))["entries"]
    now_results = read(entries)
    now = {**score(entries, now_results), "results": now_results}
    before = score(entries, read_with(args.baseline, CORPUS))
    own = {"now": score(own_entries, read(own_entries))["all"],
           "before": score(own_entries, read_with(args.baseline, OWN_CORPUS))["all"]}
    report, summary = build(entries, now, before, own, args.baseline)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "parsers_outside.md").write_text(report, encoding="utf-8")
    update_summary(RESULTS / "parsers.md", summary)
    print(summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
