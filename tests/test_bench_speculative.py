"""benchmarks/bench_speculative.py without a model: the settings land on xllamacpp's real
CommonParams, the logged calls it replays are well formed, and the table's ratios."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_speculative as bench
from reactlab.server import engines


def test_every_setting_lands_on_the_installed_xllamacpp(tmp_path):
    xlc = pytest.importorskip("xllamacpp", reason="the local extra is not installed")
    kinds = xlc.common_speculative_type
    off = engines.params(xlc, tmp_path / "m.gguf", 8192, 2, 1)  # settings only: no model loads
    bench.apply(off, bench.SETTINGS["off (today's server)"])
    assert off.speculative.types == [kinds.COMMON_SPECULATIVE_TYPE_NONE]
    short = engines.params(xlc, tmp_path / "m.gguf", 8192, 2, 1)
    bench.apply(short, bench.SETTINGS["n-gram, key 3, draft up to 3"])
    assert short.speculative.types == [kinds.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
    assert (short.speculative.ngram_simple.size_n, short.speculative.ngram_simple.size_m) == (3, 3)


def test_a_misspelt_setting_fails_loudly(tmp_path):
    xlc = pytest.importorskip("xllamacpp", reason="the local extra is not installed")
    p = engines.params(xlc, tmp_path / "m.gguf", 8192, 2, 1)
    with pytest.raises(AttributeError):
        bench.apply(p, {"types": ["NGRAM_SIMPEL"]})


def test_the_logged_calls_replay_with_the_engines_own_options():
    calls = [json.loads(line) for line in bench.CALLS.open(encoding="utf-8")]
    assert len(calls) >= 50
    allowed = {"max_tokens", "temperature", "top_p", "seed", "stop", "json_schema", "cache_prompt"}
    for c in calls:
        assert c["prompt"].startswith("<|im_start|>system\n") and isinstance(c["text"], str)
        assert set(c["options"]) <= allowed and c["options"]["temperature"] == 0


def test_the_table_gives_ratios_against_the_first_row(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "OUT", tmp_path / "speculative.md")
    bench.write([("off", 100.0, 50.0, 45.0, 10, 0, 0), ("on", 90.0, 40.0, 45.0, 9, 30, 12)], 10)
    text = (tmp_path / "speculative.md").read_text(encoding="utf-8")
    assert "| off | 100.0 | 1.00 |" in text and "| on | 90.0 | 0.90 | 40.0 | 45.0 | 9/10 | 30 | 12 |" in text


def test_chunk_reuse_lands_on_commonparams_and_a_misspelt_field_fails(tmp_path):
    xlc = pytest.importorskip("xllamacpp", reason="the local extra is not installed")
    kinds = xlc.common_speculative_type
    p = engines.params(xlc, tmp_path / "m.gguf", 8192, 2, 1)
    bench.apply(p, bench.SETTINGS["KV chunk reuse, chunks of 16 tokens or more"])
    assert p.n_cache_reuse == 16
    assert p.speculative.types == [kinds.COMMON_SPECULATIVE_TYPE_NONE]  # no speculation with it
    with pytest.raises(AttributeError, match="n_cache_reuze"):
        bench.apply(p, {"params": {"n_cache_reuze": 16}})


def test_only_picks_settings_by_a_word_of_their_name():
    assert list(bench.chosen("off,KV")) == ["off (today's server)",
                                             "KV chunk reuse, chunks of 16 tokens or more"]
    assert list(bench.chosen(None)) == list(bench.SETTINGS)
    with pytest.raises(SystemExit, match="matches no setting"):
        bench.chosen("warp")


def test_the_report_names_its_command_and_goes_where_asked(tmp_path):
    out = tmp_path / "reuse.md"
    bench.write([("off", 10.0, 5.0, 4.0, 3, 0, 0)], 3, out, "off,KV")
    text = out.read_text(encoding="utf-8")
    assert f"replay --calls 3 --only off,KV --out {out}`" in text
    assert not bench.OUT.with_name("reuse.md").exists()
