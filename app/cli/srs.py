"""``proofdeck srs optimize USER``: fit a user's FSRS parameters to their review log (torch, offline)."""

from __future__ import annotations

import typer

from app.cli.console import error, out
from app.cli.group import group

srs_cli = group("Spaced repetition.")


@srs_cli.command("optimize")
def optimize(username: str = typer.Argument(..., help="Whose review log to fit."),
             database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """Fit a user's FSRS parameters to their reviews.

    Runs fsrs's Optimizer (the verification extra; >= 512 reviews) and stores the parameters for their
    scheduling."""
    from app.core.config import settings
    from app.core.db import get_engine
    from app.core.progress import Progress
    from app.models.migrate import init_db
    from app.srs.optimize import NotEnoughReviews, UnknownUser, optimize_user

    engine = get_engine(database_url or settings.DATABASE_URL)
    init_db(engine)
    try:
        with Progress() as progress:
            progress.step(f"fitting FSRS parameters to {username}'s reviews")
            result = optimize_user(engine, username)
    except (NotEnoughReviews, UnknownUser) as exc:
        error(exc)
        raise typer.Exit(1) from None
    out.print(progress.summary(f"fitted {len(result.parameters)} FSRS parameters on {result.reviews} reviews "
                               f"of {username!r}") + ":")
    out.print(", ".join(f"{p:.4f}" for p in result.parameters))


def register(cli: typer.Typer) -> None:
    cli.add_typer(srs_cli, name="srs")
