import pytest

from reactlab.config import ConfigError, Settings, load_settings, mask_secret, read_env


def write_env(tmp_path, text):
    p = tmp_path / ".env"
    p.write_text(text)
    return p


def test_no_configuration_means_the_local_server(tmp_path):
    s = load_settings(dotenv_path=write_env(tmp_path, ""), environ={})
    assert s.provider == "local" and s.is_local
    assert s.base_url == "http://127.0.0.1:18765/v1"
    assert s.model == "qwen2.5-coder-1.5b-instruct"


def test_shell_wins_over_dotenv(tmp_path):
    env = write_env(tmp_path, "REACTLAB_PROVIDER=deepseek\nREACTLAB_MODEL=from-file\n")
    s = load_settings(dotenv_path=env, environ={"REACTLAB_MODEL": "from-shell"})
    assert s.provider == "deepseek" and s.model == "from-shell"


def test_argument_wins_over_environment(tmp_path):
    env = write_env(tmp_path, "REACTLAB_PROVIDER=deepseek\n")
    s = load_settings(provider="openai", model="m", dotenv_path=env, environ={})
    assert (s.provider, s.model, s.source) == ("openai", "m", "argument")


@pytest.mark.parametrize("name", ["dashscope", "deepseek", "openai", "ollama", "vllm", "llamacpp"])
def test_presets_have_a_base_url_and_model(tmp_path, name):
    s = load_settings(dotenv_path=write_env(tmp_path, f"REACTLAB_PROVIDER={name}\n"), environ={})
    assert s.base_url.startswith("http") and s.model


def test_bare_base_url_is_a_custom_provider(tmp_path):
    env = write_env(tmp_path, "OPENAI_BASE_URL=http://127.0.0.1:9/v1/\nREACTLAB_MODEL=x\n")
    s = load_settings(dotenv_path=env, environ={})
    assert s.provider == "custom" and s.base_url == "http://127.0.0.1:9/v1"


def test_provider_specific_key_variable(tmp_path):
    env = write_env(tmp_path, "REACTLAB_PROVIDER=dashscope\nDASHSCOPE_API_KEY=sk-dash0123456789abcd\n")
    assert load_settings(dotenv_path=env, environ={}).api_key == "sk-dash0123456789abcd"


def test_local_port_from_environment(tmp_path):
    s = load_settings(dotenv_path=write_env(tmp_path, ""), environ={"REACTLAB_PORT": "19000"})
    assert s.port == 19000 and s.base_url == "http://127.0.0.1:19000/v1"


@pytest.mark.parametrize("environ, words", [
    ({"REACTLAB_PROVIDER": "nonsense"}, "Unknown provider"),
    ({"REACTLAB_PORT": "eighty"}, "not a port"),
    ({"REACTLAB_PORT": "70000"}, "outside"),
])
def test_bad_settings_are_one_clear_sentence(tmp_path, environ, words):
    with pytest.raises(ConfigError, match=words):
        load_settings(dotenv_path=write_env(tmp_path, ""), environ=environ)


def test_key_is_masked_and_never_in_repr():
    key = "sk-abcdef0123456789secret"
    s = Settings(provider="openai", base_url="https://x/v1", model="m", api_key=key)
    assert key not in repr(s) and key not in str(s)
    assert s.masked_key == "sk-…cret"
    assert mask_secret(None) == "(not set)"
    assert "secret" not in mask_secret("short-secret")[:-4]


def test_read_env_finds_dotenv_from_working_directory(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("REACTLAB_MODEL=found\n")
    sub = tmp_path / "notebooks"
    sub.mkdir()
    monkeypatch.chdir(sub)
    monkeypatch.delenv("REACTLAB_MODEL", raising=False)
    assert read_env()["REACTLAB_MODEL"] == "found"
