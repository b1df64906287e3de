"""`reactlab` command: serve, start, stop, status, model, check.

    reactlab serve [--host H --port N --parallel N]    the local server in the foreground
    reactlab start                                     start it in the background (or reuse it)
    reactlab stop                                      stop the background server
    reactlab status                                    is it up, which model
    reactlab model [--name 0.5b]                       assemble + verify the local weights
    reactlab check                                     the set-up checks of notebook 00

Errors are one sentence and exit code 2, never a traceback. It does nothing the modules it
calls cannot do from Python (`reactlab.connection`, `reactlab.doctor`). Introduced in
notebook 00 (`reactlab stop`).
"""

from __future__ import annotations

import argparse
import sys

from reactlab.config import ConfigError, load_settings
from reactlab.connection import ServerError, ensure_local_server, health, stop_local_server
from reactlab.doctor import report
from reactlab.server.__main__ import main as serve
from reactlab.server.weights import WeightsError, ensure_model


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        return serve(argv[1:]) or 0
    parser = argparse.ArgumentParser(prog="reactlab", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("serve", help="run the local server in the foreground")
    sub.add_parser("start", help="start the local server in the background")
    sub.add_parser("stop", help="stop the background local server")
    sub.add_parser("status", help="show whether the local server is up")
    m = sub.add_parser("model", help="assemble and verify the local model")
    m.add_argument("--name", default=None, help="1.5b (default) or 0.5b")
    c = sub.add_parser("check", help="check the set-up")
    c.add_argument("--no-backend", action="store_true", help="skip the test request")
    args = parser.parse_args(argv)

    try:
        if args.cmd == "start":
            s = load_settings(provider="local")
            print(f"reactlab server on port {s.port}: {ensure_local_server(s)}")
        elif args.cmd == "stop":
            print(stop_local_server())
        elif args.cmd == "status":
            s = load_settings(provider="local")
            info = health(s.port)
            print(f"up on port {s.port}: {info}" if info else f"not running on port {s.port}")
            return 0 if info else 1
        elif args.cmd == "model":
            print(ensure_model(args.name))
        elif args.cmd == "check":
            return 0 if report(backend=not args.no_backend) else 1
    except (ConfigError, ServerError, WeightsError, OSError) as e:
        print(f"reactlab: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
