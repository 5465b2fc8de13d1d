"""``proofdeck db``: schema migrations (Alembic)."""

from __future__ import annotations

import typer

from app.cli.console import out
from app.cli.group import group

db_cli = group("Database schema migrations.")


@db_cli.command()
def upgrade(revision: str = typer.Argument("head", help="Target revision."),
            database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """Apply migrations (an empty database gets the whole schema)."""
    from app.core.config import settings
    from app.core.db import get_engine
    from app.core.dblock import DatabaseBusy, database_lock
    from app.models.migrate import current_revision, ensure_schema
    from app.models.migrate import upgrade as do_upgrade

    engine = get_engine(database_url or settings.DATABASE_URL)
    try:
        with database_lock(engine, waiting=out.print):  # a starting server
            before = current_revision(engine)
            if revision == "head":
                ensure_schema(engine)
            else:
                do_upgrade(engine, revision)
    except DatabaseBusy as exc:
        out.print(f"error: {exc}", highlight=False)
        raise typer.Exit(1) from None
    out.print(f"database schema: {before or 'empty'} → {current_revision(engine)}")


@db_cli.command()
def revision(message: str = typer.Option(..., "-m", "--message", help="What the migration changes."),
             database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """Write a new migration from the models (developers).

    Compares the models with an up-to-date database."""
    from alembic import command

    from app.core.config import settings
    from app.core.db import get_engine
    from app.models.migrate import alembic_config

    engine = get_engine(database_url or settings.DATABASE_URL)
    cfg = alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.revision(cfg, message=message, autogenerate=True)


def register(cli: typer.Typer) -> None:
    cli.add_typer(db_cli, name="db")
