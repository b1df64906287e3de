"""Start the local server: `python -m reactlab.server --port 18765 [--model 1.5b]`.

    python -m reactlab.server --host 127.0.0.1 --port 18765 --model qwen2.5-coder-1.5b-instruct
    python -m reactlab.server --engine replay --replay-file replies.json   # a JSON list of texts
    python -m reactlab.server --host 0.0.0.0 --parallel 4                 # a class: 4 at once
    reactlab serve …                                                      # the same, via the CLI

It binds the port first (so a taken port fails at once), loads the default model (so a
missing or corrupt model file stops start-up, not the first request), then serves until
Ctrl+C or SIGTERM. Any start-up problem is one sentence on stderr and exit code 2.

Limits on what clients may send (`limits`): `--max-body-bytes` (413 beyond it),
`--upload-timeout` (408 for a body that stalls, and a closed connection for late headers) and `--max-tool-calls` (calls per reply), or
REACTLAB_MAX_BODY_BYTES, REACTLAB_UPLOAD_TIMEOUT and REACTLAB_MAX_TOOL_CALLS; flags win.

After tool results the server helps the small model (no repeated call, no empty reply, no
plan instead of an answer: see `assist`), and after the model's calls it opens one more
`<tool_call>` where parallel calls are allowed (`more_calls`); `--no-help` (or
REACTLAB_SERVER_HELP=0) serves the model's replies as they are, `--no-more-calls` (or
REACTLAB_SERVER_MORE_CALLS=0) leaves only the second off.

Generations at once: `--parallel N` (or REACTLAB_PARALLEL; the flag wins), default 1. With
N > 1 the engine gets N llama.cpp slots decoded together (continuous batching), each with
its own `--ctx` tokens of context and prompt cache, so N agents progress at once instead of
queueing; it costs N times the KV cache (about 224 MB per slot for the 1.5B at 8192 tokens).
One slot is the default because a learner's laptop serves one learner, whose agent sends one
request at a time: more slots would only reserve memory. A class server wants 4-8
(benchmarks/load_test.py measures it; TEACHING.md, "A class on one server").

Listening beyond loopback (`--host 0.0.0.0`) needs an API key (`--api-key` or the
`REACTLAB_SERVER_KEY` environment variable): otherwise anyone on the network could use it.
Such a server then prints the base URL students put in `.env` (the `classroom` preset) and
its `/health` and `/v1/models` addresses (TEACHING.md, "A class on one server").
This module does not daemonize or write pid files (`reactlab.connection` manages a background
server). Introduced in notebook 00 (set-up) and notebook 06 (under the hood).
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import json
import os
import socket
import sys

from reactlab.config import DEFAULT_MODEL, DEFAULT_PORT
from reactlab.server.app import create_app
from reactlab.server.deadline import protocol
from reactlab.server.engines import EngineError, XllamacppEngine
from reactlab.server.gguf import GGUFError
from reactlab.server.limits import Limits
from reactlab.server.replay import ReplayEngine
from reactlab.server.scheduler import ModelPool
from reactlab.server.weights import WeightsError, resolve_name


class StartupError(Exception):
    """Start-up cannot go on; the message is the one sentence the user sees."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reactlab.server",
                                description="reactlab's OpenAI-compatible local server.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    p.add_argument("--port", type=int, default=int(os.environ.get("REACTLAB_PORT", DEFAULT_PORT)))
    p.add_argument("--model", default=None, help="default model: qwen2.5-coder-1.5b-instruct "
                                                 "(1.5b) or qwen2.5-coder-0.5b-instruct (0.5b)")
    p.add_argument("--gguf", help="serve this GGUF file as the default model instead of the "
                                  "assembled weights (a Qwen2.5 instruct model)")
    p.add_argument("--engine", choices=("xllamacpp", "replay"), default="xllamacpp")
    p.add_argument("--replay-file", help="JSON list of raw model texts (with --engine replay)")
    p.add_argument("--replay-delay", type=float, default=0.0,
                   help="seconds per replayed piece of text, to make replies take time")
    p.add_argument("--api-key", default=os.environ.get("REACTLAB_SERVER_KEY") or None,
                   help="require 'Authorization: Bearer KEY' (needed off loopback)")
    p.add_argument("--threads", type=int, default=2, help="CPU threads for the engine")
    p.add_argument("--ctx", type=int, default=8192, help="context size in tokens, per slot")
    p.add_argument("--parallel", default=None, metavar="N",
                   help="generations at once, each in its own llama.cpp slot (default 1; env "
                        "REACTLAB_PARALLEL; a class server: 4-8)")
    defaults = Limits()
    p.add_argument("--max-body-bytes", type=int, default=None,
                   help=f"refuse bodies larger than this with 413 (default "
                        f"{defaults.max_body_bytes}; env REACTLAB_MAX_BODY_BYTES)")
    p.add_argument("--upload-timeout", type=float, default=None,
                   help=f"seconds a request's headers, then its body, may take to arrive "
                        f"(late body: 408; late headers: connection closed; default "
                        f"{defaults.upload_timeout:g}; env REACTLAB_UPLOAD_TIMEOUT)")
    p.add_argument("--max-tool-calls", type=int, default=None,
                   help=f"tool calls per reply sent to the client, the rest dropped (default "
                        f"{defaults.max_tool_calls}; env REACTLAB_MAX_TOOL_CALLS)")
    p.add_argument("--no-help", dest="help", action="store_false",
                   default=os.environ.get("REACTLAB_SERVER_HELP", "1").strip() not in ("0", "false",
                                                                                  "no", "off"),
                   help="serve the model's replies as they are: no retry of a repeated call or "
                        "an empty reply or a plan after tool results (env REACTLAB_SERVER_HELP=0)")
    p.add_argument("--no-more-calls", dest="more_calls", action="store_false",
                   default=os.environ.get("REACTLAB_SERVER_MORE_CALLS", "1").strip() not in (
                       "0", "false", "no", "off"),
                   help="with the help on, do not open the next <tool_call> after the model's "
                        "calls (one generation less per reply that calls; a request may still "
                        "ask with \"reactlab_more_calls\": true; env REACTLAB_SERVER_MORE_CALLS=0)")
    p.add_argument("--log-level", default="warning",
                   choices=("critical", "error", "warning", "info", "debug"))
    return p


def _help_said(args) -> str:
    """What the start-up line says of the help: nothing when all of it is on."""
    if not args.help:
        return ", help off"
    return "" if args.more_calls else ", more calls off"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def class_address(host: str) -> str:
    """The address students type for a server listening on `host` (TEACHING.md).

    A wildcard host (0.0.0.0, ::) is this machine's address on its default route, found
    without sending anything; "<this machine's address>" when there is none.
    Example: class_address("192.168.1.20") -> "192.168.1.20"
    """
    if host not in ("0.0.0.0", "::", ""):
        return f"[{host}]" if ":" in host else host
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # a documentation address: UDP connect sends nothing
            return probe.getsockname()[0]
    except OSError:
        return "<this machine's address>"


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, so asyncio sets TCP_NODELAY on each connection: without it, Nagle holds a
    # response body back until the client's delayed ACK, 40 ms per request.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
            raise StartupError(f"Port {port} on {host} is already in use (another reactlab "
                               f"server? see http://{host}:{port}/health): stop it, or choose "
                               f"another port with --port.") from None
        raise StartupError(f"Cannot listen on {host}:{port}: {exc.strerror or exc}.") from None
    return sock


def _factory(args):
    """A function model name -> engine, for the ModelPool."""
    if args.engine == "replay":

        if not args.replay_file:
            raise StartupError("--engine replay needs --replay-file, a JSON list of the raw texts "
                               "the 'model' should answer with.")
        try:
            with open(args.replay_file, encoding="utf-8") as f:
                texts = json.load(f)
        except (OSError, ValueError) as exc:
            raise StartupError(f"Cannot read the replay file {args.replay_file}: {exc}.") from None
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise StartupError(f"{args.replay_file} must hold a JSON list of strings.")
        engine = ReplayEngine(texts, model=args.model or DEFAULT_MODEL, delay=args.replay_delay,
                              parallel=args.parallel)
        return lambda name: engine


    default = resolve_name(args.model)

    def build(name: str):
        path = args.gguf if args.gguf and name == default else None
        return XllamacppEngine(name, path=path, n_ctx=args.ctx, threads=args.threads,
                               parallel=args.parallel)

    return build


def _load_default(pool) -> None:

    try:
        pool.load(pool.default)
    except (WeightsError, GGUFError, EngineError) as exc:
        raise StartupError(f"Cannot load the model {pool.default}: {exc}") from None
    except ImportError as exc:
        raise StartupError(f"The engine is not installed ({exc.name}): run `make setup` or pip "
                           f"install 'reactlab[local]'.") from None


def _limits(args) -> Limits:
    """Flags override environment variables, which override the defaults."""
    try:
        limits = Limits.from_env()
        given = {name: getattr(args, name) for name in ("max_body_bytes", "upload_timeout",
                                                         "max_tool_calls")
                 if getattr(args, name) is not None}
        return dataclasses.replace(limits, **given).checked()
    except ValueError as exc:
        raise StartupError(f"Bad limit: {exc} Give a positive number.") from None


def _parallel(args) -> int:
    """Slots: the flag, else REACTLAB_PARALLEL, else 1. Example: --parallel 4 -> 4"""
    given = args.parallel if args.parallel is not None else os.environ.get("REACTLAB_PARALLEL")
    where = "--parallel" if args.parallel is not None else "REACTLAB_PARALLEL"
    if given in (None, ""):
        return 1
    try:
        slots = int(given)
    except ValueError:
        slots = 0
    if slots < 1:
        raise StartupError(f"Bad {where} {given!r}: give the number of generations to run at "
                           f"once, a whole number of at least 1 (1 for one learner, 4-8 for a "
                           f"class).")
    return slots


def main(argv: list[str] | None = None) -> int:
    """Run the server until stopped. Returns the exit code (2 for any start-up problem)."""
    args = _parser().parse_args(argv)
    try:
        limits = _limits(args)
        args.parallel = _parallel(args)
        if args.replay_delay < 0:
            raise StartupError(f"Bad --replay-delay {args.replay_delay:g}: give seconds per "
                               f"piece, 0 or more.")
        if not _is_loopback(args.host) and not args.api_key:
            raise StartupError(f"Refusing to listen on {args.host} without an API key: anyone "
                               f"on the network could use this machine's model. Pass --api-key "
                               f"KEY (or set REACTLAB_SERVER_KEY), or keep --host 127.0.0.1.")

        try:
            factory = _factory(args)
            pool = ModelPool(factory, args.model or DEFAULT_MODEL)
        except WeightsError as exc:
            raise StartupError(str(exc)) from None
        sock = _bind(args.host, args.port)
        _load_default(pool)
    except StartupError as exc:
        print(f"reactlab server: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    import uvicorn


    app = create_app(pool, api_key=args.api_key, limits=limits, parallel=args.parallel,
                     help=args.help, more_calls=args.more_calls)
    host = f"[{args.host}]" if ":" in args.host else args.host
    slots = f", {args.parallel} slots" if args.parallel > 1 else ""
    print(f"reactlab server: {pool.default} ({args.engine}{slots}) on http://{host}:{args.port}"
          f"/v1 (pid {os.getpid()}{_help_said(args)})", file=sys.stderr,
          flush=True)
    if not _is_loopback(args.host):  # a class server: say what students and the teacher use
        base = f"http://{class_address(args.host)}:{args.port}"
        print(f"reactlab server: students set REACTLAB_PROVIDER=classroom, OPENAI_BASE_URL="
              f"{base}/v1 and the class key as OPENAI_API_KEY; status for the teacher: "
              f"{base}/health (no key), {base}/v1/models (with the key)",
              file=sys.stderr, flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level=args.log_level, lifespan="on",
                                           http=protocol(limits.upload_timeout)))
    try:
        server.run(sockets=[sock])
    finally:
        pool.close()
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
