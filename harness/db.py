"""Test databases: a real SQLite file per test, or a fresh PostgreSQL database per test.

Set ``PROOFDECK_TEST_POSTGRES_URL`` (e.g. ``postgresql+psycopg://postgres@127.0.0.1:54329/postgres``)
to run the suite on PostgreSQL; ``make test`` does it for the second pass.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

POSTGRES_URL = os.environ.get("PROOFDECK_TEST_POSTGRES_URL", "")


def backend_name() -> str:
    return "postgresql" if POSTGRES_URL else "sqlite"


@contextmanager
def fresh_database_url(tmp_dir: Path) -> Iterator[str]:
    """Yield a URL to an empty database that is dropped afterwards."""
    from app.core.db import dispose_engines

    if not POSTGRES_URL:
        try:
            yield f"sqlite:///{tmp_dir / 'proofdeck.db'}"
        finally:
            dispose_engines()
        return
    name = f"t_{uuid.uuid4().hex[:16]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        dispose_engines()  # close pools pointing at the database before dropping it
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def schema_template(tmp_dir: Path) -> Iterator[str]:
    """A database at the current schema (``init_db`` once), kept for this process's tests to copy; dropped at
    the end. Copying it is what :func:`fill_with_schema` does instead of running ``init_db`` per test (on a
    loaded machine ``init_db`` took 1.7 s on SQLite and 2.7 s on PostgreSQL, a copy 0.01 s and ~1 s)."""
    from app.core.db import make_engine
    from app.models.migrate import init_db

    tmp_dir.mkdir(parents=True, exist_ok=True)
    with fresh_database_url(tmp_dir) as url:
        engine = make_engine(url)
        try:
            init_db(engine)
            if engine.dialect.name == "sqlite":
                with engine.connect() as conn:  # everything into the main file: it alone is copied
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            engine.dispose()
        yield url


@contextmanager
def deck_template(tmp_dir: Path, schema_url: str, cards_dir: Path) -> Iterator[str]:
    """A copy of the schema template with ``cards_dir`` synced as the server's start-up sync stores it
    (no users, no reviews); dropped at the end. A test whose cards folder holds the same files starts
    from a copy of it: its server's start-up sync then finds every card unchanged, instead of parsing and
    storing the 29 cards again (~5 s a test on a quiet machine, three times that under load)."""
    from app.core.db import make_engine
    from app.deck.sync import sync_cards

    tmp_dir.mkdir(parents=True, exist_ok=True)
    with fresh_database_url(tmp_dir) as url:
        fill_with_schema(url, schema_url)
        engine = make_engine(url)
        try:
            sync_cards(engine, cards_dir, claim_notes=False)
            if engine.dialect.name == "sqlite":
                with engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            engine.dispose()
        yield url


def folder_digest(folder: Path) -> str:
    """A digest of every file's relative path and bytes under ``folder`` (what a card sync reads)."""
    h = hashlib.sha256()
    for p in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = p.read_bytes()
        h.update(f"{p.relative_to(folder).as_posix()}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def fill_with_schema(url: str, template_url: str) -> bool:
    """Make the database at ``url`` a copy of ``template_url`` (the same name and URL afterwards) if it is
    still empty, so ``init_db`` finds it at the head revision: what ``init_db`` would have made, without
    running it. A database that something already wrote to is left alone (False): ``init_db`` does the work."""
    target, source = make_url(url), make_url(template_url)
    if target.get_backend_name() == "sqlite":
        path = Path(str(target.database))
        if path.exists() and path.stat().st_size:
            return False
        shutil.copyfile(str(source.database), path)
        return True
    probe = create_engine(url)
    try:
        with probe.connect() as conn:
            if conn.execute(text("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).scalar():
                return False
    finally:
        probe.dispose()
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{target.database}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{target.database}" TEMPLATE "{source.database}"'))
    finally:
        admin.dispose()
    return True
