"""connect(): start a server, reuse it, refuse a port taken by someone else.

The started server runs the replay engine (REACTLAB_SERVER_ARGS), so these tests
exercise the real start-up path — subprocess, pid file, health check, lock — in seconds.
"""

import http.server
import socket
import threading

import openai
import pytest

import reactlab
from reactlab.config import ConfigError
from reactlab.connection import ServerError, health, stop_local_server


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
    for var in ("REACTLAB_PROVIDER", "OPENAI_BASE_URL", "REACTLAB_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    yield port
    stop_local_server(port)


def test_connect_starts_then_reuses_a_server(isolated, capsys):
    conn = reactlab.connect()
    first = capsys.readouterr().out
    assert conn.provider == "local" and conn.base_url.endswith(f":{isolated}/v1")
    assert "started" in first and first.count("\n") == 1
    pid = health(isolated)["pid"]

    again = reactlab.connect()
    assert "reused" in capsys.readouterr().out
    assert health(isolated)["pid"] == pid and again.base_url == conn.base_url

    # this process started it, so it is reaped here: stopped by SIGTERM, not killed at the
    # deadline (a zombie used to look alive until then)
    assert stop_local_server(isolated).startswith("stopped")
    assert health(isolated) is None


def test_connection_repr_and_headers_hide_nothing_but_the_key(isolated):
    conn = reactlab.connect(quiet=True)
    assert "not-needed" not in repr(conn)
    assert conn.headers()["Authorization"].startswith("Bearer ")


def test_a_port_taken_by_another_program_is_one_clear_sentence(isolated):
    class Other(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<html>not reactlab</html>")

        def log_message(self, *a):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", isolated), Other)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with pytest.raises(ServerError, match="taken by another program"):
            reactlab.connect(quiet=True)
    finally:
        srv.shutdown()
        srv.server_close()


def test_stop_without_a_server_says_so(isolated):
    assert "no reactlab server" in stop_local_server(isolated)


def test_connect_refuses_the_shell_key_for_a_url_from_a_parent_env(isolated, tmp_path,
                                                                   monkeypatch, capsys):
    (tmp_path / ".env").write_text("OPENAI_BASE_URL=https://elsewhere.example/v1\n")
    child = tmp_path / "notebooks"
    child.mkdir()
    monkeypatch.chdir(child)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-shell-0123456789abcdef")
    with pytest.raises(ConfigError, match="same place") as info:
        reactlab.connect()
    assert "sk-shell" not in str(info.value) and capsys.readouterr().out == ""
    assert health(isolated) is None  # nothing was started either


def test_connect_to_a_provider_says_where_everything_came_from(isolated, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("REACTLAB_MODEL", "m")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abcdefghijklmnop1234")
    conn = reactlab.connect()  # builds the client; sends nothing
    out = capsys.readouterr().out
    assert out == ("reactlab: model m via custom at http://127.0.0.1:9/v1 (from OPENAI_BASE_URL "
                   "in the shell environment; key sk-…1234 from the shell)\n")
    assert isinstance(conn.client, openai.OpenAI) and conn.provider == "custom"
    assert "sk-abcdefghijklmnop1234" not in repr(conn)


def test_a_port_where_something_speaks_no_http_is_one_clear_sentence(isolated):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", isolated))
    srv.listen()

    def babble():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")

    threading.Thread(target=babble, daemon=True).start()
    try:
        with pytest.raises(ServerError, match="taken by another program"):
            health(isolated)
    finally:
        srv.close()
