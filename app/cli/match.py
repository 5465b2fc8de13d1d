"""``proofdeck match "question"``: the cards that answer it, ranked, with scores."""

from __future__ import annotations

import typer

from app.cli.console import err, error, out


def register(cli: typer.Typer) -> None:
    @cli.command("match")
    def match_command(
        question: str = typer.Argument(..., help="The interview question, in Chinese, English or both."),
        limit: int = typer.Option(5, "--limit", "-n", help="How many cards."),
        lang: str = typer.Option("both", "--lang", help="Match the zh text, the en text or both."),
        database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL."),
    ) -> None:
        """Rank the synced cards for a pasted question.

        Run `proofdeck sync` first."""
        from rich.table import Table

        from app.core.config import settings
        from app.core.db import get_engine
        from app.models.migrate import init_db
        from app.search.match import MatchQueryError, match

        engine = get_engine(database_url or settings.DATABASE_URL)
        init_db(engine)
        try:
            result = match(engine, question, limit=limit, lang=lang)
        except MatchQueryError as exc:
            error(exc)
            raise typer.Exit(2) from None
        if not result.hits:
            err.print("no card matches (only stop words or punctuation, or no card shares a term)")
            raise typer.Exit(1)
        table = Table(title=f"cards for: {question}", show_lines=False)
        for name, justify in (("#", "right"), ("score", "right"), ("card", "left"), ("title", "left"),
                              ("best follow-up", "left")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for i, h in enumerate(result.hits, 1):
            title = h.card.title_zh if h.snippet_lang == "zh" and h.card.title_zh else h.card.title_en
            fu = ""
            if h.follow_up:
                fu = h.follow_up.question_zh if h.snippet_lang == "zh" and h.follow_up.question_zh \
                    else h.follow_up.question_en or h.follow_up.question_zh
            table.add_row(str(i), f"{h.score:.2f}", h.card.slug, title, fu)
        out.print(table)
