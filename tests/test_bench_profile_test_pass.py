"""benchmarks/profile_test_pass.py without a model: the totals, the report from logged calls
and pytest's JUnit XML, the hand-written notes kept across regenerations, the archived run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import profile_test_pass as prof


def call(prompt_n, prompt_ms, predicted_n, predicted_ms, finish="stop", cached=0, s=None):
    return {"t": 1764930000.0, "s": s if s is not None else (prompt_ms + predicted_ms) / 1000,
            "timings": {"prompt_n": prompt_n, "prompt_ms": prompt_ms,
                        "predicted_n": predicted_n, "predicted_ms": predicted_ms},
            "prompt_tokens": prompt_n + cached, "cached": cached, "completion": predicted_n,
            "schema": False, "max_tokens": 512, "finish": finish,
            "prompt": "<|im_start|>user\n北京|天气<|im_end|>\n", "text": "Thought: `x`"}


JUNIT_XML = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="notebooks.07_pitfalls.ipynb" name="Cell 3" time="64.0" />
<testcase classname="notebooks.07_pitfalls.ipynb" name="Cell 4" time="1.0" />
<testcase classname="tests.test_fc_agent" name="test_savings" time="58.3" />
</testsuite></testsuites>"""


def test_summarize_splits_reading_from_generating_and_counts_cut_replies():
    calls = [call(100, 2000.0, 10, 1000.0, cached=400), call(0, 0.0, 512, 40000.0, "length")]
    items = [("a", "Cell 1", 2.0), ("b", "Cell 1", 41.0), ("a", "Cell 2", 5.0)]
    s = prof.summarize(calls, items)
    assert (s["calls"], s["engine_s"]) == (2, 43.0)
    assert (s["prompt_read"], s["prompt_s"], s["cached"], s["prompt_tokens"]) == (100, 2.0, 400, 500)
    assert (s["generated"], s["gen_s"]) == (522, 41.0)
    assert (s["cut"], s["cut_generated"], s["cut_gen_s"]) == (1, 512, 40.0)
    assert s["per_file"] == [("b", 41.0), ("a", 7.0)]
    assert s["slowest"][0] == ("b", "Cell 1", 41.0)


def test_summarize_takes_calls_without_timings():
    s = prof.summarize([{"s": 1.0, "timings": {}, "finish": "stop"}], [])
    assert (s["prompt_s"], s["gen_s"], s["cut"], s["items_s"]) == (0.0, 0.0, 0, 0)


def test_report_writes_the_table_and_keeps_the_hand_written_notes(tmp_path, monkeypatch):
    for name, value in (("CALLS", "calls.jsonl"), ("JUNIT", "junit.xml"), ("META", "meta.json"),
                        ("OUT", "test_time.md")):
        monkeypatch.setattr(prof, name, tmp_path / value)
    prof.CALLS.write_text("\n".join(json.dumps(c) for c in (
        call(2514, 45800.0, 17, 1500.0), call(0, 0.0, 512, 43000.0, "length"))) + "\n")
    prof.JUNIT.write_text(JUNIT_XML)
    prof.META.write_text(json.dumps({"wall_s": 100.0, "pytest_exit": 0,
                                     "machine": "- machine: test box"}))
    text = prof.report().read_text(encoding="utf-8")
    assert "- machine: test box" in text and "model pass: 100 s (1.7 min), pytest exit code 0" in text
    assert "| reading prompts (not cached) | 46 | 46% | 2,514 | 54.9 |" in text
    assert "| … of which replies cut at max_tokens (1) | 43 | 43% | 512 | |" in text
    assert "| notebooks.07_pitfalls.ipynb | 65 |" in text
    # a pipe inside a code span would split the table's cell
    assert "<\\|im_start\\|>user⏎北京\\|天气" in text and "'x'" in text
    notes = "## Notes (hand-written)\n\n- read on an idle machine.\n"
    prof.OUT.write_text(text + "\n" + notes, encoding="utf-8")
    again = prof.report().read_text(encoding="utf-8")
    assert again.count("## Notes (hand-written)") == 1 and "- read on an idle machine." in again
    assert again.startswith("# Where the model pass")


def test_the_archived_run_reads_and_matches_its_report():
    calls = [json.loads(line) for line in prof.CALLS.open(encoding="utf-8")]
    items = prof.junit_items(prof.JUNIT)
    assert calls and items and all("timings" in c and "finish" in c for c in calls)
    s = prof.summarize(calls, items)
    assert f"{s['prompt_read']:,}" in prof.OUT.read_text(encoding="utf-8")
