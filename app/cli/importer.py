"""``proofdeck import``: turn raw bank exports into card files (one ``<slug>.md`` per card);
``proofdeck import obsidian-reviews`` (:mod:`app.cli.obsidian_reviews`) and ``handbook-reviews``
(:mod:`app.cli.handbook_reviews`) live in the same group.
``proofdeck import PATHS...`` without a subcommand name is the bank import, as it always was."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer._click.core import Context

from app.cli.console import err, out
from app.cli.group import Group, group

if TYPE_CHECKING:
    from app.cards.schema import LangText


class _BankByDefault(Group):
    """A group whose first argument, when it names no subcommand, is a path for ``bank``."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["bank", *args]
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: Context) -> list[str]:
        return sorted(self.commands)

    def format_usage(self, ctx: Context, formatter: Any) -> None:
        formatter.write_usage(ctx.command_path, "[bank] PATHS... --out DIR | obsidian-reviews VAULT --user NAME | "
                                                "handbook-reviews FILE --user NAME")


def register(cli: typer.Typer) -> None:
    from app.cli import handbook_reviews, obsidian_reviews

    imports = group("Import raw bank cards, or reviews done in Obsidian or the handbook.", cls=_BankByDefault)
    cli.add_typer(imports, name="import")
    obsidian_reviews.register(imports)
    handbook_reviews.register(imports)

    @imports.command("bank")
    def import_(
        paths: Annotated[list[Path], typer.Argument(help="Raw bank export files, or folders of *.txt files.")],
        out_dir: Annotated[Path, typer.Option("--out", help="Folder for the card files (e.g. cards/).")],
        title: Annotated[str, typer.Option(help='Card title "zh title(en title)"; single file only.')] = "",
        slug: Annotated[str, typer.Option(help="Card slug (kebab-case); single file only.")] = "",
        force: Annotated[bool, typer.Option(help="Overwrite card files that already exist.")] = False,
        judge: Annotated[bool, typer.Option(help="Judge each written card's statements and say what was found.")
                         ] = True,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
        titles: Annotated[Path | None, typer.Option(
            "--titles", help="A titles table (TSV: file, zh, en, slug) giving each raw file's title and slug.")
                          ] = None,
        write_titles: Annotated[Path | None, typer.Option(
            "--write-titles", help="Write the titles and slugs this import used as a TSV table, to review "
                                   "and pass back with --titles.")] = None,
    ) -> None:
        """Turn raw bank exports into card files (default).

        One line per card: its statements, how many the judges judged, the refuted ones (✗) and the zh/en
        contradictions. Bad files are listed one line each; the good ones are still written."""
        import json

        from app.cards.bank_import import import_paths, judge_imported
        from app.cards.raw_files import raw_files
        from app.cards.rawformat import split_bilingual
        from app.cards.schema import LangText
        from app.core.progress import Progress

        title_text: LangText | None = None
        if title or slug:
            files, _ = raw_files(paths)
            if len(files) != 1:
                err.print(f"error: --title and --slug name one card, but {len(files)} raw files were given "
                          "(import them without --title, or give a titles table with --titles FILE.tsv)")
                raise typer.Exit(2)
        if title:
            try:
                zh, en = split_bilingual(title)
            except ValueError as exc:
                err.print(f"error: --title: {exc} (write it as \"zh title(en title)\")", markup=False)
                raise typer.Exit(2) from None
            title_text = LangText(zh=zh, en=en)
        table = None
        if titles is not None:
            from app.cards.titles_table import read_titles
            from verify.reading.cardfile import CardFileError

            try:
                table = read_titles(titles)
            except CardFileError as exc:
                err.print(f"error {exc}", markup=False)
                raise typer.Exit(2) from None
        with Progress() as progress:
            report = import_paths(paths, out_dir, title=title_text, slug=slug, force=force, progress=progress,
                                  titles=table)
            if judge:
                judge_imported(report, progress)
        if as_json:
            out.print_json(json.dumps(report.as_json(), ensure_ascii=False))
        else:
            for item in report.imported:
                found = f": {item.statements.line()}" if item.statements is not None else ""
                out.print(f"{item.source.name} → {item.written.name}{' (updated)' if item.updated else ''}{found}")
                for note in item.notes:
                    out.print(f"    note: {note}")
        if write_titles is not None:
            from app.cards.titles_table import table_rows
            from app.cards.titles_table import write_titles as write_table

            write_table(write_titles, table_rows([(i.source, i.title, i.slug, i.title_from)
                                                 for i in report.imported]))
            (err if as_json else out).print(f"titles table: {write_titles} ({len(report.imported)} rows)",
                                            markup=False)
        for dup in report.duplicates:
            (err if as_json else out).print(f"duplicate: {dup.line()}", markup=False)
        for failure in report.failed:
            err.print(f"error {failure}", markup=False)
        summary = f"{len(report.imported)} imported, {len(report.failed)} failed"
        if report.duplicates:
            summary += f", {len(report.duplicates)} duplicate{'' if len(report.duplicates) == 1 else 's'} skipped"
        if judge and report.imported:
            summary += "; " + _totals(report.totals())
        (err if as_json else out).print(progress.summary(summary))
        if report.failed:
            raise typer.Exit(1)


def _totals(t: dict[str, int]) -> str:
    """``1,623 statements, 1,290 judged: 21 ✗, 15 zh/en contradictions on 11 of 12 cards``."""
    problems = [f"{t['refuted']:,} ✗"] if t["refuted"] else []
    problems += [f"{t['contradictions']:,} zh/en contradiction{'' if t['contradictions'] == 1 else 's'}"
                 ] if t["contradictions"] else []
    problems += [f"{t['inconsistent']:,} within the card"] if t["inconsistent"] else []
    line = f"{t['found']:,} statements, {t['judged']:,} judged"
    if problems:
        line += f": {', '.join(problems)} on {t['cards_with_problems']:,} of {t['cards']:,} cards"
    else:
        line += f", no problem found on {t['cards']:,} cards"
    if t["not_judged"]:
        line += f" ({t['not_judged']} not judged)"
    return line
