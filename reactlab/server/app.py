"""The HTTP face of the local server: an OpenAI-compatible API on FastAPI + uvicorn.

Endpoints:

- `GET /health` -> {"status": "ok", "server": "reactlab", "model": <default>, "pid": …,
  "engine": "xllamacpp" | "replay", "models_loaded": […], "busy": …, "queued": …}
- `GET /v1/models` -> the local models (OpenAI's list shape; `loaded` and `default` added).
- `POST /v1/chat/completions` -> OpenAI's chat completion, non-stream or SSE stream, with
  `tools`, `tool_choice`, `parallel_tool_calls`, `stop`, `max_tokens`, `temperature`, `top_p`,
  `seed`, `stream_options.include_usage`, `response_format` and `cache_prompt` (llama.cpp's
  name; false makes the engine re-read the whole prompt, for measuring the prefix cache).
- `GET /v1/debug/last` -> the teaching view of the latest completion (below).

Seeing what the model really saw and said: add `"reactlab_debug": true` to the request body
(openai SDK: `extra_body={"reactlab_debug": True}`) and the response (the final chunk, when
streaming) carries a top-level `"reactlab"` object:

    {"prompt": <the exact text the model read, chat template applied>,
     "raw_text": <what the model wrote, before parsing>,
     "parsed_tool_calls": [{"id", "type", "function": {"name", "arguments"}, "source"}],
     "dropped_text": <what the model wrote between/after its calls, not sent, or null>,
     "duplicate_calls_dropped": <how many repeated identical calls were not sent>,
     "json_schema": <the constraint used for tool_choice required/named, or null>,
     "template": <where the chat template came from>, "usage": …, "timings": …, …}

With the SDK: `resp.model_extra["reactlab"]["prompt"]`. `GET /v1/debug/last` returns the
same object for the latest completion, whoever sent it and with or without the flag.

Errors are OpenAI-shaped (`errors.APIError`): 400 for a malformed request, 401 for a wrong key
(only when the server was given one), 404 for an unknown model or path, 500 when the engine
fails. The server keeps serving after every one of them. `serve_in_thread` runs the app in a
background thread (tests, benchmarks); `__main__` runs it in the foreground. Introduced in notebook 06 (under the hood).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
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

from reactlab.server.chat import Turn, sse
from reactlab.server.engines import EngineError
from reactlab.server.errors import APIError
from reactlab.server.scheduler import ModelPool, Scheduler

ENDPOINTS = ("GET /health, GET /v1/models, POST /v1/chat/completions, GET /v1/debug/last")
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@functools.lru_cache(maxsize=1)
def _version() -> str:
    try:
        from importlib.metadata import version

        return version("reactlab")
    except Exception:  # noqa: BLE001 — running from a source tree without metadata
        return "unknown"


def _engine_error(exc: Exception) -> APIError:
    if isinstance(exc, APIError):
        return exc
    if isinstance(exc, EngineError):
        return APIError(exc.status, str(exc), code="engine_error")
    return APIError(500, f"The engine failed: {type(exc).__name__}: {exc}", code="engine_error")


async def _client_gone(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


def create_app(pool: ModelPool, api_key: str | None = None) -> FastAPI:
    """The ASGI app around `pool` (engines by model name). Example: see `replay.serve_replay`."""
    scheduler = Scheduler()

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
                  openapi_url=None, lifespan=lifespan, dependencies=[Depends(check_key)])
    app.state.last = None
    started = time.time()

    @app.exception_handler(APIError)
    async def api_error(request: Request, exc: APIError):
        return JSONResponse(exc.body(), status_code=exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 404:
            message = f"There is no {request.url.path} here. This server offers {ENDPOINTS}."
        else:
            message = f"{request.method} {request.url.path}: {exc.detail}. Endpoints: {ENDPOINTS}."
        return JSONResponse(APIError(exc.status_code, message).body(), status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception):
        return JSONResponse(_engine_error(exc).body(), status_code=500)

    @app.get("/health")
    async def health():
        kinds = sorted({getattr(e, "kind", "?") for e in pool.engines.values()})
        return {"status": "ok", "server": "reactlab", "version": _version(),
                "model": pool.default, "pid": os.getpid(), "engine": ",".join(kinds) or None,
                "models_loaded": list(pool.engines), "busy": scheduler.busy,
                "queued": scheduler.waiting, "uptime_s": round(time.time() - started, 1)}

    @app.get("/v1/models")
    async def models():
        from reactlab.server.weights import MODELS

        return {"object": "list", "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "reactlab",
             "loaded": name in pool.engines, "default": name == pool.default}
            for name in MODELS]}

    @app.get("/v1/debug/last")
    async def debug_last():
        if app.state.last is None:
            raise APIError(404, "No chat completion has been served yet: send one, then ask "
                                "again.", code="no_completion_yet")
        return app.state.last

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request):
        from reactlab.server.validate import parse_body

        req = parse_body(await request.body())
        engine = await pool.get(req.model)
        try:
            turn = Turn(req, engine)
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
        if consume.cancelled():
            return Response(status_code=499)  # nobody is listening any more
        if consume.exception():
            raise _engine_error(consume.exception())
        body = turn.completion(consume.result())
        app.state.last = turn.debug()
        return JSONResponse(body)

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
def serve_in_thread(pool: ModelPool, api_key: str | None = None) -> Iterator[str]:
    """Serve `create_app(pool)` on a free loopback port in a daemon thread; yield the base URL.

    Example: with serve_in_thread(pool) as url: url -> "http://127.0.0.1:41873/v1"
    """
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # see __main__
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(pool, api_key=api_key), log_level="warning",
                                           lifespan="on"))
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
