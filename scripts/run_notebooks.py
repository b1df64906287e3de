"""Build the notebooks from their sources and execute them on the local model, in place.

    python scripts/run_notebooks.py            # every notebook
    python scripts/run_notebooks.py 03 05      # only those whose name starts with 03 / 05
    python scripts/run_notebooks.py --no-exec  # rebuild the .ipynb files without running them

Sources are `notebooks/src/NN_topic.py` in the "percent" format: `# %%` starts a code cell,
`# %% [markdown]` a markdown cell whose lines are `# `-prefixed. The committed `.ipynb` files
are the output of this script, executed, so a learner sees real outputs before running
anything. Execution always uses the embedded local model (a `.env` provider is ignored here),
and the script refuses to save a notebook with an error output or a key-like string.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
SRC_DIR = NB_DIR / "src"
KEY_RE = re.compile(r"sk-[A-Za-z0-9]{16,}")


def parse_percent(text: str) -> list[nbformat.NotebookNode]:
    cells, kind, buf = [], None, []

    def flush():
        if kind is None:
            return
        lines = buf[:]
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if kind == "markdown":
            lines = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines]
            cells.append(nbformat.v4.new_markdown_cell("\n".join(lines)))
        elif lines:
            cells.append(nbformat.v4.new_code_cell("\n".join(lines)))

    for line in text.splitlines():
        if line.startswith("# %%"):
            flush()
            kind, buf = ("markdown" if "[markdown]" in line else "code"), []
        elif kind is not None:
            buf.append(line)
    flush()
    return cells


def build(src: Path) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = parse_percent(src.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{src.stem[:2]}-{i:03d}"  # stable ids keep git diffs small
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return nb


def check(nb: nbformat.NotebookNode, name: str) -> list[str]:
    problems = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"{name}: error output: {out.get('ename')}: {out.get('evalue')}")
    if KEY_RE.search(json.dumps(nb)):
        problems.append(f"{name}: a key-like string is in the outputs")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("only", nargs="*", help="name prefixes, e.g. 03")
    ap.add_argument("--no-exec", action="store_true")
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per cell")
    args = ap.parse_args(argv)

    os.environ.update({"REACTLAB_PROVIDER": "local"})  # committed outputs come from the local model
    os.environ.pop("OPENAI_BASE_URL", None)
    sources = sorted(SRC_DIR.glob("[0-9][0-9]_*.py")) + sorted((SRC_DIR / "solutions").glob("*.py"))
    if args.only:
        sources = [s for s in sources if any(s.name.startswith(p) for p in args.only)]
    failed = []
    for src in sources:
        out_dir = NB_DIR / "solutions" if src.parent.name == "solutions" else NB_DIR
        target = out_dir / (src.stem + ".ipynb")
        nb = build(src)
        if not args.no_exec:
            t0 = time.monotonic()
            print(f"executing {target.relative_to(ROOT)} …", flush=True)
            NotebookClient(nb, timeout=args.timeout, kernel_name="python3",
                           resources={"metadata": {"path": str(out_dir)}}).execute()
            print(f"  done in {time.monotonic() - t0:.0f} s", flush=True)
            problems = check(nb, target.name)
            if problems:
                print("\n".join("  " + p for p in problems), file=sys.stderr)
                failed.append(target.name)
                continue  # keep the previous good copy
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.metadata.pop("execution", None)
        nbformat.write(nb, target)
    if failed:
        print(f"not saved (errors): {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
