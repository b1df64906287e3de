"""scripts/server_guard.py: `make test` stops the local server it started, and only that one.

The servers here run the replay engine (REACTLAB_SERVER_ARGS) on a free port with a private
REACTLAB_HOME, so the real start-up path — detached process, pid file, /health — takes seconds
and no model.
"""

from __future__ import annotations

import http.server
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reactlab.connection import health, stop_local_server

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("server_guard", ROOT / "scripts" / "server_guard.py")
guard = importlib.util.module_from_spec(spec)
spec.loader.exec_module(guard)

CONNECT = [sys.executable, "-c", "import reactlab; reactlab.connect(quiet=True)"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    port = free_port()
    monkeypatch.setenv("REACTLAB_HOME", str(tmp_path))
    monkeypatch.setenv("REACTLAB_PORT", str(port))
    script = tmp_path / "replay.json"
    script.write_text('["OK"]')
    monkeypatch.setenv("REACTLAB_SERVER_ARGS", f"--engine replay --replay-file {script}")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the command's `import reactlab` is this checkout
    for var in ("REACTLAB_PROVIDER", "OPENAI_BASE_URL", "REACTLAB_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    yield port
    stop_local_server(port)


def test_a_server_the_command_started_is_stopped(isolated, tmp_path, capsys):
    assert guard.main(["--", *CONNECT]) == 0
    assert health(isolated) is None
    assert not (tmp_path / "run" / f"server-{isolated}.pid").exists()
    assert "stopped the reactlab server this run started" in capsys.readouterr().out


def test_a_server_running_before_is_left_running(isolated, capsys):
    subprocess.run(CONNECT, check=True)  # started by someone else (not our child process)
    pid = health(isolated)["pid"]
    assert guard.main(["--", *CONNECT]) == 0  # the command reuses it
    assert health(isolated)["pid"] == pid
    out = capsys.readouterr().out
    assert f"a reactlab server (pid {pid}) is already on port {isolated}; it will be left" in out
    assert "stopped" not in out


def test_the_exit_code_is_the_commands(isolated):
    assert guard.main(["--", sys.executable, "-c", "raise SystemExit(3)"]) == 3
    assert guard.main([sys.executable, "-c", "pass"]) == 0  # the `--` is optional


def test_a_command_that_cannot_run(isolated, tmp_path, capsys):
    assert guard.main(["--", str(tmp_path / "no-such-program")]) == 127
    assert "cannot run" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [[], ["--"], ["--verbose"]])
def test_usage(argv, capsys):
    assert guard.main(argv) == 2
    assert "usage: python scripts/server_guard.py -- COMMAND" in capsys.readouterr().err


def test_a_bad_port_setting_is_one_sentence(isolated, monkeypatch, capsys):
    monkeypatch.setenv("REACTLAB_PORT", "eighty")
    assert guard.main(["--", sys.executable, "-c", "pass"]) == 2
    assert "REACTLAB_PORT='eighty' is not a port number" in capsys.readouterr().err


def test_server_pid_without_a_server_or_with_another_program(isolated):
    assert guard.server_pid(isolated) is None

    class Other(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"status": "ok", "pid": 1}).encode()
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        assert guard.server_pid(srv.server_address[1]) is None  # not ours: nothing to stop
    finally:
        srv.shutdown()
        srv.server_close()


def test_stop_refuses_a_pid_that_is_not_a_reactlab_server(isolated):
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        said = guard.stop_server(isolated, other.pid)
        assert f"left pid {other.pid} alone" in said and "reactlab stop" in said
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_stop_of_a_process_that_is_gone(isolated):
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    assert "has already stopped" in guard.stop_server(isolated, done.pid)


def test_command_line_sees_live_processes_not_zombies():
    assert "python" in guard.command_line(os.getpid()).lower()
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.monotonic() + 60  # a bound against hanging, not a timing assertion
        while guard.command_line(child.pid) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert guard.command_line(child.pid) is None  # exited, not yet reaped: a zombie is gone
    finally:
        child.wait()


def test_sigterm_to_the_guard_still_stops_the_server_it_saw_start(isolated):
    # A CI timeout sends SIGTERM: the guard passes it on, then stops the new server.
    code = "import reactlab, time; reactlab.connect(quiet=True); print('up', flush=True); time.sleep(120)"
    started = [sys.executable, "-c", code]
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "server_guard.py"), "--",
                             *started], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "up"
        assert health(isolated) is not None
        proc.terminate()
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + 15
    assert "stopped the reactlab server this run started" in out
    assert health(isolated) is None


def test_a_port_busy_before_the_run_means_nothing_is_stopped(isolated, monkeypatch, capsys):
    # A developer's server too busy to answer /health at the start looks like "no server":
    # the port being in use is what says it may not be ours.
    answers = iter([None])
    real = guard.server_pid
    monkeypatch.setattr(guard, "server_pid", lambda port: next(answers, None) or real(port))
    monkeypatch.setattr(guard, "port_in_use", lambda port: True)
    assert guard.main(["--", *CONNECT]) == 0
    assert health(isolated) is not None  # left running (the fixture stops it)
    out = capsys.readouterr().out
    assert "something that did not answer /health is already on port" in out
    assert "stopped" not in out


def test_port_in_use(isolated):
    assert not guard.port_in_use(isolated)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        assert guard.port_in_use(s.getsockname()[1])
