"""The bounds every request is held to, and the JSON decoding that enforces them.

Nothing a client sends may break the server, so before any field is read a request body must
be: at most `max_body_bytes` long (413 otherwise), uploaded within `upload_timeout` seconds
(408: a stalled upload is not held open), valid UTF-8 JSON without `NaN` or `Infinity` (JSON
has no such numbers, and the response encoder would fail on them), nested at most `max_depth`
levels, and free of lone surrogates (`"\\ud800"` decodes to a string that cannot be written
back as UTF-8). Each refusal is an `APIError` with a sentence saying what to change.

`max_tool_calls` bounds the other side: how many calls of one reply reach the client (`chat`
drops the rest and shows them in the debug view).

    python -m reactlab.server --max-body-bytes 8000000 --upload-timeout 60 --max-tool-calls 4
    REACTLAB_MAX_BODY_BYTES=8000000 REACTLAB_UPLOAD_TIMEOUT=60 REACTLAB_MAX_TOOL_CALLS=4

This module does not check what the fields mean (`validate` and `conversation` do) and does
not read sockets (`app` does). No notebook uses it: "What the server promises" in
tests/README.md lists the guarantees and the tests that hold the server to them.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from reactlab.server.errors import APIError, bad_request

_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins valid pairs: any left is lone


@dataclass(frozen=True)
class Limits:
    """Example: Limits(max_body_bytes=1000).max_tool_calls -> 8"""

    max_body_bytes: int = 4 * 1024 * 1024  # an 8k-token prompt is ~40 KB: 4 MB is generous
    upload_timeout: float = 30.0           # seconds for the headers, then for the whole body
    max_depth: int = 64                    # nesting of the body (a tool schema sits ~6 deep)
    max_tool_calls: int = 8                # calls per reply sent to the client

    @classmethod
    def from_env(cls, environ=None) -> Limits:
        """Defaults, overridden by REACTLAB_MAX_BODY_BYTES, _UPLOAD_TIMEOUT, _MAX_TOOL_CALLS.

        Example: Limits.from_env({"REACTLAB_MAX_TOOL_CALLS": "2"}).max_tool_calls -> 2
        """
        env = os.environ if environ is None else environ
        fields = {"max_body_bytes": ("REACTLAB_MAX_BODY_BYTES", int),
                  "upload_timeout": ("REACTLAB_UPLOAD_TIMEOUT", float),
                  "max_tool_calls": ("REACTLAB_MAX_TOOL_CALLS", int)}
        given = {}
        for name, (var, kind) in fields.items():
            if env.get(var):
                try:
                    given[name] = kind(env[var])
                except ValueError:
                    raise ValueError(f"{var}={env[var]!r} is not a number.") from None
        return cls(**given).checked()

    def checked(self) -> Limits:
        """Self, or ValueError naming the bound that is not positive."""
        for name in ("max_body_bytes", "upload_timeout", "max_depth", "max_tool_calls"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}.")
        return self


def too_large(limits: Limits) -> APIError:
    return APIError(413, f"The request body is larger than this server accepts "
                         f"({limits.max_body_bytes} bytes): send a shorter conversation, or "
                         f"start the server with a larger --max-body-bytes.", None,
                    "request_too_large")


def _not_a_number(literal: str):
    raise bad_request(f"The request body contains {literal}, which is not a JSON number: send "
                      f"finite numbers only.", None, "invalid_number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # 1e999 overflows to infinity
        _not_a_number(text)
    return value


def decode_json(raw: bytes, limits: Limits) -> object:
    """The decoded body, or APIError(400) for invalid JSON, NaN, too deep or a lone surrogate.

    Linear in the body's size (one C decode, one walk). Example: decode_json(b'[NaN]', …)
    -> 400 "The request body contains NaN, which is not a JSON number: …"
    """
    if len(raw) > limits.max_body_bytes:
        raise too_large(limits)
    try:
        body = json.loads(raw, parse_constant=_not_a_number, parse_float=_finite)
    except RecursionError:
        raise _too_deep(limits, None) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise bad_request(f"The request body is not valid JSON ({exc}). Send a JSON object with "
                          f"'model' and 'messages'.", None, "invalid_json") from None
    _walk(body, limits)
    return body


def _too_deep(limits: Limits, param: str | None) -> APIError:
    where = f"'{param}'" if param else "The request body"
    return bad_request(f"{where} is nested more than {limits.max_depth} levels deep: flatten "
                       f"it (a tool's parameters rarely need more than a few levels).", param,
                       "too_deep")


def _walk(body, limits: Limits) -> None:
    """Check depth and strings without recursion; `param` is the top-level key, for messages."""
    stack = [(body, 1, None)]
    while stack:
        value, depth, param = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise bad_request(f"{f'{param!r}' if param else 'The request body'} contains a "
                                  f"lone UTF-16 surrogate (such as \\ud800), which is not text: "
                                  f"send valid Unicode.", param, "invalid_text")
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > limits.max_depth:
            raise _too_deep(limits, param)
        if isinstance(value, dict):
            for key, item in value.items():
                top = key if depth == 1 else param
                stack.append((key, depth, top))
                stack.append((item, depth + 1, top))
        else:
            stack.extend((item, depth + 1, param) for item in value)
