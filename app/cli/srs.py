"""``proofdeck srs optimize USER``: fit a user's FSRS parameters to their review log (torch, offline)."""

from __future__ import annotations

import typer
from rich.console import Console

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)
srs_cli = typer.Typer(help="Spaced repetition.", no_args_is_help=True)


@srs_cli.command("optimize")
def optimize(username: str = typer.Argument(..., help="Whose review log to fit."),
             database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """Run fsrs's Optimizer on USER's reviews (needs >= 512) and store the parameters for their scheduling."""
    from app.core.config import settings
    from app.core.db import get_engine
    from app.models.migrate import init_db
    from app.srs.optimize import NotEnoughReviews, UnknownUser, optimize_user

    engine = get_engine(database_url or settings.DATABASE_URL)
    init_db(engine)
    try:
        result = optimize_user(engine, username)
    except (NotEnoughReviews, UnknownUser) as exc:
        err.print(f"[red]error[/red] {exc}")
        raise typer.Exit(1) from None
    out.print(f"fitted {len(result.parameters)} FSRS parameters on {result.reviews} reviews of {username!r}:")
    out.print(", ".join(f"{p:.4f}" for p in result.parameters))


def register(cli: typer.Typer) -> None:
    cli.add_typer(srs_cli, name="srs")
