# The same commands for people, CI and scripts. On a fresh machine: `make run` or `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: setup system-deps run sync serve test lint typecheck pytest bench clean

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
# Each pass is spread over TEST_WORKERS processes (pytest-xdist; most tests wait on a server, a subprocess
# or Chromium); --dist loadfile keeps a module on one worker, so a module-scoped fixture is built once.
# PYTHONDONTWRITEBYTECODE is unset for the suite: with it, every pytest worker re-does pytest's assertion
# rewriting and every spawned server or torch rank recompiles app/ and verify/ from source.
TEST_WORKERS ?= 3
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE OMP_NUM_THREADS=1
XDIST := -n $(TEST_WORKERS) --dist loadfile
test: setup system-deps lint typecheck
	$(TEST_ENV) $(PY) -m pytest $(XDIST) $(PYTEST_ARGS)
	$(TEST_ENV) scripts/with-postgres.sh $(PY) -m pytest $(XDIST) --db-dependent-only $(PYTEST_ARGS)

bench: setup
	for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache
