"""``proofdeck export obsidian DIR | html FILE | anki FILE.apkg``: the deck from the database."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from app.cards.schema import CardDoc
from app.export.deck import Verdicts

err = Console(stderr=True)
out = Console()
DatabaseUrl = Annotated[str | None, typer.Option("--database-url", help="Default: PROOFDECK_DATABASE_URL.")]


def _deck(database_url: str | None) -> tuple[list[CardDoc], Verdicts]:

    from app.core.config import settings
    from app.core.db import get_engine, new_session
    from app.export.deck import load_docs, load_verdicts
    from app.models.migrate import init_db

    engine = get_engine(database_url or settings.DATABASE_URL)
    init_db(engine)
    with new_session(engine) as session:
        docs, verdicts = load_docs(session), load_verdicts(session)
    if not docs:
        err.print("[red]error[/red] the database has no cards: run `proofdeck sync` first.")
        raise typer.Exit(1)
    return docs, verdicts


def _cards(docs: list[CardDoc]) -> str:
    return f"{len(docs)} card{'' if len(docs) == 1 else 's'}"


@contextmanager
def _progress(label: str, total: int) -> Iterator[Callable[[], None]]:
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=total < 50) as progress:
        task = progress.add_task(label, total=total)
        yield lambda: progress.advance(task)


def register(cli: typer.Typer) -> None:
    export = typer.Typer(help="Export the deck: Obsidian vault, offline HTML handbook, Anki package.",
                         no_args_is_help=True)
    cli.add_typer(export, name="export")

    @export.command("obsidian")
    def obsidian(folder: Annotated[Path, typer.Argument(help="Vault folder (created if missing).")],
                 database_url: DatabaseUrl = None) -> None:
        """Write one note per card, a folder per module and an index note per module. Exporting into the
        folder again keeps the Spaced Repetition plugin's scheduling comments of the notes there."""
        from app.export.filenames import UnsafePathError
        from app.export.obsidian import vault_files, write_vault
        from app.export.obsidian_state import read_vault

        if folder.exists() and not folder.is_dir():
            err.print(f"[red]error[/red] {folder} is a file; give a folder for the vault.")
            raise typer.Exit(1)
        docs, verdicts = _deck(database_url)
        vault = read_vault(folder)  # the reviews done in Obsidian since the last export
        for problem in vault.problems:
            err.print(f"not kept: {problem}", markup=False, highlight=False, soft_wrap=True)
        with _progress("notes", len(docs)) as tick:
            files = vault_files(docs, verdicts, on_card=tick, vault=vault)
        try:
            written = write_vault(folder, files)
        except UnsafePathError as exc:
            err.print(f"[red]error[/red] {exc}")
            raise typer.Exit(1) from None
        found = sum(len(n.schedules) for n in vault.notes.values())
        kept = sum(fu.id in vault.schedules(d.slug) for d in docs for fu in d.follow_ups)
        note = f", kept {kept} scheduling comment{'' if kept == 1 else 's'}" if found else ""
        if found > kept:
            note += f" ({found - kept} dropped: their follow-ups left the deck)"
        out.print(f"wrote {len(written)} notes ({_cards(docs)}) to {folder}{note}", highlight=False, soft_wrap=True)

    @export.command("html")
    def html(file: Annotated[Path, typer.Argument(help="Handbook file to write, e.g. proofdeck.html.")],
             user: Annotated[str | None, typer.Option(
                 "--user", help="Embed this user's review state: study mode then continues their schedule.")] = None,
             database_url: DatabaseUrl = None) -> None:
        """Write the offline single-file handbook (open it from disk in any browser). Its study mode
        (FILE#study) reviews the deck offline; `proofdeck import handbook-reviews` brings the reviews back."""
        from app.core.config import settings
        from app.core.db import get_engine, new_session
        from app.export.handbook import render_handbook
        from app.review.engine import ReviewEngine
        from app.review.obsidian_import import UnknownUser, find_user
        from app.review.study_snapshot import handbook_study

        docs, verdicts = _deck(database_url)
        review = ReviewEngine(get_engine(database_url or settings.DATABASE_URL))
        try:
            with new_session(review.db) as session:
                who = find_user(session, user) if user is not None else None
        except UnknownUser as exc:
            err.print(f"[red]error[/red] {exc}", highlight=False)
            raise typer.Exit(1) from None
        study = handbook_study(review, docs, who)
        with _progress("cards", len(docs)) as tick:
            text = render_handbook(docs, verdicts, on_card=tick, study=study)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        mine = f", {who.username}'s schedule" if who is not None else ""
        out.print(f"wrote {file} ({_cards(docs)}, {len(study.data['items'])} review items{mine}, "
                  f"{len(text.encode()) / 1e6:.1f} MB); study offline at {file.name}#study", highlight=False,
                  soft_wrap=True)

    @export.command("anki")
    def anki(file: Annotated[Path, typer.Argument(help="Package to write, e.g. proofdeck.apkg.")],
             database_url: DatabaseUrl = None) -> None:
        """Write an Anki package; importing a newer one updates notes instead of duplicating them."""
        from app.export.anki import write_package

        if file.suffix.lower() != ".apkg":
            err.print(f"[red]error[/red] {file}: an Anki package must end in .apkg "
                      f"(try {file.with_suffix('.apkg')})")
            raise typer.Exit(1)
        docs, verdicts = _deck(database_url)
        file.parent.mkdir(parents=True, exist_ok=True)
        with _progress("cards", len(docs)) as tick:
            count = write_package(docs, file, verdicts, on_card=tick)
        out.print(f"wrote {file} ({count} notes from {_cards(docs)})", highlight=False, soft_wrap=True)
