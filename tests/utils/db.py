"""Test databases: a real SQLite file per test, or a fresh PostgreSQL database per test.

Set ``PROOFDECK_TEST_POSTGRES_URL`` (e.g. ``postgresql+psycopg://postgres@127.0.0.1:54329/postgres``)
to run the suite on PostgreSQL; ``make test`` does it for the second pass.
"""

from __future__ import annotations

import os
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
