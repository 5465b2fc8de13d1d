"""``proofdeck claims coverage [SLUG]``: how many of a card's quantitative statements its claims check."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

out = Console(highlight=False, soft_wrap=True)


def register(cli: typer.Typer) -> None:
    claims = typer.Typer(help="Card claims: what they check.", no_args_is_help=True)
    cli.add_typer(claims, name="claims")

    @claims.command()
    def coverage(slug: str = typer.Argument(None, help="One card (default: every card)."),
                 cards_dir: Path = typer.Option(None, "--cards", help="Cards folder (default: PROOFDECK_CARDS_DIR)."),
                 show: bool = typer.Option(True, "--unchecked/--summary", help="List the unchecked statements.")
                 ) -> None:
        """Per card "checked / found" formulas and numbers with a unit or multiplier, and the unchecked ones."""
        from app.core.config import settings
        from verify.coverage import deck_coverage

        rows = deck_coverage(cards_dir or settings.CARDS_DIR, slug)
        if not rows:
            out.print(f"no card {slug!r}")
            raise typer.Exit(1)
        for cov in rows:
            out.print(f"{cov.card}: {len(cov.checked)} / {len(cov.found)} checked ({cov.ratio:.0%})")
            if show:
                for line in cov.unchecked:
                    out.print(f"  unchecked {line}")
