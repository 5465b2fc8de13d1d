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
        from verify.reading.coverage import deck_coverage

        rows = deck_coverage(cards_dir or settings.CARDS_DIR, slug)
        if not rows:
            out.print(f"no card {slug!r}")
            raise typer.Exit(1)
        for cov in rows:
            out.print(f"{cov.card}: {len(cov.checked)} / {len(cov.found)} checked ({cov.ratio:.0%})")
            if show:
                for line in cov.unchecked:
                    out.print(f"  unchecked {line}")

    @claims.command()
    def suggest(card: Path = typer.Argument(..., help="A card file, e.g. one written by `proofdeck import`."),
                write: bool = typer.Option(False, "--write", help="Append the proposals to the card's claims.")
                ) -> None:
        """Propose asserts for a card's formulas and quantitative statements; list the rest as unchecked."""
        import yaml

        from verify.reading.suggest import as_claims
        from verify.reading.suggest import suggest as propose
        from verify.reading.suggest import write as write_claims

        if not card.is_file():
            out.print(f"error {card}: no such card file (give the path of a card .md)")
            raise typer.Exit(2)
        props, unchecked = propose(card)
        if write:
            n = write_claims(card, props)
            out.print(f"{card}: {n} proposed claim(s) appended (ids proposed-N): check each asserts, then "
                      f"`proofdeck sync` and `proofdeck verify`")
        else:
            out.print(yaml.safe_dump({"claims": as_claims(props, set())}, allow_unicode=True, sort_keys=False,
                                     width=120).rstrip())
        for line in unchecked:
            out.print(f"# unchecked {line}")
