"""Shared fixtures: a real database per test, the app on it, a uvicorn server, headless Chromium."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from harness.db import deck_template, fill_with_schema, folder_digest, fresh_database_url, schema_template
from harness.server import uvicorn_server
from tests.utils.browser import CHROMIUM, CHROMIUM_ARGS
from tests.utils.readonly import WriteGuard

# tests/utils/split.py: which tests run in both database passes of `make test` (and --db-dependent-only);
# tests/utils/order.py: the longest modules first, so that no xdist worker ends the pass alone
pytest_plugins = ["tests.utils.split", "tests.utils.order", "pytester"]

ROOT = Path(__file__).resolve().parents[1]
# a copy of the bank export ../shared/seed/000_df0768db638cc9c5.txt, so the suite needs nothing outside the repo
SEED_RAW = ROOT / "tests" / "cards" / "data" / "000_df0768db638cc9c5.txt"


@pytest.fixture(autouse=True, scope="session")
def _cheap_password_hashing() -> Iterator[None]:
    """argon2id at t=1, m=1 MiB, p=1 in the test process: ~1 ms a hash instead of 0.3 s (1.1 s on a busy
    machine) with the production parameters, which dominated schemathesis and the login tests. Servers the
    tests start as processes keep the production parameters; tests/auth/test_password_cost.py pins them."""
    from argon2 import PasswordHasher

    from app.auth import security

    production = security._hasher
    security._hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    yield
    security._hasher = production


# Every SQLAlchemy engine that connected since the last test ended (strong references: an engine the
# garbage collector took before being disposed would warn just the same).
_engines_used: dict[int, Engine] = {}


def _remember_engine(conn: Connection) -> None:
    _engines_used.setdefault(id(conn.engine), conn.engine)


def _dispose_engines_used() -> None:
    while _engines_used:
        _engines_used.popitem()[1].dispose()


@pytest.fixture(autouse=True, scope="session")
def _track_engines() -> Iterator[None]:
    event.listen(Engine, "engine_connect", _remember_engine)
    yield
    event.remove(Engine, "engine_connect", _remember_engine)
    _dispose_engines_used()


@pytest.fixture(autouse=True)
def _dispose_engines_used_by_the_test(_track_engines: None) -> Iterator[None]:
    """Close the pooled connections of every engine that connected during the test (or since the last
    one: module fixtures' teardowns), after it.

    An engine a test (or an app it built) leaves behind keeps its connections open until the garbage
    collector finds them, maybe during a later test on the same worker: psycopg then warns "Connection was
    deleted while still open" and, warnings being errors, that later test fails (CI, PostgreSQL pass,
    2026-12-01). Disposing here makes that impossible rather than relying on every test to clean up.
    """
    yield
    _dispose_engines_used()


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    with fresh_database_url(tmp_path) as url:
        yield url


@pytest.fixture(scope="session")
def _schema_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One database at the current schema per test process, copied into a test's fresh database by the
    fixtures below that would otherwise run ``init_db`` on it (harness/db.py: ``fill_with_schema``).
    Tests of migrations and of start-up on an empty database ask for ``database_url`` alone and get it empty."""
    with schema_template(tmp_path_factory.mktemp("schema-template")) as url:
        yield url


class DeckTemplates:
    """Per test process: one database per distinct cards folder content, at the current schema with that
    folder synced as the server's start-up sync stores it (harness/db.py: ``deck_template``)."""

    def __init__(self, schema: str, folder: Path, stack: ExitStack) -> None:
        self.schema, self.folder, self.stack = schema, folder, stack
        self.urls: dict[str, str] = {}

    def fill(self, database_url: str, cards_dir: Path) -> None:
        """Make a test's empty database a copy of its deck's template (built on the first request)."""
        key = folder_digest(cards_dir)
        if key not in self.urls:
            where = self.folder / f"deck-{len(self.urls)}"
            shutil.copytree(cards_dir, where / "cards")
            self.urls[key] = self.stack.enter_context(deck_template(where, self.schema, where / "cards"))
        fill_with_schema(database_url, self.urls[key])


@pytest.fixture(scope="session")
def _deck_templates(_schema_template: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DeckTemplates]:
    """``client`` and ``live_server`` start from a copy of their deck already synced: their server's
    start-up sync finds every card unchanged, instead of parsing and storing the deck again (~5 s a test
    for the bundled 29 cards on a quiet machine, three times that under load)."""
    with ExitStack() as stack:
        yield DeckTemplates(_schema_template, tmp_path_factory.mktemp("deck-templates"), stack)


@pytest.fixture
def engine(database_url: str, _schema_template: str) -> Iterator[Engine]:
    from app.core.db import make_engine
    from app.models.migrate import init_db

    fill_with_schema(database_url, _schema_template)
    eng = make_engine(database_url)
    init_db(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    """A copy of the bundled cards/ folder that a test may edit (empty when there is none)."""
    dest = tmp_path / "cards"
    if (ROOT / "cards").is_dir():
        shutil.copytree(ROOT / "cards", dest)
    else:
        dest.mkdir()
    return dest


@pytest.fixture
def client(database_url: str, cards_dir: Path, _deck_templates: DeckTemplates) -> Iterator[TestClient]:
    """The app on a fresh database (at the current schema) with the bundled cards synced at start-up."""
    from app.main import create_app

    _deck_templates.fill(database_url, cards_dir)
    app = create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=True)
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()  # close pooled connections before the database is dropped


@pytest.fixture(scope="module")
def module_database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An empty database for the whole module (``read_client``); dropped after its last test."""
    with fresh_database_url(tmp_path_factory.mktemp("module-db")) as url:
        yield url


@pytest.fixture(scope="module")
def module_cards_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The deck ``read_client`` serves: a copy of the bundled cards/ (a folder's conftest may override it)."""
    dest = tmp_path_factory.mktemp("module-cards") / "cards"
    shutil.copytree(ROOT / "cards", dest)
    return dest


@pytest.fixture(scope="module")
def _module_client(module_database_url: str, module_cards_dir: Path,
                   _deck_templates: DeckTemplates) -> Iterator[tuple[TestClient, WriteGuard]]:
    from app.main import create_app

    _deck_templates.fill(module_database_url, module_cards_dir)
    app = create_app(database_url=module_database_url, cards_dir=module_cards_dir, sync_on_startup=True)
    with TestClient(app) as c, WriteGuard(app.state.engine) as guard:
        yield c, guard
    app.state.engine.dispose()


@pytest.fixture
def read_client(_module_client: tuple[TestClient, WriteGuard]) -> Iterator[TestClient]:
    """``client``'s app, started once per module and shared by the module's tests that only read (a fresh
    database and app per test cost ~1.5 s on PostgreSQL). The sharing is checked, not assumed: a statement
    that writes (INSERT, UPDATE, DELETE, DDL) during the test fails it, since a later test would see it."""
    client, guard = _module_client
    with guard.watching() as writes:
        yield client
    assert not writes, (f"a test on read_client wrote to the shared database: {writes[:3]}; "
                        "use the per-test `client` fixture for a test that changes anything")


@pytest.fixture
def live_server(database_url: str, cards_dir: Path, _deck_templates: DeckTemplates) -> Iterator[str]:
    """uvicorn serving real HTTP on a free loopback port; yields the base URL."""
    _deck_templates.fill(database_url, cards_dir)
    with uvicorn_server(database_url, cards_dir) as base:
        yield base


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    # expect(...) polls its condition; its default 5 s bound failed on a busy machine (a 200-card handbook
    # took longer to re-filter at load 10). A bound, not a wait: a passing check returns at once.
    expect.set_options(timeout=30_000)
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make test does it)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        _bound_actions(b)
        yield b
        b.close()


# Playwright's default 30 s bound on a navigation or an action failed at load 25 (page.goto of a card page,
# PostgreSQL pass, 2026-12-01). A bound, not a wait: a page that loads returns at once.
ACTION_TIMEOUT_MS = 120_000


def _bound_actions(browser: Any) -> None:
    """Every context (and page) the tests open from ``browser`` gets ACTION_TIMEOUT_MS as its default."""
    new_context, new_page = browser.new_context, browser.new_page

    def bounded_context(*args: Any, **kwargs: Any) -> Any:
        context = new_context(*args, **kwargs)
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        return context

    def bounded_page(*args: Any, **kwargs: Any) -> Any:
        pg = new_page(*args, **kwargs)
        pg.set_default_timeout(ACTION_TIMEOUT_MS)
        return pg

    browser.new_context, browser.new_page = bounded_context, bounded_page


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    pg = context.new_page()
    yield pg
    context.close()
