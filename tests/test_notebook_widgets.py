"""Saved widget state: `scripts/run_notebooks.py` keeps, in an executed notebook's `widgets`
metadata, the widget models its outputs display (08's trace viewer), and carries them into
the Chinese twin and through a `--prose` rebuild. The kernel test runs a tiny notebook that
needs no model (a few seconds); the rest needs no kernel.
"""

from __future__ import annotations

import json

import nbformat
import pytest
from scripts_loader import load_script

rn = load_script("run_notebooks")
STATE = rn.WIDGET_STATE


def _model(name: str, **state) -> dict:
    module = "@jupyter-widgets/base" if name == "LayoutModel" else "@jupyter-widgets/controls"
    return {"model_name": name, "model_module": module, "model_module_version": "2.0.0",
            "state": {"_model_name": name, **state}}


def _shows(model_id: str) -> dict:
    return nbformat.v4.new_output("display_data", data={
        rn.WIDGET_VIEW: {"model_id": model_id, "version_major": 2, "version_minor": 0},
        "text/plain": "the plain-text fallback"})


def recorded_notebook() -> nbformat.NotebookNode:
    """What nbclient leaves: one displayed VBox (an HTML and its layout), one widget never shown."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("show()", outputs=[_shows("a1")]),
                nbformat.v4.new_code_cell("x = 1", outputs=[])]
    nb.metadata["widgets"] = {STATE: {"version_major": 2, "version_minor": 0, "state": {
        "a1": _model("VBoxModel", children=["IPY_MODEL_b2"], layout="IPY_MODEL_c3"),
        "b2": _model("HTMLModel", value="<b>Step 1 of 3</b>", tooltip=None),
        "c3": _model("LayoutModel", width=None, height="40px"),
        "d4": _model("IntSliderModel", value=7),  # created, never displayed
    }}}
    return nb


def test_displayed_widgets_keeps_what_the_outputs_show_and_what_it_names():
    kept = rn.displayed_widgets(recorded_notebook())[STATE]
    assert sorted(kept["state"]) == ["a1", "b2", "c3"]  # d4 was never displayed
    assert (kept["version_major"], kept["version_minor"]) == (2, 0)
    assert kept["state"]["b2"]["state"]["value"] == "<b>Step 1 of 3</b>"


def test_nulls_are_dropped_from_layouts_and_styles_only():
    kept = rn.displayed_widgets(recorded_notebook())[STATE]["state"]
    assert kept["c3"]["state"] == {"_model_name": "LayoutModel", "height": "40px"}
    assert kept["b2"]["state"]["tooltip"] is None  # not a layout or style: kept as recorded


def test_the_recorded_state_is_not_modified():
    nb = recorded_notebook()
    before = json.dumps(nb.metadata, sort_keys=True)
    rn.displayed_widgets(nb)
    assert json.dumps(nb.metadata, sort_keys=True) == before


@pytest.mark.parametrize("change", ["no state", "no widget output", "unknown model"])
def test_nothing_to_keep_gives_none(change):
    nb = recorded_notebook()
    if change == "no state":
        del nb.metadata["widgets"]
    elif change == "no widget output":
        nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="hi")]
    else:
        nb.cells[0].outputs = [_shows("not-recorded")]
    assert rn.displayed_widgets(nb) is None
    rn.keep_widgets(nb, rn.displayed_widgets(nb))
    assert "widgets" not in nb.metadata


def test_buffers_of_a_displayed_model_are_kept():
    nb = recorded_notebook()
    buffers = [{"data": "AAE=", "encoding": "base64", "path": ["value"]}]
    nb.metadata["widgets"][STATE]["state"]["b2"]["buffers"] = buffers
    assert rn.displayed_widgets(nb)[STATE]["state"]["b2"]["buffers"] == buffers


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """One source with a Chinese twin and its built notebook, carrying recorded widgets."""
    for name, value in {"ROOT": tmp_path, "NB_DIR": tmp_path / "notebooks",
                        "SRC_DIR": tmp_path / "notebooks" / "src"}.items():
        monkeypatch.setattr(rn, name, value)
    (tmp_path / "notebooks" / "src").mkdir(parents=True)
    src = tmp_path / "notebooks" / "src" / "08_topic.py"
    src.write_text('# %% [markdown]\n# Title\n\n# %% [markdown] lang="zh-CN"\n# 标题\n\n'
                   "# %%\nshow()\n", encoding="utf-8")
    nb = rn.build(src)
    nb.cells[1].outputs = [_shows("a1")]
    rn.keep_widgets(nb, rn.displayed_widgets(recorded_notebook()))
    nbformat.write(nb, rn.target(src))
    return src, nb


def test_the_chinese_twin_carries_the_widget_state(tree):
    src, english = tree
    chinese = rn.twin(english, src)
    assert chinese.metadata["widgets"] == english.metadata["widgets"]
    rn.write_twin(english, src)
    assert rn.drift(src, lang=rn.ZH) is None
    zh = rn.target(src, rn.ZH)
    nb = nbformat.read(zh, as_version=4)
    del nb.metadata["widgets"]
    nbformat.write(nb, zh)
    assert "saved widget state differs" in rn.drift(src, lang=rn.ZH)


def test_a_prose_rebuild_keeps_the_widget_state(tree):
    src, english = tree
    text = src.read_text(encoding="utf-8").replace("# Title", "# Title, reworded")
    src.write_text(text, encoding="utf-8")
    assert rn.rebuild_prose([src]) == 0
    rebuilt = nbformat.read(rn.target(src), as_version=4)
    assert rebuilt.cells[0].source == "Title, reworded"
    assert rebuilt.metadata["widgets"] == english.metadata["widgets"]
    assert nbformat.read(rn.target(src, rn.ZH), as_version=4).metadata["widgets"] == \
        english.metadata["widgets"]


def test_a_prose_rebuild_keeps_the_kernels_language_info(tree):
    src, _ = tree
    ran = nbformat.read(rn.target(src), as_version=4)
    ran.metadata["language_info"] = {"name": "python", "version": "3.11.7",
                                     "file_extension": ".py"}
    nbformat.write(ran, rn.target(src))
    src.write_text(src.read_text(encoding="utf-8").replace("# Title", "# Title, again"),
                   encoding="utf-8")
    assert rn.rebuild_prose([src]) == 0
    rebuilt = nbformat.read(rn.target(src), as_version=4)
    assert rebuilt.metadata["language_info"] == ran.metadata["language_info"]


def test_execute_saves_the_displayed_widgets_of_a_real_kernel(tmp_path):
    pytest.importorskip("ipywidgets")
    pytest.importorskip("ipykernel")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import ipywidgets as w\nhidden = w.IntSlider(value=9)\n"
        "w.VBox([w.HTML('<b>Step 1 of 3</b>'), w.IntSlider(value=2, max=3)])")]
    rn.execute(nb, tmp_path, timeout=60)
    state = nb.metadata["widgets"][STATE]["state"]
    names = sorted(m["model_name"] for m in state.values())
    assert names.count("VBoxModel") == 1 and names.count("IntSliderModel") == 1  # not `hidden`
    assert {m["state"].get("value") for m in state.values()} >= {"<b>Step 1 of 3</b>", 2}
    shown = nb.cells[0].outputs[0]["data"][rn.WIDGET_VIEW]["model_id"]
    assert state[shown]["model_name"] == "VBoxModel"
    nbformat.validate(nb)
