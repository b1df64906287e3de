"""The set-up checks and the `reactlab` command: one readable line per problem, no traceback."""

from reactlab.cli import main
from reactlab.doctor import Check, run_checks


def test_checks_without_backend_are_all_ok_on_a_set_up_machine(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for var in ("REACTLAB_PROVIDER", "OPENAI_BASE_URL", "REACTLAB_MODEL"):
        monkeypatch.delenv(var, raising=False)
    checks = run_checks(backend=False)
    assert [c.name for c in checks] == ["python packages", "settings", "local model"]
    assert all(c.ok for c in checks), [str(c) for c in checks]


def test_a_cloud_provider_without_key_fails_with_what_to_do(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REACTLAB_PROVIDER", "deepseek")
    for var in ("OPENAI_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    settings = next(c for c in run_checks(backend=False) if c.name == "settings")
    assert not settings.ok and "OPENAI_API_KEY" in settings.detail


def test_check_lines_read_ok_or_fail():
    assert str(Check("x", True, "fine")) == "[OK] x: fine"
    assert str(Check("x", False, "do this")) == "[FAIL] x: do this"


def test_cli_errors_are_one_sentence_and_exit_2(capsys, monkeypatch):
    monkeypatch.setenv("REACTLAB_PORT", "not-a-port")
    assert main(["status"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reactlab: REACTLAB_PORT") and "Traceback" not in err


def test_cli_model_unknown_name(capsys):
    assert main(["model", "--name", "gpt-5"]) == 2
    assert "Unknown local model" in capsys.readouterr().err
