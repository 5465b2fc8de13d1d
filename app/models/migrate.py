"""Schema migrations with Alembic, driven from code (``proofdeck db upgrade``, start-up, tests)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, literal_column, select, table
from sqlalchemy.engine import Connection, Engine
from sqlmodel import SQLModel

from app.core.dblock import database_lock

log = logging.getLogger("proofdeck")
MIGRATIONS_DIR = Path(__file__).resolve().parents[1] / "migrations"


def alembic_config(engine: Engine | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if engine is not None:
        cfg.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    return cfg


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


@contextmanager
def _schema_transaction(engine: Engine) -> Iterator[Connection]:
    """A connection in one transaction that DDL joins (committed at the end, rolled back on error).

    PostgreSQL's DDL is transactional. pysqlite autocommits DDL (it opens a transaction only before
    INSERT/UPDATE/DELETE), so a kill between two CREATE TABLEs used to leave half a schema and no
    ``alembic_version``; an explicit ``BEGIN EXCLUSIVE`` makes the whole change one SQLite transaction.
    """
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN EXCLUSIVE")
        try:
            yield conn
        except BaseException:
            conn.rollback()
            raise
        conn.commit()


def _run(conn: Connection, action: str, revision: str) -> None:
    cfg = alembic_config(conn.engine)
    cfg.attributes["connection"] = conn
    getattr(command, action)(cfg, revision)


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Apply every migration up to ``revision`` in one transaction (all or none of them)."""
    with _schema_transaction(engine) as conn:
        _run(conn, "upgrade", revision)


def _half_made(conn: Connection, tables: set[str]) -> bool:
    """Tables with no migration history that a killed first start of ours left: only proofdeck's tables,
    every one of them empty (a database made by anything else, or holding rows, is never touched)."""
    import app.models  # noqa: F401  (registers every table)

    if not tables <= set(SQLModel.metadata.tables):
        return False
    return all(conn.execute(select(literal_column("1")).select_from(table(name)).limit(1)).first() is None
               for name in tables)


def ensure_schema(engine: Engine) -> None:
    """Bring any database to the current schema, in one transaction.

    An empty database gets every table at once (``create_all``, then stamped with the head revision: the
    migrations produce the same schema, which a test checks); a database made by an older release is
    upgraded through the migrations, keeping its rows. Callers serialise through ``init_db`` (which
    holds ``app.core.dblock``); the revision is read again inside the transaction anyway.

    Crash safety: creation and stamp commit together, so a kill leaves the database empty or complete.
    Half a schema left by a release without that guarantee (empty proofdeck tables, no history) is
    dropped and made again.
    """
    head = head_revision()
    if current_revision(engine) == head:
        return
    import app.models  # noqa: F401  (registers every table)

    with _schema_transaction(engine) as conn:
        if MigrationContext.configure(conn).get_current_revision() == head:
            return
        tables = set(inspect(conn).get_table_names())
        if "alembic_version" not in tables:
            if tables and not _half_made(conn, tables):
                raise RuntimeError(
                    f"database at {engine.url.render_as_string(hide_password=True)} has tables but no migration "
                    "history; it was not made by proofdeck (point PROOFDECK_DATABASE_URL at a new database)"
                )
            if tables:
                log.warning("finishing a first start that was interrupted: recreating %d empty tables",
                            len(tables))
                SQLModel.metadata.drop_all(conn)
            SQLModel.metadata.create_all(conn)
            _run(conn, "stamp", "head")
            return
        _run(conn, "upgrade", "head")


def init_db(engine: Engine) -> None:
    """Bring the database to the current schema (Alembic migrations; an empty one gets it whole), one
    process at a time (``app.core.dblock``: several workers or hosts may start together)."""
    if current_revision(engine) == head_revision():
        return
    with database_lock(engine, waiting=lambda msg: log.info("%s", msg)):
        ensure_schema(engine)
