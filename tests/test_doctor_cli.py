"""The set-up checks and the `reactlab` command: one readable line per problem, no traceback."""

import httpx
import openai

from reactlab.cli import main
from reactlab.doctor import Check, _explain, run_checks


def test_checks_without_backend_are_all_ok_on_a_set_up_machine(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for var in ("REACTLAB_PROVIDER", "OPENAI_BASE_URL", "REACTLAB_MODEL"):
        monkeypatch.delenv(var, raising=False)
    checks = run_checks(backend=False)
    assert [c.name for c in checks] == ["python packages", "frameworks (notebook 09)", "settings",
                                      "local model"]
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


def test_a_key_for_a_url_from_elsewhere_fails_every_check_without_raising(monkeypatch, tmp_path):
    (tmp_path / ".env").write_text("OPENAI_BASE_URL=https://elsewhere.example/v1\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REACTLAB_PROVIDER", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-shell-0123456789abcdef")
    checks = {c.name: c for c in run_checks(backend=True)}  # the backend check sends nothing
    for name in ("settings", "local model", "backend answers"):
        assert not checks[name].ok and "same place" in checks[name].detail, name
    assert all("sk-shell-0123456789abcdef" not in str(c) for c in checks.values())


def test_backend_failures_are_one_line_with_what_to_check():
    request = httpx.Request("POST", "http://h/v1/chat/completions")

    def status(cls, code, message):
        return cls(f"Error code: {code}", response=httpx.Response(code, request=request),
                   body={"message": message})

    said = _explain(status(openai.AuthenticationError, 401, "Incorrect API key provided"))
    assert said == ("the provider rejected the key (HTTP 401 from the provider: Incorrect API "
                    "key provided): check OPENAI_API_KEY")
    assert "check REACTLAB_MODEL" in _explain(status(openai.NotFoundError, 404, "no model x"))
    assert _explain(status(openai.RateLimitError, 429, "slow down")) == (
        "HTTP 429 from the provider: slow down")
    assert "Is it running" in _explain(openai.APIConnectionError(request=request))
    assert "larger timeout" in _explain(openai.APITimeoutError(request=request))


def test_cli_os_errors_are_one_sentence(capsys, monkeypatch, tmp_path):
    home = tmp_path / "file-not-dir"
    home.write_text("")
    monkeypatch.setenv("REACTLAB_HOME", str(home))  # reactlab_home()/run cannot be created
    monkeypatch.setenv("REACTLAB_PORT", "9")
    assert main(["stop"]) == 2
    assert capsys.readouterr().err.startswith("reactlab: ")


def test_missing_frameworks_fail_with_the_install_line(monkeypatch):
    import importlib.util

    from reactlab import doctor

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "smolagents" else real(name, *a))
    check = doctor._frameworks()
    assert not check.ok and "smolagents" in check.detail and ".[frameworks]" in check.detail
    assert "notebook 09" in str(check)
