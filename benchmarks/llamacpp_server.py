"""Serve the course GGUF with llama.cpp's own OpenAI-compatible server, for a side-by-side run.

xllamacpp's `Server` opens llama.cpp's HTTP listener (`/v1/chat/completions`) on the given
port. With `use_jinja` it renders the chat template stored in the GGUF and parses tool calls
with llama.cpp's own parser, so `benchmarks/bfcl.py` can compare that with reactlab's server
on the same weights. It runs in the foreground until Ctrl-C and listens on 127.0.0.1 only.

What it deliberately does NOT do: share anything with reactlab's server (no prompt rendering,
no tool-call repair, no API key), or run next to it: two llama.cpp engines on 2 cores
starve each other (benchmarks/README.md), so stop the reactlab server first.

Usage: .venv/bin/python benchmarks/llamacpp_server.py [--port 18766] [--model 1.5b]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reactlab.server.weights import ensure_model, resolve_name

HOST = "127.0.0.1"
DEFAULT_PORT = 18766  # next to reactlab's 18765


def params(path: Path, port: int, name: str, n_ctx: int = 8192, threads: int = 2):
    """llama.cpp server settings: the GGUF's own template and tool parser, loopback only."""
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = str(path)
    p.model_alias = {name}  # the name the server reports and accepts as `model`
    p.n_ctx = n_ctx
    p.n_parallel = 1  # one generation at a time, like reactlab's server
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = threads
    p.use_jinja = True
    p.hostnames = [HOST]
    p.port = port
    p.ui = False
    return p


def serve(model: str = "1.5b", port: int = DEFAULT_PORT, n_ctx: int = 8192, threads: int = 2,
          wait=None) -> str:
    """Start the server, print its base URL, block in `wait()` (default: until Ctrl-C)."""
    import xllamacpp as xlc

    name = resolve_name(model)
    server = xlc.Server(params(ensure_model(name), port, name, n_ctx, threads))
    url = f"http://{HOST}:{port}/v1"
    print(f"llama.cpp server for {name}: {url}  (Ctrl-C stops it)", flush=True)
    try:
        (wait or _forever)()
    except KeyboardInterrupt:
        pass
    del server  # the xllamacpp Server stops its threads when collected
    return url


def _forever() -> None:
    while True:
        time.sleep(3600)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=DEFAULT_PORT)
    ap.add_argument("--model", default="1.5b", help="1.5b (default) or 0.5b")
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    serve(args.model, args.port, args.n_ctx, args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
