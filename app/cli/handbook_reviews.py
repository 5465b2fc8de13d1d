"""``proofdeck import handbook-reviews FILE --user NAME``: reviews done in the handbook's study mode into a
user's review log (``app.review.handbook_import``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from app.cli.console import err, out


def register(group: typer.Typer) -> None:
    @group.command("handbook-reviews")
    def handbook_reviews(
        file: Annotated[Path, typer.Argument(help="The file the handbook's Export reviews button downloaded.")],
        user: Annotated[str, typer.Option("--user", help="Whose review log receives the reviews.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
        database_url: Annotated[str | None, typer.Option("--database-url",
                                                         help="Default: PROOFDECK_DATABASE_URL.")] = None,
    ) -> None:
        """Merge the reviews of FILE into USER's review log in time order, replaying FSRS; each review once
        (importing the file again adds nothing). Reviews of items changed or retired since the export are
        listed and skipped (exit code 1); a file of another deck or user is refused (exit code 2)."""
        from app.core.config import settings
        from app.core.db import get_engine, new_session
        from app.items.handbook_reviews import ReviewsFileError, read_reviews_file
        from app.models.migrate import init_db
        from app.review.engine import ReviewEngine
        from app.review.handbook_import import ForeignFile, import_handbook_reviews
        from app.review.obsidian_import import UnknownUser, find_user

        try:
            parsed = read_reviews_file(file.read_bytes())
        except OSError as exc:
            err.print(f"error: cannot read {file}: {exc.strerror or exc}", markup=False)
            raise typer.Exit(2) from None
        except ReviewsFileError as exc:
            err.print(f"error: {file}: {exc}; nothing imported", markup=False)
            raise typer.Exit(2) from None
        engine = get_engine(database_url or settings.DATABASE_URL)
        init_db(engine)
        try:
            with new_session(engine) as session:
                who = find_user(session, user)
        except UnknownUser as exc:
            err.print(f"error: {exc}", markup=False)
            raise typer.Exit(1) from None
        try:
            report = import_handbook_reviews(ReviewEngine(engine), who, parsed)
        except ForeignFile as exc:
            err.print(f"error: {file}: {exc}; nothing imported", markup=False)
            raise typer.Exit(2) from None
        if as_json:
            out.print_json(json.dumps({"user": user, "reviews": len(parsed.reviews), **report.as_json()}))
        else:
            for s in report.skipped:
                err.print(f"skipped review {s.review} of {s.item} at {s.at}: {s.reason}", markup=False)
            for r in report.regraded:
                err.print(f"graded otherwise on the server: {r['item']} typed {r['typed']!r} "
                          f"(handbook: {'correct' if r['page'] else 'wrong'}, server: "
                          f"{'correct' if r['server'] else 'wrong'})", markup=False)
            replayed = f", {report.replayed} later answer(s) of yours replayed after them" if report.replayed else ""
            out.print(f"{user}: {len(report.imported)} review(s) imported from {file.name}, "
                      f"{report.already} already imported, {len(report.skipped)} skipped{replayed}", soft_wrap=True)
        if report.skipped:
            raise typer.Exit(1)
