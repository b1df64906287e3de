"""Raw HTTP for `/chat/completions`: one POST, one SSE stream, and the same request as curl.

This is what the `openai` SDK does under the hood, written out with plain `requests` so a
learner can see every byte: the JSON body, the `Authorization` header, the `data: {...}`
lines of a stream and the `data: [DONE]` that ends it.

It deliberately does NOT retry, rate-limit, pool connections or parse tool calls: retries hide
the failures a lesson wants to show, and assembling streamed tool calls is `reactlab.streaming`'s
job. The agents use the SDK (`conn.client`); these helpers are for looking under the hood.
Introduced in notebook 01 (one raw request); the stream reader returns in notebook 07.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from typing import Any

import requests

DEFAULT_TIMEOUT = 120.0  # seconds; a 1.5B model on 2 cores can take a while to answer

# Header names whose values are credentials. Matched case-insensitively, anywhere in the name,
# so "api-key" (Azure), "x-api-key", "X-DashScope-Token" and "X-Secret" are all caught.
_SECRET_HEADER = re.compile(r"authorization|api[-_]?key|token|secret|password|cookie", re.IGNORECASE)
# Values that look like a key even under an innocent header name.
_SECRET_VALUE = re.compile(r"^(Bearer\s+\S+|sk-[A-Za-z0-9_\-]{8,})", re.IGNORECASE)


class ProviderError(RuntimeError):
    """The server answered with an error (HTTP status >= 400, or an error event mid-stream).

    `status` is the HTTP status (None for an error that arrived inside a 200 stream),
    `message` the provider's own `error.message`, `body` the parsed error body if it was JSON.

    Example: str(ProviderError(401, "Incorrect API key provided"))
             -> "HTTP 401 from the provider: Incorrect API key provided"
    """

    def __init__(self, status: int | None, message: str, body: Any = None):
        self.status = status
        self.message = message
        self.body = body
        where = f"HTTP {status} from the provider" if status else "The provider sent an error"
        super().__init__(f"{where}: {message}")


def chat_url(base_url: str) -> str:
    """The chat-completions endpoint for a base URL; a full endpoint URL is kept as it is.

    Example: chat_url("http://127.0.0.1:18765/v1") -> "http://127.0.0.1:18765/v1/chat/completions"
    """
    url = base_url.rstrip("/")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


def _error_message(resp: requests.Response) -> tuple[str, Any]:
    """Pull `error.message` out of an OpenAI-shaped error body; fall back to the raw text."""
    text = resp.content.decode("utf-8", errors="replace")
    try:
        body = json.loads(text)
    except ValueError:
        return (text.strip()[:500] or resp.reason or "no error message"), None
    return _message_from_body(body) or text.strip()[:500], body


def _message_from_body(body: Any) -> str | None:
    # OpenAI: {"error": {"message": ...}}; some servers: {"error": "..."} or {"message": ...}.
    if not isinstance(body, dict):
        return None
    err = body.get("error", body)
    if isinstance(err, dict):
        return err.get("message") or err.get("msg") or json.dumps(err, ensure_ascii=False)
    return str(err) if err else None


def _post(url: str, headers: dict, body: dict, timeout: float, stream: bool) -> requests.Response:
    try:
        resp = requests.post(url, headers=headers, json=body, timeout=timeout, stream=stream)
    except requests.ConnectionError as exc:
        raise ProviderError(None, f"could not connect to {url} ({exc.__class__.__name__}). "
                                  "Is the server running and the base URL right?") from exc
    except requests.Timeout as exc:
        raise ProviderError(None, f"no answer from {url} within {timeout:g} s. "
                                  "Try a larger timeout or a smaller max_tokens.") from exc
    if resp.status_code >= 400:
        message, err_body = _error_message(resp)
        resp.close()
        raise ProviderError(resp.status_code, message, err_body)
    return resp


def post_chat(base_url: str, headers: dict, body: dict, timeout: float = DEFAULT_TIMEOUT) -> dict:
    """POST one non-streaming chat completion and return the parsed JSON response.

    Raises ProviderError for an HTTP error (with the provider's message) or a network failure.

    Example: post_chat(conn.base_url, conn.headers(), {"model": conn.model,
             "messages": [{"role": "user", "content": "你好"}]})["choices"][0]["message"]
    """
    resp = _post(chat_url(base_url), headers, body, timeout, stream=False)
    # Decode ourselves: a JSON body without a charset must be read as UTF-8, not guessed.
    return json.loads(resp.content.decode("utf-8"))


def iter_sse_data(lines: Iterator[bytes | str]) -> Iterator[str]:
    """Turn raw SSE lines into `data` payloads (one per event), ending at `[DONE]`.

    Skips `:` comment lines (keep-alives) and other fields (`event:`, `id:`, `retry:`); accepts
    `data:` with or without a space; joins a multi-line `data` event with newlines.

    Example: [b": ping", b"data: {\\"a\\": 1}", b"", b"data:[DONE]"] -> ['{"a": 1}']
    """
    buffer: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        line = line.rstrip("\r")
        if not line:  # a blank line ends an event
            if buffer:
                yield "\n".join(buffer)
                buffer = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field != "data":
            if line.lstrip().startswith("{"):  # a bare JSON line (some servers' error replies)
                field, value = "data", line
            else:
                continue
        value = value.removeprefix(" ")
        # Lenient: a server that forgets the blank line between events still gets split, as
        # long as each data line is complete JSON on its own.
        if buffer and _is_json("\n".join(buffer)):
            yield "\n".join(buffer)
            buffer = []
        if value.strip() == "[DONE]" and not buffer:
            return
        buffer.append(value)
    if buffer:
        yield "\n".join(buffer)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def stream_chat(base_url: str, headers: dict, body: dict,
                timeout: float = DEFAULT_TIMEOUT) -> Iterator[dict]:
    """POST a streaming chat completion and yield each SSE chunk as a dict.

    Sets `"stream": true` for you. Stops at `data: [DONE]`; an `{"error": ...}` event in the
    middle of the stream raises ProviderError (status None), as does an HTTP error up front.

    Example: for chunk in stream_chat(conn.base_url, conn.headers(), body):
                 print(chunk["choices"][0]["delta"].get("content") or "", end="")
    """
    resp = _post(chat_url(base_url), headers, {**body, "stream": True}, timeout, stream=True)
    with resp:
        # iter_lines yields bytes; we decode each line as UTF-8 in iter_sse_data because
        # requests guesses ISO-8859-1 for text/event-stream and would turn 北京 into mojibake.
        for data in iter_sse_data(resp.iter_lines()):
            try:
                chunk = json.loads(data)
            except ValueError:
                raise ProviderError(None, f"the stream sent an event that is not JSON: "
                                          f"{data[:200]!r}") from None
            if isinstance(chunk, dict) and chunk.get("error"):
                raise ProviderError(None, _message_from_body(chunk) or "unknown error", chunk)
            yield chunk


def _mask_header(name: str, value: str) -> str:
    """Replace a credential with `$OPENAI_API_KEY`, keeping an auth scheme such as `Bearer`."""
    value = str(value)
    if not (_SECRET_HEADER.search(name) or _SECRET_VALUE.match(value)):
        return value
    scheme, sep, _cred = value.partition(" ")
    if sep and scheme.lower() in ("bearer", "basic", "token"):
        return f"{scheme} $OPENAI_API_KEY"
    return "$OPENAI_API_KEY"


def _quote(text: str) -> str:
    """Single-quote for a POSIX shell: 'it'\\''s' -> the string "it's"."""
    return "'" + text.replace("'", "'\\''") + "'"


def to_curl(url: str, headers: dict | None, body: dict | None) -> str:
    """The same request as a runnable curl command; the key is never shown.

    Credentials become `$OPENAI_API_KEY` inside double quotes (so the shell fills them in);
    the body is pretty JSON with Chinese kept as Chinese, single-quoted for the shell.
    `url` is used exactly as given: pass the full endpoint (see `chat_url`).

    Example: to_curl("https://api.deepseek.com/v1/chat/completions",
                     {"Authorization": "Bearer sk-123"}, {"model": "deepseek-chat"})
    -> curl https://api.deepseek.com/v1/chat/completions \\
         -H "Authorization: Bearer $OPENAI_API_KEY" \\
         -d '{
         "model": "deepseek-chat"
       }'
    """
    parts = [f"curl {shlex.quote(url)}"]
    for name, value in (headers or {}).items():
        masked = _mask_header(name, value)
        if "$OPENAI_API_KEY" in masked:
            # Double quotes so the variable expands; escape what double quotes would interpret.
            safe = re.sub(r'(["\\`])', r"\\\1", f"{name}: {masked}")
            parts.append(f'-H "{safe}"')
        else:
            parts.append(f"-H {_quote(f'{name}: {masked}')}")
    if body is not None:
        if not any(str(k).lower() == "content-type" for k in (headers or {})):
            parts.append("-H 'Content-Type: application/json'")
        parts.append("-d " + _quote(json.dumps(body, ensure_ascii=False, indent=2)))
    return " \\\n  ".join(parts)
