"""Build the notebooks from their sources and execute them on the local model, in place.

    python scripts/run_notebooks.py                      # every notebook
    python scripts/run_notebooks.py 03 05                # only those whose name starts with 03 / 05
    python scripts/run_notebooks.py 03_regex_parser.py   # only that one (not its solutions)
    python scripts/run_notebooks.py --no-exec            # rebuild the .ipynb files without running them
    python scripts/run_notebooks.py --check              # do the committed .ipynb match their sources?
    python scripts/run_notebooks.py --twins              # only the Chinese notebooks, from the English ones
    python scripts/run_notebooks.py --prose 04           # after a markdown-only edit: keep the outputs

Sources are `notebooks/src/NN_topic.py` (and `notebooks/src/solutions/`) in jupytext's
"percent" format, read with jupytext: `# %%` starts a code cell, `# %% [markdown]` a markdown
cell whose lines are `# `-prefixed. The committed `.ipynb` files are the output of this script,
executed, so a learner sees real outputs before running anything. Execution always uses the
embedded local model (a `.env` provider is ignored here), and the script refuses to save a
notebook with an error output or a key-like string.

Each source also builds the Chinese edition, `notebooks/zh-CN/…`, once it holds Chinese
twins of its markdown cells (`# %% [markdown] lang="zh-CN"` right after the English cell):
the same code cells, the Chinese prose, and the English run's outputs, copied (never a second
run of the model).

A widget an executed notebook displays (08's trace viewer) is saved with it: nbclient records
the state of every widget the kernel created, and `displayed_widgets` keeps the ones the
outputs show, so JupyterLab draws the viewer, at its first step, before any cell runs (its
slider needs the kernel to change the step) in a trusted notebook: `make setup` signs the
notebooks that carry widget state. Elsewhere (untrusted, GitHub, nbval) the output's
plain-text trace shows. The Chinese twin and a `--prose` rebuild carry that state
over with the outputs it belongs to.

`--check` compares cell types and sources only (outputs, ids and metadata are ignored) and
exits 1 listing every notebook that drifted from its source; `tests/test_notebooks_sync.py`
runs the same comparison. This script does not write the sources back from a notebook edited
in JupyterLab: the `.py` source is the one to edit.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
SRC_DIR = NB_DIR / "src"
KEY_RE = re.compile(r"sk-[A-Za-z0-9]{16,}")
# Cell metadata kept from a source. jupytext also records layout keys (lines_to_next_cell,
# title, …) that only matter for writing the .py back; dropping them keeps the .ipynb diffs small.
KEPT_CELL_METADATA = ("tags",)


def sources(only: Sequence[str] = ()) -> list[Path]:
    """Every notebook source, solutions after the main series; `only` filters by name prefix.

    Example: sources(["03_regex_parser.py"]) -> [.../notebooks/src/03_regex_parser.py]
    """
    found = sorted(SRC_DIR.glob("[0-9][0-9]_*.py")) + sorted((SRC_DIR / "solutions").glob("*.py"))
    if only:
        found = [s for s in found if any(s.name.startswith(p) for p in only)]
    return found


ZH = "zh-CN"  # the Chinese edition: notebooks/zh-CN/ (and notebooks/zh-CN/solutions/)
LANGS = ("en", ZH)


def target(src: Path, lang: str = "en") -> Path:
    """The committed notebook built from `src` in `lang`.

    Example: target(SRC_DIR / "solutions" / "03_regex_parser_solutions.py")
             -> notebooks/solutions/03_regex_parser_solutions.ipynb
    Example: target(SRC_DIR / "03_regex_parser.py", "zh-CN") -> notebooks/zh-CN/03_regex_parser.ipynb
    """
    base = NB_DIR / ZH if lang == ZH else NB_DIR
    out_dir = base / "solutions" if src.parent.name == "solutions" else base
    return out_dir / (src.stem + ".ipynb")


def fix_command(src: Path) -> str:
    """The command that rebuilds (and re-executes) the one notebook built from `src`."""
    return f"python scripts/run_notebooks.py {src.name}"


def is_zh(cell) -> bool:
    return cell.metadata.get("lang") == ZH


def paired_cells(src: Path) -> list[tuple]:
    """(cell, its Chinese twin or None) for every cell of `src` that is not itself a twin.

    A twin is a markdown cell marked `lang="zh-CN"` (`# %% [markdown] lang="zh-CN"`) right
    after the English markdown cell it translates; code cells have no twin (both editions
    share them). A twin anywhere else is an error: the editions would drift apart.
    """
    out: list[list] = []
    for cell in jupytext.read(src, fmt="py:percent").cells:
        if not is_zh(cell):
            out.append([cell, None])
        elif out and out[-1][0].cell_type == "markdown" and out[-1][1] is None \
                and cell.cell_type == "markdown":
            out[-1][1] = cell
        else:
            raise ValueError(f"{_rel(src)}: a zh-CN cell ({_show(cell.source.partition(chr(10))[0])}) "
                             f"must follow the English markdown cell it translates, one twin each")
    return [tuple(p) for p in out]


def untranslated(src: Path) -> list[int]:
    """Cell numbers (from 1) of English markdown cells that have no zh-CN twin."""
    return [i for i, (cell, zh) in enumerate(paired_cells(src), start=1)
            if cell.cell_type == "markdown" and zh is None]


def has_edition(src: Path, lang: str) -> bool:
    """Does `src` build a notebook in `lang`? English always; Chinese once it has a twin."""
    return lang == "en" or any(zh is not None for _, zh in paired_cells(src))


def build(src: Path, lang: str = "en") -> nbformat.NotebookNode:
    """The notebook of `src` in `lang`, not executed: cells, stable ids, the python3 kernelspec.

    Both editions have the same cells in the same order with the same ids; only the markdown
    differs (the Chinese edition takes each cell's zh-CN twin where there is one).
    """
    nb = nbformat.v4.new_notebook()
    for cell, zh in paired_cells(src):
        cell = zh if (lang == ZH and zh is not None) else cell
        new = nbformat.v4.new_markdown_cell if cell.cell_type == "markdown" else (
            nbformat.v4.new_raw_cell if cell.cell_type == "raw" else nbformat.v4.new_code_cell)
        kept = {k: cell.metadata[k] for k in KEPT_CELL_METADATA if k in cell.metadata}
        nb.cells.append(new(cell.source, metadata=kept))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{src.stem[:2]}-{i:03d}"  # stable ids keep git diffs small
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    if lang == ZH:
        nb.metadata["language"] = ZH
    return nb


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"  # the notebook's `widgets` metadata
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"  # an output that shows a widget
MODEL_REF = re.compile(r"IPY_MODEL_([0-9a-f]+)")  # how a widget's state names another widget


def displayed_widgets(nb: nbformat.NotebookNode) -> dict | None:
    """The `widgets` metadata an executed notebook needs: the models its outputs display and
    the models those name (children, layout, style), None when it displays none.

    nbclient (`store_widget_state`, on by default) records every widget the kernel created,
    displayed or not; only the displayed ones help a reader. A null in a layout or style
    model is that model's default (no such ipywidgets trait defaults to anything else), so it
    is left out: half of the saved size. Example: a notebook whose only output shows a VBox
    of an HTML and a slider -> {WIDGET_STATE: {"state": {those 3 models, their layouts and
    styles}, "version_major": 2, "version_minor": 0}}
    """
    recorded = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {})
    state = recorded.get("state", {})
    todo = [out["data"][WIDGET_VIEW]["model_id"] for cell in nb.cells
            for out in cell.get("outputs", []) if WIDGET_VIEW in out.get("data", {})]
    kept: dict = {}
    while todo:
        model_id = todo.pop()
        if model_id in kept or model_id not in state:
            continue
        model = copy.deepcopy(state[model_id])
        if model["model_name"] == "LayoutModel" or model["model_name"].endswith("StyleModel"):
            model["state"] = {k: v for k, v in model["state"].items() if v is not None}
        kept[model_id] = model
        todo += MODEL_REF.findall(json.dumps(model["state"]))
    if not kept:
        return None
    return {WIDGET_STATE: {"state": dict(sorted(kept.items())),
                           "version_major": recorded.get("version_major", 2),
                           "version_minor": recorded.get("version_minor", 0)}}


def keep_widgets(nb: nbformat.NotebookNode, widgets: dict | None) -> None:
    """Set (or, for None, remove) the notebook's saved widget state."""
    if widgets:
        nb.metadata["widgets"] = nbformat.from_dict(copy.deepcopy(widgets))
    else:
        nb.metadata.pop("widgets", None)


def execute(nb: nbformat.NotebookNode, folder: Path, timeout: int) -> nbformat.NotebookNode:
    """Run every cell in place (working directory `folder`) and keep the displayed widgets."""
    NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(folder)}}).execute()
    keep_widgets(nb, displayed_widgets(nb))
    return nb


def _deeper(value):
    """A relative link in an output, seen from one folder deeper: '](../x' -> '](../../x'."""
    if isinstance(value, str):
        return value.replace("](../", "](../../").replace('src="../', 'src="../../')
    if isinstance(value, list):
        return [_deeper(v) for v in value]
    if isinstance(value, dict):
        return {k: _deeper(v) for k, v in value.items()}
    return value


def write_twin(english: nbformat.NotebookNode, src: Path) -> Path | None:
    """Write the Chinese notebook of `src` from its English one; None when `src` has no twins."""
    if not has_edition(src, ZH):
        return None
    out = target(src, ZH)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(twin(english, src), out)
    return out


def twin(english: nbformat.NotebookNode, src: Path) -> nbformat.NotebookNode:
    """The Chinese notebook of `src` carrying the English run's outputs (same code, same run).

    Outputs are copied cell by cell; relative links in them are moved one folder deeper, since
    the Chinese notebooks live in notebooks/zh-CN/.
    """
    nb = build(src, ZH)
    for mine, theirs in zip(nb.cells, english.cells):
        if mine.cell_type == "code" and theirs.cell_type == "code":
            mine.outputs = nbformat.from_dict(_deeper(theirs.get("outputs", [])))
            mine.execution_count = theirs.get("execution_count")
    keep_widgets(nb, english.metadata.get("widgets"))  # the same outputs show the same widgets
    return nb


def _show(text: str, width: int = 70) -> str:
    return repr(text if len(text) <= width else text[:width] + "…")


def cell_difference(expected: list, actual: list) -> str | None:
    """Where two notebooks' cells differ (cell type + source), None when they are the same.

    Cells are numbered from 1, as they appear in JupyterLab.
    Example: cell_difference([code "x = 1"], [code "x = 2"])
             -> "cell 1 (code), line 1: the source has 'x = 1', the notebook has 'x = 2'"
    """
    for i, (want, got) in enumerate(zip(expected, actual), start=1):
        if want.cell_type != got.cell_type:
            return (f"cell {i} is {want.cell_type} in the source but {got.cell_type} in the "
                    f"notebook (source starts {_show(want.source.partition(chr(10))[0])})")
        if want.source != got.source:
            a, b = want.source.split("\n"), got.source.split("\n")
            n = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            x = _show(a[n]) if n < len(a) else "no more lines"
            y = _show(b[n]) if n < len(b) else "no more lines"
            return (f"cell {i} ({want.cell_type}), line {n + 1}: the source has {x}, "
                    f"the notebook has {y}")
    if len(expected) != len(actual):
        n = min(len(expected), len(actual))
        longer, side = (expected, "source") if len(expected) > n else (actual, "notebook")
        extra = longer[n]
        return (f"the source has {len(expected)} cells, the notebook {len(actual)}: cell {n + 1} "
                f"({extra.cell_type}, starts {_show(extra.source.partition(chr(10))[0])}) "
                f"is only in the {side}")
    return None


def drift(src: Path, notebook: Path | None = None, lang: str = "en") -> str | None:
    """Why the committed notebook does not match `src` (one sentence with the fix), or None.

    For the Chinese edition it also compares outputs with the committed English notebook's:
    the Chinese notebook carries the English run's outputs, never a run of its own.
    Example: drift(SRC_DIR / "03_regex_parser.py") -> None   (in sync)
    """
    notebook = target(src, lang) if notebook is None else notebook
    name = _rel(notebook)
    if not notebook.exists():
        return f"{name} is missing; build it with `{fix_command(src)}`."
    try:
        committed = nbformat.read(notebook, as_version=4)
        where = cell_difference(build(src, lang).cells, committed.cells)
    except Exception as e:  # noqa: BLE001 - nbformat raises 5 kinds; any of them is drift
        return f"{name} is not a readable notebook ({e}); rebuild it with `{fix_command(src)}`."
    if where is None and lang == ZH:
        where = output_difference(src, committed)
    if where is None:
        return None
    return (f"{name} differs from {_rel(src)}: {where}. A change made in the notebook belongs "
            f"in the source; then rebuild it with `{fix_command(src)}`.")


def output_difference(src: Path, chinese: nbformat.NotebookNode) -> str | None:
    """Where a Chinese notebook's outputs differ from its English twin's, or None."""
    english = target(src)
    if not english.exists():
        return f"its English notebook {_rel(english)} is missing"
    want = twin(nbformat.read(english, as_version=4), src)
    for i, (a, b) in enumerate(zip(want.cells, chinese.cells), start=1):
        if a.cell_type == "code" and json.dumps(a.get("outputs", []), sort_keys=True) != \
                json.dumps(b.get("outputs", []), sort_keys=True):
            return f"cell {i} (code) has other outputs than the English notebook's"
    if want.metadata.get("widgets") != chinese.metadata.get("widgets"):
        return "its saved widget state differs from the English notebook's"
    return None


def editions(srcs: Sequence[Path]) -> list[tuple[Path, str]]:
    """(source, language) of every notebook the sources build."""
    return [(s, lang) for s in srcs for lang in LANGS if has_edition(s, lang)]


def orphans() -> list[Path]:
    """Committed notebooks that no source builds (nbval would still run them)."""
    built = {target(s, lang) for s, lang in editions(sources())}
    found = []
    for base in (NB_DIR, NB_DIR / ZH):
        found += sorted(base.glob("[0-9][0-9]_*.ipynb")) + sorted((base / "solutions").glob("*.ipynb"))
    return [nb for nb in found if nb not in built]


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


DEMO_ROLE = re.compile(r"^# demo: (success|break)\b", re.MULTILINE)


def output_text(out: dict) -> str:
    """What one output shows as text: a stream's text, or a result's text/plain ("" if neither)."""
    text = out.get("text") or out.get("data", {}).get("text/plain") or ""
    return text if isinstance(text, str) else "".join(text)


def cell_text(cell: nbformat.NotebookNode) -> str:
    """Everything a code cell printed (streams and text/plain results)."""
    return "\n".join(t for t in map(output_text, cell.get("outputs", [])) if t)


def role_problem(cell: nbformat.NotebookNode) -> str | None:
    """Why a demo cell's verdict contradicts the role it declares, or None.

    A cell that starts a line with `# demo: success` must print at least one `verdict: ✔` and
    no `verdict: ✘`; one with `# demo: break` must print at least one `verdict: ✘`.
    Example: a `# demo: success` cell that printed "verdict: ✘ no answer" -> "declares ..."
    """
    m = DEMO_ROLE.search(cell.source)
    if not m:
        return None
    text = cell_text(cell)
    good, bad = text.count("verdict: ✔"), text.count("verdict: ✘")
    if m.group(1) == "success" and (bad or not good):
        return f"declares a success demo but printed {good} ✔ and {bad} ✘ verdicts"
    if m.group(1) == "break" and not bad:
        return f"declares a watch-it-break demo but printed no ✘ verdict ({good} ✔)"
    return None


def output_problems(nb: nbformat.NotebookNode, name: str) -> list[str]:
    """Reasons not to save an executed notebook: error outputs, key-like strings, a demo whose
    verdict contradicts its declared role (`# demo: success` / `# demo: break`)."""
    problems = []
    for i, cell in enumerate(nb.cells):
        problem = role_problem(cell) if cell.cell_type == "code" else None
        if problem:
            problems.append(f"{name}: cell {i} {problem}")
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"{name}: error output: {out.get('ename')}: {out.get('evalue')}")
    if KEY_RE.search(json.dumps(nb)):
        problems.append(f"{name}: a key-like string is in the outputs")
    return problems


def check(srcs: Sequence[Path], *, with_orphans: bool = True) -> int:
    """Print every notebook that drifted from its source; 0 when all match, else 1."""
    problems = [p for p in (drift(s, lang=lang) for s, lang in editions(srcs)) if p]
    if with_orphans:
        problems += [f"{_rel(nb)} has no source in {_rel(SRC_DIR)}/; add one or delete the notebook."
                     for nb in orphans()]
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} of {len(editions(srcs))} notebooks are out of sync with their sources "
              f"(`make notebooks` rebuilds and re-executes all of them).", file=sys.stderr)
        return 1
    print(f"{len(editions(srcs))} notebooks match their sources.")
    return 0


def rebuild_prose(srcs: Sequence[Path]) -> int:
    """Rebuild notebooks whose code cells are unchanged, carrying the committed outputs over.

    A markdown edit needs no new run of the model: the outputs belong to the same code, and the
    kernel's `language_info` (Python's version …) recorded with them stays too. A
    notebook whose code cells differ from the committed ones (in number, order or text) is not
    written, and the command that re-executes it is printed instead.
    """
    refused = []
    for src in srcs:
        out = target(src)
        if not out.exists():
            refused.append(f"{_rel(out)} does not exist yet: run `{fix_command(src)}`")
            continue
        old = nbformat.read(out, as_version=4)
        nb = build(src)
        new_code = [c for c in nb.cells if c.cell_type == "code"]
        old_code = [c for c in old.cells if c.cell_type == "code"]
        if [c.source for c in new_code] != [c.source for c in old_code]:
            refused.append(f"{_rel(out)}: code cells changed, so its outputs must be made again: "
                           f"`{fix_command(src)}`")
            continue
        for mine, theirs in zip(new_code, old_code):
            mine.outputs, mine.execution_count = theirs.get("outputs", []), theirs.get("execution_count")
        keep_widgets(nb, old.metadata.get("widgets"))  # the kept outputs' widgets
        if "language_info" in old.metadata:  # what the kernel of the kept run recorded
            nb.metadata["language_info"] = old.metadata["language_info"]
        nbformat.write(nb, out)
        write_twin(nb, src)
        print(f"rebuilt {_rel(out)} (outputs kept)")
    for r in refused:
        print(r, file=sys.stderr)
    return 1 if refused else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("only", nargs="*", help="name prefixes, e.g. 03")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--no-exec", action="store_true", help="rebuild without executing")
    mode.add_argument("--prose", action="store_true",
                      help="rebuild after a markdown-only change, keeping the committed outputs "
                      "(refused when a code cell changed: that needs a run)")
    mode.add_argument("--twins", action="store_true",
                      help="only write the Chinese notebooks from the committed English ones (no kernel)")
    mode.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 listing notebooks whose cells differ from the source")
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per cell")
    args = ap.parse_args(argv)

    srcs = sources(args.only)
    if args.only and not srcs:
        print(f"No notebook source in {_rel(SRC_DIR)}/ starts with {' or '.join(args.only)}.",
              file=sys.stderr)
        return 2
    if args.check:
        return check(srcs, with_orphans=not args.only)
    if args.prose:
        return rebuild_prose(srcs)
    if args.twins:
        for src in srcs:
            if target(src).exists() and (zh_out := write_twin(nbformat.read(target(src), as_version=4), src)):
                print(f"wrote {_rel(zh_out)}")
        return 0

    os.environ.update({"REACTLAB_PROVIDER": "local"})  # committed outputs come from the local model
    os.environ.pop("OPENAI_BASE_URL", None)
    if not args.no_exec:
        from reactlab.connection import ServerError, refuse_stale

        try:
            refuse_stale()  # saved outputs must come from the code they are committed with
        except ServerError as e:
            print(e, file=sys.stderr)
            return 2
    failed = []
    for src in srcs:
        out = target(src)
        nb = build(src)
        if not args.no_exec:
            t0 = time.monotonic()
            print(f"executing {_rel(out)} …", flush=True)
            execute(nb, out.parent, args.timeout)
            print(f"  done in {time.monotonic() - t0:.0f} s", flush=True)
            problems = output_problems(nb, out.name)
            if problems:
                print("\n".join("  " + p for p in problems), file=sys.stderr)
                failed.append(out.name)
                refused = Path(tempfile.gettempdir()) / "reactlab-refused" / out.name
                refused.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(nb, refused)  # to read what went wrong; not committed
                print(f"  kept the previous {_rel(out)}; this run is in {refused}", file=sys.stderr)
                continue  # keep the previous good copy
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.metadata.pop("execution", None)
        nbformat.write(nb, out)
        write_twin(nb, src)  # the Chinese twin: same cells, the English run's outputs
    if failed:
        print(f"not saved (errors): {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
