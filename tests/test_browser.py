"""The series in a real browser: JupyterLab as `make lab` starts it, driven through Playwright
on Debian's chromium, with live kernels and never the model.

1. notebook 00 opens with no news pop-up over it, and a scratch cell typed into it runs on a
   live kernel that has REACTLAB_SKIP_MODEL=1;
2. the trace viewer (`reactlab.widgets.show_trace`), in notebook 08's kernel, draws a run read
   back from a JSONL record, and moving its slider changes the step shown; a notebook executed
   by scripts/run_notebooks.py keeps the viewer's widget state, drawn once it is trusted;
3. 00's README link opens README.md in JupyterLab (no 404), and every relative link of 00 and
   of the README is served;
4. stopping JupyterLab by its pid leaves none of its processes (kernels) behind.

One screenshot per step goes to artifacts/browser/ (git-ignored; the path is printed), with
the saved notebook of step 2. The notebooks are typed into but never saved (autosave off, see
tests/lab_server.py); the last test checks they are unchanged on disk. Skipped, with the
reason, without playwright (the `browser` extra), chromium (`make setup` installs Debian's as
root) or JupyterLab.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest
from lab_server import JUPYTER, ROOT, descendants, english_start_notebook, start_lab
from nbformat.sign import NotebookNotary
from sample_runs import sample_run
from scripts_loader import load_script

from reactlab.runlog import to_jsonl

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser")
                 if os.access(p, os.X_OK)), None)
TRACE_NB = "notebooks/08_observability_and_memory.ipynb"
WAIT_MS = 60_000  # generous: 2 cores shared with other work; never asserted as a timing


sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (the `browser` extra: `make setup`)")
if CHROMIUM is None:
    pytest.skip("no /usr/bin/chromium or /usr/bin/chromium-browser (`make setup` run as root "
                "installs Debian's chromium; else: sudo apt-get install chromium)",
                allow_module_level=True)
if not JUPYTER.exists():
    pytest.skip(f"JupyterLab is not installed in this environment ({JUPYTER}: the `lab` extra)",
                allow_module_level=True)
expect = sync_api.expect
SCRATCH = "# browser test: a scratch cell, never saved"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _say(request, text: str) -> None:
    """Print past pytest's capture (the screenshot folder must be findable on a green run)."""
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(text)


@pytest.fixture(scope="module")
def digests():
    """The notebooks the test types into, as they are on disk before JupyterLab starts."""
    return {nb: _digest(nb) for nb in (ROOT / english_start_notebook(), ROOT / TRACE_NB)}


@pytest.fixture(scope="module")
def lab(digests, tmp_path_factory):
    lab = start_lab(tmp_path_factory.mktemp("jupyterlab"), english_start_notebook())
    yield lab
    left = lab.stop()
    assert not left, f"processes of JupyterLab still running after it stopped: {sorted(left)}"


@pytest.fixture(scope="module")
def page(lab, request):
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)  # no stale screenshot from an earlier run
    ARTIFACTS.mkdir(parents=True)
    _say(request, f"\nbrowser screenshots: {ARTIFACTS}")
    mine_before = descendants(os.getpid()) | {lab.process.pid}  # JupyterLab is stopped later
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(WAIT_MS)
        yield page
        browser.close()
    left = descendants(os.getpid()) - mine_before - descendants(lab.process.pid)
    assert not left, f"browser processes still running after it closed: {sorted(left)}"


@pytest.fixture(autouse=True)
def _screenshot_on_failure(request, page):
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed > failed:  # the call phase is reported before teardown
        page.screenshot(path=ARTIFACTS / f"failed_{request.node.name}.png")


def _open(page, lab, notebook: str) -> None:
    """Open a notebook in JupyterLab and wait until its kernel is idle."""
    page.goto(f"{lab.url}/lab/tree/{notebook}?token={lab.token}")
    # The workspace restores the notebooks opened before this one first: wait until this
    # one is the visible tab, so that nothing below types into another notebook.
    current_tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    expect(current_tab).to_have_text(re.compile(re.escape(Path(notebook).name)), timeout=WAIT_MS)
    expect(_current(page)).to_have_count(1)
    _current(page).locator(".jp-Cell").first.wait_for()
    # The toolbar says "idle" before a kernel is there; the server knows when this page's
    # kernel is connected and idle.
    expect(_current(page).locator(".jp-Notebook-ExecutionIndicator").first).to_have_attribute(
        "data-status", "idle", timeout=WAIT_MS)
    deadline = time.monotonic() + WAIT_MS / 1000
    while not _kernel_ready(lab, notebook):
        assert time.monotonic() < deadline, f"no kernel became ready for {notebook}: {lab.log}"
        time.sleep(0.2)


def _kernel_ready(lab, notebook: str) -> bool:
    for session in lab.api("/api/sessions"):
        kernel = session.get("kernel") or {}
        if session.get("path") == notebook and kernel.get("execution_state") == "idle" \
                and kernel.get("connections", 0) > 0:
            return True
    return False


def _current(page):
    """The notebook in the dock's visible tab (others stay in the page, hidden)."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")


def _run_scratch_cell(page, code: str):
    """Insert a code cell below the first cell (command mode `b`), type `code` under the
    SCRATCH line, run it, and return the cell's locator."""
    cells = _current(page).locator(".jp-Cell")
    cells.first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    editor = cells.nth(1).locator(".cm-content")
    editor.click()
    page.keyboard.insert_text(f"{SCRATCH}\n{code}")  # no key events: no auto-closed brackets
    expect(editor).to_contain_text(code.splitlines()[-1])
    page.keyboard.press("Shift+Enter")
    return _current(page).locator(".jp-CodeCell",
                                  has=page.locator(".cm-content", has_text=SCRATCH))


def test_notebook_00_runs_a_cell_on_a_live_kernel_with_no_pop_up(lab, page):
    # The project's overrides become the served defaults (this run has no user settings).
    schema = lab.api("/lab/api/settings/@jupyterlab/apputils-extension:notification")["schema"]
    assert schema["properties"]["fetchNews"]["default"] == "false"
    assert schema["properties"]["checkForUpdates"]["default"] is False
    _open(page, lab, english_start_notebook())
    cell = _run_scratch_cell(
        page, 'import os, reactlab\nprint("live kernel; REACTLAB_SKIP_MODEL =", '
              'os.environ.get("REACTLAB_SKIP_MODEL"), "; reactlab from", reactlab.__file__)')
    output = cell.locator(".jp-OutputArea-output")
    expect(output).to_contain_text("live kernel; REACTLAB_SKIP_MODEL = 1", timeout=WAIT_MS)
    expect(output).to_contain_text(str(ROOT / "reactlab"))  # this checkout's package
    # JupyterLab's news prompt is a toast shown as soon as the page is restored; the kernel
    # has since started and run a cell, so it would be up by now.
    toasts = page.locator(".Toastify__toast")
    assert toasts.count() == 0, f"a pop-up covers notebook 00: {toasts.all_inner_texts()}"
    page.screenshot(path=ARTIFACTS / "1_notebook_00_live_kernel.png")


def test_trace_viewer_draws_a_recorded_run_and_its_slider_moves(lab, page, tmp_path):
    record = to_jsonl(sample_run(), tmp_path / "run.jsonl")
    _open(page, lab, TRACE_NB)
    cell = _run_scratch_cell(page, (
        "from reactlab.runlog import read_jsonl\nfrom reactlab.widgets import show_trace\n"
        f"show_trace(read_jsonl({str(record)!r})[0])"))
    viewer = cell.locator(".jp-OutputArea-output .widget-vbox").first
    expect(viewer).to_contain_text("Question: 北京今天天气怎么样？", timeout=WAIT_MS)
    slider = viewer.locator(".widget-slider")
    expect(slider).to_be_visible()
    expect(viewer).to_contain_text("Step 1 of 3")
    expect(slider.locator(".widget-readout")).to_have_text("1")
    page.screenshot(path=ARTIFACTS / "2a_trace_viewer_step_1.png")

    slider.locator(".noUi-handle").focus()
    page.keyboard.press("ArrowRight")  # the slider, not the next button: the kernel re-renders
    expect(slider.locator(".widget-readout")).to_have_text("2")
    expect(viewer).to_contain_text("Step 2 of 3", timeout=WAIT_MS)
    expect(viewer).to_contain_text("get_weather")
    expect(viewer).not_to_contain_text("Step 1 of 3")
    page.screenshot(path=ARTIFACTS / "2b_trace_viewer_step_2.png")


def test_a_saved_trace_viewer_draws_from_its_widget_state(lab, page, tmp_path, monkeypatch):
    """A notebook executed by scripts/run_notebooks.py (here a tiny one, no model) keeps the
    viewer's widget state; JupyterLab draws it, at its first step, once the notebook is
    trusted, and shows the plain-text trace until then."""
    record = to_jsonl(sample_run(), tmp_path / "run.jsonl")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from reactlab.runlog import read_jsonl\nfrom reactlab.widgets import show_trace\n"
        f"show_trace(read_jsonl({str(record)!r})[0])")]
    monkeypatch.setenv("REACTLAB_SKIP_MODEL", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    load_script("run_notebooks").execute(nb, tmp_path, timeout=120)
    assert nb.metadata["widgets"], "run_notebooks saved no widget state"
    saved = ARTIFACTS / "saved_trace_viewer.ipynb"
    nbformat.write(nb, saved)
    output = _current(page).locator(".jp-OutputArea-output").first

    # Untrusted (a fresh clone's notebooks are): JupyterLab's widget renderer is not a "safe"
    # one, so the output's plain-text trace shows instead.
    _open(page, lab, str(saved.relative_to(ROOT)))
    expect(output).to_contain_text("Question: 北京今天天气怎么样？", timeout=WAIT_MS)
    expect(output.locator(".widget-vbox")).to_have_count(0)
    expect(output).to_contain_text("[2] action")
    page.screenshot(path=ARTIFACTS / "2c_saved_trace_viewer_untrusted.png")

    # Trusted (what `jupyter trust` does): the viewer is drawn from the saved state, before
    # any cell has run in this session.
    NotebookNotary(data_dir=str(lab.data_dir)).sign(nb)
    _open(page, lab, str(saved.relative_to(ROOT)))
    viewer = output.locator(".widget-vbox")
    expect(viewer).to_contain_text("Question: 北京今天天气怎么样？", timeout=WAIT_MS)
    expect(viewer).to_contain_text("Step 1 of 3")
    expect(viewer.locator(".widget-slider")).to_be_visible()
    assert _current(page).locator(".jp-InputPrompt").first.inner_text().strip() == "[1]:"
    page.screenshot(path=ARTIFACTS / "2d_saved_trace_viewer_trusted.png")


def test_readme_link_opens_in_jupyterlab(lab, page):
    _open(page, lab, english_start_notebook())
    links = _current(page).locator(".jp-RenderedMarkdown a[href]")
    readme = links.filter(has_text=re.compile(r"^README$"))
    # JupyterLab draws only the cells near the view: scroll down as a reader would, reading
    # the links of every cell drawn on the way, until the README link (the last cell) is drawn.
    scroller = _current(page).locator(".jp-WindowedPanel-outer")
    hrefs: set[str] = set()
    for _ in range(60):
        hrefs |= {a.get_attribute("href") for a in links.all()}
        if readme.count():
            break
        scroller.evaluate("e => e.scrollBy(0, e.clientHeight)")
        page.wait_for_timeout(250)  # a busy machine draws the cells slowly
    if not readme.count():  # at the end at the latest, the last cell is drawn
        scroller.evaluate("e => e.scrollTo(0, e.scrollHeight)")
        readme.first.wait_for(timeout=15_000)
    # read once more: the cells may have been drawn between the loop's read and its check
    # (a CI run read no link at all, then found the README link drawn)
    hrefs |= {a.get_attribute("href") for a in links.all()}
    local = sorted(h for h in hrefs if h.startswith(lab.url) and "/files/" in h)
    assert any("/files/README.md" in h for h in local), f"no README link rendered in 00: {hrefs}"
    for href in local:
        status = page.request.get(href).status
        assert status == 200, f"{href.split('?')[0]} answers {status} in JupyterLab"

    readme.last.scroll_into_view_if_needed()
    readme.last.click()
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="README.md")
    expect(tab).to_be_visible(timeout=WAIT_MS)
    expect(page.locator(".jp-Dialog")).to_have_count(0)  # "Cannot open" would be a dialog
    shown = page.locator(".jp-MarkdownViewer:not(.lm-mod-hidden) .jp-RenderedMarkdown")
    expect(shown).to_contain_text("reactlab")
    served = [h for h in (a.get_attribute("href") for a in shown.locator("a[href]").all())
              if h.startswith(lab.url) and "/files/" in h]
    assert served, "README.md shows no link to a file of the repo"
    for href in served:  # and the README's own links, as served
        status = page.request.get(href).status
        assert status == 200, f"README.md links to {href.split('?')[0]}: {status}"
    page.screenshot(path=ARTIFACTS / "3_readme_link.png")


def test_notebooks_are_unchanged_and_jupyterlab_stops_cleanly(lab, page, digests):
    for notebook, digest in digests.items():
        assert _digest(notebook) == digest, f"{notebook.relative_to(ROOT)} was written by the test"
    kernels = lab.api("/api/kernels")
    assert len(kernels) >= 2, f"00 and 08 should each have a live kernel: {kernels}"
    left = lab.stop()
    assert lab.process.returncode is not None
    assert len(lab.kernels_seen) >= len(kernels), "the kernels were not JupyterLab's processes"
    assert not left, f"processes of JupyterLab still running after it stopped: {sorted(left)}"
