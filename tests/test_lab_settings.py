"""What `make lab` serves: the repo root, with the project's JupyterLab settings.

`.jupyter/lab/settings/overrides.json` must be valid for the installed JupyterLab (a misspelt
key or a wrong type is ignored silently and the news pop-up is back over notebook 00), and every
relative link a notebook shows (README, other notebooks, 06's benchmark figures) must resolve
inside the served root.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from scripts_loader import load_script

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / ".jupyter" / "lab" / "settings"
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"


def test_overrides_turn_the_news_and_update_check_off():
    overrides = json.loads((SETTINGS / "overrides.json").read_text(encoding="utf-8"))
    notification = overrides["@jupyterlab/apputils-extension:notification"]
    assert notification == {"fetchNews": "false", "checkForUpdates": False}


def test_overrides_match_the_installed_jupyterlab_schemas():
    jsonschema = pytest.importorskip("jsonschema")
    if not SCHEMAS.is_dir():
        pytest.skip("JupyterLab is not installed in this environment (the `lab` extra)")
    overrides = json.loads((SETTINGS / "overrides.json").read_text(encoding="utf-8"))
    for plugin_id, values in overrides.items():
        package, _, plugin = plugin_id.partition(":")
        schema_file = SCHEMAS / package / f"{plugin}.json"
        assert schema_file.exists(), f"{plugin_id}: no such JupyterLab plugin settings"
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
        assert set(values) <= set(schema["properties"]), f"{plugin_id}: unknown setting"
        jsonschema.validate(values, schema)


def test_make_lab_serves_the_repo_root_with_these_settings():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    flags = re.search(r"^LAB_FLAGS := (.*?)\n\n", makefile, re.DOTALL | re.MULTILINE).group(1)
    assert '--ServerApp.root_dir="$(CURDIR)"' in flags  # ../README.md resolves from a notebook
    assert '--LabApp.app_settings_dir="$(CURDIR)/.jupyter/lab/settings"' in flags
    assert re.search(r"^\t\$\(BIN\)/jupyter lab \$\(LAB_FLAGS\) \$\(START_NB\)$", makefile, re.MULTILINE)
    # the English 00 by default; EDITION=zh-CN opens the Chinese one
    start = re.search(r"^START_NB := (.*)$", makefile, re.MULTILINE).group(1)
    assert "notebooks/00_start_here.ipynb" in start and "notebooks/zh-CN/00_start_here.ipynb" in start


def _markdown_links():
    rn = load_script("run_notebooks")
    for src, lang in rn.editions(rn.sources()):  # both editions
        texts = [c.source for c in rn.build(src, lang).cells if c.cell_type == "markdown"]
        if rn.target(src, lang).exists():  # and the Markdown the committed outputs display (06's figures)
            cells = json.loads(rn.target(src, lang).read_text(encoding="utf-8"))["cells"]
            texts += ["".join(out.get("data", {}).get("text/markdown", ""))
                      for c in cells for out in c.get("outputs", [])]
        for text in texts:
            for link in re.findall(r"\]\(([^)\s#]+)", text):
                if "://" not in link and not link.startswith("mailto:"):
                    yield rn.target(src, lang), link


def test_relative_links_in_notebooks_resolve_inside_the_served_root():
    links = list(_markdown_links())
    assert any(link.endswith("README.md") for _, link in links)
    assert any(link.startswith("../benchmarks/results/") for _, link in links)
    for notebook, link in links:
        path = (notebook.parent / link).resolve()
        where = f"{notebook.relative_to(ROOT)} links to {link}"
        assert path.is_relative_to(ROOT), f"{where}: outside the repo, so `make lab` cannot serve it"
        assert path.exists(), f"{where}: no such file"
