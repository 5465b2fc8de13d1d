"""``proofdeck sync``: load the cards folder into the database."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

err = Console(stderr=True, soft_wrap=True, highlight=False)
out = Console()


def register(cli: typer.Typer) -> None:
    @cli.command()
    def sync(cards_dir: Path = typer.Option(None, "--cards", help="Cards folder (default: PROOFDECK_CARDS_DIR)."),
             database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
        """Sync card files into the database in one transaction (a bad file changes nothing)."""
        from app.core.config import settings
        from app.core.db import get_engine
        from app.core.dblock import DatabaseBusy, database_lock
        from app.deck.sync import SyncError, sync_cards
        from app.models.migrate import init_db

        engine = get_engine(database_url or settings.DATABASE_URL)
        folder = cards_dir or settings.CARDS_DIR
        try:
            # another sync or a starting server goes first; this one then syncs what is left
            with database_lock(engine, waiting=lambda msg: err.print(f"[yellow]{msg}[/yellow]", highlight=False)):
                init_db(engine)
                report = sync_cards(engine, folder)
        except DatabaseBusy as exc:
            err.print(f"[red]error[/red] {exc}", highlight=False)
            raise typer.Exit(1) from None
        except SyncError as exc:
            for e in exc.errors:
                err.print(f"[red]error[/red] {e}", highlight=False, soft_wrap=True)
            err.print(f"{len(exc.errors)} invalid card file(s): database unchanged. Fix them and sync again.")
            raise typer.Exit(1) from None
        for label, slugs in (("added", report.added), ("updated", report.updated), ("retired", report.retired)):
            for slug in slugs:
                out.print(f"{label:>8} {slug}", highlight=False)
        for line in report.claim_notes:
            err.print(f"[yellow]{line}[/yellow]", highlight=False, soft_wrap=True)
        for line in report.math_fallbacks:
            err.print(f"[yellow]math shown as TeX[/yellow] {line}", highlight=False, soft_wrap=True)
        from app.deck.verdicts import load_bundled

        out.print(load_bundled(engine, settings.BUNDLED_REPORT), highlight=False)
        out.print(f"synced {folder}: {len(report.added)} added, {len(report.updated)} updated, "
                  f"{len(report.unchanged)} unchanged, {len(report.retired)} retired", highlight=False)
