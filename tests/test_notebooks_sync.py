"""Every committed notebook has the cells of its source (cell types + sources; outputs ignored).

The sources are `notebooks/src/**/*.py` in jupytext's percent format; `scripts/run_notebooks.py`
builds and executes them into `notebooks/**/*.ipynb`. A notebook edited by hand in JupyterLab,
or a source edited without re-running the script, fails here with the cell that differs and the
command that rebuilds it. No model, no kernel: about a second.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scripts_loader import load_script

ROOT = Path(__file__).resolve().parent.parent


rn = load_script("run_notebooks")
SOURCES = rn.sources()


# --- the committed notebooks ----------------------------------------------------------------

def test_every_notebook_and_solution_has_a_source():
    names = {s.name for s in SOURCES}
    assert len([s for s in SOURCES if s.parent.name == "src"]) >= 9
    assert any(s.parent.name == "solutions" for s in SOURCES)
    assert "00_start_here.py" in names


EDITIONS = rn.editions(SOURCES)


@pytest.mark.parametrize("src, lang", EDITIONS, ids=[f"{lang}:{s.name}" for s, lang in EDITIONS])
def test_committed_notebook_matches_its_source(src, lang):
    problem = rn.drift(src, lang=lang)
    assert problem is None, problem


def test_no_committed_notebook_without_a_source():
    assert rn.orphans() == [], "notebooks nothing builds: " + ", ".join(map(str, rn.orphans()))


def test_check_command_passes_on_the_repository(capsys):
    assert rn.main(["--check"]) == 0
    assert f"{len(EDITIONS)} notebooks match" in capsys.readouterr().out


# --- the comparison, on a throw-away tree ---------------------------------------------------

SRC_TEXT = """\
# %% [markdown]
# # 03 · Title
# Some *text*.

# %%
x = 306 * 5
print(x)

# %% tags=["raises-exception"]
1 / 0
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A repository with one source and its freshly built notebook; returns (src, notebook)."""
    for name, value in {"ROOT": tmp_path, "NB_DIR": tmp_path / "notebooks",
                        "SRC_DIR": tmp_path / "notebooks" / "src"}.items():
        monkeypatch.setattr(rn, name, value)
    (tmp_path / "notebooks" / "src" / "solutions").mkdir(parents=True)
    (tmp_path / "notebooks" / "solutions").mkdir()
    src = tmp_path / "notebooks" / "src" / "03_topic.py"
    src.write_text(SRC_TEXT, encoding="utf-8")
    nbformat.write(rn.build(src), rn.target(src))
    return src, rn.target(src)


def _edit(notebook: Path, change) -> None:
    nb = nbformat.read(notebook, as_version=4)
    change(nb)
    nbformat.write(nb, notebook)


def test_build_reads_percent_cells_with_stable_ids(tree):
    src, _ = tree
    nb = rn.build(src)
    assert [(c.cell_type, c.source) for c in nb.cells] == [
        ("markdown", "# 03 · Title\nSome *text*."),
        ("code", "x = 306 * 5\nprint(x)"),
        ("code", "1 / 0"),
    ]
    assert [c.id for c in nb.cells] == ["03-000", "03-001", "03-002"]
    assert nb.cells[2].metadata == {"tags": ["raises-exception"]}
    assert nb.cells[0].metadata == {}  # jupytext's layout keys (lines_to_next_cell) are dropped
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_target_puts_solutions_next_to_their_folder(tree):
    sol = rn.SRC_DIR / "solutions" / "03_topic_solutions.py"
    assert rn.target(sol) == rn.NB_DIR / "solutions" / "03_topic_solutions.ipynb"
    assert rn.target(tree[0]) == rn.NB_DIR / "03_topic.ipynb"


def test_fresh_build_is_in_sync(tree):
    assert rn.drift(tree[0]) is None


def test_outputs_ids_and_metadata_are_ignored(tree):
    src, notebook = tree

    def execute(nb):
        nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="1530\n")]
        nb.cells[1].execution_count = 7
        nb.cells[1].id = "other-id"
        nb.cells[1].metadata["scrolled"] = True
        nb.metadata["language_info"]["version"] = "3.11.7"

    _edit(notebook, execute)
    assert rn.drift(src) is None


def test_missing_notebook_says_how_to_build_it(tree):
    src, notebook = tree
    notebook.unlink()
    problem = rn.drift(src)
    assert "notebooks/03_topic.ipynb is missing" in problem
    assert "`python scripts/run_notebooks.py 03_topic.py`" in problem


def test_unreadable_notebook_is_drift(tree):
    src, notebook = tree
    notebook.write_text("{not json", encoding="utf-8")
    assert "is not a readable notebook" in rn.drift(src)


def test_a_hand_edited_notebook_names_the_cell_and_line(tree):
    src, notebook = tree
    _edit(notebook, lambda nb: setattr(nb.cells[1], "source", "x = 306 * 5\nprint(x + 1)"))
    problem = rn.drift(src)
    assert "notebooks/03_topic.ipynb differs from notebooks/src/03_topic.py" in problem
    assert "cell 2 (code), line 2: the source has 'print(x)', the notebook has 'print(x + 1)'" in problem
    assert "A change made in the notebook belongs in the source" in problem
    assert "`python scripts/run_notebooks.py 03_topic.py`" in problem


def test_a_source_edited_without_rebuilding_is_drift(tree):
    src, _ = tree
    src.write_text(SRC_TEXT + "\n# %% [markdown]\n# A new closing note.\n", encoding="utf-8")
    problem = rn.drift(src)
    assert "the source has 4 cells, the notebook 3: cell 4 (markdown" in problem
    assert "is only in the source" in problem


def test_a_deleted_source_cell_is_drift(tree):
    src, _ = tree
    src.write_text(SRC_TEXT.split("# %% tags")[0], encoding="utf-8")
    assert "cell 3 (code, starts '1 / 0') is only in the notebook" in rn.drift(src)


def test_a_changed_cell_type_is_drift(tree):
    src, notebook = tree
    _edit(notebook, lambda nb: nb.cells.__setitem__(
        1, nbformat.v4.new_markdown_cell(nb.cells[1].source)))
    assert "cell 2 is code in the source but markdown in the notebook" in rn.drift(src)


def test_a_shorter_cell_is_drift(tree):
    src, notebook = tree
    _edit(notebook, lambda nb: setattr(nb.cells[1], "source", "x = 306 * 5"))
    assert "line 2: the source has 'print(x)', the notebook has no more lines" in rn.drift(src)


def test_check_lists_every_drifted_notebook_and_exits_1(tree, capsys):
    _, notebook = tree
    other = rn.SRC_DIR / "solutions" / "03_topic_solutions.py"
    other.write_text("# %%\nprint('solution')\n", encoding="utf-8")  # never built
    _edit(notebook, lambda nb: setattr(nb.cells[0], "source", "# 03 · Renamed"))
    assert rn.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "notebooks/03_topic.ipynb differs" in err
    assert "notebooks/solutions/03_topic_solutions.ipynb is missing" in err
    assert "2 of 2 notebooks are out of sync" in err


def test_check_lists_a_notebook_without_source(tree, capsys):
    orphan = rn.NB_DIR / "09_orphan.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), orphan)
    assert rn.orphans() == [orphan]
    assert rn.main(["--check"]) == 1
    assert "notebooks/09_orphan.ipynb has no source" in capsys.readouterr().err
    assert rn.main(["--check", "03"]) == 0  # a filtered check looks only at what it names


def test_check_with_an_unknown_prefix_says_so(tree, capsys):
    assert rn.main(["--check", "42"]) == 2
    assert "No notebook source in notebooks/src/ starts with 42" in capsys.readouterr().err


def test_check_writes_nothing(tree):
    src, notebook = tree
    src.write_text(SRC_TEXT.replace("306", "307"), encoding="utf-8")
    before = notebook.read_bytes()
    assert rn.main(["--check"]) == 1
    assert notebook.read_bytes() == before


def test_no_exec_rebuilds_in_place_without_a_kernel(tree):
    src, notebook = tree
    src.write_text(SRC_TEXT.replace("306", "307"), encoding="utf-8")
    assert rn.main(["--no-exec"]) == 0
    assert rn.drift(src) is None
    assert "307" in nbformat.read(notebook, as_version=4).cells[1].source


def test_output_problems_refuse_errors_and_keys():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("1/0")]
    nb.cells[0].outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError",
                                                  evalue="division by zero", traceback=[])]
    assert rn.output_problems(nb, "x.ipynb") == [
        "x.ipynb: error output: ZeroDivisionError: division by zero"]
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="sk-" + "a" * 20)]
    assert rn.output_problems(nb, "x.ipynb") == ["x.ipynb: a key-like string is in the outputs"]


# --- properties -----------------------------------------------------------------------------

# A line a person would write: it starts with a letter, so it is never a `# %%` marker or a magic.
_words = st.builds(lambda head, tail: (head + tail).rstrip(), st.sampled_from("abxyz天气北京"),
                   st.text(st.sampled_from("abcxyz019 =+()*,.:'天气北京"), max_size=30))
# An open triple quote (a''') is left out: jupytext keeps a cell marker inside a Python string
# as part of the string, so such a "source" is one cell by design (and not valid code anyway).
_cell = st.tuples(st.sampled_from(["code", "markdown"]),
                  st.lists(_words, min_size=1, max_size=4).map("\n".join)
                  .filter(lambda text: "'" * 3 not in text))


def _nb(cells):
    nb = nbformat.v4.new_notebook()
    new = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell}
    nb.cells = [new[kind](text) for kind, text in cells]
    return nb


@given(st.lists(_cell, min_size=1, max_size=6))
def test_a_source_written_by_jupytext_builds_the_same_cells(tmp_path_factory, cells):
    # `jupytext --to py:percent X.ipynb` is how a notebook becomes a source: it must round-trip.
    src = tmp_path_factory.mktemp("src") / "05_prop.py"
    src.write_text(jupytext.writes(_nb(cells), fmt="py:percent"), encoding="utf-8")
    assert [(c.cell_type, c.source) for c in rn.build(src).cells] == cells


@given(st.lists(_cell, max_size=5), st.lists(_cell, max_size=5))
def test_cell_difference_is_none_exactly_when_cells_match(a, b):
    assert rn.cell_difference(_nb(a).cells, _nb(a).cells) is None
    found = rn.cell_difference(_nb(a).cells, _nb(b).cells)
    assert (found is None) == (a == b)
    if found is not None:
        assert found.startswith(("cell ", "the source has"))


# --- demo roles: the runner refuses a demo whose verdict contradicts its role ---------------

def _cell(source: str, printed: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)]
    return cell


@pytest.mark.parametrize("role, printed, ok", [
    ("success", "verdict: ✔ the answer …\n", True),
    ("success", "verdict: ✘ no answer\n", False),
    ("success", "nothing graded\n", False),
    ("success", "verdict: ✔ a\nverdict: ✘ b\n", False),
    ("break", "verdict: ✘ the answer gives 广州 北京's figures\n", True),
    ("break", "verdict: ✔ all fine\n", False),
])
def test_role_problem_reads_the_printed_verdicts(role, printed, ok):
    problem = rn.role_problem(_cell(f"# NBVAL_IGNORE_OUTPUT\n# demo: {role}\nprint(v)", printed))
    assert (problem is None) is ok


def test_a_cell_without_a_role_is_never_a_problem():
    assert rn.role_problem(_cell("print(grade(r))", "verdict: ✘ x\n")) is None


def test_output_problems_names_the_contradicting_demo():
    nb = nbformat.v4.new_notebook()
    nb.cells = [_cell("# demo: success\nprint(grade(r))", "verdict: ✘ wrong city\n")]
    assert rn.output_problems(nb, "x.ipynb") == [
        "x.ipynb: cell 0 declares a success demo but printed 0 ✔ and 1 ✘ verdicts"]
