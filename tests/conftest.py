"""Shared test set-up.

- Tests marked `model` run the real local model (tens of seconds each); every notebook cell is
  marked `model` here too. Skip them with REACTLAB_SKIP_MODEL=1, or pick them with `-m model`
  (`make test`'s second pass; see tests/README.md).
- `local_conn` connects to (starting if needed) the local server once per session.
"""

from __future__ import annotations

import os

import pytest


def _is_notebook(item) -> bool:
    return item.nodeid.endswith(".ipynb") or ".ipynb::" in item.nodeid


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: `make test`'s second pass is `-m model`
def pytest_collection_modifyitems(config, items):
    for item in items:
        if _is_notebook(item):  # every notebook cell talks to the model (or waits on one that does)
            item.add_marker(pytest.mark.model)
    if os.environ.get("REACTLAB_SKIP_MODEL") == "1":
        skip = pytest.mark.skip(reason="REACTLAB_SKIP_MODEL=1: real-model tests skipped")
        for item in items:
            if "model" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def local_conn():
    """A Connection to the embedded local model (never a cloud provider: tests stay offline)."""
    import reactlab

    return reactlab.connect(provider="local", quiet=True)
