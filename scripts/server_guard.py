"""Run a command; afterwards stop the local server only if that command started it.

    python scripts/server_guard.py -- python -m pytest     # what `make test` runs

The tests and notebooks start reactlab's local server on 127.0.0.1:$REACTLAB_PORT when none
answers (`reactlab.connection.ensure_local_server`), detached so it outlives them. This wrapper
asks `/health` for the server's pid before and after the command: a server that was already
running (a developer's, another checkout's) is left alone; a new one is stopped by its pid —
never by a name pattern, which would also hit other people's servers. Exits with the command's
exit code, and still stops the new server when the run is interrupted (Ctrl-C, SIGTERM).

It does not look at other ports: the unit tests that start servers on free ports stop them
themselves. Used by the Makefile's `test` target and by `.ci/run`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from reactlab.config import ConfigError, load_settings, reactlab_home
from reactlab.connection import ServerError, health

STOP_TIMEOUT_S = 15.0
SERVER_MARKERS = ("reactlab.server", "reactlab serve")  # `python -m reactlab.server`, the CLI


def server_pid(port: int) -> int | None:
    """The pid the reactlab server on `port` reports, None when none answers there.

    Example: server_pid(18765) -> 41237   (or None: nothing, or another program, on the port)
    """
    try:
        info = health(port)
    except ServerError:  # another program holds the port: there is no reactlab server to own
        return None
    pid = info.get("pid") if info else None
    return pid if isinstance(pid, int) and pid > 0 else None


def port_in_use(port: int) -> bool:
    """Whether something listens on 127.0.0.1:`port` (answering /health or not)."""
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def command_line(pid: int) -> str | None:
    """The command line of a live process, None when it is gone or a zombie."""
    proc = Path("/proc") / str(pid)
    if Path("/proc/self/stat").exists():  # Linux: no dependency on `ps`
        try:
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError):
            return None
        return None if state == "Z" else b" ".join(argv).decode(errors="replace").strip()
    out = subprocess.run(["ps", "-o", "stat=,command=", "-p", str(pid)], check=False,
                         capture_output=True, text=True).stdout.strip()
    if not out or out.startswith("Z"):
        return None
    return out.split(None, 1)[1] if " " in out else ""


def stop_server(port: int, pid: int, timeout: float = STOP_TIMEOUT_S) -> str:
    """SIGTERM the server process `pid` (SIGKILL after `timeout`); say what happened.

    Refuses a pid whose command line is not a reactlab server: `/health` may come from another
    pid namespace (a container), where that number is somebody else's process.
    """
    cmd = command_line(pid)
    if cmd is None:
        return f"the reactlab server on port {port} (pid {pid}) has already stopped"
    if not any(m in cmd for m in SERVER_MARKERS):
        return (f"left pid {pid} alone: it answers as the reactlab server on port {port} but "
                f"runs {cmd[:80]!r}; stop that server yourself (`reactlab stop`).")
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while command_line(pid) is not None:
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.2)
    # The pid file reactlab.connection wrote when it started this server; a stale one could
    # later make `reactlab stop` signal an unrelated process that reused the number.
    pid_file = reactlab_home() / "run" / f"server-{port}.pid"
    with contextlib.suppress(OSError):
        if pid_file.read_text().strip() == str(pid):
            pid_file.unlink()
    return f"stopped the reactlab server this run started on port {port} (pid {pid})"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv or argv[0].startswith("-"):
        print("usage: python scripts/server_guard.py -- COMMAND [ARGS…]  (e.g. -- python -m pytest)",
              file=sys.stderr)
        return 2
    try:
        port = load_settings(provider="local").port
    except ConfigError as e:
        print(f"server_guard: {e}", file=sys.stderr)
        return 2
    before = server_pid(port)
    # Something listens but did not say who it is (a server too busy to answer /health in
    # time, another program): whatever answers afterwards may be that, so stop nothing.
    unknown = before is None and port_in_use(port)
    if before or unknown:
        who = f"a reactlab server (pid {before})" if before else "something that did not answer /health"
        print(f"server_guard: {who} is already on port {port}; it will be left running.", flush=True)
    try:
        return run(argv)
    finally:
        after = server_pid(port)
        if after and after != before and not unknown:
            print(f"server_guard: {stop_server(port, after)}", flush=True)


def run(argv: list[str]) -> int:
    """Run `argv` to its end and return its exit code; a SIGTERM sent to us is passed on."""
    try:
        child = subprocess.Popen(argv)
    except OSError as e:
        print(f"server_guard: cannot run {argv[0]!r}: {e}", file=sys.stderr)
        return 127
    previous = signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    try:
        while True:
            try:
                rc = child.wait()
                return 128 - rc if rc < 0 else rc  # killed by signal N: the shell's 128 + N
            except KeyboardInterrupt:
                # Ctrl-C reached the child too (same process group): let pytest shut its
                # kernels down instead of killing it, then stop the server.
                continue
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
