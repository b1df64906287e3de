"""Find bfcl-eval's files without importing its package, and read its test cases.

bfcl-eval (the Berkeley Function Calling Leaderboard) ships its data as JSON-lines files and a
checker module. Importing the package the ordinary way runs its provider registry, which
imports torch and a dozen SDKs; `bfcl_module` imports single modules instead, with that
registry replaced by a stub answering the one question the checker asks. `load_cases` joins a
category's questions with its possible answers, `sample` draws a fixed seeded subset.

What it deliberately does NOT do: read the live, multi-turn, Java or JavaScript categories,
or download anything. Used by benchmarks/bfcl.py (no notebook uses it).

bfcl-eval is found through BFCL_EVAL_DIR (its package folder, or a virtual environment holding
it) or, without that variable, as an installed package (the `bench` extra).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import random
import sys
import types
from pathlib import Path

# our name -> BFCL's test category (the data file is BFCL_v4_<category>.json)
CATEGORIES = {"simple": "simple_python", "multiple": "multiple", "parallel": "parallel",
              "parallel_multiple": "parallel_multiple", "irrelevance": "irrelevance"}
DATA_VERSION = "BFCL_v4"


class BfclMissing(RuntimeError):
    """bfcl-eval's files cannot be found; the message says how to provide them."""


# --- finding and loading bfcl-eval ----------------------------------------------------------

def bfcl_root() -> Path:
    """The installed `bfcl_eval` package folder (holding data/ and eval_checker/)."""
    env = os.environ.get("BFCL_EVAL_DIR")
    if env:
        base = Path(env)
        candidates = [base, base / "bfcl_eval",
                      *sorted(base.glob("lib/python3*/site-packages/bfcl_eval"))]
    else:
        spec = importlib.util.find_spec("bfcl_eval")  # finds the folder; runs no package code
        candidates = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    for c in candidates:
        if (c / "data").is_dir() and (c / "eval_checker" / "ast_eval" / "ast_checker.py").is_file():
            return c
    where = (f"BFCL_EVAL_DIR={env} holds no bfcl_eval package" if env
             else "bfcl-eval is not installed")
    raise BfclMissing(f"{where}. Install it (pip install -e '.[bench]'), or into a separate "
                      f"environment (python3 -m venv /tmp/bfcl && /tmp/bfcl/bin/pip install "
                      f"bfcl-eval==2026.3.23) and set BFCL_EVAL_DIR=/tmp/bfcl.")


class _EscapedNames(dict):
    """BFCL's MODEL_CONFIG_MAPPING, reduced to the one field its checker reads."""

    def __missing__(self, model_name):
        # Every OpenAI-compatible model gets tool names with "." written as "_" (see to_tools),
        # so the checker must compare against the escaped names.
        return types.SimpleNamespace(underscore_to_dot=True)


def bfcl_module(name: str, root: Path | None = None) -> types.ModuleType:
    """Import `bfcl_eval.<name>` from bfcl_root(), with its model registry replaced by a stub.

    The checker imports `constants.model_config`, which imports every provider handler (and
    through them torch and a dozen SDKs) to read one boolean; the stub answers that boolean.
    Example: bfcl_module("constants.type_mappings").GORILLA_TO_OPENAPI["float"] -> "number"
    """
    if "bfcl_eval" not in sys.modules:
        root = root or bfcl_root()
        spec = importlib.util.spec_from_file_location(
            "bfcl_eval", root / "__init__.py", submodule_search_locations=[str(root)])
        package = importlib.util.module_from_spec(spec)
        sys.modules["bfcl_eval"] = package
        spec.loader.exec_module(package)
    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = _EscapedNames()
    sys.modules.setdefault("bfcl_eval.constants.model_config", stub)
    return importlib.import_module(f"bfcl_eval.{name}")


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_cases(category: str, root: Path | None = None) -> list[dict]:
    """All cases of one category: id, category, bfcl_category, question, function, ground_truth.

    Example: load_cases("simple")[0]["id"] -> "simple_python_0"
    """
    if category not in CATEGORIES:
        raise ValueError(f"Unknown category {category!r}: choose from {', '.join(CATEGORIES)}.")
    root = root or bfcl_root()
    bfcl_category = CATEGORIES[category]
    name = f"{DATA_VERSION}_{bfcl_category}.json"
    cases = read_jsonl(root / "data" / name)
    answers = {}
    if category != "irrelevance":  # irrelevance has no possible answers: no call is right
        answer_file = root / "data" / "possible_answer" / name
        answers = {a["id"]: a["ground_truth"] for a in read_jsonl(answer_file)}
    return [{"id": c["id"], "category": category, "bfcl_category": bfcl_category,
             "question": c["question"], "function": c["function"],
             "ground_truth": answers.get(c["id"])} for c in cases]


def sample(cases: list[dict], n: int, seed: int = 0) -> list[dict]:
    """A fixed sample of n cases (the same for every endpoint), in BFCL's order."""
    if n >= len(cases):
        return list(cases)
    rng = random.Random(f"{seed}:{cases[0]['category']}")  # a str seed is stable across runs
    picked = set(rng.sample(range(len(cases)), n))
    return [c for i, c in enumerate(cases) if i in picked]
