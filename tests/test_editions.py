"""The two editions (English, 简体中文) are built from one source per notebook and cannot drift.

A source holds each markdown cell in English, followed by its Chinese twin
(`# %% [markdown] lang="zh-CN"`); code cells are shared. `scripts/run_notebooks.py` writes
`notebooks/NN_….ipynb` and `notebooks/zh-CN/NN_….ipynb`, the second carrying the first's
outputs. Here: the pairing rules, the twin's outputs, and — for every translated source —
that each twin keeps its English cell's headings and numbered exercises. No model, no kernel.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from scripts_loader import load_script

ROOT = Path(__file__).resolve().parent.parent


rn = load_script("run_notebooks")
TRANSLATED = [s for s in rn.sources() if rn.has_edition(s, rn.ZH)]

SRC = """\
# %% [markdown]
# # 04 · The scratchpad
# See ![chart](../benchmarks/results/a.png).

# %% [markdown] lang="zh-CN"
# # 04 · 草稿本
# 见 ![图](../../benchmarks/results/a.png)。

# %%
print("hi")

# %% [markdown]
# ## Exercises
# 1. one
# 2. two

# %% [markdown] lang="zh-CN"
# ## 练习
# 1. 一
# 2. 二
"""


@pytest.fixture
def src(tmp_path):
    path = tmp_path / "04_scratchpad.py"
    path.write_text(SRC, encoding="utf-8")
    return path


def test_both_editions_have_the_same_cells_and_ids(src):
    en, zh = rn.build(src), rn.build(src, rn.ZH)
    assert [c.cell_type for c in en.cells] == [c.cell_type for c in zh.cells] == \
        ["markdown", "code", "markdown"]
    assert [c.id for c in en.cells] == [c.id for c in zh.cells]
    assert en.cells[1].source == zh.cells[1].source
    assert zh.cells[0].source.startswith("# 04 · 草稿本") and en.cells[0].source.startswith("# 04 · The")
    assert zh.metadata["language"] == "zh-CN" and "language" not in en.metadata


def test_the_twin_carries_the_english_outputs_with_links_one_folder_deeper(src):
    en = rn.build(src)
    en.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="hi\n"),
                           nbformat.v4.new_output("display_data", data={
                               "text/markdown": "![chart](../benchmarks/results/a.png)"})]
    zh = rn.twin(en, src)
    assert zh.cells[1].outputs[0]["text"] == "hi\n"
    assert zh.cells[1].outputs[1]["data"]["text/markdown"] == "![chart](../../benchmarks/results/a.png)"
    assert zh.cells[0].source.startswith("# 04 · 草稿本")


def test_a_twin_without_its_english_cell_is_refused(tmp_path):
    path = tmp_path / "05_x.py"
    path.write_text('# %%\nx = 1\n\n# %% [markdown] lang="zh-CN"\n# 孤儿\n', encoding="utf-8")
    with pytest.raises(ValueError, match="must follow the English markdown cell"):
        rn.build(path)


def test_two_twins_for_one_cell_are_refused(tmp_path):
    path = tmp_path / "05_x.py"
    path.write_text('# %% [markdown]\n# a\n\n# %% [markdown] lang="zh-CN"\n# 甲\n\n'
                    '# %% [markdown] lang="zh-CN"\n# 乙\n', encoding="utf-8")
    with pytest.raises(ValueError, match="one twin each"):
        rn.paired_cells(path)


def test_untranslated_cells_are_listed(tmp_path):
    path = tmp_path / "05_x.py"
    path.write_text('# %% [markdown]\n# a\n\n# %% [markdown] lang="zh-CN"\n# 甲\n\n'
                    '# %% [markdown]\n# b\n', encoding="utf-8")
    assert rn.untranslated(path) == [2]
    assert rn.has_edition(path, rn.ZH) and rn.has_edition(path, "en")


def headings(text: str) -> list[str]:
    return [line.split(" ", 1)[0] for line in text.splitlines() if re.match(r"#{1,6} ", line)]


def numbered(text: str) -> list[str]:
    return re.findall(r"(?m)^\s*(\d+)\. ", text)


@pytest.mark.parametrize("path", TRANSLATED, ids=[s.name for s in TRANSLATED])
def test_every_cell_of_a_translated_notebook_has_its_twin(path):
    assert rn.untranslated(path) == [], f"{path.name}: cells without a zh-CN twin"


@pytest.mark.parametrize("path", TRANSLATED, ids=[s.name for s in TRANSLATED])
def test_a_twin_keeps_its_headings_and_numbered_items(path):
    for i, (cell, zh) in enumerate(rn.paired_cells(path), start=1):
        if zh is None:
            continue
        assert headings(zh.source) == headings(cell.source), f"{path.name} cell {i}: headings differ"
        assert numbered(zh.source) == numbered(cell.source), \
            f"{path.name} cell {i}: numbered items (exercises, steps) differ"
