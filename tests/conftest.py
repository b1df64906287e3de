"""Shared test set-up.

- Tests marked `model` run the real local model (tens of seconds each). Skip them with
  REACTLAB_SKIP_MODEL=1 (see tests/README.md).
- `local_conn` connects to (starting if needed) the local server once per session.
"""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config, items):
    if os.environ.get("REACTLAB_SKIP_MODEL") == "1":
        skip = pytest.mark.skip(reason="REACTLAB_SKIP_MODEL=1: real-model tests skipped")
        for item in items:
            if "model" in item.keywords or item.nodeid.endswith(".ipynb") or ".ipynb::" in item.nodeid:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def local_conn():
    """A Connection to the embedded local model (never a cloud provider: tests stay offline)."""
    import reactlab

    return reactlab.connect(provider="local", quiet=True)
