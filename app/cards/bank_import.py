"""Import raw bank exports into card files: one ``<slug>.md`` per card, all or nothing per card.

Each card is parsed, dumped, loaded back and compared before anything is written; the file is
written to a temporary name in the output folder and moved into place with ``os.replace``, so a
failed card leaves no file behind and a reader never sees half a card. A bad file never stops the
batch: the report lists it with one line saying what, where and how to fix it.

Each written card is then read back and judged by verify's annotation-free judges
(``verify.judge.statements``: the card's own arithmetic, facts code produces, known formulas, zh/en parity):
:func:`judge_imported` gives every card a :class:`StatementSummary`, which ``proofdeck import`` prints as
``12 statements, 9 judged: 1 ✗ (420/25 = 18.6 s: 420/25 = 16.8 s), 1 zh/en contradiction (summary: zh 4 倍 /
en 2×)``. Nothing is stored: ``proofdeck sync`` judges the same text again (and ``--strict`` refuses it).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cards.cardfile import dump_card, load_card_file, load_card_text
from app.cards.raw_files import raw_files, read_raw, write_atomically
from app.cards.rawformat import RawCard, parse_raw_bytes, slugify
from app.cards.schema import LangText
from app.cards.subject_titles import TitleKey, choose_titles, title_key
from app.cards.titles_table import TitleRow, row_for
from app.core.progress import Progress
from verify.reading.cardfile import CardFileError

if TYPE_CHECKING:
    from verify.judge.statements.card import CardStatements

SHOWN = 2  # problems named per kind in a card's line; the rest are "…"


@dataclass(frozen=True)
class Problem:
    """One mistake the judges found, as the import line names it: a refuted statement (``text`` and what the
    judge computed), a zh/en contradiction (``text`` zh, ``other`` en) or a contradiction within the card (a
    formula and the worked example it disagrees with). ``lang``: zh, en, or zh+en (written alike in both)."""

    kind: str  # refuted | parity | card
    section: str
    lang: str
    text: str
    other: str = ""
    detail: str = ""
    judge: str = ""

    def brief(self) -> str:
        where = self.section.removeprefix("question:")
        if self.kind == "parity":
            return f"{where}: zh {self.text} / en {self.other}"
        if self.kind == "card":
            return f"{where}: {self.text} vs {self.other}" if self.other else f"{where}: {self.text}: {self.detail}"
        said = self.text if self.lang == "zh+en" else f"{self.lang} {self.text}"
        return f"{said}: {_correction(self.detail)}"


def _correction(detail: str) -> str:
    """A refutation's detail without its trailing ", not <the written value>" (the line shows that already)."""
    return re.sub(r",\s+not\s+[^,]*$", "", detail) or detail


@dataclass
class StatementSummary:
    """What the annotation-free judges found on one card file (``verify.judge.statements.card.judge_text``)."""

    found: int = 0
    judged: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    refuted: list[Problem] = field(default_factory=list)
    contradictions: list[Problem] = field(default_factory=list)  # zh/en, one per pair
    inconsistent: list[Problem] = field(default_factory=list)  # within the card, one per statement
    error: str = ""  # the judges failed on this card (a bug): the import still stands

    @property
    def problems(self) -> list[Problem]:
        return [*self.refuted, *self.contradictions, *self.inconsistent]

    def line(self) -> str:
        """``12 statements, 9 judged: 1 ✗ (…), 1 zh/en contradiction (…)``."""
        if self.error:
            return f"statements not judged ({self.error})"
        head = f"{self.found} statement{_s(self.found)}, {self.judged} judged"
        parts = [_named(len(self.refuted), "✗", self.refuted),
                 _named(len(self.contradictions), "zh/en contradiction" + _s(len(self.contradictions)),
                        self.contradictions),
                 _named(len(self.inconsistent), "contradiction" + _s(len(self.inconsistent)) + " within the card",
                        self.inconsistent)]
        shown = [p for p in parts if p]
        return head + (": " + ", ".join(shown) if shown else ", no problem found")

    def as_json(self) -> dict[str, Any]:
        return {"found": self.found, "judged": self.judged, "counts": dict(sorted(self.counts.items())),
                "refuted": [asdict(p) for p in self.refuted],
                "contradictions": [asdict(p) for p in self.contradictions],
                "inconsistent": [asdict(p) for p in self.inconsistent], **({"error": self.error} if self.error else {})}


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _named(n: int, label: str, problems: list[Problem]) -> str:
    if not n:
        return ""
    named = "; ".join(p.brief() for p in problems[:SHOWN]) + ("; …" if n > SHOWN else "")
    return f"{n} {label} ({named})"


def summarize(found: CardStatements) -> StatementSummary:
    """Group a card's problem verdicts as a reader counts mistakes: a refutation written alike in zh and en
    (the same section and correction) is one ✗; a zh/en contradiction is one per pair of statements; a formula
    that disagrees with the card's own example is one per section and formula (the en wording is shown)."""
    out = StatementSummary(found=len(found.verdicts), judged=found.judged, counts=found.counts())
    refuted: dict[tuple[str, str], list[Any]] = {}
    inconsistent: dict[tuple[str, str], list[Any]] = {}
    for v in found.verdicts:
        if v.verdict == "refuted":
            refuted.setdefault((v.section, v.found or _squash(v.text)), []).append(v)
        elif v.verdict == "contradiction" and v.judge != "parity":
            inconsistent.setdefault((v.section, _squash(v.text)), []).append(v)
    for group in refuted.values():
        first = next((v for v in group if v.lang == "en"), group[0])
        out.refuted.append(Problem("refuted", first.section, _langs(group), first.text, detail=first.detail,
                                   judge=first.judge))
    for group in inconsistent.values():
        first = next((v for v in group if v.lang == "en"), group[0])
        out.inconsistent.append(Problem("card", first.section, _langs(group), first.text, first.other,
                                        first.detail, first.judge))
    for c in found.contradictions:
        out.contradictions.append(Problem("parity", str(c["section"]), "zh+en", str(c["zh"]["statement"]),
                                          str(c["en"]["statement"]),
                                          f"the {c['supported']} text is the one the other judges support"
                                          if c.get("supported") else "", str(c.get("judge") or "parity")))
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _langs(group: list[Any]) -> str:
    langs = {v.lang for v in group}
    return "zh+en" if langs >= {"zh", "en"} else group[0].lang


def judge_card_file(path: Path) -> StatementSummary:
    """The summary of what the judges find in the card file at ``path`` (its text as written on disk)."""
    from verify.judge.statements.card import judge_text
    from verify.reading.cardfile import read_text

    try:
        return summarize(judge_text(read_text(path), str(path)))
    except CardFileError as exc:
        return StatementSummary(error=exc.message)
    except Exception as exc:  # a judge's bug must not undo an import that was written
        return StatementSummary(error=f"{type(exc).__name__}: {exc}")


@dataclass
class Imported:
    source: Path
    written: Path
    slug: str
    notes: list[str] = field(default_factory=list)
    title: LangText = field(default_factory=LangText)
    statements: StatementSummary | None = None  # set by :func:`judge_imported`
    updated: bool = False  # a re-export of a card already in the folder (same title): its file was rewritten
    title_from: str = "given"  # given, or what it was derived from: link anchor in <file>, summary subject …

    def as_json(self) -> dict[str, Any]:
        return {"source": str(self.source), "written": str(self.written), "slug": self.slug, "notes": self.notes,
                "updated": self.updated, "title_from": self.title_from,
                **({"statements": self.statements.as_json()} if self.statements is not None else {})}


@dataclass(frozen=True)
class Duplicate:
    """A raw file not written because it repeats one already imported in the same run: ``why`` is
    ``byte-identical`` (the same bytes) or ``same title`` (the same zh and en title, other bytes)."""

    source: Path
    repeats: Path
    slug: str
    why: str

    def line(self) -> str:
        return f"{self.source.name} repeats {self.repeats.name} ({self.why}): not written again, see {self.slug}.md"

    def as_json(self) -> dict[str, Any]:
        return {"source": str(self.source), "repeats": str(self.repeats), "slug": self.slug, "why": self.why}


@dataclass
class ImportReport:
    imported: list[Imported] = field(default_factory=list)
    failed: list[CardFileError] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed

    def totals(self) -> dict[str, int]:
        """Statements over every judged card: found, judged, refuted, zh/en and within-card contradictions."""
        judged = [i.statements for i in self.imported if i.statements is not None]
        return {"cards": len(judged), "found": sum(s.found for s in judged), "judged": sum(s.judged for s in judged),
                "refuted": sum(len(s.refuted) for s in judged),
                "contradictions": sum(len(s.contradictions) for s in judged),
                "inconsistent": sum(len(s.inconsistent) for s in judged),
                "cards_with_problems": sum(bool(s.problems) for s in judged),
                "not_judged": sum(bool(s.error) for s in judged)}

    def as_json(self) -> dict[str, Any]:
        return {"imported": [i.as_json() for i in self.imported],
                "duplicates": [d.as_json() for d in self.duplicates],
                "failed": [{"path": e.path, "line": e.line, "message": e.message, "hint": e.hint} for e in self.failed],
                "statements": self.totals()}


def _unique_slug(slug: str, taken: set[str]) -> str:
    if slug not in taken:
        return slug
    n = 2
    while f"{slug}-{n}" in taken:
        n += 1
    return f"{slug}-{n}"


def existing_titles(out_dir: Path) -> dict[TitleKey, str]:
    """The slug of each card file already in ``out_dir``, by title: a re-export of one of them updates that file."""
    found: dict[TitleKey, str] = {}
    for path in sorted(out_dir.glob("*.md")) if out_dir.is_dir() else []:
        try:
            doc = load_card_file(path)
        except CardFileError:
            continue  # not a card file of ours: left alone
        found.setdefault(title_key(doc.title), doc.slug)
    return found


def import_one(source: Path, out_dir: Path, *, title: LangText | None = None, slug: str = "",
               taken: set[str] | None = None, force: bool = False, parsed: RawCard | None = None,
               existing: dict[TitleKey, str] | None = None) -> Imported:
    """Parse one raw card and write its card file; raises :class:`CardFileError` and writes nothing.
    A card whose title matches one in ``existing`` (the folder's cards) keeps that card's slug and
    rewrites its file: a changed re-export updates the card instead of adding a copy."""
    name = str(source)
    raw = parsed or parse_raw_bytes(read_raw(source), name, title=title, slug=slug)
    doc = raw.doc
    taken = taken if taken is not None else set()
    known = (existing or {}).get(title_key(doc.title)) if not slug else None
    if known is not None and known not in taken:
        doc = doc.model_copy(update={"slug": known})
    elif not slug and doc.slug in taken:
        doc = doc.model_copy(update={"slug": _unique_slug(doc.slug, taken)})
    target = out_dir / f"{doc.slug}.md"
    if target.exists() and not force and known != doc.slug:
        raise CardFileError(name, f"{target} already exists",
                            hint="pass --force to overwrite it, --slug for another name, or another --out")
    text = dump_card(doc)
    if load_card_text(text, str(target)) != doc:  # never write a file that would not load back the same
        raise CardFileError(name, "the card does not survive a write/read round trip (importer bug)")
    write_atomically(target, text)
    taken.add(doc.slug)
    return Imported(source=source, written=target, slug=doc.slug, notes=raw.notes, title=doc.title,
                    updated=known == doc.slug, title_from=raw.title_from)


@dataclass
class _Parsed:
    """Pass one's result for a raw file: its card (``raw``), or the earlier file it repeats byte for byte."""

    source: Path
    raw: RawCard | None = None
    repeats: int = -1  # index of the earlier _Parsed with the same bytes
    slug: str = ""  # the slug given for it (titles table or --slug)


def _parse_all(files: list[Path], titles: dict[str, TitleRow] | None, title: LangText | None, slug: str,
               report: ImportReport, progress: Progress | None) -> list[_Parsed]:
    parsed: list[_Parsed] = []
    by_digest: dict[str, int] = {}
    for source in progress.each("importing", files, unit="raw cards") if progress else files:
        row = row_for(titles, source) if titles else None
        card_title, card_slug = (row.title, row.slug) if row else (title, slug)
        try:
            data = read_raw(source)
            digest = hashlib.sha256(data).hexdigest()
            if digest in by_digest:
                parsed.append(_Parsed(source, repeats=by_digest[digest]))
                continue
            raw = parse_raw_bytes(data, str(source), title=card_title, slug=card_slug)
            by_digest[digest] = len(parsed)
            parsed.append(_Parsed(source, raw, slug=card_slug))
        except CardFileError as exc:
            report.failed.append(exc)
        except (OSError, ValueError) as exc:  # a disk problem or an unforeseen value: one line, no traceback
            report.failed.append(CardFileError(str(source), f"{type(exc).__name__}: {exc}"))
    return parsed


def _retitle(parsed: list[_Parsed], known: set[TitleKey]) -> None:
    """Give every card whose title was not given the title :func:`choose_titles` finds (link anchor, subject …)."""
    cards = [(k, p.raw) for k, p in enumerate(parsed) if p.raw is not None]
    chosen = choose_titles([raw.doc for _, raw in cards], [parsed[k].source.name for k, _ in cards],
                           [raw.title_derived for _, raw in cards], known)
    for (k, raw), derived in zip(cards, chosen, strict=True):
        if derived is None:
            continue
        slug = parsed[k].slug or slugify(derived.title.en) or raw.doc.slug
        doc = raw.doc.model_copy(update={"title": derived.title, "slug": slug})
        parsed[k].raw = RawCard(doc=doc, title_derived=True, notes=[derived.note()],
                                title_from=derived.how + (f" in {derived.by}" if derived.by else ""))


def import_paths(paths: Iterable[Path], out_dir: Path, *, title: LangText | None = None, slug: str = "",
                 force: bool = False, progress: Progress | None = None,
                 titles: dict[str, TitleRow] | None = None, deck_dir: Path | None = None) -> ImportReport:
    """Import every raw card under ``paths`` into ``out_dir``; bad files are reported, not raised.
    A file byte-identical to one imported before it, or with the same zh + en title, is written once
    (:class:`Duplicate` names which file it repeats). ``titles`` (a titles table, by file) gives a file's title
    and slug; the other titles are derived over the whole batch (:mod:`app.cards.subject_titles`), never taking
    a link anchor that is the title of a card in ``out_dir`` or ``deck_dir`` (the bundled deck by default).
    ``progress`` ticks once per raw file."""
    files, errors = raw_files(paths)
    report = ImportReport(failed=errors)
    out_dir.mkdir(parents=True, exist_ok=True)
    existing = existing_titles(out_dir)
    if deck_dir is None:
        from app.core.config import settings

        deck_dir = settings.CARDS_DIR
    known = set(existing) | (set(existing_titles(deck_dir)) if deck_dir.resolve() != out_dir.resolve() else set())
    parsed = _parse_all(files, titles, title, slug, report, progress)
    _retitle(parsed, known)
    taken: set[str] = set()
    written: dict[int, Imported] = {}
    by_title: dict[TitleKey, Imported] = {}
    for k, item in enumerate(parsed):
        source = item.source
        if item.raw is None:
            first = written.get(item.repeats)
            if first is not None:
                report.duplicates.append(Duplicate(source, first.source, first.slug, "byte-identical"))
            else:
                report.failed.append(CardFileError(str(source), f"repeats {parsed[item.repeats].source}, "
                                                                "which was not imported"))
            continue
        key = title_key(item.raw.doc.title)
        if key in by_title:
            first = by_title[key]
            report.duplicates.append(Duplicate(source, first.source, first.slug, "same title"))
            continue
        try:
            done = import_one(source, out_dir, taken=taken, force=force, parsed=item.raw, existing=existing,
                              slug=item.slug)
        except CardFileError as exc:
            report.failed.append(exc)
            continue
        except (OSError, ValueError) as exc:
            report.failed.append(CardFileError(str(source), f"{type(exc).__name__}: {exc}"))
            continue
        report.imported.append(done)
        written[k] = done
        by_title[key] = done
    return report


def judge_imported(report: ImportReport, progress: Progress | None = None) -> None:
    """Judge the statements of every card ``report`` wrote (``Imported.statements``); ``progress`` ticks per card."""
    items = report.imported
    for item in progress.each("judging", items, unit="cards") if progress else items:
        item.statements = judge_card_file(item.written)
