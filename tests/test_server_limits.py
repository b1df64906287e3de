"""The bounds on a request body, without a server: size, depth, numbers, text, and settings."""

from __future__ import annotations

import json

import pytest

from reactlab.server.errors import APIError
from reactlab.server.limits import Limits, decode_json

LIMITS = Limits()


def refused(raw: bytes, limits: Limits = LIMITS) -> APIError:
    with pytest.raises(APIError) as err:
        decode_json(raw, limits)
    assert err.value.message.endswith(".")
    return err.value


def test_a_valid_body_decodes_with_chinese_and_surrogate_pairs():
    body = {"messages": [{"role": "user", "content": "北京 😀 \\ud83d\\ude00"}], "temperature": 0.5}
    assert decode_json(json.dumps(body).encode(), LIMITS) == body
    assert decode_json(b'"\\ud83d\\ude00"', LIMITS) == "😀"  # a valid pair is one character


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_non_finite_numbers_are_refused(literal):
    error = refused(f'{{"temperature": {literal}}}'.encode())
    assert (error.status, error.code) == (400, "invalid_number") and literal in error.message


@pytest.mark.parametrize("raw,param", [
    (b'{"messages": ' + b"[" * 65 + b"]" * 65 + b"}", "messages"),
    (b"[" * 100_000 + b"]" * 100_000, None),  # past the decoder's own recursion limit
    (b'{"tools": ' + b'[{"a": ' * 40 + b"1" + b"}]" * 40 + b"}", "tools"),
])
def test_nesting_past_the_limit_is_refused_and_names_the_field(raw, param):
    error = refused(raw)
    assert (error.code, error.param) == ("too_deep", param) and "64 levels" in error.message


def test_depth_exactly_at_the_limit_is_accepted():
    assert decode_json(b"[" * 64 + b"]" * 64, LIMITS) is not None
    refused(b"[" * 65 + b"]" * 65)


@pytest.mark.parametrize("raw,param", [
    (b'{"messages": [{"content": "\\ud800"}]}', "messages"),
    (b'{"model": "x\\udfff"}', "model"),
    (b'{"tools": {"\\udc00": 1}}', "tools"),
    (b'{"\\ud800": 1}', "\ud800"),
    (b'["\\ud800"]', None),
])
def test_lone_surrogates_are_refused(raw, param):
    error = refused(raw)
    assert (error.code, error.param) == ("invalid_text", param)


@pytest.mark.parametrize("raw", [b"", b"{", b"\xff", b'{"a": 1} x', b"1" * 5000])
def test_invalid_json_is_refused(raw):
    assert refused(raw).code == "invalid_json"


def test_a_body_over_the_limit_is_413():
    error = refused(b"[" + b"0," * 600 + b"0]", Limits(max_body_bytes=1000))
    assert (error.status, error.code) == (413, "request_too_large")
    assert "1000 bytes" in error.message and "--max-body-bytes" in error.message


def test_limits_from_the_environment():
    env = {"REACTLAB_MAX_BODY_BYTES": "5000", "REACTLAB_UPLOAD_TIMEOUT": "2.5",
           "REACTLAB_MAX_TOOL_CALLS": "3"}
    assert Limits.from_env(env) == Limits(max_body_bytes=5000, upload_timeout=2.5,
                                          max_tool_calls=3)
    assert Limits.from_env({}) == Limits()
    with pytest.raises(ValueError, match="REACTLAB_MAX_TOOL_CALLS='many' is not a number"):
        Limits.from_env({"REACTLAB_MAX_TOOL_CALLS": "many"})
    with pytest.raises(ValueError, match="max_body_bytes must be positive"):
        Limits.from_env({"REACTLAB_MAX_BODY_BYTES": "0"})
