# robokin: two commands do all set-up on a fresh machine with Python >= 3.11 and make:
#   make book   create .venv, install, execute every chapter, build the site into _build/html (English) and
#               _build/html/zh (Chinese edition, from the same run)
#   make test   create .venv, install, run unit tests, doctests, nbstripout check and every notebook
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))

.PHONY: help book test lint format unit notebooks lab i18n-update i18n-check clean chapter bench report publish check-site check-lab

help:
	@echo "make book    build the course site into _build/html and its Chinese edition into _build/html/zh (strict)"
	@echo "make i18n-update / i18n-check   after an English change: update locales/zh_CN/*.po / check them"
	@echo "make test    unit tests, doctests, nbstripout check, every notebook under nbval"
	@echo "make check-site  build the book, then test every page (desktop and phone) in headless Chromium"
	@echo "make format  apply ruff's formatter and safe lint fixes (make test checks both)"
	@echo "make lab     open JupyterLab on the chapters (LAB_PORT=8888)"
	@echo "make check-lab  run chapters in JupyterLab in headless Chromium and check what a student sees"
	@echo "make chapter NB=notebooks/01_spatial_foundations.ipynb   build one chapter strictly"
	@echo "make seeds   every chapter under five other seeds (ROBOKIN_SEED); make seeds-ci: one rotating seed + truth runs"
	@echo "make bench   run the benchmarks (ratios against naive baselines and peers)"
	@echo "make design-report FAMILY=fivebar FILE=my_leg.toml   checks of your own design -> report/report.html"
	@echo "make firmware  generate the C library into _build/firmware (+ Cortex-M4F build and QEMU self-test)"
	@echo "make report  print the validation report table"
	@echo "make publish push _build/html to the gh-pages branch of REMOTE (default origin)"
	@echo "make clean   remove _build and caches (keeps .venv)"

$(PY):
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "robokin needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# One stamp per set of extras. A stamp holds a hash of what an install depends on (pyproject.toml's [build-system] and
# [project] tables): it re-installs when that content changes, never for a newer timestamp (a copied repository).
DEPS_HASH := $(shell $(PYTHON) -c 'import hashlib, json, tomllib; d = tomllib.load(open("pyproject.toml", "rb")); \
  print(hashlib.sha256(json.dumps([d.get("build-system"), d["project"]], sort_keys=True).encode()).hexdigest()[:16])')
# FORCE when the stamp $(1) is missing or holds another hash
stale = $(if $(filter $(DEPS_HASH),$(shell cat $(1) 2>/dev/null)),,FORCE)
.PHONY: FORCE
FORCE:

$(VENV)/.stamp-book: $(call stale,$(VENV)/.stamp-book) | $(PY)
	$(PY) -m pip install --quiet -e ".[book,peers]"  # chapters 6, 7, 11 compare with the peers
	echo $(DEPS_HASH) > $@

$(VENV)/.stamp-test: $(call stale,$(VENV)/.stamp-test) | $(PY)
	$(PY) -m pip install --quiet -e ".[book,test,peers,report]"
	echo $(DEPS_HASH) > $@
	echo $(DEPS_HASH) > $(VENV)/.stamp-book

book: $(VENV)/.stamp-book gl
	rm -rf _build/html _build/.doctrees
	mkdir -p _build
	@# jupyter-book through tools/jb_build.py: ROBOKIN_BOOK_JOBS=2 reads (and so executes) the chapters in two processes
	@# ROBOKIN_CELL_LOG: every executed cell's duration (robokin.nb.setup), so that a slow or stalled cell is named
	rm -f _build/cell_times.tsv
	@echo "=== book: English edition, start at $$(date +%s) (Unix s)"
	ROBOKIN_CELL_LOG=$(CURDIR)/_build/cell_times.tsv $(PY) tools/jb_build.py build . -W -n --keep-going 2>&1 | tee _build/build.log
	@echo "slowest cells of this build (s, first line; all in _build/cell_times.tsv):"
	@# sed, not head: head exits after 8 lines and, under pipefail, sort's SIGPIPE (141) would fail the build
	@if [ -f _build/cell_times.tsv ]; then awk -F'\t' '{ printf "%8.1f  %s\n", $$3, $$4 }' _build/cell_times.tsv \
		| sort -gr | sed -n '1,8p'; fi
	@# the Chinese edition (中文版) from the same pages and this run's executed notebooks: no second execution
	@echo "=== book: Chinese edition, start at $$(date +%s) (Unix s)"
	$(PY) tools/i18n.py build-zh 2>&1 | tee _build/build-zh.log
	@echo "=== book: done at $$(date +%s) (Unix s)"
	@echo "Site built: _build/html/index.html (English), _build/html/zh/index.html (中文)"

# After changing English text: new and changed messages into locales/zh_CN/*.po (then translate, make i18n-check).
i18n-update: $(VENV)/.stamp-book
	$(PY) tools/i18n.py extract
	$(PY) tools/i18n.py update
	@# figure and output texts (locales/zh_CN/figures.po, outputs.po): from the executed notebooks of the last
	@# `make book`, if any
	@if [ -d _build/jupyter_execute/notebooks ]; then $(PY) tools/i18n.py figures && $(PY) tools/i18n.py outputs; fi

i18n-check: $(VENV)/.stamp-book
	$(PY) tools/i18n.py check

LINTED := robokin tests benchmarks tools notebooks reports

# ruff: lint and format check (configured in pyproject.toml); `make format` rewrites in place.
lint: $(VENV)/.stamp-test
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

format: $(VENV)/.stamp-test
	$(BIN)/ruff format $(LINTED)
	$(BIN)/ruff check --fix $(LINTED)

unit: $(VENV)/.stamp-test gl
	$(PY) -m pytest tests robokin --doctest-modules -p no:nbval -m "not site and not lab"

notebooks: $(VENV)/.stamp-test gl
	$(BIN)/nbstripout --verify --extra-keys "cell.metadata.user_expressions" $(NOTEBOOKS)
	ROBOKIN_FAST=1 MPLBACKEND=Agg $(PY) -m pytest --nbval-lax --nbval-current-env notebooks

# MuJoCo's offscreen renderer (chapter 13, robokin.render) needs EGL from Mesa: Debian's packages, installed here
# when missing (as root, like the browser below)
.PHONY: gl
gl:
	@ldconfig -p 2>/dev/null | grep -q 'libEGL_mesa.so.0' || \
	  { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libegl1 libegl-mesa0 libgl1-mesa-dri >/dev/null; } || \
	  { echo "install Debian's libegl1, libegl-mesa0 and libgl1-mesa-dri (EGL for MuJoCo's renderer)"; exit 2; }

test: lint unit notebooks

$(VENV)/.stamp-site: $(call stale,$(VENV)/.stamp-site) | $(PY)
	$(PY) -m pip install --quiet -e ".[book,test,site,report]"
	echo $(DEPS_HASH) > $@

# Browser test of the built site: Debian's chromium (installed here when missing, needs root) + Playwright.
check-site: $(VENV)/.stamp-site book
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || \
	  { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  { echo "install Chromium (Debian package 'chromium') to run the browser test"; exit 2; }
	@fc-list ':lang=zh-cn' family | grep -q . || { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null; } || \
	  { echo "install a CJK font (Debian package 'fonts-noto-cjk') to test the Chinese pages"; exit 2; }
	$(PY) -m pytest tests/test_site_checker.py tests/test_site.py tests/test_site_zh.py tests/test_downloads.py -m site -p no:nbval -p no:randomly -v --durations=15
	@echo "Screenshots: _build/screenshots/"

# JupyterLab in notebooks/ (jupyterlab-myst renders the chapters' MyST). The editable install is redone (without
# dependencies) only when the venv's robokin is another tree's, as in a copied repository.
LAB_PORT ?= 8888
lab: $(VENV)/.stamp-book
	@$(PY) -c 'import pathlib, robokin; assert pathlib.Path(robokin.__file__).parent.resolve() == pathlib.Path("robokin").resolve()' \
	  2>/dev/null || $(PY) -m pip install --quiet --no-deps -e .
	@echo "JupyterLab: open the URL printed below (http://127.0.0.1:$(LAB_PORT)/lab?token=...); Ctrl-C twice stops it"
	$(PY) -m jupyterlab --notebook-dir=notebooks --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) \
	  --LabApp.app_settings_dir=$(CURDIR)/lab/settings \
	  --LabApp.default_url=/lab/tree/$(notdir $(firstword $(NOTEBOOKS))) $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

# Browser test of chapters in JupyterLab (tests/test_lab.py): every chapter (default; ROBOKIN_LAB_CHAPTERS=03,09
# picks some, =rotate five by the commit hash as CI does), with the Lab settings of `make lab` (lab/settings/overrides.json:
# windowing off, see tests/labcheck.py).
check-lab: $(VENV)/.stamp-site
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || \
	  { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  { echo "install Chromium (Debian package 'chromium') to run the browser test"; exit 2; }
	$(PY) -m pytest tests/test_lab.py -m lab -p no:nbval -p no:randomly -v --durations=5
	@echo "Screenshots: _build/lab-screenshots/"

# Strict build of a single chapter into _build/chapters/<name> (fast feedback while writing).
chapter: $(VENV)/.stamp-book
	@test -n "$(NB)" || { echo "usage: make chapter NB=notebooks/NN_name.ipynb"; exit 2; }
	$(PY) tools/chapter_book.py $(NB) _build/chapters/$(notdir $(basename $(NB)))
	$(BIN)/jupyter-book build . -W -n --keep-going --toc _build/chapters/$(notdir $(basename $(NB)))/_toc.yml \
	  --config _build/chapters/$(notdir $(basename $(NB)))/_config.yml \
	  --path-output _build/chapters/$(notdir $(basename $(NB)))

# Design report of a reader's parameter file: make design-report FAMILY=fivebar FILE=my_leg.toml [OUT=report]
.PHONY: design-report
design-report: $(VENV)/.stamp-test
	@test -n "$(FAMILY)" -a -n "$(FILE)" || { echo "usage: make design-report FAMILY=fivebar FILE=examples/robots/<file>.toml [OUT=dir]"; exit 2; }
	$(PY) -m robokin report $(FAMILY) $(FILE) -o $(or $(OUT),report)

# Generated C library (robokin.codegen) into _build/firmware. With the ARM toolchain and QEMU (installed here when
# missing, needs root, like the browser) also the Cortex-M4F build, the code size per function and the QEMU self-test.
FIRMWARE_PKGS := gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
have_arm = command -v arm-none-eabi-gcc >/dev/null && command -v qemu-system-arm >/dev/null && [ -d /usr/lib/arm-none-eabi/newlib ]
.PHONY: firmware
firmware: $(VENV)/.stamp-test
	$(PY) -m robokin.codegen _build/firmware
	@$(have_arm) || { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(FIRMWARE_PKGS) >/dev/null; } || true
	@if $(have_arm); then $(PY) -m robokin.codegen _build/firmware --m4; \
	else echo "make firmware: Cortex-M4 build and QEMU run SKIPPED: install $(FIRMWARE_PKGS) (make firmware as root does)"; fi

bench: $(VENV)/.stamp-test
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b; done

report: $(VENV)/.stamp-book
	$(PY) -m robokin.report

# Seed robustness (issue 28): each chapter under its own seed and five others; failed runs and changed claims.
#   make seeds CHAPTERS="08 12" SEEDS="1 2 3 4 5 6 7 8"
.PHONY: seeds seeds-ci
seeds: $(VENV)/.stamp-test
	$(PY) tools/seeds.py $(if $(CHAPTERS),--chapters $(CHAPTERS)) $(if $(SEEDS),--seeds $(SEEDS))

# The chapter-running truth checks (tests/test_seeds.py): one rotating seed per chapter (from the commit hash;
# ROBOKIN_CI_SEED=n pins it), native-rate re-runs, cross-chapter quotes, interventions, the fixtures of issue 28
seeds-ci: $(VENV)/.stamp-test
	$(PY) -m pytest tests/test_seeds.py -m seeds -p no:nbval -p no:randomly -v --durations=10

# Mutation testing: a fixed list of meaningful mutations (tools/mutations.py), run on temporary copies.
.PHONY: mutate
mutate: $(VENV)/.stamp-test
	$(PY) tools/mutate.py --list all

# REMOTE may be a remote name or a path/URL (the test publishes to a local bare repository).
REMOTE ?= origin
publish:
	@test -f _build/html/index.html || { echo "run 'make book' first"; exit 2; }
	@test -x $(BIN)/ghp-import || { echo "ghp-import missing: run 'make book' first (it installs the [book] extra)"; exit 2; }
	$(BIN)/ghp-import --no-jekyll --push --force --remote $(REMOTE) --branch gh-pages _build/html

clean:
	rm -rf _build .pytest_cache .hypothesis .jupyter_cache
	find . -name __pycache__ -not -path './.venv/*' -prune -exec rm -rf {} +
