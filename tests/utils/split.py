"""The two database passes of ``make test``, and which tests need both (a pytest plugin, loaded by conftest).

A test is ``db_independent`` when nothing in it can tell SQLite from PostgreSQL: it requests no
``database_url`` or ``module_database_url`` fixture (directly or through ``engine``, ``client``,
``read_client``, ``live_server``...) and its module does not use ``harness.db`` (which picks the
backend) or name its variable. Such a test gets the marker here, and the PostgreSQL pass
(``--db-dependent-only``, as ``make test`` runs it) leaves it out: it already ran in the SQLite pass, which
runs every test. Folders in :data:`DB_FREE_DIRS` are not even collected in that pass (torch imports, the
verify sweep); a test there that asks for a database is a usage error.

A test that does use a database, but only as the store behind what it checks (a page in Chromium, an
exported file, a fitted model), carries ``@pytest.mark.backend_agnostic("why")``: the queries behind it
are the ones the API and storage tests run on both backends, so the PostgreSQL pass leaves it out too.
The reason is required, and the marker on a test that uses no database is a usage error.

    pytest                          # SQLite: every test
    pytest --db-dependent-only      # with PROOFDECK_TEST_POSTGRES_URL set: tests whose backend matters
    pytest -m "db_independent or backend_agnostic"   # only the tests that run once
"""

from __future__ import annotations

import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

MARK = "db_independent"
AGNOSTIC = "backend_agnostic"
DB_FIXTURES = ("database_url", "module_database_url")
# A test module that uses this module (it picks the backend) or names this variable may depend on the backend
# without asking for the fixture.
DB_MODULE = "harness.db"
DB_ENV = "PROOFDECK_TEST_POSTGRES_URL"
ROOT = Path(__file__).resolve().parents[2]
DB_FREE_DIRS = (ROOT / "tests" / "verify",)  # whole folders that never touch a database
OPTION = "--db-dependent-only"

_SOURCE_USES_DB: dict[str, bool] = {}


def _module_uses_db(module: ModuleType | None) -> bool:
    if module is None:
        return False
    key = getattr(module, "__file__", None) or module.__name__
    if key not in _SOURCE_USES_DB:
        try:
            source = inspect.getsource(module)
        except (OSError, TypeError):
            source = ""
        imported = any(getattr(v, "__name__", None) == DB_MODULE or getattr(v, "__module__", None) == DB_MODULE
                       for v in vars(module).values())
        _SOURCE_USES_DB[key] = imported or DB_ENV in source
    return _SOURCE_USES_DB[key]


def uses_database(item: pytest.Item) -> bool:
    """Whether the backend could change this test's outcome."""
    names = getattr(item, "fixturenames", ())
    return any(f in names for f in DB_FIXTURES) or _module_uses_db(getattr(item, "module", None))


def _in_db_free_dir(path: Path) -> bool:
    return any(path == d or d in path.parents for d in DB_FREE_DIRS)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(OPTION, action="store_true", default=False,
                     help="run only tests that use a database (the PostgreSQL pass of `make test`); "
                          f"tests marked {MARK} ran in the SQLite pass")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARK}: nothing in it depends on the database backend; "
                                       "runs in the SQLite pass only (set by tests/utils/split.py)")
    config.addinivalue_line("markers", f"{AGNOSTIC}(reason): uses a database only as the store behind what it "
                                       "checks (pages, files, a fit); runs in the SQLite pass only")


def _agnostic_reason(item: pytest.Item) -> str | None:
    """The marker's reason ("" when it has none), or None when the test is not marked."""
    marker = item.get_closest_marker(AGNOSTIC)
    if marker is None:
        return None
    reason = marker.args[0] if marker.args else marker.kwargs.get("reason", "")
    return reason.strip() if isinstance(reason, str) else ""


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.getoption(OPTION) and _in_db_free_dir(collection_path):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wrong, unexplained, pointless = [], [], []
    for item in items:
        needs_db = uses_database(item)
        reason = _agnostic_reason(item)
        if needs_db and (item.get_closest_marker(MARK) or _in_db_free_dir(Path(str(item.path)))):
            wrong.append(item.nodeid)
        elif reason is not None and not needs_db:
            pointless.append(item.nodeid)
        elif reason == "":
            unexplained.append(item.nodeid)
        elif not needs_db and not item.get_closest_marker(MARK):
            item.add_marker(MARK)
    if wrong:
        raise pytest.UsageError(
            f"these tests use a database but are {MARK} (marked, or in {', '.join(map(str, DB_FREE_DIRS))}), "
            "so the PostgreSQL pass would never run them; remove the marker or move them:\n  "
            + "\n  ".join(wrong))
    if unexplained:
        raise pytest.UsageError(
            f"these tests are {AGNOSTIC} without a reason; say why the backend cannot change their outcome, "
            f'e.g. @pytest.mark.{AGNOSTIC}("checks the rendered page; its queries are tested on both"):\n  '
            + "\n  ".join(unexplained))
    if pointless:
        raise pytest.UsageError(
            f"these tests are {AGNOSTIC} but use no database (they run once already, as {MARK}); "
            "remove the marker:\n  " + "\n  ".join(pointless))
    once = [i for i in items if i.get_closest_marker(MARK) or i.get_closest_marker(AGNOSTIC)]
    stats: dict[str, Any] = {"both": len(items) - len(once), "once": len(once),
                             "agnostic": sum(1 for i in once if i.get_closest_marker(AGNOSTIC))}
    if config.getoption(OPTION):
        once_ids = {id(i) for i in once}
        keep = [i for i in items if id(i) not in once_ids]
        if once:
            config.hook.pytest_deselected(items=once)
        items[:] = keep
    config.stash[_STATS] = stats


_STATS = pytest.StashKey[dict[str, Any]]()


def pytest_report_collectionfinish(config: pytest.Config) -> str | None:
    stats = config.stash.get(_STATS, None)
    if stats is None:
        return None
    once = f"{stats['once'] - stats['agnostic']} {MARK} and {stats['agnostic']} {AGNOSTIC}"
    if config.getoption(OPTION):
        skipped_dirs = ", ".join(str(d.relative_to(ROOT)) for d in DB_FREE_DIRS)
        return (f"database split: this pass runs the {stats['both']} tests whose backend matters; "
                f"{once} tests (and {skipped_dirs}/, not collected) ran in the SQLite pass")
    return (f"database split: every test runs here; {stats['both']} run on both backends, "
            f"{once} ones run in this pass only")
