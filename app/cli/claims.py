"""``proofdeck claims coverage [SLUG]``: how many of a card's quantitative statements its claims check;
``proofdeck claims suggest CARD|DIR... [--write]``: proposed asserts for the statements of cards (a folder of
cards in one process); only proposals whose quote and assertion agree, as the next sync checks them, are
proposed or written (:func:`agrees`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from app.cli.console import err, out
from app.cli.group import group

if TYPE_CHECKING:
    from verify.reading.cardfile import CardText
    from verify.reading.suggest import Proposal


def agrees(p: Proposal, card: CardText) -> str:
    """"" when ``proofdeck sync`` would take the proposal as it is (what ``app.cards.claim_lint`` checks of a
    claim: its asserts parses, its quote states no number the assertion does not, the quote is in the card),
    else why not."""
    from verify.judge.drift import drift
    from verify.reading.asserts import AssertError, parse
    from verify.reading.claims import Claim, corpus, stale_parts

    try:
        parse(p.asserts)
    except AssertError as exc:
        return f"asserts {p.asserts!r} does not parse: {exc}"
    zh, en = (p.quoted, "") if p.lang == "zh" else ("", p.quoted)
    unmatched = drift(zh, en, p.asserts)
    if unmatched:
        return f"the quote states {', '.join(unmatched)}, asserts {p.asserts!r} does not"
    if stale_parts(Claim(str(card.meta.get("slug") or ""), "proposed", zh, en, p.section, p.asserts,
                         corpus=corpus(card))):
        return "the quote is not in the card"
    return ""


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
    def suggest(paths: list[Path] = typer.Argument(..., help="Card files, or folders of them (e.g. the --out of "
                                                              "`proofdeck import`)."),
                write: bool = typer.Option(False, "--write", help="Append the proposals to each card's claims."),
                show_unchecked: bool = typer.Option(None, "--unchecked/--no-unchecked",
                                                    help="List the statements nothing is proposed for "
                                                         "(default: for a single card)."),
                ) -> None:
        """Propose asserts for cards' statements.

        Every card of the folders, in one process. Only proposals whose quote states what the assertion
        states are proposed (the next sync flags none of them); with --write they are appended (ids
        proposed-N), once."""
        import yaml

        from app.core.progress import Progress
        from verify.reading.cardfile import CardFileError
        from verify.reading.suggest import as_claims, card_paths, suggest_card

        files, missing = card_paths(paths)
        for line in missing:
            err.print(f"error {line}", markup=False)
        if not files:
            raise typer.Exit(2)
        unchecked_too = len(files) == 1 if show_unchecked is None else show_unchecked
        failed = proposed = dropped = known = unchecked = 0
        with Progress() as progress:
            for card in progress.each("proposing", files, unit="cards"):
                try:
                    found = suggest_card(card, agrees, write_back=write)
                except (CardFileError, OSError, UnicodeDecodeError) as exc:
                    err.print(f"error {card}: {exc}", markup=False)
                    failed += 1
                    continue
                proposed, dropped = proposed + len(found.proposed), dropped + len(found.dropped)
                known, unchecked = known + found.known, unchecked + len(found.unchecked)
                if write:
                    out.print(f"{card}: {found.written} proposed claim(s) appended, {len(found.dropped)} dropped "
                              f"(quote and asserts disagree), {found.known} already there")
                else:
                    if len(files) > 1:
                        out.print(f"# {card}")
                    out.print(yaml.safe_dump({"claims": as_claims(found.proposed, set())}, allow_unicode=True,
                                             sort_keys=False, width=120).rstrip())
                for p, why in found.dropped:
                    out.print(f"# not proposed ({p.lang}) {p.asserts}: {why}")
                for line in found.unchecked if unchecked_too else []:
                    out.print(f"# unchecked {line}")
        verb = "appended" if write else "proposed"
        err.print(progress.summary(f"{len(files) - failed} card(s): {proposed} claim(s) {verb}, {dropped} dropped "
                                   f"(quote and asserts disagree), {known} already there, {unchecked} unchecked"
                                   + (f", {failed} failed" if failed else "")))
        if write and proposed:
            err.print("check each proposed asserts, then `proofdeck sync` and `proofdeck verify`")
        if failed:
            raise typer.Exit(1)
