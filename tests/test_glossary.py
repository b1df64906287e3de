"""GLOSSARY.md (术语表) is generated from the notebooks' jargon tables and is up to date; every
notebook from 01 on has a bilingual jargon table. No model, no kernel."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripts_loader import load_script

ROOT = Path(__file__).resolve().parent.parent


glossary = load_script("glossary")
NOTEBOOKS = [s for s in sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
             if not s.name.startswith("00")]


def test_glossary_is_up_to_date():
    assert (ROOT / "GLOSSARY.md").read_text(encoding="utf-8") == glossary.render(), \
        "GLOSSARY.md is out of date: run .venv/bin/python scripts/glossary.py"


@pytest.mark.parametrize("src", NOTEBOOKS, ids=[s.name for s in NOTEBOOKS])
def test_every_notebook_has_a_bilingual_jargon_table(src):
    rows = glossary.rows(src)
    assert rows, f"{src.name}: no `| term | 中文 | meaning |` table in its Recap"
    assert all(zh.strip() for _, zh, _ in rows), f"{src.name}: a term without its Chinese name"


def test_both_readmes_link_the_glossary_and_each_other():
    en = (ROOT / "README.md").read_text(encoding="utf-8")
    zh = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    assert "GLOSSARY.md" in en and "GLOSSARY.md" in zh
    assert "README.zh-CN.md" in en and "README.md" in zh
