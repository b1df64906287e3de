"""The project's JupyterLab settings (`.jupyter/lab/settings/overrides.json`, used by `make lab`)
are valid for the installed JupyterLab: a misspelt key or a wrong type would be ignored silently
and the news pop-up would be back over notebook 00."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

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
    assert re.search(r"^\t\$\(BIN\)/jupyter lab \$\(LAB_FLAGS\) notebooks/00_start_here\.ipynb$",
                     makefile, re.MULTILINE)
