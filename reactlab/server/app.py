"""The HTTP face of the local server: an OpenAI-compatible API on FastAPI + uvicorn.

Endpoints:

- `GET /health` -> {"status": "ok", "server": "reactlab", "model": <default>, "pid": …,
  "engine": "xllamacpp" | "replay", "models_loaded": […], "slots": <generations at once,
  `--parallel`>, "running": <generations now>, "queued": <requests waiting for a slot>,
  "busy": <every slot taken: a new request waits>, "source": <digest of the server's code,
  `source`>}
- `GET /v1/models` -> the local models (OpenAI's list shape; `loaded` and `default` added).
- `POST /v1/chat/completions` -> OpenAI's chat completion, non-stream or SSE stream, with
  `tools`, `tool_choice`, `parallel_tool_calls`, `stop`, `max_tokens`, `temperature`, `top_p`,
  `seed`, `stream_options.include_usage`, `response_format` and `cache_prompt` (llama.cpp's
  name; false makes the engine re-read the whole prompt, for measuring the prefix cache).
  reactlab's own fields: `reactlab_debug` (below), `reactlab_help` (`assist`) and
  `reactlab_choice` (true: under `tool_choice="auto"`, decode under a schema that allows an
  answer or calls valid for their tool's schema, `constrain.choice_schema`; off by default) and
  `reactlab_more_calls` (after the model's calls, open the next `<tool_call>` for it and keep a
  new call whose new values the question names, `more_calls`; by default as the help goes: on
  with it, unless the server was started with `--no-more-calls`).
- `GET /v1/debug/last` -> the teaching view of the latest completion (below).

Seeing what the model really saw and said: add `"reactlab_debug": true` to the request body
(openai SDK: `extra_body={"reactlab_debug": True}`) and the response (the final chunk, when
streaming) carries a top-level `"reactlab"` object:

    {"prompt": <the exact text the model read, chat template applied>,
     "raw_text": <what the model wrote, before parsing>,
     "parsed_tool_calls": [{"id", "type", "function": {"name", "arguments"}, "source"}],
     "dropped_text": <what the model wrote between/after its calls, not sent, or null>,
     "duplicate_calls_dropped": <how many repeated identical calls were not sent>,
     "calls_dropped": <calls past max_tool_calls (or past one, parallel_tool_calls=false)>,
     "json_schema": <the constraint used for tool_choice required/named, or null>,
     "more_calls": {"on": …, "opened": [{"model_wrote", "kept", "why", …}]},
     "template": <where the chat template came from>, "usage": …, "timings": …, …}

With the SDK: `resp.model_extra["reactlab"]["prompt"]`. `GET /v1/debug/last` returns the
same object for the latest completion, whoever sent it and with or without the flag.

Who can read the debug view: with a server key (`--api-key` / `REACTLAB_SERVER_KEY`), only
clients sending that key, for both the flag and `/v1/debug/last` (every `/v1` path needs
it). Without a key, every process that can reach the port: on loopback (the default, and the
only address allowed without a key) that is every program and user on this machine, and
`/v1/debug/last` shows them the last prompt *anyone* sent. Start with a key if that matters.

Errors are OpenAI-shaped (`errors.APIError`): 400 for a malformed request, 401 for a wrong key
(only when the server was given one), 404 for an unknown model or path, 408 for an upload
slower than `upload_timeout`, 413 for a body over `max_body_bytes` (see `limits`; late
request headers close the connection, see `deadline`), 500 only
when the engine fails (or a bug in the server: then the message says so). The connection
stays usable after every one of them (408 excepted: its body never arrived, so the server
closes that connection), and the server keeps serving. Decoding, checking, rendering and
parsing run in worker threads, so `/health` answers while a big request is checked.
`serve_in_thread` runs the app in a background thread (tests, benchmarks); `__main__` runs it
in the foreground. Introduced in notebook 06 (under the hood).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from jinja2.exceptions import TemplateError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from reactlab.server import source
from reactlab.server.chat import Turn, sse, to_json
from reactlab.server.deadline import protocol
from reactlab.server.engines import EngineError
from reactlab.server.errors import APIError
from reactlab.server.limits import Limits, too_large
from reactlab.server.scheduler import ModelPool, Scheduler
from reactlab.server.validate import parse_body
from reactlab.server.weights import MODELS

ENDPOINTS = ("GET /health, GET /v1/models, POST /v1/chat/completions, GET /v1/debug/last")
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
log = logging.getLogger("reactlab.server")


class JSON(JSONResponse):
    """JSONResponse that keeps Chinese as Chinese and cannot fail to encode (see `to_json`)."""

    def render(self, content) -> bytes:
        return to_json(content, separators=(",", ":")).encode("utf-8")  # as Starlette's


@functools.lru_cache(maxsize=1)
def _version() -> str:
    try:
        from importlib.metadata import version

        return version("reactlab")
    except Exception:  # noqa: BLE001 — running from a source tree without metadata
        return "unknown"


def _engine_error(exc: Exception) -> APIError:
    """The APIError for a failure while serving: the engine's, or else a bug of ours."""
    if isinstance(exc, APIError):
        return exc
    if isinstance(exc, EngineError):
        return APIError(exc.status, str(exc), code="engine_error")
    log.error("Unexpected error while serving a request", exc_info=exc)
    return APIError(500, f"The server failed while answering: {type(exc).__name__}: {exc}. "
                         f"This is a bug in reactlab's server, not in your request.",
                    code="server_error")


class _Contain:
    """Turn any exception that escaped the handlers into a 500 in OpenAI's shape.

    Starlette's last-resort handler re-raises after answering, and uvicorn then resets the
    keep-alive connection, so a client's *next* request failed too. Pure ASGI (no
    BaseHTTPMiddleware): streamed chunks pass through untouched.
    """

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        started = False

        async def tracked(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # reported in OpenAI's shape, not re-raised
            if scope["type"] != "http" or started:
                raise
            error = _engine_error(exc)
            await JSON(error.body(), status_code=error.status)(scope, receive, send)


async def _read_body(request: Request, limits: Limits) -> bytes:
    """The request body, or 413 as soon as it is too large, or 408 if it is too slow."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise too_large(limits)  # refused unread: uvicorn discards the rest, keeps the connection
    chunks, size = [], 0

    async def read() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > limits.max_body_bytes:
                raise too_large(limits)
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), limits.upload_timeout)
    except asyncio.TimeoutError:
        raise APIError(408, f"The request body did not arrive within {limits.upload_timeout:g} "
                            f"s: send it at once (or start the server with a larger "
                            f"--upload-timeout).", None, "upload_timeout",
                       headers={"Connection": "close"}) from None
    except ClientDisconnect:
        raise APIError(400, "The client closed the connection before its body arrived.",
                       None, "client_disconnected") from None
    return b"".join(chunks)


async def _client_gone(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


def create_app(pool: ModelPool, api_key: str | None = None, limits: Limits | None = None,
               parallel: int = 1, help: bool = True, more_calls: bool = True) -> FastAPI:
    """The ASGI app around `pool` (engines by model name), running up to `parallel`
    generations at once (the engines must have as many slots). Example: see
    `replay.serve_replay`. `help=False` turns the small-model help (`assist`) off for every
    request; `more_calls=False` leaves only its more calls (`more_calls`) off, unless a request
    asks for them."""
    scheduler = Scheduler(slots=parallel)
    limits = (limits or Limits()).checked()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        scheduler.shutdown()

    async def check_key(request: Request) -> None:
        # A dependency, not a middleware: BaseHTTPMiddleware would wrap every streamed chunk.
        if api_key and request.url.path.startswith("/v1"):
            given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
            if not secrets.compare_digest(given.encode(), api_key.encode()):
                raise APIError(401, "Missing or wrong API key: send 'Authorization: Bearer <key>' "
                                    "with the key this server was started with (--api-key or "
                                    "REACTLAB_SERVER_KEY).", code="invalid_api_key")

    app = FastAPI(title="reactlab local server", docs_url=None, redoc_url=None,
                  openapi_url=None, lifespan=lifespan, dependencies=[Depends(check_key)],
                  default_response_class=JSON)
    app.add_middleware(_Contain)
    app.state.last = None
    started = time.time()
    code = source.digest()  # read now: files edited after start-up must not change the answer

    @app.exception_handler(APIError)
    async def api_error(request: Request, exc: APIError):
        return JSON(exc.body(), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 404:
            message = f"There is no {request.url.path} here. This server offers {ENDPOINTS}."
        else:
            message = f"{request.method} {request.url.path}: {exc.detail}. Endpoints: {ENDPOINTS}."
        return JSON(APIError(exc.status_code, message).body(), status_code=exc.status_code)

    @app.get("/health")
    async def health():
        kinds = sorted({getattr(e, "kind", "?") for e in pool.engines.values()})
        return {"status": "ok", "server": "reactlab", "version": _version(),
                "source": code,
                "model": pool.default, "pid": os.getpid(), "engine": ",".join(kinds) or None,
                "models_loaded": list(pool.engines), "slots": scheduler.slots,
                "running": scheduler.running, "queued": scheduler.waiting,
                "busy": scheduler.busy, "uptime_s": round(time.time() - started, 1)}

    @app.get("/v1/models")
    async def models():

        return {"object": "list", "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "reactlab",
             "loaded": name in pool.engines, "default": name == pool.default}
            for name in MODELS]}

    @app.get("/v1/debug/last")
    async def debug_last():
        if app.state.last is None:
            raise APIError(404, "No chat completion has been served yet: send one, then ask "
                                "again.", code="no_completion_yet")
        return JSON(app.state.last)

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request):
        raw = await _read_body(request, limits)
        req = await asyncio.to_thread(parse_body, raw, limits)  # linear, but maybe megabytes
        engine = await pool.get(req.model)
        try:
            turn = await asyncio.to_thread(Turn, req, engine, limits.max_tool_calls, help,
                                           more_calls)
        except TemplateError as exc:
            raise APIError(400, f"The chat template could not render these messages: {exc}",
                           "messages", "template_error") from None
        events = scheduler.events(turn.generate)
        if req.stream:
            return StreamingResponse(_stream(app, turn, events), media_type="text/event-stream",
                                     headers=SSE_HEADERS)
        consume = asyncio.ensure_future(_until_done(events))
        gone = asyncio.ensure_future(_client_gone(request))
        try:
            await asyncio.wait({consume, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not consume.done():
                consume.cancel()  # the client left: stop generating, free the engine
                # cancel() only asks: wait until the task has stopped before reading its state
                await asyncio.wait({consume})
        if consume.cancelled():
            return Response(status_code=499)  # nobody is listening any more
        if consume.exception():
            raise _engine_error(consume.exception())
        body = await asyncio.to_thread(turn.completion, consume.result())
        app.state.last = turn.debug()
        return JSON(body)

    return app


async def _until_done(events):
    async with contextlib.aclosing(events):
        async for kind, value in events:
            if kind == "done":
                return value
    raise EngineError("The engine stopped without a result.")


async def _stream(app: FastAPI, turn: Turn, events):
    """SSE lines; an engine failure after the headers went out becomes an error event."""
    try:
        async with contextlib.aclosing(events):
            async for line in turn.stream(events):
                yield line
        app.state.last = turn.debug()
    except Exception as exc:  # noqa: BLE001 — reported to the client in OpenAI's shape
        yield sse(_engine_error(exc).body())
        yield "data: [DONE]\n\n"


@contextlib.contextmanager
def serve_in_thread(pool: ModelPool, api_key: str | None = None,
                    limits: Limits | None = None, parallel: int = 1,
                    help: bool = True, more_calls: bool = True) -> Iterator[str]:
    """Serve `create_app(pool)` on a free loopback port in a daemon thread; yield the base URL.

    Example: with serve_in_thread(pool) as url: url -> "http://127.0.0.1:41873/v1"
    """
    import uvicorn


    limits = limits or Limits()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # see __main__
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(pool, api_key=api_key, limits=limits, parallel=parallel, help=help,
                     more_calls=more_calls)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                           http=protocol(limits.upload_timeout)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True,
                              name=f"reactlab-server-{port}")
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("The background server did not start within 10 s.")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
