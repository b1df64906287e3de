from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactlab.config import (
    DEFAULT_MODEL,
    DEFAULT_PORT,
    PRESETS,
    SHELL,
    ConfigError,
    Settings,
    load_settings,
    mask_secret,
    read_env,
    read_env_sources,
)

REPO = Path(__file__).resolve().parent.parent


def write_env(tmp_path, text):
    p = tmp_path / ".env"
    p.write_text(text)
    return p


def test_no_configuration_means_the_local_server(tmp_path):
    s = load_settings(dotenv_path=write_env(tmp_path, ""), environ={})
    assert s.provider == "local" and s.is_local
    assert s.base_url == f"http://127.0.0.1:{DEFAULT_PORT}/v1"
    assert s.model == DEFAULT_MODEL


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


@pytest.mark.parametrize("key, shown", [
    ("sk-abcdef0123456789", "sk-…6789"),
    ("abcdef0123456789", "…6789"),
    ("abcdef012345", "…2345"),  # 12 characters: the last 4
    ("abcdef01234", "…"),  # 11: nothing at all
    ("sk-abcdef", "…"),  # the short key that used to show 4 of its 6 characters
    ("sk-abcdef01234", "…"),  # `sk-` is not counted
    ("", "(not set)"),
])
def test_mask_secret_shows_at_most_the_last_four(key, shown):
    assert mask_secret(key) == shown


@given(st.text(min_size=1, max_size=40))
def test_mask_secret_never_shows_more_than_four_characters(key):
    shown = mask_secret(key)
    secret = key.removeprefix("sk-")
    visible = shown.removeprefix("sk-").removeprefix("…")
    assert len(visible) <= 4 and secret.endswith(visible)
    if len(secret) < 12:
        assert shown == "…"


# --- where the key and the base URL came from -----------------------------------------------

def in_child_of(tmp_path, monkeypatch, dotenv: str) -> Path:
    """Work in tmp/parent/child with a .env in tmp/parent; returns that .env's path."""
    child = tmp_path / "parent" / "child"
    child.mkdir(parents=True)
    (tmp_path / "parent" / ".env").write_text(dotenv)
    monkeypatch.chdir(child)
    return (tmp_path / "parent" / ".env").resolve()


def test_a_parent_env_with_only_a_base_url_does_not_get_the_shell_key(tmp_path, monkeypatch):
    path = in_child_of(tmp_path, monkeypatch, "OPENAI_BASE_URL=https://evil.example/v1\n")
    with pytest.raises(ConfigError) as info:
        load_settings(environ={"OPENAI_API_KEY": "sk-shell0123456789abcd"})
    said = str(info.value)
    assert f"OPENAI_BASE_URL comes from the file {path}" in said
    assert "OPENAI_API_KEY comes from the shell environment" in said
    assert "same place" in said and "sk-shell" not in said


def test_a_key_from_the_file_is_not_sent_to_a_url_from_the_shell(tmp_path):
    env = write_env(tmp_path, "OPENAI_API_KEY=sk-file0123456789abcdef\n")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY comes from the file"):
        load_settings(dotenv_path=env, environ={"OPENAI_BASE_URL": "https://other.example/v1",
                                                "REACTLAB_MODEL": "m"})


def test_the_shell_key_wins_over_the_file_key_and_is_then_refused(tmp_path):
    env = write_env(tmp_path, "OPENAI_BASE_URL=https://x.example/v1\nOPENAI_API_KEY=sk-f\n"
                              "REACTLAB_MODEL=m\n")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY comes from the shell"):
        load_settings(dotenv_path=env, environ={"OPENAI_API_KEY": "sk-shell"})


def test_a_provider_key_variable_is_checked_too(tmp_path):
    env = write_env(tmp_path, "REACTLAB_PROVIDER=dashscope\nOPENAI_BASE_URL=https://evil/v1\n")
    with pytest.raises(ConfigError, match="DASHSCOPE_API_KEY comes from the shell"):
        load_settings(dotenv_path=env, environ={"DASHSCOPE_API_KEY": "sk-dash"})


@pytest.mark.parametrize("dotenv, environ", [
    # both in the file
    ("OPENAI_BASE_URL=https://x.example/v1\nOPENAI_API_KEY=sk-a\nREACTLAB_MODEL=m\n", {}),
    # both in the shell
    ("", {"OPENAI_BASE_URL": "https://x.example/v1", "OPENAI_API_KEY": "sk-a",
          "REACTLAB_MODEL": "m"}),
    # a preset's URL: the provider chosen in the file, the key from the shell
    ("REACTLAB_PROVIDER=deepseek\n", {"OPENAI_API_KEY": "sk-a"}),
    ("REACTLAB_PROVIDER=dashscope\n", {"DASHSCOPE_API_KEY": "sk-a"}),
    # OPENAI_BASE_URL spelled out as a preset's URL
    (f"OPENAI_BASE_URL={PRESETS['openai'][0]}/\nREACTLAB_MODEL=m\n", {"OPENAI_API_KEY": "sk-a"}),
    # no key at all
    ("OPENAI_BASE_URL=http://127.0.0.1:9/v1\nREACTLAB_MODEL=m\n", {}),
])
def test_a_key_and_url_from_the_same_place_or_a_preset_are_fine(tmp_path, dotenv, environ):
    s = load_settings(dotenv_path=write_env(tmp_path, dotenv), environ=environ)
    assert not s.is_local


def test_the_report_says_where_settings_came_from(tmp_path):
    env = write_env(tmp_path, "REACTLAB_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-a\n")
    s = load_settings(dotenv_path=env, environ={})
    assert s.source == f"REACTLAB_PROVIDER in the file {env.resolve()}"
    assert s.key_source == str(env.resolve())
    s = load_settings(dotenv_path=env, environ={"OPENAI_API_KEY": "sk-b"})
    assert (s.api_key, s.key_source) == ("sk-b", SHELL)


def test_the_local_server_never_gets_a_cloud_key(tmp_path):
    env = write_env(tmp_path, "")
    s = load_settings(dotenv_path=env, environ={"OPENAI_API_KEY": "sk-real0123456789abcd"})
    assert s.is_local and s.api_key == "not-needed"
    s = load_settings(dotenv_path=env, environ={"REACTLAB_SERVER_KEY": "srv-key"})
    assert s.api_key == "srv-key" and s.key_source == SHELL


def test_dotenv_values_are_literal(tmp_path):
    env = write_env(tmp_path, "OPENAI_BASE_URL=https://evil/v1?k=${OPENAI_API_KEY}\n")
    values = read_env_sources(env, {"OPENAI_API_KEY": "sk-shell"})
    assert values["OPENAI_BASE_URL"] == ("https://evil/v1?k=${OPENAI_API_KEY}", str(env.resolve()))
    assert values["OPENAI_API_KEY"] == ("sk-shell", SHELL)


def test_base_url_must_be_http(tmp_path):
    env = write_env(tmp_path, "OPENAI_BASE_URL=ftp://x/v1\nREACTLAB_MODEL=m\n")
    with pytest.raises(ConfigError, match="not an http:// or https:// URL"):
        load_settings(dotenv_path=env, environ={})


def test_env_example_names_the_defaults():
    text = (REPO / ".env.example").read_text()
    assert f"# REACTLAB_PORT={DEFAULT_PORT}" in text
    assert f"# REACTLAB_MODEL={DEFAULT_MODEL} " in text


# --- the classroom preset: a teacher's server on the class network ---------------------------

def classroom_block() -> str:
    """The classroom block of .env.example, uncommented, with the teacher's details filled in."""
    text = (REPO / ".env.example").read_text()
    block = text.split("# --- Classroom", 1)[1].split("\n\n", 1)[0]
    lines = [ln.removeprefix("# ").split("  #")[0].strip() for ln in block.splitlines()[1:]
             if ln.startswith("# ") and "=" in ln.split()[1]]
    return ("\n".join(lines).replace("<teacher-ip>", "192.168.1.20")
            .replace("<the class key>", "class-key-0123456789") + "\n")


def test_the_env_example_classroom_block_works_once_filled_in(tmp_path):
    env = write_env(tmp_path, classroom_block())
    s = load_settings(dotenv_path=env, environ={})
    assert (s.provider, s.base_url, s.model) == ("classroom", "http://192.168.1.20:18765/v1",
                                                 DEFAULT_MODEL)
    assert s.api_key == "class-key-0123456789" and s.key_source == str(env.resolve())
    assert not s.is_local


def test_classroom_needs_the_teachers_address(tmp_path):
    env = write_env(tmp_path, "REACTLAB_PROVIDER=classroom\nOPENAI_API_KEY=k\n")
    with pytest.raises(ConfigError, match="needs OPENAI_BASE_URL: the address of the teacher"):
        load_settings(dotenv_path=env, environ={})
    env = write_env(tmp_path, "REACTLAB_PROVIDER=classroom\n"
                              "OPENAI_BASE_URL=http://<teacher-ip>:18765/v1\n")
    with pytest.raises(ConfigError, match="still says <teacher-ip>"):
        load_settings(dotenv_path=env, environ={})


def test_classroom_adds_v1_to_a_bare_address(tmp_path):
    env = write_env(tmp_path, "REACTLAB_PROVIDER=classroom\nOPENAI_BASE_URL=http://10.0.0.5:18765/\n")
    assert load_settings(dotenv_path=env, environ={}).base_url == "http://10.0.0.5:18765/v1"


def test_classroom_key_must_come_from_where_the_address_does(tmp_path):
    env = write_env(tmp_path, "REACTLAB_PROVIDER=classroom\nOPENAI_BASE_URL=http://10.0.0.5:18765/v1\n")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY comes from the shell"):
        load_settings(dotenv_path=env, environ={"OPENAI_API_KEY": "sk-cloud0123456789abcd"})
    s = load_settings(dotenv_path=env, environ={})
    assert s.api_key is None  # no key: the teacher's server answers 401, `reactlab check` says so
