"""Schema migrations with Alembic, driven from code (``proofdeck db upgrade``, start-up, tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

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


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Apply every migration up to ``revision`` in one connection."""
    cfg = alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def ensure_schema(engine: Engine) -> None:
    """Bring any database to the current schema.

    An empty database gets every table at once (``create_all``, then stamped with the head revision: the
    migrations produce the same schema, which a test checks); a database made by an older release is
    upgraded through the migrations, keeping its rows.
    """
    head = head_revision()
    if current_revision(engine) == head:
        return
    tables = set(inspect(engine).get_table_names())
    if not tables:
        import app.models  # noqa: F401  (registers every table)

        with engine.begin() as conn:
            SQLModel.metadata.create_all(conn)
            cfg = alembic_config(engine)
            cfg.attributes["connection"] = conn
            command.stamp(cfg, "head")
        return
    if "alembic_version" not in tables:
        raise RuntimeError(
            f"database at {engine.url.render_as_string(hide_password=True)} has tables but no migration history; "
            "it was not made by proofdeck (point PROOFDECK_DATABASE_URL at a new database)"
        )
    upgrade(engine)
