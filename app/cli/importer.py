"""``proofdeck import``: turn raw bank exports into card files (one ``<slug>.md`` per card)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

err = Console(stderr=True)
out = Console()


def register(cli: typer.Typer) -> None:
    @cli.command("import")
    def import_(
        paths: Annotated[list[Path], typer.Argument(help="Raw bank export files, or folders of *.txt files.")],
        out_dir: Annotated[Path, typer.Option("--out", help="Folder for the card files (e.g. cards/).")],
        title: Annotated[str, typer.Option(help='Card title "zh title(en title)"; single file only.')] = "",
        slug: Annotated[str, typer.Option(help="Card slug (kebab-case); single file only.")] = "",
        force: Annotated[bool, typer.Option(help="Overwrite card files that already exist.")] = False,
    ) -> None:
        """Import raw bank cards: bad files are listed one line each; good ones are still written."""
        from app.cards.bank_import import import_paths, raw_files
        from app.cards.rawformat import split_bilingual
        from app.cards.schema import LangText

        title_text: LangText | None = None
        if title or slug:
            files, _ = raw_files(paths)
            if len(files) != 1:
                err.print(f"error: --title and --slug name one card, but {len(files)} raw files were given "
                          "(import them without --title, then edit each card's title)", highlight=False)
                raise typer.Exit(2)
        if title:
            try:
                zh, en = split_bilingual(title)
            except ValueError as exc:
                err.print(f"error: --title: {exc} (write it as \"zh title(en title)\")", highlight=False)
                raise typer.Exit(2) from None
            title_text = LangText(zh=zh, en=en)
        report = import_paths(paths, out_dir, title=title_text, slug=slug, force=force)
        for item in report.imported:
            out.print(f"imported {item.source} -> {item.written}", highlight=False, soft_wrap=True)
            for note in item.notes:
                out.print(f"    note: {note}", highlight=False, soft_wrap=True)
        for failure in report.failed:
            err.print(f"error {failure}", highlight=False, soft_wrap=True, markup=False)
        out.print(f"{len(report.imported)} imported, {len(report.failed)} failed", highlight=False)
        if report.failed:
            raise typer.Exit(1)
