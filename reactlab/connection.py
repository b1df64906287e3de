"""`connect()`: one object that says which OpenAI-compatible backend answers.

With a provider configured (`.env` or the shell, see `reactlab.config`) it builds an
`openai.OpenAI` client for it. Otherwise it reuses reactlab's local server on
127.0.0.1:$REACTLAB_PORT, or starts one in the background (one per machine, shared by all
notebooks, stopped with `reactlab stop`). Either way it prints one line saying who answers.

A key goes only to a base URL set in the same place as the key (see `reactlab.config`):
otherwise `connect()` refuses with a ConfigError that says which variable came from where.
It does not check that a cloud key is valid (that costs a request); notebook 00 does that.
Introduced in notebook 00.
"""

from __future__ import annotations

import contextlib
import fcntl
import http.client
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from openai import OpenAI

from reactlab.config import SHELL, ConfigError, Settings, load_settings, reactlab_home

START_TIMEOUT_S = 300  # assembling 1 GB of weights + loading the model on a slow disk


class ServerError(RuntimeError):
    """The local server could not be reached or started; the message says what to do."""


@dataclass
class Connection:
    client: object  # openai.OpenAI
    model: str
    base_url: str
    provider: str
    api_key: str | None = field(default=None, repr=False)

    def headers(self) -> dict[str, str]:
        """Headers for a raw `requests` call (notebook 01). Contains the key: never print it."""
        return {"Authorization": f"Bearer {self.api_key or 'not-needed'}",
                "Content-Type": "application/json"}

    def __repr__(self) -> str:
        return (f"Connection(provider={self.provider!r}, model={self.model!r}, "
                f"base_url={self.base_url!r})")


def connect(provider: str | None = None, model: str | None = None, *, quiet: bool = False,
            timeout: float = 600.0) -> Connection:
    """Return a Connection for the configured provider, or for the local server.

    Raises ConfigError for settings that cannot work (including a key and a base URL set in
    different places), ServerError when the local server cannot be started.
    Example: connect() -> Connection(provider='local', model=config.DEFAULT_MODEL, …) and prints
             "reactlab: model … via reactlab local server at http://127.0.0.1:<port>/v1 (reused)"
    """
    settings = load_settings(provider=provider, model=model)
    if settings.is_local:
        note = ensure_local_server(settings)
        where = f"reactlab local server at {settings.base_url} ({note})"
    else:
        where = f"{settings.provider} at {settings.base_url} (from {settings.source}"
        if settings.key_source:
            key_from = "the shell" if settings.key_source == SHELL else settings.key_source
            where += f"; key {settings.masked_key} from {key_from}"
        where += ")"
    client = OpenAI(base_url=settings.base_url, api_key=settings.api_key or "not-needed",
                    timeout=timeout, max_retries=0 if settings.is_local else 2)
    if not quiet:
        print(f"reactlab: model {settings.model} via {where}")
    return Connection(client=client, model=settings.model, base_url=settings.base_url,
                      provider=settings.provider, api_key=settings.api_key)


# --- the local server -----------------------------------------------------------------------

def _paths(port: int) -> tuple[Path, Path, Path]:
    run = reactlab_home() / "run"
    run.mkdir(parents=True, exist_ok=True)
    return run / f"server-{port}.pid", run / f"server-{port}.log", run / f"server-{port}.lock"


def health(port: int, timeout: float = 2.0) -> dict | None:
    """The local server's /health JSON, None when nothing answers on the port.

    Raises ServerError when something else (not reactlab) answers there.
    """
    url = f"http://127.0.0.1:{port}/health"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            body = r.read(65536)  # a health reply is tiny; a stranger's stream must not hang us
    except urllib.error.HTTPError as e:
        body = e.read(65536)
    except http.client.HTTPException:  # something answers, but not in HTTP (BadStatusLine)
        body = b""
    except (urllib.error.URLError, OSError):
        return None
    try:
        info = json.loads(body)
    except ValueError:
        info = None
    if not isinstance(info, dict) or info.get("server") != "reactlab":
        raise ServerError(f"Port {port} is taken by another program, not a reactlab server. "
                          f"Set REACTLAB_PORT to a free port (in .env or the shell) and retry.")
    return info


def _port_is_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def stale(info: dict | None) -> str | None:
    """Why a running server's code is not this checkout's, or None when it is (or cannot tell:
    a server too old to report its `source`, or none running).

    Example: stale({"source": "0123abcd…", …}) -> "it runs other server code than this …"
    """
    from reactlab.server import source  # reads files only: nothing heavy is imported

    theirs = (info or {}).get("source")
    if not theirs or theirs == source.digest():
        return None
    return ("it runs other server code than this checkout (started before an update or an "
            "edit): `reactlab stop`, then connect again to start the current one")


def refuse_stale(port: int | None = None) -> None:
    """Raise ServerError when the reactlab server on `port` (default: the configured one) runs
    other code than this checkout. For what saves or measures results (the notebook runner,
    the benchmarks): their figures must come from the code they are committed with. Nothing
    running, or another program on the port: nothing to refuse here.
    """
    port = port or load_settings(provider="local").port
    try:
        info = health(port)
    except ServerError:
        return
    if why := stale(info):
        raise ServerError(f"The reactlab server on port {port} (pid {info.get('pid')}): {why}.")


def ensure_local_server(settings: Settings) -> str:
    """Reuse or start the local server; return 'reused' or 'started in N s' (with a note when
    the server reused runs other code than this checkout: `stale`)."""
    port = settings.port
    if info := health(port):
        return "reused" + (f"; {why}" if (why := stale(info)) else "")
    pid_file, log_file, lock_file = _paths(port)
    # Two notebooks started at once must not start two servers: hold a lock while starting.
    with open(lock_file, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if health(port):
            return "reused"
        if _port_is_open(port):
            raise ServerError(f"Port {port} is taken by another program that does not answer "
                              f"HTTP. Set REACTLAB_PORT to a free port and retry.")
        t0 = time.monotonic()
        proc = start_server_process(port, settings.model, log_file)
        pid_file.write_text(str(proc.pid))
        while time.monotonic() - t0 < START_TIMEOUT_S:
            if proc.poll() is not None:
                raise ServerError(f"The local server stopped during start-up: "
                                  f"{_last_line(log_file)} (full log: {log_file})")
            if health(port, timeout=1.0):
                return f"started in {time.monotonic() - t0:.0f} s"
            time.sleep(0.5)
        proc.terminate()
        raise ServerError(f"The local server did not answer within {START_TIMEOUT_S} s; "
                          f"see {log_file}.")


def start_server_process(port: int, model: str, log_file: Path) -> subprocess.Popen:
    """Start `python -m reactlab.server` detached, so it outlives this notebook's kernel."""
    cmd = [sys.executable, "-m", "reactlab.server", "--host", "127.0.0.1", "--port", str(port),
           "--model", model]
    # Extra server arguments, e.g. the tests' "--engine replay --replay-file F" (no model).
    cmd += shlex.split(os.environ.get("REACTLAB_SERVER_ARGS", ""))
    with open(log_file, "ab") as log:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                env=dict(os.environ))


def _last_line(log_file: Path) -> str:
    try:
        lines = [ln for ln in log_file.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "(no log)"
    return lines[-1] if lines else "(empty log)"


def _gone(pid: int) -> bool:
    """True once process `pid` has exited. A server this process started (connect() in the
    same kernel) stays a zombie until we reap it: `kill(pid, 0)` alone would wait the full
    timeout for it."""
    with contextlib.suppress(ChildProcessError):  # not our child: its own parent reaps it
        if os.waitpid(pid, os.WNOHANG)[0]:
            return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def stop_local_server(port: int | None = None, timeout: float = 15.0) -> str:
    """Stop the background server started by connect(); returns what happened."""
    if port is None:
        port = load_settings(provider="local").port
    pid_file, _, _ = _paths(port)
    pid = None
    if pid_file.exists():
        with contextlib.suppress(ValueError):
            pid = int(pid_file.read_text().strip())
    if pid is None:
        with contextlib.suppress(ServerError):
            info = health(port)
            pid = info.get("pid") if info else None
    if not pid:
        return f"no reactlab server on port {port}"
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pid_file.unlink(missing_ok=True)
        return f"no reactlab server on port {port} (stale pid file removed)"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _gone(pid):
            break
        time.sleep(0.2)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        pid_file.unlink(missing_ok=True)
        return f"killed the reactlab server on port {port} (pid {pid}): it ignored SIGTERM"
    pid_file.unlink(missing_ok=True)
    return f"stopped the reactlab server on port {port} (pid {pid})"


__all__ = [
    "ConfigError",
    "Connection",
    "ServerError",
    "connect",
    "ensure_local_server",
    "health",
    "stop_local_server",
]
