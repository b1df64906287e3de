"""Import a file of scripts/ as a module, for the tests of those scripts (scripts/ is no package).

Example: rn = load_script("run_notebooks"); rn.sources()
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
