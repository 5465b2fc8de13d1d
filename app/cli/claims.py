"""``proofdeck claims coverage [SLUG]``: how many of a card's quantitative statements its claims check;
``proofdeck claims suggest CARD``: proposed asserts for a card's statements."""

from __future__ import annotations

from pathlib import Path

import typer

from app.cli.console import err, out
from app.cli.group import group


def register(cli: typer.Typer) -> None:
    claims = group("Card claims: what they check.")
    cli.add_typer(claims, name="claims")

    @claims.command()
    def coverage(slug: str = typer.Argument(None, help="One card (default: every card)."),
                 cards_dir: Path = typer.Option(None, "--cards", help="Cards folder (default: PROOFDECK_CARDS_DIR)."),
                 show: bool = typer.Option(True, "--unchecked/--summary", help="List the unchecked statements.")
                 ) -> None:
        """How many of a card's statements are judged.

        Per card "judged / found": every number and formula, by a claim or an annotation-free judge (arithmetic,
        fact, formula, zh/en parity); the unchecked ones with the reason."""
        from app.core.config import settings
        from app.core.progress import Progress
        from app.deck.sync import card_files
        from verify.judge.statements.coverage import card_coverage

        # a card's statements are parsed with sympy's LaTeX parser: about a second a card; one card is
        # looked for in SLUG.md first (its usual name), and in every file only when that is not it
        files = card_files(cards_dir or settings.CARDS_DIR)
        named = [p for p in files if slug and p.stem == slug]
        with Progress() as progress:
            rows = []
            for some in (named, [p for p in files if p not in named]) if slug else (files,):
                rows = [cov for cov in map(card_coverage, progress.each("parsing", some, unit="cards"))
                        if slug in (None, cov.card)]
                if rows:
                    break
        if not rows:
            out.print(f"no card {slug!r}" if slug else "no card files")
            raise typer.Exit(1)
        for cov in rows:
            out.print(f"{cov.card}: {len(cov.judged)} / {len(cov.found)} judged ({cov.ratio:.0%})")
            if show:
                for line in cov.unchecked:
                    out.print(f"  unchecked {line} ({cov.why.get(line, '')})")
        judged, found = sum(len(c.judged) for c in rows), sum(len(c.found) for c in rows)
        out.print(progress.summary(f"{len(rows)} card(s): {judged} / {found} statements judged"))

    @claims.command()
    def suggest(card: Path = typer.Argument(..., help="A card file, e.g. one written by `proofdeck import`."),
                write: bool = typer.Option(False, "--write", help="Append the proposals to the card's claims.")
                ) -> None:
        """Propose asserts for a card's statements.

        Its formulas and quantitative statements; the rest are listed as unchecked."""
        import yaml

        from app.core.progress import Progress
        from verify.reading.suggest import as_claims
        from verify.reading.suggest import suggest as propose
        from verify.reading.suggest import write as write_claims

        if not card.is_file():
            out.print(f"error {card}: no such card file (give the path of a card .md)")
            raise typer.Exit(2)
        with Progress() as progress:
            progress.step(f"reading the statements of {card.name}")
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
        err.print(progress.summary(f"{card.name}: {len(props)} claim(s) proposed, {len(unchecked)} unchecked"))
