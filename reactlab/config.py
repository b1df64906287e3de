"""Settings: which OpenAI-compatible backend answers, read from the shell and `.env`.

Precedence: arguments > shell environment > `.env` (searched upward from the working
directory) > provider preset > the embedded local server. A provider counts as configured
when `REACTLAB_PROVIDER` names one other than `local`, or when `OPENAI_BASE_URL` is set.

Secrets: the API key is kept out of `repr()` and shown only masked (`sk-…7f3a`).

This module does not open connections or start servers: `reactlab.connection` does.
Introduced in notebook 00.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

# name -> (base_url, default model, env var that may hold the key)
PRESETS: dict[str, tuple[str, str, str | None]] = {
    "dashscope": ("https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus", "DASHSCOPE_API_KEY"),
    "deepseek": ("https://api.deepseek.com/v1", "deepseek-chat", "DEEPSEEK_API_KEY"),
    "openai": ("https://api.openai.com/v1", "gpt-4o-mini", None),
    "ollama": ("http://127.0.0.1:11434/v1", "qwen2.5:7b", None),
    "vllm": ("http://127.0.0.1:8000/v1", "Qwen/Qwen2.5-7B-Instruct", None),
    "llamacpp": ("http://127.0.0.1:8080/v1", "local", None),
    "local": ("", "qwen2.5-coder-1.5b-instruct", None),
}
# Servers on your own machine accept any key; the SDK still insists on one being set.
LOCAL_PROVIDERS = {"ollama", "vllm", "llamacpp", "local"}
DEFAULT_PORT = 18765


class ConfigError(ValueError):
    """A setting that cannot work, explained in one sentence with what to do."""


def mask_secret(value: str | None) -> str:
    """Show enough of a key to recognise it, never enough to use it.

    Example: mask_secret("sk-abcdef0123456789") -> "sk-…6789"
    """
    if not value:
        return "(not set)"
    if len(value) <= 8:
        return "…" * 1 + value[-2:] if len(value) > 4 else "…"
    prefix = value[:3] if value.startswith("sk-") else ""
    return f"{prefix}…{value[-4:]}"


@dataclass
class Settings:
    provider: str  # a PRESETS key, or "custom" for a bare OPENAI_BASE_URL
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    port: int = DEFAULT_PORT  # the local server's port (provider "local" only)
    source: str = "default"  # where the provider choice came from, for the one-line report

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


def read_env(dotenv_path: str | Path | None = None, environ: dict | None = None) -> dict[str, str]:
    """Merge `.env` and the environment; the environment (the shell) wins.

    Example: .env has REACTLAB_MODEL=a, the shell exports REACTLAB_MODEL=b -> "b".
    """
    from dotenv import dotenv_values, find_dotenv

    if dotenv_path is None:
        dotenv_path = find_dotenv(usecwd=True)
    file_values = {k: v for k, v in dotenv_values(dotenv_path).items() if v is not None} if dotenv_path else {}
    merged = dict(file_values)
    merged.update({k: v for k, v in (os.environ if environ is None else environ).items()})
    return merged


def load_settings(provider: str | None = None, model: str | None = None,
                  dotenv_path: str | Path | None = None, environ: dict | None = None) -> Settings:
    """Decide which backend to use. Raises ConfigError for an unknown provider or a bad port."""
    env = read_env(dotenv_path, environ)
    source = "argument" if provider else "default"
    if provider is None and env.get("REACTLAB_PROVIDER"):
        provider, source = env["REACTLAB_PROVIDER"].strip().lower(), "REACTLAB_PROVIDER"
    base_url = env.get("OPENAI_BASE_URL", "").strip()
    if provider is None:
        provider, source = ("custom", "OPENAI_BASE_URL") if base_url else ("local", "default")
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
    if provider == "local":
        base_url = f"http://127.0.0.1:{port}/v1"
    else:
        base_url = base_url or preset_url
    if not base_url:
        raise ConfigError(f"Provider {provider!r} needs OPENAI_BASE_URL.")
    model = model or env.get("REACTLAB_MODEL") or preset_model
    if not model:
        raise ConfigError(f"Provider {provider!r} needs REACTLAB_MODEL (the model name to ask for).")
    api_key = env.get("OPENAI_API_KEY") or (env.get(key_var) if key_var else None)
    if not api_key and provider in LOCAL_PROVIDERS:
        api_key = "not-needed"
    return Settings(provider=provider, base_url=base_url.rstrip("/"), model=model,
                    api_key=api_key, port=port, source=source)


def reactlab_home() -> Path:
    """Where reactlab keeps assembled weights, server logs and pid files."""
    return Path(os.environ.get("REACTLAB_HOME") or Path.home() / ".cache" / "reactlab")
