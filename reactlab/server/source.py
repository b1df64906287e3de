"""Which code a server was started from: a digest of the server package's source files.

A server started before `git pull` (or before an edit) keeps serving the old code, and the
agents, notebooks and benchmarks reuse whatever reactlab server answers on the port. `/health`
reports this digest as `source`; `reactlab.connection` compares it with the checkout's own and
says so when they differ, and the benchmarks refuse such a server (their figures would measure
code that is no longer there).

It does NOT look at the package version (an edit does not change it), at the model file or at
anything outside `reactlab/server/` (the agents run in the client). Reading the files takes a
few milliseconds and is done once per process. Maintainers' tool: not introduced in a notebook.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUFFIXES = (".py", ".jinja")


@cache
def digest() -> str:
    """16 hex digits over every server source file's path and bytes, in path order.

    Example: digest() -> "3f0c9a1e5b7d2c44" (changes with any edit under reactlab/server/)
    """
    h = hashlib.sha256()
    for path in sorted(p for p in HERE.rglob("*") if p.suffix in SUFFIXES and p.is_file()
                       and "__pycache__" not in p.parts):
        h.update(path.relative_to(HERE).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


__all__ = ["digest"]
