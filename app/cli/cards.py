"""``proofdeck sync``: load the cards folder into the database."""

from __future__ import annotations

from pathlib import Path

import typer

from app.cli.console import err, error, out, warn


def register(cli: typer.Typer) -> None:
    @cli.command()
    def sync(cards_dir: Path = typer.Option(None, "--cards", help="Cards folder (default: PROOFDECK_CARDS_DIR)."),
             database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL."),
             strict: bool = typer.Option(False, "--strict", help="Fail on a card with a refuted or contradictory "
                                         "statement (default: list them and go on).")) -> None:
        """Load the cards folder into the database.

        One transaction: a bad card file changes nothing; each one is listed with what to fix. Statements the
        annotation-free judges refute, and zh/en contradictions, are listed (with --strict: they fail the sync)."""
        from app.core.config import settings
        from app.core.db import get_engine
        from app.core.dblock import DatabaseBusy, database_lock
        from app.core.progress import Progress
        from app.deck.sync import SyncError, sync_cards
        from app.deck.verdicts import load_bundled
        from app.models.migrate import init_db

        engine = get_engine(database_url or settings.DATABASE_URL)
        folder = cards_dir or settings.CARDS_DIR
        with Progress() as progress:
            try:
                # another sync or a starting server goes first; this one then syncs what is left
                with database_lock(engine, waiting=warn):
                    progress.step("checking the database schema")
                    init_db(engine)
                    report = sync_cards(engine, folder, progress=progress, strict=strict)
            except DatabaseBusy as exc:
                error(exc)
                raise typer.Exit(1) from None
            except SyncError as exc:
                for e in exc.errors:
                    error(e)
                err.print(f"{len(exc.errors)} invalid card file(s): database unchanged. Fix them and sync again.")
                raise typer.Exit(1) from None
            progress.step("storing the bundled verdicts")
            bundled = load_bundled(engine, settings.BUNDLED_REPORT)
        for label, slugs in (("added", report.added), ("updated", report.updated), ("retired", report.retired)):
            for slug in slugs:
                out.print(f"{label:>8} {slug}")
        for line in report.claim_notes:
            warn(line)
        for line in report.math_fallbacks:
            warn(f"math shown as TeX {line}")
        out.print(bundled)
        out.print(progress.summary(f"synced {folder}: {len(report.added)} added, {len(report.updated)} updated, "
                                   f"{len(report.unchanged)} unchanged, {len(report.retired)} retired"))
