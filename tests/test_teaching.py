"""TEACHING.md and TEACHING.zh-CN.md: both exist, link each other and the READMEs (which link
them), and what they cite in backticks exists: repo paths, `make` targets, `reactlab`
subcommands, `reactlab.…` names and `from reactlab… import …` lines. Simple on purpose: a
token counts as a repo path when it has a `/` and does not start with `~`, `$`, `/`, `.venv`
or a URL scheme."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDES = {"en": ROOT / "TEACHING.md", "zh-CN": ROOT / "TEACHING.zh-CN.md"}
README = {"en": ROOT / "README.md", "zh-CN": ROOT / "README.zh-CN.md"}
CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def links(path: Path) -> set[str]:
    return {m.split("#")[0] for m in re.findall(r"\]\(([^)\s]+)\)", text(path))}


def spans(path: Path) -> list[str]:
    """Inline code spans, fenced blocks left out (their lines are checked separately)."""
    prose = re.sub(r"^```.*?^```", "", text(path), flags=re.DOTALL | re.MULTILINE)
    return CODE.findall(prose)


def fenced_lines(path: Path) -> list[str]:
    blocks = re.findall(r"^\s*```[^\n]*\n(.*?)^\s*```", text(path), re.DOTALL | re.MULTILINE)
    return [ln.strip() for block in blocks for ln in block.splitlines()]


def looks_like_repo_path(token: str) -> bool:
    token = token.strip(".,;:()\"'")
    return ("/" in token and not token.startswith(("~", "$", "/", ".venv", "<"))
            and "://" not in token and "<" not in token and not token.startswith("http"))


@pytest.mark.parametrize("lang", GUIDES)
def test_guides_exist_and_link_each_other_and_the_readmes(lang):
    other = "zh-CN" if lang == "en" else "en"
    found = links(GUIDES[lang])
    assert GUIDES[other].name in found
    assert {"README.md", "README.zh-CN.md"} <= found
    assert GUIDES[lang].name in links(README[lang])  # each README links its own guide


@pytest.mark.parametrize("lang", GUIDES)
def test_every_repo_path_cited_exists(lang):
    cited = [tok.strip(".,;:()\"'") for span in spans(GUIDES[lang]) for tok in span.split()
             if looks_like_repo_path(tok)]
    assert "reactlab/server/replay.py" in cited and "scripts/run_notebooks.py" in cited
    missing = [p for p in cited if not (ROOT / p).exists()]
    assert not missing, f"{GUIDES[lang].name} cites paths that do not exist: {missing}"


@pytest.mark.parametrize("lang", GUIDES)
def test_every_make_target_and_reactlab_command_exists(lang):
    makefile = text(ROOT / "Makefile")
    targets = set(re.findall(r"^([\w-]+):", makefile, re.MULTILINE))
    cli = text(ROOT / "reactlab" / "cli.py")
    body = text(GUIDES[lang])
    made = set(re.findall(r"\bmake ([\w-]+)", body))
    assert made and made <= targets, f"unknown make targets: {made - targets}"
    commands = {m for line in spans(GUIDES[lang]) + fenced_lines(GUIDES[lang])
                for m in re.findall(r"(?:^|\s|/)reactlab (\w+)", line)}
    assert commands, "the guide names no reactlab command"
    for cmd in commands:
        assert f'"{cmd}"' in cli, f"`reactlab {cmd}` is not a subcommand"


@pytest.mark.parametrize("lang", GUIDES)
def test_the_server_flags_cited_exist(lang):
    from reactlab.server.__main__ import _parser

    known = {opt for action in _parser()._actions for opt in action.option_strings}
    lines = [ln for ln in spans(GUIDES[lang]) + fenced_lines(GUIDES[lang])
             if "reactlab serve" in ln or "reactlab.server " in ln or ln.startswith("--")]
    flags = {f for ln in lines for f in re.findall(r"(--[a-z][\w-]*)", ln)}
    assert {"--host", "--api-key", "--engine", "--replay-file"} <= flags
    assert flags <= known, f"unknown server flags: {flags - known}"


@pytest.mark.parametrize("lang", GUIDES)
def test_every_reactlab_name_cited_exists(lang):
    body = text(GUIDES[lang])
    names = {s for s in spans(GUIDES[lang]) if re.fullmatch(r"reactlab(\.\w+)+", s)}
    names |= {f"{mod}.{n.strip()}" for mod, imported in
              re.findall(r"^\s*from (reactlab[\w.]*) import ([\w, ]+)", body, re.MULTILINE)
              for n in imported.split(",")}
    names |= {m for s in spans(GUIDES[lang]) for m in re.findall(r"(reactlab\.[\w.]+)\(", s)}
    assert "reactlab.widgets.show_trace" in names
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):  # the longest importable prefix, then attributes
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
                break
            except ImportError:
                continue
        for attr in parts[cut:]:
            assert hasattr(obj, attr), f"{GUIDES[lang].name} cites {name}, which does not exist"
            obj = getattr(obj, attr)


def test_the_guides_cover_the_same_ground():
    """Not a translation check: the same notebooks, commands and headings count."""
    en, zh = text(GUIDES["en"]), text(GUIDES["zh-CN"])
    assert en.count("\n## ") == zh.count("\n## ")
    for nb in [f"| {n:02d} |" for n in range(10)]:
        assert nb in en and nb in zh
    shared = ("REACTLAB_PROVIDER=classroom", "REACTLAB_SERVER_KEY", "/health", "/v1/models",
              'os.environ["REACTLAB_TODAY"] = "2026-03-01"', "make lab EDITION=zh-CN",
              "make stop", "read_jsonl", "show_trace", "# demo: break", "verdict: ✔")
    for words in shared:
        assert words in en and words in zh, words
