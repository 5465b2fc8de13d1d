# The same commands for people, CI and scripts. On a fresh machine: `make run` or `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SERVE_STAMP := $(VENV)/.installed-serve
VERIFY_STAMP := $(VENV)/.installed-verify
# pip for the full install (quiet) and the verification extra (with a progress bar)
PIP := $(PY) -m pip install --disable-pip-version-check
HOST ?= 127.0.0.1
PORT ?= 8000
# make run's log says what a user needs (what installs, with sizes; when the server is ready; the login link),
# not pip's notices: "running as root" (switched off here unless set) and, where pip's configuration names
# index folders that do not exist on this machine, "Location … is ignored" and "Looking in …" (filtered out
# of the uv fetch by PIP_LOG; every other line passes, errors included, and pipefail keeps pip's exit status;
# `make verify`'s pip is not filtered: its torch download keeps its progress bar on a terminal)
export PIP_ROOT_USER_ACTION ?= ignore
PIP_NOISE := ^(WARNING: Location '.*' is ignored: it is neither a file nor a directory\.|Looking in (indexes|links): )
PIP_LOG = 2>&1 | { grep -Ev "$(PIP_NOISE)" || true; }

.PHONY: setup setup-serve system-deps run sync serve verify verify-report test test-passes lint typecheck pytest bench clean

# The venv starts without pip (ensurepip alone took 70 s on a loaded 2-core machine); uv installs what serving
# needs and the full environment (about 4-5x faster than pip here); pip comes in only for `make verify`'s extra.
UV := $(VENV)/.uv/bin/uv
$(PY):
	@echo "== creating the virtual environment $(VENV)"
	@$(PYTHON) -m venv --without-pip $(VENV)

$(UV): | $(PY)
	@echo "== fetching uv, the installer (one wheel, pip prints its size)"
	@set -o pipefail; $(PYTHON) -m pip install --disable-pip-version-check --no-warn-script-location \
		--target $(VENV)/.uv uv $(PIP_LOG)

# Everything: serving, the verification extra (torch) and the dev tools (tests, lint, browsers' driver, anki),
# installed by uv (20 s here where pip took 85 s). torch is pinned to 2.13.0 in pyproject.toml: that exact version
# is a CPU wheel in the folder pip's configuration names as find-links (/opt/wheels here), which uv does not read
# on its own: FIND_LINKS passes it (from pip's config or PIP_FIND_LINKS; empty where neither names one).
FIND_LINKS ?= $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null || echo "$$PIP_FIND_LINKS")
$(STAMP): pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(PY) $(foreach f,$(FIND_LINKS),--find-links $(f)) -e '.[verify,dev]'
	touch $(STAMP) $(SERVE_STAMP) $(VERIFY_STAMP)

# Only what serving needs (no torch, no test or lint tools): what `make run` installs.
$(SERVE_STAMP): pyproject.toml | $(UV)
	@echo "== installing what serving needs (no torch, no test tools); uv lists each package"
	@$(UV) pip install --python $(PY) -e .
	@echo "== installed: $(VENV) holds $$(du -sh $(VENV) | cut -f1)"
	@touch $(SERVE_STAMP)

# The verification extra (torch, fsrs's optimizer) on top of serving.
$(VERIFY_STAMP): pyproject.toml $(SERVE_STAMP)
	@echo "== installing the verification extra (torch 2.13.0, CPU; pip finds the wheel through its find-links)"
	$(PY) -m pip --version >/dev/null 2>&1 || $(PY) -m ensurepip --upgrade >/dev/null
	$(PIP) --progress-bar on -e '.[verify]'
	touch $(VERIFY_STAMP)

setup: $(STAMP)

setup-serve: $(SERVE_STAMP)

# Debian packages the tests drive for real: Chromium (browser tests), PostgreSQL (second pass), a CJK font,
# Node.js (the real Obsidian Spaced Repetition parser, vendored: vendor/obsidian-sr/sr-parser.cjs).
system-deps:
	@if ! command -v chromium >/dev/null || ! command -v pg_ctlcluster >/dev/null || ! fc-list | grep -qi wqy || ! command -v node >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium postgresql fonts-wqy-zenhei nodejs >/dev/null; \
	fi

sync: setup-serve
	$(VENV)/bin/proofdeck sync

# the bundled deck's verdicts (committed; `proofdeck sync` stores them while the database has no run)
verify-report: $(VERIFY_STAMP)
	OMP_NUM_THREADS=1 PYTHONPATH=$(CURDIR) $(VENV)/bin/python -m verify --json verify/results/latest.json

# Syncs cards/ once, at the server's start (its log shows the progress); the login link comes last.
run: setup-serve
	@echo "== starting the server on $(HOST):$(PORT) (it syncs cards/ first; the login link comes last)"
	@$(VENV)/bin/proofdeck serve --host $(HOST) --port $(PORT)

# Judge every card claim on torch.distributed (Gloo on CPU) and store the verdicts; VERIFY_ARGS e.g. --backend nccl
verify: $(VERIFY_STAMP)
	OMP_NUM_THREADS=1 $(VENV)/bin/proofdeck verify $(VERIFY_ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

typecheck: setup
	$(VENV)/bin/mypy

pytest: setup
	OMP_NUM_THREADS=1 $(PY) -m pytest $(PYTEST_ARGS)

# The suite twice, both passes at once (scripts/test-passes.sh): every test on SQLite files, and every test whose
# backend matters again on a private PostgreSQL cluster started and removed there. --db-dependent-only leaves out
# the db_independent and backend_agnostic tests and tests/verify/ (they run in the SQLite pass;
# tests/utils/split.py says which and prints the counts). Each pass prints its slowest 20 tests (--durations=20)
# and is spread over pytest-xdist workers (SQLITE_WORKERS=3, PG_WORKERS=2; most tests wait on a server, a
# subprocess or Chromium); --dist loadfile keeps a module on one worker, so a module-scoped fixture is built once.
# PYTHONDONTWRITEBYTECODE is unset for the suite: with it, every pytest worker re-does pytest's assertion
# rewriting and every spawned server or torch rank recompiles app/ and verify/ from source.
# lint and typecheck run beside the passes (-j3): mypy is one process for ~35 s, which on its own left the
# second core idle; -Oline keeps their lines whole (test-passes.sh prints each pass's log whole). Any of the three
# failing fails `make test`. (The Gloo failure that once withdrew the passes side by side was the launcher's, not
# the suite's: a rank left before its peer had joined; verify/measure/launch.py: join_group, docs/development.md.)
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE OMP_NUM_THREADS=1
test: setup system-deps
	@$(MAKE) --no-print-directory -j3 -Oline lint typecheck test-passes

test-passes: setup system-deps
	$(TEST_ENV) scripts/test-passes.sh $(PY) $(PYTEST_ARGS)

bench: setup
	for f in bench/[!_]*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
