"""The series' honesty rules, read from the notebook sources (no kernel, no model; a second).

- every live agent run (`run_react(`, `run_function_calling(`, a memory `.ask(`) is followed by
  the grader's verdict: `grade(` in the same code cell or the next one, so a learner always
  sees `verdict: ✔ …` / `verdict: ✘ …` under a run;
- every notebook that connects to a model pins "today" to 2026-03-01 in its set-up cell, one
  visible line (notebook 00 says how to unpin);
- the prose cites nothing a learner does not have: no design notes, no source articles by number.
What it cannot check: that the prose agrees with the saved output (a reader does that, and
`scripts/run_notebooks.py` refuses a demo whose verdict contradicts its role).
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest
from scripts_loader import load_script

ROOT = Path(__file__).resolve().parent.parent
rn = load_script("run_notebooks")
SOURCES = sorted((ROOT / "notebooks" / "src").rglob("*.py"))
LIVE_RUN = re.compile(r"\b(run_react|run_function_calling)\(|\.ask\(")
PIN = 'os.environ["REACTLAB_TODAY"] = "2026-03-01"'
NOT_FOR_LEARNERS = re.compile(r"(?i)\bseeds?\s*0\d\d|DESIGN\.md|STYLE\.md|\bseeds'")


def cells(src: Path) -> list:
    return jupytext.read(src, fmt="py:percent").cells


def code_lines(cell) -> str:
    """A code cell's source without comments, so a comment that mentions a run is not one."""
    return "\n".join(line.split("#", 1)[0] for line in cell.source.splitlines())


def unverdicted_runs(src: Path) -> list[int]:
    code = [c for c in cells(src) if c.cell_type == "code"]
    missing = []
    for i, cell in enumerate(code):
        # comments count too: a reader (and an outside check) sees `run_react(` either way
        body = cell.source
        calls = [m for m in LIVE_RUN.finditer(body)
                 if not re.search(r"\bdef\s+\w+\([^)]*$", body[:m.start()].rsplit("\n", 1)[-1])]
        if not calls:
            continue
        after = code_lines(code[i + 1]) if i + 1 < len(code) else ""
        if "grade(" not in body and "grade(" not in after:
            missing.append(i)
    return missing


@pytest.mark.parametrize("src", SOURCES, ids=[s.name for s in SOURCES])
def test_every_live_run_is_followed_by_its_verdict(src):
    missing = unverdicted_runs(src)
    assert not missing, (f"{src.name}: code cells {missing} (0-based, code cells only) run an agent "
                         f"but neither they nor the next cell print grade(...)")


@pytest.mark.parametrize("src", SOURCES, ids=[s.name for s in SOURCES])
def test_a_notebook_that_connects_pins_today(src):
    setup = [c for c in cells(src) if c.cell_type == "code" and "reactlab.connect(" in c.source]
    if not setup:
        pytest.skip("does not connect to a model")
    assert PIN in setup[0].source, f"{src.name}: the set-up cell should say {PIN}"


@pytest.mark.parametrize("src", SOURCES, ids=[s.name for s in SOURCES])
def test_prose_cites_nothing_a_learner_lacks(src):
    bad = [m.group(0) for c in cells(src) for m in NOT_FOR_LEARNERS.finditer(c.source)]
    assert not bad, f"{src.name} mentions {sorted(set(bad))}"


def test_the_checker_sees_a_run_without_a_verdict(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("# %%\nr = run_react('q')\n\n# %%\nprint(r.answer)\n\n"
                   "# %%\nr = run_function_calling('q')\n\n# %%\nprint(grade(r))\n", encoding="utf-8")
    assert unverdicted_runs(src) == [0]


def test_start_here_says_how_to_unpin():
    text = (ROOT / "notebooks" / "src" / "00_start_here.py").read_text(encoding="utf-8")
    assert "REACTLAB_TODAY" in text and "unpin" in text.lower()


# --- reading load --------------------------------------------------------------------------

MAX_CODE_LINES, MAX_OUTPUT_LINES = 25, 40
MAIN = [s for s in SOURCES if s.parent.name == "src"]


@pytest.mark.parametrize("src", MAIN, ids=[s.name for s in MAIN])
def test_teaching_code_cells_fit_at_a_glance(src):
    long = [(i, len(c.source.splitlines())) for i, c in enumerate(cells(src))
            if c.cell_type == "code" and len(c.source.splitlines()) > MAX_CODE_LINES]
    assert not long, f"{src.name}: (cell, lines) over {MAX_CODE_LINES} lines: {long}"


def output_lines(cell) -> int:
    return sum(len(rn.output_text(out).splitlines()) for out in cell.get("outputs", []))


COMMITTED = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + \
    sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb"))


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_saved_outputs_are_short_enough_to_read(path):
    import nbformat

    nb = nbformat.read(path, as_version=4)
    long = [(i, output_lines(c)) for i, c in enumerate(nb.cells, start=1)
            if c.cell_type == "code" and output_lines(c) > MAX_OUTPUT_LINES]
    assert not long, f"{path.name}: (cell, output lines) over {MAX_OUTPUT_LINES}: {long}"
