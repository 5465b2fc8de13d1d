"""The titles table: one TSV row per raw file (``file``, ``zh``, ``en``, ``slug``, then ``from``: what the title
was derived from, e.g. ``link anchor in 881_….txt`` or ``summary subject``) so a person reviews and fixes the
titles of a whole bank in one list instead of editing hundreds of card files. ``from`` is ignored on reading.

``proofdeck import --write-titles FILE.tsv`` writes the titles and slugs the import used (derived or given);
``proofdeck import --titles FILE.tsv`` reads the edited table back: each row's title and slug replace the
derived ones for the raw file it names (by file name, or by the path as given when names repeat).
An empty ``slug`` cell means "derive it from the English title"."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from app.cards.raw_files import write_atomically
from app.cards.rawformat import slugify
from app.cards.schema import LangText
from verify.reading.cardfile import CardFileError

HEADER = ("file", "zh", "en", "slug")
WRITTEN_HEADER = (*HEADER, "from")
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class TitleRow:
    file: str
    title: LangText
    slug: str
    title_from: str = ""


def read_titles(path: Path) -> dict[str, TitleRow]:
    """The table at ``path`` by file; :class:`CardFileError` names the line of a malformed row."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CardFileError(str(path), f"cannot read the titles table: {exc}") from None
    rows: dict[str, TitleRow] = {}
    for n, cells in enumerate(csv.reader(io.StringIO(text), delimiter="\t"), start=1):
        if not cells or (n == 1 and tuple(c.strip().lower() for c in cells[:4]) == HEADER):
            continue
        if len(cells) < 3:
            raise CardFileError(str(path), "a row needs file, zh, en (and optionally slug), tab-separated", line=n)
        file, zh, en = (c.strip() for c in cells[:3])
        slug = cells[3].strip() if len(cells) > 3 else ""
        if not (zh or en):
            raise CardFileError(str(path), f"{file}: the row has no title", line=n)
        slug = slug or slugify(en)
        if not KEBAB.fullmatch(slug):
            raise CardFileError(str(path), f"{file}: slug {slug!r} is not ASCII kebab-case", line=n,
                                hint="lowercase letters, digits and single hyphens, e.g. zero-plus-plus")
        rows[file] = TitleRow(file, LangText(zh=zh, en=en), slug)
    return rows


def row_for(rows: dict[str, TitleRow], source: Path) -> TitleRow | None:
    return rows.get(str(source)) or rows.get(source.name)


def write_titles(path: Path, rows: list[TitleRow]) -> None:
    """Write ``rows`` with a header; files named by their name unless two share one (then by path)."""
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="\t", lineterminator="\n")
    writer.writerow(WRITTEN_HEADER)
    for row in rows:
        writer.writerow((row.file, row.title.zh, row.title.en, row.slug, row.title_from))
    write_atomically(path, buf.getvalue())


def table_rows(items: list[tuple[Path, LangText, str, str]]) -> list[TitleRow]:
    """Rows for (source, title, slug, what the title came from), derived titles first so a review starts there."""
    names = [item[0].name for item in items]
    rows = [TitleRow(source.name if names.count(source.name) == 1 else str(source), title, slug, how)
            for source, title, slug, how in items]
    return sorted(rows, key=lambda r: r.title_from == "given")
