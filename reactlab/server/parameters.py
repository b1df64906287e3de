"""A tool's parameters: the schema of the function a request's `tools` name, and what it says.

The server's help reads a call against the schema of the function it calls: which arguments
are required (`required_names`: `more_calls` judges a new function by them, `invented` the
ones that may hold a made-up value) and which take a single value (`properties_of`: `unpack`).
This module only finds those parts, tolerating tools of any shape (a request's tools are
checked in `validate`, but the helpers are pure and used on their own). What it does NOT do:
check or change a schema. Introduced in notebook 09 (the server's help), with the rules that
use it.
"""

from __future__ import annotations


def parameters_of(tools: list, name: str) -> dict:
    """The `parameters` object of tool `name` among `tools` ({} if unknown or not an object).

    Example: parameters_of([{"type": "function", "function": {"name": "f", "parameters":
             {"type": "object", "required": ["x"]}}}], "f") -> {"type": "object", "required": ["x"]}
    """
    for t in tools:
        fn = (t.get("function") or {}) if isinstance(t, dict) else {}
        if isinstance(fn, dict) and fn.get("name") == name:
            params = fn.get("parameters")
            return params if isinstance(params, dict) else {}
    return {}


def required_names(tools: list, name: str) -> list[str]:
    """The required arguments of tool `name` in a request's `tools` ([] if none or unknown).

    Example: required_names([{"type": "function", "function": {"name": "f", "parameters":
             {"type": "object", "required": ["x"]}}}], "f") -> ["x"]
    """
    required = parameters_of(tools, name).get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def properties_of(tools: list, name: str) -> dict:
    """The `properties` of tool `name`'s parameters in a request's `tools` ({} if unknown)."""
    props = parameters_of(tools, name).get("properties")
    return props if isinstance(props, dict) else {}


__all__ = ["parameters_of", "properties_of", "required_names"]
