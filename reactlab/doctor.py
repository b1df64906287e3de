"""Set-up checks: is every piece a notebook needs in place? One [OK]/[FAIL] line each.

Each check is independent and never raises: a failure becomes one sentence saying what to
do (provider failures are worded by `reactlab.http.provider_message`). It does not fix
anything itself, except that the model check assembles the weights when the chunk packages
are installed. Introduced in notebook 00; also `reactlab check`.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass

from reactlab.config import ConfigError, load_settings
from reactlab.connection import connect
from reactlab.http import ProviderError
from reactlab.server.weights import WeightsError, ensure_model


@dataclass
class Check:
    name: str
    ok: bool
    detail: str

    def __str__(self) -> str:
        return f"[{'OK' if self.ok else 'FAIL'}] {self.name}: {self.detail}"


def _packages() -> Check:
    needed = ["openai", "requests", "dotenv", "jinja2", "fastapi", "uvicorn", "ipywidgets",
              "matplotlib"]
    missing = [m for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        return Check("python packages", False, f"missing {', '.join(missing)}: run `make setup`")
    return Check("python packages", True, f"Python {sys.version.split()[0]}, all present")


FRAMEWORKS = {"langchain_openai": "langchain-openai", "smolagents": "smolagents",
              "agents": "openai-agents"}  # import name -> package, notebook 09's three


def _frameworks() -> Check:
    """Notebook 09's agent frameworks: `make setup` installs them; a hand-made `.[lab]`
    install (a learner on a class server) does not."""
    missing = [pkg for mod, pkg in FRAMEWORKS.items() if importlib.util.find_spec(mod) is None]
    if missing:
        return Check("frameworks (notebook 09)", False,
                     f"missing {', '.join(missing)}: run `make setup`, or "
                     "`pip install -e \".[frameworks]\"`; only notebook 09 needs them")
    return Check("frameworks (notebook 09)", True, "LangChain, smolagents and the Agents SDK")


def _settings() -> Check:
    try:
        s = load_settings()
    except ConfigError as e:
        return Check("settings", False, str(e))
    if s.is_local:
        return Check("settings", True, f"no provider configured: the embedded local model "
                                       f"{s.model} will answer on port {s.port}")
    if not s.api_key:
        return Check("settings", False, f"provider {s.provider} has no key: set OPENAI_API_KEY "
                                        f"in .env")
    return Check("settings", True, f"provider {s.provider}, model {s.model}, key {s.masked_key}")


def _model() -> Check:
    try:
        s = load_settings()
    except ConfigError as e:
        return Check("local model", False, f"cannot tell which model is needed: {e}")
    if not s.is_local:
        return Check("local model", True, "not needed: a provider is configured")
    if importlib.util.find_spec("xllamacpp") is None:
        return Check("local model", False, "the engine xllamacpp is missing: run `make setup`")
    try:
        path = ensure_model(s.model, progress=True)
    except (WeightsError, OSError) as e:
        return Check("local model", False, str(e))
    return Check("local model", True, f"{path.name} ({path.stat().st_size / 1e9:.2f} GB, sha256 verified)")


def _backend() -> Check:
    try:
        conn = connect(quiet=True)
        r = conn.client.chat.completions.create(
            model=conn.model, messages=[{"role": "user", "content": "Say OK."}], max_tokens=5,
            temperature=0)
        said = (r.choices[0].message.content or "").strip()
    except Exception as e:  # noqa: BLE001 — the point is one readable line for any failure
        return Check("backend answers", False, _explain(e))
    return Check("backend answers", True, f"{conn.provider} / {conn.model} replied {said[:40]!r}")


def _explain(e: Exception) -> str:
    """One line for any failure of the test request, with what to check."""
    if isinstance(e, ConfigError):
        return str(e)
    err = ProviderError.from_exception(e)
    if err.status in (401, 403):
        return f"the provider rejected the key ({err}): check OPENAI_API_KEY"
    if err.status == 404:
        return f"the provider does not know this model or URL ({err}): check REACTLAB_MODEL"
    return str(err) if err.status else err.message  # network failures say what to check


def run_checks(backend: bool = True) -> list[Check]:
    checks = [_packages(), _frameworks(), _settings(), _model()]
    if backend:
        checks.append(_backend())
    return checks


def report(backend: bool = True) -> bool:
    """Print one line per check; return True when all passed."""
    checks = run_checks(backend)
    for c in checks:
        print(c)
    return all(c.ok for c in checks)
