# The same commands for people, CI and scripts. On a fresh machine: `make run` or `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: setup system-deps run sync verify-report serve test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	# torch is pinned to 2.13.0 in pyproject.toml: that exact version is a CPU wheel on this disk.
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[torch,dev]'
	touch $(STAMP)

setup: $(STAMP)

# Debian packages the tests drive for real: Chromium (browser tests), PostgreSQL (second pass), a CJK font,
# Node.js (the real Obsidian Spaced Repetition parser, ../shared/tools/obsidian-sr/sr-parser.cjs).
system-deps:
	@if ! command -v chromium >/dev/null || ! command -v pg_ctlcluster >/dev/null || ! fc-list | grep -qi wqy || ! command -v node >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium postgresql fonts-wqy-zenhei nodejs >/dev/null; \
	fi

sync: setup
	$(VENV)/bin/proofdeck sync

# the bundled deck's verdicts (committed; `proofdeck sync` stores them while the database has no run)
verify-report: setup
	OMP_NUM_THREADS=1 PYTHONPATH=$(CURDIR) $(VENV)/bin/python -m verify --json verify/results/latest.json

run: setup sync
	$(VENV)/bin/proofdeck serve --host $(HOST) --port $(PORT)

lint: setup
	$(VENV)/bin/ruff check .

typecheck: setup
	$(VENV)/bin/mypy

pytest: setup
	OMP_NUM_THREADS=1 $(PY) -m pytest $(PYTEST_ARGS)

# The suite twice: every test on SQLite files, then every test that uses a database again on a private
# PostgreSQL cluster started and stopped here. --db-dependent-only leaves out the db_independent tests and
# tests/verify/ (they ran in the first pass; tests/utils/split.py says which and prints the counts).
test: setup system-deps lint typecheck
	OMP_NUM_THREADS=1 $(PY) -m pytest $(PYTEST_ARGS)
	OMP_NUM_THREADS=1 scripts/with-postgres.sh $(PY) -m pytest --db-dependent-only $(PYTEST_ARGS)

bench: setup
	for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
