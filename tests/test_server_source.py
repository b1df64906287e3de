"""reactlab.server.source and the stale-server checks in reactlab.connection (no model)."""

from __future__ import annotations

import re

import pytest

from reactlab import connection
from reactlab.connection import ServerError, refuse_stale, stale
from reactlab.server import source


def test_the_digest_is_sixteen_hex_digits_and_stable():
    assert re.fullmatch(r"[0-9a-f]{16}", source.digest())
    assert source.digest() == source.digest()


def test_the_digest_follows_every_source_file(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "t.jinja").write_text("{{ x }}")
    (tmp_path / "notes.txt").write_text("not code")
    monkeypatch.setattr(source, "HERE", tmp_path)

    def fresh():
        source.digest.cache_clear()
        return source.digest()

    try:
        first = fresh()
        (tmp_path / "notes.txt").write_text("still not code")
        assert fresh() == first  # only .py and .jinja files count
        (tmp_path / "sub" / "t.jinja").write_text("{{ y }}")
        second = fresh()
        assert second != first
        (tmp_path / "a.py").rename(tmp_path / "b.py")
        assert fresh() != second  # a renamed file is other code too
    finally:
        monkeypatch.undo()
        source.digest.cache_clear()


@pytest.mark.parametrize("info", [None, {}, {"source": None}, {"source": source.digest()}])
def test_a_current_server_or_one_that_cannot_tell_is_not_stale(info):
    assert stale(info) is None


def test_a_server_from_other_code_is_stale_and_says_what_to_do():
    why = stale({"source": "0" * 16})
    assert "other server code than this checkout" in why and "reactlab stop" in why


def test_refuse_stale_raises_only_for_a_stale_reactlab_server(monkeypatch):
    monkeypatch.setattr(connection, "health", lambda port: {"source": "0" * 16, "pid": 4242})
    with pytest.raises(ServerError, match=r"port 18799 \(pid 4242\): it runs other server code"):
        refuse_stale(18799)
    monkeypatch.setattr(connection, "health", lambda port: {"source": source.digest()})
    refuse_stale(18799)
    monkeypatch.setattr(connection, "health", lambda port: None)  # nothing running
    refuse_stale(18799)

    def stranger(port):
        raise ServerError("Port 18799 is taken by another program, not a reactlab server.")

    monkeypatch.setattr(connection, "health", stranger)  # llama.cpp's own server, say
    refuse_stale(18799)


def test_reusing_a_stale_server_says_so(monkeypatch):
    from reactlab.config import load_settings

    settings = load_settings(provider="local")
    monkeypatch.setattr(connection, "health", lambda port, timeout=2.0: {"source": "0" * 16})
    assert connection.ensure_local_server(settings).startswith("reused; it runs other server")
    monkeypatch.setattr(connection, "health",
                        lambda port, timeout=2.0: {"source": source.digest()})
    assert connection.ensure_local_server(settings) == "reused"


def test_the_notebook_runner_and_the_demo_replays_refuse_a_stale_server(monkeypatch, capsys):
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    monkeypatch.syspath_prepend(str(root / "scripts"))
    monkeypatch.syspath_prepend(str(root))
    import run_notebooks

    from benchmarks import demos

    def refuse(port=None):
        raise ServerError("The reactlab server on port 18765 (pid 1): it runs other server code")

    monkeypatch.setattr(connection, "refuse_stale", refuse)
    import os

    monkeypatch.setattr(os, "environ", dict(os.environ))  # both set REACTLAB_PROVIDER etc.
    assert run_notebooks.main(["00"]) == 2
    assert demos.main(["00", "--out", str(Path(sys.prefix) / "never-written.md")]) == 2
    assert capsys.readouterr().err.count("it runs other server code") == 2
