"""JupyterLab started the way `make lab` starts it, for the browser test. Test-only.

`start_lab()` runs `jupyter lab` with the Makefile's own LAB_FLAGS (the repo root served, the
project's `.jupyter/lab/settings`) on a free loopback port with a random token, and returns a
`Lab` whose `stop()` ends that one process by its pid and reports any process of it (a
kernel) still alive. It deliberately does NOT start the model: the server and every kernel
get REACTLAB_SKIP_MODEL=1, and nothing here runs a notebook.

The user-level Jupyter folders (settings, workspaces, runtime, data) point into a fresh
temporary folder, so a developer's own settings cannot hide a broken project setting (their
user settings could turn the news pop-up off by themselves) and the run leaves nothing in
~/.jupyter. That user level also turns autosave off: the test types into committed notebooks
and must never write them back.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JUPYTER = Path(sys.prefix) / "bin" / "jupyter"


def make_variable(name: str) -> str:
    """The text of a `NAME := …` assignment in the Makefile (continuation lines joined).

    Example: make_variable("EDITION") -> "en"   (from `EDITION ?= en`)
    """
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    m = re.search(rf"^{name}\s*[:?]?=\s*(.*)$", makefile, re.MULTILINE)
    if not m:
        raise LookupError(f"The Makefile assigns no {name}; the browser test starts JupyterLab "
                          f"with the Makefile's own flags, so it needs that variable.")
    return m.group(1).strip()


def english_start_notebook() -> str:
    """START_NB of `make lab` for the default edition. Example: -> "notebooks/00_start_here.ipynb" """
    found = re.findall(r"notebooks/00_[a-z_]+\.ipynb", make_variable("START_NB"))
    if not found:
        raise LookupError("START_NB in the Makefile names no notebooks/00_*.ipynb.")
    return found[0]


def lab_flags(port: int) -> list[str]:
    """LAB_FLAGS of the Makefile with $(CURDIR), $(PORT) and $(ROOT_FLAG) filled in."""
    text = make_variable("LAB_FLAGS")
    root_flag = "--allow-root" if os.geteuid() == 0 else ""
    text = (text.replace("$(CURDIR)", str(ROOT)).replace("$(PORT)", str(port))
            .replace("$(ROOT_FLAG)", root_flag))
    if "$(" in text:
        raise LookupError(f"LAB_FLAGS uses a Make variable this test does not fill in: {text}")
    return shlex.split(text)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> set[int]:
    """Every live process below `pid` (from /proc; zombies count as ended)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we read
            continue
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@dataclass
class Lab:
    process: subprocess.Popen
    url: str
    token: str
    log: Path
    data_dir: Path  # its JUPYTER_DATA_DIR: the notebook-signing key and trust database
    kernels_seen: set[int] = field(default_factory=set)

    def api(self, path: str) -> dict | list:
        """GET a JSON endpoint of the server. Example: lab.api("/api/kernels") -> [...]"""
        sep = "&" if "?" in path else "?"
        with urllib.request.urlopen(f"{self.url}{path}{sep}token={self.token}", timeout=10) as r:
            return json.loads(r.read())

    def stop(self) -> set[int]:
        """Stop JupyterLab by its pid (SIGTERM: it shuts its kernels down, then exits) and
        return the pids of its processes still alive afterwards (empty: none left)."""
        if self.process.poll() is None:
            self.kernels_seen |= descendants(self.process.pid)
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()  # still this one pid, never a name
                self.process.wait(timeout=10)
        deadline = time.monotonic() + 10  # a kernel may take a moment after its server
        while (left := {p for p in self.kernels_seen if alive(p)}) and time.monotonic() < deadline:
            time.sleep(0.2)
        return left


def start_lab(home: Path, notebook: str) -> Lab:
    """Start `jupyter lab` as `make lab` does (plus a token and --no-browser); wait until it answers."""
    port, token = free_port(), secrets.token_hex(16)
    user_settings = home / "user-settings"
    docmanager = user_settings / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True, exist_ok=True)
    (docmanager / "plugin.jupyterlab-settings").write_text('{"autosave": false}', encoding="utf-8")
    env = dict(os.environ, REACTLAB_SKIP_MODEL="1", PYTHONPATH=str(ROOT),
               JUPYTERLAB_SETTINGS_DIR=str(user_settings),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), JUPYTER_DATA_DIR=str(home / "data"))
    cmd = [str(JUPYTER), "lab", *lab_flags(port), "--no-browser",
           f"--IdentityProvider.token={token}", notebook]
    log = home / "jupyterlab.log"
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    lab = Lab(process, f"http://127.0.0.1:{port}", token, log, home / "data")
    deadline = time.monotonic() + 60
    while True:
        try:
            lab.api("/api/status")
            return lab
        except (urllib.error.URLError, ConnectionError, OSError):
            if process.poll() is not None or time.monotonic() > deadline:
                lab.stop()
                raise RuntimeError(f"JupyterLab did not start ({' '.join(cmd)}); its log: "
                                   f"{log}\n{log.read_text(encoding='utf-8')[-2000:]}") from None
            time.sleep(0.2)
