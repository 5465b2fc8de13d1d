"""Import raw bank exports into card files: one ``<slug>.md`` per card, all or nothing per card.

Each card is parsed, dumped, loaded back and compared before anything is written; the file is
written to a temporary name in the output folder and moved into place with ``os.replace``, so a
failed card leaves no file behind and a reader never sees half a card. A bad file never stops the
batch: the report lists it with one line saying what, where and how to fix it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from app.cards.cardfile import dump_card, load_card_text
from app.cards.rawformat import RawCard, parse_raw_bytes
from app.cards.schema import LangText
from app.core.progress import Progress
from verify.reading.cardfile import CardFileError

RAW_SUFFIX = ".txt"


def _file_mode() -> int:
    """0o666 less the process umask: what ``open()`` would have given (mkstemp gives 0o600)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


@dataclass
class Imported:
    source: Path
    written: Path
    slug: str
    notes: list[str] = field(default_factory=list)


@dataclass
class ImportReport:
    imported: list[Imported] = field(default_factory=list)
    failed: list[CardFileError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed


def raw_files(paths: Iterable[Path]) -> tuple[list[Path], list[CardFileError]]:
    """Files named directly, plus every ``*.txt`` in named folders (recursively), in order."""
    found: list[Path] = []
    errors: list[CardFileError] = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.rglob(f"*{RAW_SUFFIX}") if p.is_file())
            if not inside:
                errors.append(CardFileError(str(path), f"folder has no {RAW_SUFFIX} files"))
            found += inside
        elif path.is_file():
            found.append(path)
        else:
            errors.append(CardFileError(str(path), "no such file or folder"))
    return found, errors


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and ``os.replace``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _unique_slug(slug: str, taken: set[str]) -> str:
    if slug not in taken:
        return slug
    n = 2
    while f"{slug}-{n}" in taken:
        n += 1
    return f"{slug}-{n}"


def import_one(source: Path, out_dir: Path, *, title: LangText | None = None, slug: str = "",
               taken: set[str] | None = None, force: bool = False) -> Imported:
    """Parse one raw card and write its card file; raises :class:`CardFileError` and writes nothing."""
    name = str(source)
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise CardFileError(name, f"cannot read: {exc.strerror}") from None
    raw: RawCard = parse_raw_bytes(data, name, title=title, slug=slug)
    doc = raw.doc
    taken = taken if taken is not None else set()
    if not slug and doc.slug in taken:
        doc = doc.model_copy(update={"slug": _unique_slug(doc.slug, taken)})
    target = out_dir / f"{doc.slug}.md"
    if target.exists() and not force:
        raise CardFileError(name, f"{target} already exists",
                            hint="pass --force to overwrite it, --slug for another name, or another --out")
    text = dump_card(doc)
    if load_card_text(text, str(target)) != doc:  # never write a file that would not load back the same
        raise CardFileError(name, "the card does not survive a write/read round trip (importer bug)")
    write_atomically(target, text)
    taken.add(doc.slug)
    return Imported(source=source, written=target, slug=doc.slug, notes=raw.notes)


def import_paths(paths: Iterable[Path], out_dir: Path, *, title: LangText | None = None, slug: str = "",
                 force: bool = False, progress: Progress | None = None) -> ImportReport:
    """Import every raw card under ``paths`` into ``out_dir``; bad files are reported, not raised.
    ``progress`` ticks once per raw file."""
    files, errors = raw_files(paths)
    report = ImportReport(failed=errors)
    out_dir.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    for source in progress.each("importing", files, unit="raw cards") if progress else files:
        try:
            report.imported.append(import_one(source, out_dir, title=title, slug=slug, taken=taken,
                                              force=force))
        except CardFileError as exc:
            report.failed.append(exc)
        except (OSError, ValueError) as exc:  # a disk problem or an unforeseen value: one line, no traceback
            report.failed.append(CardFileError(str(source), f"{type(exc).__name__}: {exc}"))
    return report
