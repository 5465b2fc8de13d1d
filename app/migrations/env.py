"""Alembic environment: the target schema is SQLModel's metadata; the URL comes from the caller."""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlmodel import SQLModel
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

import app.models  # noqa: F401  (registers every table)

config = context.config
target_metadata = SQLModel.metadata


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    """Write SQLModel's column types as plain SQLAlchemy ones so migrations need no sqlmodel import."""
    if type_ == "type" and isinstance(obj, AutoString):
        return f"sa.String({obj.length})" if obj.length else "sa.String()"
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def run_migrations() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run migrations through app.models.migrate (it passes a connection)")
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite", compare_type=True,
                      render_item=render_item)
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
