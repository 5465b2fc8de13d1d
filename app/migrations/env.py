"""Alembic environment: the target schema is SQLModel's metadata; the URL comes from the caller."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import app.models  # noqa: F401  (registers every table)

config = context.config
target_metadata = SQLModel.metadata


def run_migrations() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run migrations through app.core.migrate (it passes a connection)")
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite", compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
