"""Raw HTTP for `/chat/completions`: one POST, one SSE stream, the same request as curl, and
the one error type for a provider that fails.

This is what the `openai` SDK does under the hood, written out with plain `requests` so a
learner can see every byte: the JSON body, the `Authorization` header, the `data: {...}`
lines of a stream and the `data: [DONE]` that ends it. A stream that stops before `[DONE]`
was cut (dropped connection, crashed server): it raises instead of passing for a reply.

`ProviderError` is the package's provider-failure exception, and `provider_message` the one
function that turns any failure — an openai SDK exception, an httpx or requests error, an
error body — into one sentence (key-shaped text in it is hidden).

It deliberately does NOT retry, rate-limit, pool connections or parse tool calls: retries hide
the failures a lesson wants to show, and assembling streamed tool calls is `reactlab.streaming`'s
job. The agents use the SDK (`conn.client`); these helpers are for looking under the hood.
Introduced in notebook 01; `stream_chat` returns in notebook 05.

About 400 lines: it holds everything a raw request needs in one place for notebook 01 — the
POST, the SSE reader, the provider error and its one sentence, and the curl twin.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

import requests

from reactlab.redact import MARK, Redactor, scrub_text

DEFAULT_TIMEOUT = 120.0  # seconds; a 1.5B model on 2 cores can take a while to answer
MAX_MESSAGE = 500  # characters of a provider message kept in a sentence
STREAM_CUT = ("the stream ended before `data: [DONE]`, so the reply is cut off (the connection "
              "dropped or the server stopped); do not use it as a complete answer, retry instead")


class ProviderError(RuntimeError):
    """The provider failed: an HTTP error status, an error event mid-stream, a network failure.

    `status` is the HTTP status (None when there was none: network failure, error event inside
    a 200 stream, cut stream), `message` one sentence saying what went wrong, `body` the parsed
    error body if there was one, `where` an optional phrase such as "at step 3".

    Example: str(ProviderError(401, "Incorrect API key provided"))
             -> "HTTP 401 from the provider: Incorrect API key provided"
    """

    def __init__(self, status: int | None, message: str, body: Any = None, where: str = ""):
        self.status = status
        self.message = scrub_text(_one_line(str(message))) or "no error message"
        self.body = body
        self.where = where
        prefix = f"HTTP {status} from the provider" if status else "The provider failed"
        super().__init__(f"{prefix}{' ' + where if where else ''}: {self.message}")

    @property
    def status_code(self) -> int | None:  # the openai SDK's name for the same thing
        return self.status

    def __reduce__(self):  # picklable despite the custom __init__
        return (type(self), (self.status, self.message, self.body, self.where))

    @classmethod
    def from_exception(cls, exc: BaseException, where: str = "") -> ProviderError:
        """The ProviderError for any failure; raise it `from exc` to keep the traceback.

        Example: ProviderError.from_exception(openai_auth_error, "at step 3")
                 -> HTTP 401 from the provider at step 3: Incorrect API key provided
        """
        if isinstance(exc, ProviderError):
            return cls(exc.status, exc.message, exc.body, where or exc.where)
        return cls(_status_of(exc), provider_message(exc), _body_of(exc), where)


def provider_message(exc_or_body: Any) -> str:
    """One sentence saying what went wrong, from an exception or an error body.

    Takes an openai SDK exception (`APIStatusError` and subclasses: the provider's own
    message; `APIConnectionError`, `APITimeoutError`: what to check), an httpx or requests
    error, a ProviderError, or an error body (dict, JSON text, HTML, bytes). The HTTP status
    is not included: `ProviderError.from_exception` adds it.

    Example: provider_message({"error": {"message": "Model not found", "code": 404}})
             -> "Model not found"
    """
    if isinstance(exc_or_body, ProviderError):
        return exc_or_body.message
    if isinstance(exc_or_body, BaseException):
        text = _exception_message(exc_or_body)
    else:
        text = _body_message(exc_or_body) or "no error message"
    return scrub_text(_one_line(text)) or "no error message"


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


def _kinds(exc: BaseException) -> str:
    return " ".join(c.__name__ for c in type(exc).__mro__)


def _status_of(exc: BaseException) -> int | None:
    for status in (getattr(exc, "status_code", None), getattr(exc, "status", None),
                   getattr(getattr(exc, "response", None), "status_code", None)):
        if isinstance(status, int) and not isinstance(status, bool) and status >= 400:
            return status
    return None


def _body_of(exc: BaseException) -> Any:
    body = getattr(exc, "body", None)
    if body is not None:
        return body
    response = getattr(exc, "response", None)
    try:  # httpx and requests responses; a streamed one may refuse to be read again
        return json.loads(response.text) if response is not None else None
    except Exception:  # noqa: BLE001 - no readable body is just no body
        return None


def _exception_message(exc: BaseException) -> str:
    if _status_of(exc) is not None:  # the provider answered: its own words
        said = _body_message(_body_of(exc))
        if said:
            return said
    kinds = _kinds(exc)
    detail = f"{type(exc).__name__}: {getattr(exc, 'message', None) or exc}"
    cause = exc.__cause__ or exc.__context__
    if cause is not None and str(cause):
        detail += f"; {type(cause).__name__}: {cause}"
    if "Timeout" in kinds:
        return (f"no answer within the time limit ({detail}). Try a larger timeout or a "
                f"smaller max_tokens.")
    if "Connect" in kinds:
        return (f"could not reach the server ({detail}). Is it running, and is the base URL "
                f"right?")
    return detail  # a client that raised something else: its type says most


def _body_message(body: Any) -> str | None:
    """The provider's message in an error body; None when there is none."""
    if body is None:
        return None
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        text = body.strip()
        try:
            parsed = json.loads(text)
        except ValueError:
            return re.sub(r"<[^>]*>", " ", text) or None  # an HTML error page: keep its words
        return _body_message(parsed) if isinstance(parsed, (dict, list)) else text or None
    if isinstance(body, list):
        found = [m for m in (_body_message(b) for b in body[:5]) if m]
        return "; ".join(found) or None
    if isinstance(body, dict):
        # OpenAI: {"error": {"message": ...}}; others: {"error": "..."}, {"message": ...},
        # {"msg": ...}, FastAPI's {"detail": ...}, OAuth's {"error_description": ...}.
        for name in ("error", "message", "msg", "detail", "error_description", "errors"):
            value = body.get(name)
            if isinstance(value, (dict, list)):
                found = _body_message(value)
                if found:
                    return found
            elif value not in (None, "", False):
                return str(value)
        return json.dumps(body, ensure_ascii=False, default=str)[:MAX_MESSAGE] if body else None
    return str(body)


def chat_url(base_url: str) -> str:
    """The chat-completions endpoint for a base URL; a full endpoint URL is kept as it is.

    Example: chat_url("http://127.0.0.1:8080/v1") -> "http://127.0.0.1:8080/v1/chat/completions"
    """
    url = base_url.rstrip("/")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


def _hide(headers: dict, text: str) -> str:
    """`text` without the credentials of `headers` (requests' own errors quote header values)."""
    redactor = Redactor()
    for name, value in headers.items():
        redactor.header(str(name), str(value))
    return redactor.scrub(text).replace(MARK, "[hidden key]")


def _post(url: str, headers: dict, body: dict, timeout: float, stream: bool) -> requests.Response:
    shown = Redactor().url(url).replace(MARK, "[hidden key]")  # a URL may carry ?key=…
    try:
        resp = requests.post(url, headers=headers, json=body, timeout=timeout, stream=stream)
    except requests.Timeout as exc:
        raise ProviderError(None, f"no answer from {shown} within {timeout:g} s. "
                                  "Try a larger timeout or a smaller max_tokens.") from exc
    except requests.ConnectionError as exc:
        raise ProviderError(None, f"could not connect to {shown} ({exc.__class__.__name__}). "
                                  "Is the server running and the base URL right?") from exc
    except requests.RequestException as exc:  # a bad URL or header: nothing was sent
        raise ProviderError(None, _hide(headers, f"the request could not be sent "
                                                 f"({type(exc).__name__}: {exc})")) from None
    if resp.status_code >= 400:
        raw = resp.content
        resp.close()
        try:
            err_body = json.loads(raw)
        except ValueError:
            err_body = None
        said = _body_message(err_body) or _body_message(raw) or resp.reason or "no error message"
        raise ProviderError(resp.status_code, said, err_body)
    return resp



def _json_object(text: str, what: str) -> dict:
    """`text` parsed as a JSON object, or a ProviderError: "<what> not a JSON object: …"."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ProviderError(None, f"{what} not a JSON object: {text[:200]!r}")
    return data

def post_chat(base_url: str, headers: dict, body: dict, timeout: float = DEFAULT_TIMEOUT) -> dict:
    """POST one non-streaming chat completion and return the parsed JSON response.

    Raises ProviderError for an HTTP error (with the provider's message), a network failure,
    or a reply that is not a JSON object.

    Example: post_chat(conn.base_url, conn.headers(), {"model": conn.model,
             "messages": [{"role": "user", "content": "你好"}]})["choices"][0]["message"]
    """
    resp = _post(chat_url(base_url), headers, body, timeout, stream=False)
    # Decode ourselves: a JSON body without a charset must be read as UTF-8, not guessed.
    text = resp.content.decode("utf-8", errors="replace")
    return _json_object(text, f"the server answered {resp.status_code} with a body that is")


def iter_sse_data(lines: Iterable[bytes | str], require_done: bool = True) -> Iterator[str]:
    """Turn raw SSE lines into `data` payloads (one per event), ending at `[DONE]`.

    Skips `:` comment lines (keep-alives) and other fields (`event:`, `id:`, `retry:`); accepts
    `data:` with or without a space; joins a multi-line `data` event with newlines. When the
    lines run out before `[DONE]`, it yields what arrived and then raises ProviderError (the
    reply was cut), unless `require_done=False`.

    Example: [b": ping", b"data: {\\"a\\": 1}", b"", b"data:[DONE]"] -> ['{"a": 1}']
    """
    buffer: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)
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
        # long as each data line is complete JSON on its own. (Only tried when the new line
        # could start an event, so a long multi-line event is not re-parsed at every line.)
        if buffer and value.lstrip().startswith(("{", "[")) and _is_json("\n".join(buffer)):
            yield "\n".join(buffer)
            buffer = []
        if value.strip() == "[DONE]" and not buffer:
            return
        buffer.append(value)
    if buffer:
        yield "\n".join(buffer)
    if require_done:
        raise ProviderError(None, STREAM_CUT)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def stream_chat(base_url: str, headers: dict, body: dict,
                timeout: float = DEFAULT_TIMEOUT) -> Iterator[dict]:
    """POST a streaming chat completion and yield each SSE chunk as a dict.

    Sets `"stream": true` for you. Stops at `data: [DONE]`. Raises ProviderError for an HTTP
    error up front, an `{"error": ...}` event mid-stream (status None), an event that is not
    a JSON object, and a stream that ends or breaks before `[DONE]` (after yielding what came).

    Example: for chunk in stream_chat(conn.base_url, conn.headers(), body):
                 print(chunk["choices"][0]["delta"].get("content") or "", end="")
    """
    resp = _post(chat_url(base_url), headers, {**body, "stream": True}, timeout, stream=True)
    with resp:
        # iter_lines yields bytes; we decode each line as UTF-8 in iter_sse_data because
        # requests guesses ISO-8859-1 for text/event-stream and would turn 北京 into mojibake.
        events = iter_sse_data(resp.iter_lines())
        while True:
            try:
                data = next(events)
            except StopIteration:
                return
            except requests.RequestException as exc:  # reset mid-body, read timeout
                raise ProviderError(None, f"the stream broke before `data: [DONE]` "
                                          f"({type(exc).__name__}), so the reply is cut off; "
                                          f"retry the request") from exc
            chunk = _json_object(data, "the stream sent an event that is")
            if chunk.get("error"):
                raise ProviderError(None, _body_message(chunk) or "unknown error", chunk)
            yield chunk


_BARE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")  # needs no quotes in any POSIX shell
_CONTROL = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")  # cannot be in a header or a URL
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _shell_word(text: str) -> str:
    """One shell word: literal pieces single-quoted, each MARK as `"$OPENAI_API_KEY"`.

    Inside single quotes nothing is live (`$(…)`, backticks, `$VAR` stay text); the only
    expansion in the output is the one we put there.
    Example: _shell_word("Authorization: Bearer " + MARK) -> 'Authorization: Bearer '"$OPENAI_API_KEY"
    """
    out = []
    for i, piece in enumerate(text.split(MARK)):
        if i:
            out.append('"$OPENAI_API_KEY"')
        if piece:
            out.append(piece if _BARE.fullmatch(piece) else "'" + piece.replace("'", "'\\''") + "'")
    return "".join(out) or "''"


def to_curl(url: str, headers: dict | None, body: dict | None) -> str:
    """The same request as a runnable curl command; the key is never shown.

    Every credential `reactlab.redact` recognises (by header, parameter or field name, URL
    userinfo, or key shape — in the URL, the headers and the body) is written as
    `"$OPENAI_API_KEY"`, so the shell fills it in and the text never holds it. Everything else
    is single-quoted: pasting the command runs curl and nothing else. The body is pretty JSON
    with Chinese kept as Chinese. `url` is used exactly as given: pass the full endpoint (see
    `chat_url`). Simplification: every hidden credential becomes the same variable.

    Example: to_curl("https://api.deepseek.com/v1/chat/completions",
                     {"Authorization": "Bearer sk-123"}, {"model": "deepseek-chat"})
    -> curl https://api.deepseek.com/v1/chat/completions \\
         -H 'Authorization: Bearer '"$OPENAI_API_KEY" \\
         -H 'Content-Type: application/json' \\
         -d '{
         "model": "deepseek-chat"
       }'
    """
    redactor = Redactor()
    url = redactor.url(_CONTROL.sub("\ufffd", str(url)))
    pairs = []
    items = headers.items() if hasattr(headers, "items") else headers or []  # or (name, value)s
    for name, value in items:
        name, value = _CONTROL.sub("\ufffd", str(name)), _CONTROL.sub("\ufffd", str(value))
        pairs.append((name, redactor.header(name, value)))
    data = redactor.body(body) if body is not None else None

    url = redactor.scrub(url)
    first = ["curl"]
    if re.search(r"[\[\]{}]", url):  # curl would expand [1-9] and {a,b} in the URL
        first.append("--globoff")
    if url.startswith("-"):  # curl would read it as an option
        first.append("--url")
    parts = [" ".join([*first, _shell_word(url)])]
    for name, value in pairs:
        line = f"{redactor.scrub(name)}: {redactor.scrub(value)}"
        if line.startswith("@"):  # curl reads `-H @file` as a file of headers
            line = "\ufffd" + line[1:]
        parts.append("-H " + _shell_word(line))
    if data is not None:
        if not any(name.lower() == "content-type" for name, _ in pairs):
            parts.append("-H 'Content-Type: application/json'")
        text = json.dumps(redactor.scrub_json(data), ensure_ascii=False, indent=2)
        # A lone surrogate cannot be printed or sent as UTF-8: write it as a JSON escape.
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
        parts.append("-d " + _shell_word(text))
    return " \\\n  ".join(parts)


__all__ = ["DEFAULT_TIMEOUT", "ProviderError", "chat_url", "iter_sse_data", "post_chat",
           "provider_message", "stream_chat", "to_curl"]
