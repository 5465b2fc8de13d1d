"""``proofdeck import obsidian-reviews VAULT --user NAME``: reviews done in Obsidian into a user's states."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from app.cli.console import err, out


def register(group: typer.Typer) -> None:
    @group.command("obsidian-reviews")
    def obsidian_reviews(
        vault: Annotated[Path, typer.Argument(help="The vault folder (or the exported proofdeck/ folder in it).")],
        user: Annotated[str, typer.Option("--user", help="Whose review state receives the reviews.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
        database_url: Annotated[str | None, typer.Option("--database-url",
                                                         help="Default: PROOFDECK_DATABASE_URL.")] = None,
    ) -> None:
        """Store a user's reviews done in Obsidian.

        Reads the Spaced Repetition plugin's scheduling comments in the exported notes and stores each as
        USER's FSRS state of that follow-up, unless the server's state is as new or newer. Comments it
        cannot use are listed (exit code 1); the others are still imported, all in one transaction."""

        from app.core.config import settings
        from app.core.db import get_engine, new_session
        from app.core.progress import Progress
        from app.export.obsidian_state import read_vault
        from app.models.migrate import init_db
        from app.review.obsidian_import import UnknownUser, UserGone, find_user, import_reviews

        if not vault.is_dir():
            err.print(f"error: {vault} is not a folder; give the Obsidian vault (or its proofdeck/ folder)",
                      markup=False)
            raise typer.Exit(2)
        engine = get_engine(database_url or settings.DATABASE_URL)
        init_db(engine)
        try:
            with new_session(engine) as session:
                user_id = find_user(session, user).id
        except UnknownUser as exc:
            err.print(f"error: {exc}", markup=False)
            raise typer.Exit(1) from None
        assert user_id is not None
        with Progress() as progress:
            state = read_vault(vault, progress)
            try:
                report = import_reviews(engine, user_id, state, progress)
            except UserGone as exc:
                err.print(f"error: {exc}", markup=False)
                raise typer.Exit(1) from None
        if as_json:
            out.print_json(json.dumps({"user": user, "notes": len(state.notes), **report.as_json()}))
        else:
            for problem in report.problems:
                err.print(f"skipped {problem}", markup=False)
            out.print(progress.summary(
                f"{user}: {len(report.applied)} review state(s) imported from {len(state.notes)} note(s), "
                f"{len(report.kept_server)} kept (the server's was as new or newer), "
                f"{report.not_reviewed} not reviewed in Obsidian yet, {len(report.problems)} skipped"))
        if report.problems:
            raise typer.Exit(1)
