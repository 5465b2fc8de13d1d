"""``proofdeck export obsidian DIR | html FILE | anki FILE.apkg [--lang zh|en|both]``: the deck from the database."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from app.cli.console import error, out, warn
from app.cli.group import group

if TYPE_CHECKING:
    from app.cards.schema import CardDoc
    from app.core.progress import Progress
    from app.export.deck import Verdicts

DatabaseUrl = Annotated[str | None, typer.Option("--database-url", help="Default: PROOFDECK_DATABASE_URL.")]


def _deck(database_url: str | None, progress: Progress) -> tuple[list[CardDoc], Verdicts]:
    from app.core.config import settings
    from app.core.db import get_engine, new_session
    from app.export.deck import load_docs, load_verdicts
    from app.models.migrate import init_db

    progress.step("loading the deck")
    engine = get_engine(database_url or settings.DATABASE_URL)
    init_db(engine)
    with new_session(engine) as session:
        docs, verdicts = load_docs(session), load_verdicts(session)
    if not docs:
        error("the database has no cards: run `proofdeck sync` first.")
        raise typer.Exit(1)
    return docs, verdicts


def _cards(docs: list[CardDoc]) -> str:
    return f"{len(docs)} card{'' if len(docs) == 1 else 's'}"


def register(cli: typer.Typer) -> None:
    export = group("Export the deck: Obsidian vault, HTML handbook, Anki.")
    cli.add_typer(export, name="export")

    @export.command("obsidian")
    def obsidian(folder: Annotated[Path, typer.Argument(help="Vault folder (created if missing).")],
                 database_url: DatabaseUrl = None) -> None:
        """Write an Obsidian vault: a note per card.

        A folder and an index note per module. Exporting into the folder again keeps the Spaced Repetition
        plugin's scheduling comments of the notes there."""
        from app.core.progress import Progress
        from app.export.filenames import UnsafePathError
        from app.export.obsidian import vault_files, write_vault
        from app.export.obsidian_state import read_vault

        if folder.exists() and not folder.is_dir():
            error(f"{folder} is a file; give a folder for the vault.")
            raise typer.Exit(1)
        with Progress() as progress:
            docs, verdicts = _deck(database_url, progress)
            vault = read_vault(folder, progress)  # the reviews done in Obsidian since the last export
            for problem in vault.problems:
                warn(f"not kept: {problem}")
            files = vault_files(docs, verdicts, progress, vault=vault)
            try:
                written = write_vault(folder, files, progress)
            except UnsafePathError as exc:
                error(exc)
                raise typer.Exit(1) from None
        found = sum(len(n.schedules) for n in vault.notes.values())
        kept = sum(fu.id in vault.schedules(d.slug) for d in docs for fu in d.follow_ups)
        note = f", kept {kept} scheduling comment{'' if kept == 1 else 's'}" if found else ""
        if found > kept:
            note += f" ({found - kept} dropped: their follow-ups left the deck)"
        out.print(progress.summary(f"wrote {len(written)} notes ({_cards(docs)}) to {folder}{note}"))

    @export.command("html")
    def html(file: Annotated[Path, typer.Argument(help="Handbook file to write, e.g. proofdeck.html.")],
             user: Annotated[str | None, typer.Option(
                 "--user", help="Embed this user's review state: study mode then continues their schedule.")] = None,
             database_url: DatabaseUrl = None) -> None:
        """Write the offline single-file handbook (open it from disk in any browser). Its study mode
        (FILE#study) reviews the deck offline; `proofdeck import handbook-reviews` brings the reviews back."""
        from app.core.config import settings
        from app.core.db import get_engine, new_session
        from app.core.progress import Progress
        from app.export.handbook import render_handbook
        from app.review.engine import ReviewEngine
        from app.review.obsidian_import import UnknownUser, find_user
        from app.review.study_snapshot import handbook_study

        with Progress() as progress:
            docs, verdicts = _deck(database_url, progress)
            review = ReviewEngine(get_engine(database_url or settings.DATABASE_URL))
            try:
                with new_session(review.db) as session:
                    who = find_user(session, user) if user is not None else None
            except UnknownUser as exc:
                error(str(exc))
                raise typer.Exit(1) from None
            progress.step("review items")
            study = handbook_study(review, docs, who)
            text = render_handbook(docs, verdicts, progress, study=study)
            progress.step("writing")
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")
        mine = f", {who.username}'s schedule" if who is not None else ""
        out.print(progress.summary(f"wrote {file} ({_cards(docs)}, {len(study.data['items'])} review items{mine}, "
                                   f"{len(text.encode()) / 1e6:.1f} MB); study offline at {file.name}#study"))

    @export.command("anki")
    def anki(file: Annotated[Path, typer.Argument(help="Package to write, e.g. proofdeck.apkg.")],
             lang: Annotated[str, typer.Option(
                 "--lang", help="The notes' language: zh, en or both (both languages on every note).")] = "both",
             database_url: DatabaseUrl = None) -> None:
        """Write an Anki package (.apkg): a subdeck per module, drills as type-in notes.

        Importing a newer one updates notes instead of duplicating them."""
        from app.core.progress import Progress
        from app.export.anki import LANGS, write_package

        if file.suffix.lower() != ".apkg":
            error(f"{file}: an Anki package must end in .apkg (try {file.with_suffix('.apkg')})")
            raise typer.Exit(1)
        if lang not in LANGS:
            error(f"--lang {lang}: choose one of {', '.join(LANGS)}")
            raise typer.Exit(2)
        with Progress() as progress:
            docs, verdicts = _deck(database_url, progress)
            file.parent.mkdir(parents=True, exist_ok=True)
            count = write_package(docs, file, verdicts, progress=progress, lang=lang)
        out.print(progress.summary(f"wrote {file} ({count} notes from {_cards(docs)}, {lang})"))
