"""Settings: which OpenAI-compatible backend answers, read from the shell and `.env`.

Precedence: arguments > shell environment > `.env` (searched upward from the working
directory) > provider preset > the embedded local server. A provider counts as configured
when `REACTLAB_PROVIDER` names one other than `local`, or when `OPENAI_BASE_URL` is set.

Secrets: the API key is kept out of `repr()` and shown only masked (`sk-…7f3a`). A key is
sent only to a base URL that came from the same place as the key (the shell, or one `.env`
file), or to a preset's URL: a `.env` in some parent folder that sets only `OPENAI_BASE_URL`
must not receive the key your shell exports. `.env` values are read literally (no `${VAR}`
expansion), so such a file cannot pull a shell secret into a URL either.

The `classroom` preset is a teacher's `reactlab serve --host 0.0.0.0` on the class network:
OPENAI_BASE_URL (the teacher's address) and OPENAI_API_KEY (the class key) must both be set,
in the same place; its URL in PRESETS is a placeholder that is never used (TEACHING.md).

This module does not open connections or start servers: `reactlab.connection` does.
Introduced in notebook 00.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import dotenv_values, find_dotenv

DEFAULT_PORT = 18765  # the local server's port when REACTLAB_PORT is not set
DEFAULT_MODEL = "qwen2.5-coder-1.5b-instruct"  # the embedded local model

# name -> (base_url, default model, env var that may hold the key)
PRESETS: dict[str, tuple[str, str, str | None]] = {
    "dashscope": ("https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus", "DASHSCOPE_API_KEY"),
    "deepseek": ("https://api.deepseek.com/v1", "deepseek-chat", "DEEPSEEK_API_KEY"),
    "openai": ("https://api.openai.com/v1", "gpt-4o-mini", None),
    "ollama": ("http://127.0.0.1:11434/v1", "qwen2.5:7b", None),
    "vllm": ("http://127.0.0.1:8000/v1", "Qwen/Qwen2.5-7B-Instruct", None),
    "llamacpp": ("http://127.0.0.1:8080/v1", "local", None),
    "local": ("", DEFAULT_MODEL, None),
    # A teacher's `reactlab serve --host 0.0.0.0` on the class network (TEACHING.md). The URL
    # shown is a placeholder: OPENAI_BASE_URL must name the teacher's machine, and
    # OPENAI_API_KEY (the class key) must be set in the same place.
    "classroom": (f"http://<teacher-ip>:{DEFAULT_PORT}/v1", DEFAULT_MODEL, None),
}
CLASSROOM = "classroom"
# Servers on your own machine accept any key; the SDK still insists on one being set.
LOCAL_PROVIDERS = {"ollama", "vllm", "llamacpp", "local"}
SHELL = "the shell environment"  # the origin of a variable that is not from a .env file


class ConfigError(ValueError):
    """A setting that cannot work, explained in one sentence with what to do."""


def mask_secret(value: str | None) -> str:
    """Show enough of a key to recognise it, never enough to use it.

    At most the last 4 characters, and none of a key shorter than 12 (the public `sk-`
    prefix is kept and not counted).

    Example: mask_secret("sk-abcdef0123456789") -> "sk-…6789"; mask_secret("sk-abcdef") -> "…"
    """
    if not value:
        return "(not set)"
    value = str(value)
    prefix = "sk-" if value.startswith("sk-") else ""
    secret = value[len(prefix):]
    if len(secret) < 12:
        return "…"
    return f"{prefix}…{secret[-4:]}"


@dataclass
class Settings:
    provider: str  # a PRESETS key, or "custom" for a bare OPENAI_BASE_URL
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    port: int = DEFAULT_PORT  # the local server's port (provider "local" only)
    source: str = "default"  # where the provider choice came from, for the one-line report
    key_source: str | None = None  # where the key came from (a .env path or the shell)

    @property
    def is_local(self) -> bool:
        return self.provider == "local"

    @property
    def masked_key(self) -> str:
        return mask_secret(self.api_key)

    def __repr__(self) -> str:  # the key is never shown, even masked, in a repr
        return (f"Settings(provider={self.provider!r}, base_url={self.base_url!r}, "
                f"model={self.model!r}, api_key={'set' if self.api_key else 'unset'}, "
                f"source={self.source!r})")


def read_env_sources(dotenv_path: str | Path | None = None,
                     environ: dict | None = None) -> dict[str, tuple[str, str]]:
    """Every variable as (value, origin): origin is the `.env` path or "the shell environment".

    The shell wins over the file. `.env` is read literally: `${HOME}` stays `${HOME}`.
    Example: .env has REACTLAB_MODEL=a, the shell exports REACTLAB_MODEL=b
             -> {"REACTLAB_MODEL": ("b", "the shell environment"), ...}
    """
    if dotenv_path is None:
        dotenv_path = find_dotenv(usecwd=True)
    merged: dict[str, tuple[str, str]] = {}
    if dotenv_path:
        origin = str(Path(dotenv_path).resolve())
        for k, v in dotenv_values(dotenv_path, interpolate=False).items():
            if v is not None:
                merged[k] = (v, origin)
    for k, v in (os.environ if environ is None else environ).items():
        merged[k] = (v, SHELL)
    return merged


def read_env(dotenv_path: str | Path | None = None, environ: dict | None = None) -> dict[str, str]:
    """Merge `.env` and the environment; the environment (the shell) wins.

    Example: .env has REACTLAB_MODEL=a, the shell exports REACTLAB_MODEL=b -> "b".
    """
    return {k: v for k, (v, _) in read_env_sources(dotenv_path, environ).items()}


def _where(origin: str) -> str:
    return origin if origin == SHELL else f"the file {origin}"


def _check_same_origin(url_var: tuple[str, str], key_name: str, key_var: tuple[str, str]) -> None:
    """Refuse to send a key to a base URL set somewhere else than the key."""
    (_, url_origin), (_, key_origin) = url_var, key_var
    if url_origin == key_origin:
        return
    raise ConfigError(
        f"OPENAI_BASE_URL comes from {_where(url_origin)} but {key_name} comes from "
        f"{_where(key_origin)}, and reactlab sends a key only to a base URL set in the same "
        f"place. Fix: put {key_name} in {_where(url_origin)} too, or set OPENAI_BASE_URL in "
        f"{_where(key_origin)}, or remove OPENAI_BASE_URL from {_where(url_origin)} and choose "
        f"a provider with REACTLAB_PROVIDER.")


def load_settings(provider: str | None = None, model: str | None = None,
                  dotenv_path: str | Path | None = None, environ: dict | None = None) -> Settings:
    """Decide which backend to use.

    Raises ConfigError for an unknown provider, a bad port or base URL, or a key and a base
    URL that came from different places.
    Example: load_settings(environ={}).base_url -> f"http://127.0.0.1:{DEFAULT_PORT}/v1"
    """
    sources = read_env_sources(dotenv_path, environ)
    env = {k: v.strip() for k, (v, _) in sources.items()}
    source = "argument" if provider else "default"
    if provider is None and env.get("REACTLAB_PROVIDER"):
        provider = env["REACTLAB_PROVIDER"].lower()
        source = f"REACTLAB_PROVIDER in {_where(sources['REACTLAB_PROVIDER'][1])}"
    base_url = env.get("OPENAI_BASE_URL", "")
    if provider is None:
        if base_url:
            provider, source = "custom", f"OPENAI_BASE_URL in {_where(sources['OPENAI_BASE_URL'][1])}"
        else:
            provider = "local"
    if provider != "custom" and provider not in PRESETS:
        raise ConfigError(f"Unknown provider {provider!r}: use one of {', '.join(PRESETS)} "
                          "(or set OPENAI_BASE_URL for any other OpenAI-compatible server).")
    try:
        port = int(env.get("REACTLAB_PORT") or DEFAULT_PORT)
    except ValueError:
        raise ConfigError(f"REACTLAB_PORT={env.get('REACTLAB_PORT')!r} is not a port number.") from None
    if not 0 < port < 65536:
        raise ConfigError(f"REACTLAB_PORT={port} is outside 1-65535.")

    preset_url, preset_model, key_var = PRESETS.get(provider, ("", "", None))
    if provider == CLASSROOM:
        preset_url = ""
    model = model or env.get("REACTLAB_MODEL") or preset_model
    if provider == "local":
        # Our own server on loopback: it needs no key, so no real key is ever sent to it. Only
        # a server started with REACTLAB_SERVER_KEY wants one, and that is the key it gets.
        key = env.get("REACTLAB_SERVER_KEY") or "not-needed"
        return Settings(provider="local", base_url=f"http://127.0.0.1:{port}/v1", model=model,
                        api_key=key, port=port, source=source,
                        key_source=sources["REACTLAB_SERVER_KEY"][1]
                        if env.get("REACTLAB_SERVER_KEY") else None)

    base_url = (base_url or preset_url).rstrip("/")
    if provider == CLASSROOM and not base_url:  # the preset's URL is only a placeholder
        raise ConfigError(f"Provider 'classroom' needs OPENAI_BASE_URL: the address of the "
                          f"teacher's server, like http://192.168.1.20:{DEFAULT_PORT}/v1 (the "
                          f"teacher's `reactlab serve` prints it), and OPENAI_API_KEY: the "
                          f"class key, both in the same .env.")
    if provider == CLASSROOM:
        if "<teacher-ip>" in base_url:
            raise ConfigError("OPENAI_BASE_URL still says <teacher-ip>: replace it with the "
                              "address of the teacher's machine (ask your teacher).")
        if base_url.lower().startswith(("http://", "https://")) and \
                base_url.split("://", 1)[1].count("/") == 0:
            base_url += "/v1"  # http://192.168.1.20:18765 -> …/v1, the API's root
    if not base_url:
        raise ConfigError(f"Provider {provider!r} needs OPENAI_BASE_URL.")
    if not base_url.lower().startswith(("http://", "https://")):
        raise ConfigError(f"OPENAI_BASE_URL={base_url!r} is not an http:// or https:// URL; "
                          f"write it like https://api.example.com/v1.")
    key_name = "OPENAI_API_KEY" if env.get("OPENAI_API_KEY") else key_var
    api_key = env.get(key_name) if key_name else None
    key_source = sources[key_name][1] if api_key else None
    # A preset's fixed URL may get a key from anywhere; a classroom URL is the user's own.
    preset_urls = {url.rstrip("/") for name, (url, _, _) in PRESETS.items()
                   if url and name != CLASSROOM}
    if api_key and env.get("OPENAI_BASE_URL") and base_url not in preset_urls:
        _check_same_origin(sources["OPENAI_BASE_URL"], key_name, sources[key_name])
    if not model:
        raise ConfigError(f"Provider {provider!r} needs REACTLAB_MODEL (the model name to ask for).")
    if not api_key and provider in LOCAL_PROVIDERS:
        api_key = "not-needed"
    return Settings(provider=provider, base_url=base_url, model=model, api_key=api_key,
                    port=port, source=source, key_source=key_source)


def reactlab_home() -> Path:
    """Where reactlab keeps assembled weights, server logs and pid files."""
    return Path(os.environ.get("REACTLAB_HOME") or Path.home() / ".cache" / "reactlab")
