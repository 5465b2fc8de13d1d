"""``proofdeck sync``: load ``cards/`` into the database in one transaction.

Unchanged cards (same content hash) are left alone, edited cards are updated in place (same row,
same id, so review history survives), removed cards are retired, and any invalid file aborts the
whole sync with nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel, col, delete, select

from app.cards.cardfile import content_hash, load_card_text
from app.cards.claim_lint import lint_claims
from app.cards.schema import CardDoc
from app.cards.statement_lint import statement_notes, strict_errors
from app.core.db import new_session
from app.core.progress import Progress
from app.items.items import refresh_items_bulk, retire_card_items
from app.models.card import Card, CardClaim, CardFollowUp, CardLink, CardSection, utcnow
from app.models.clock import deck_changed
from app.render.math import math_problems
from verify.reading.cardfile import CardFileError, read_text

CHILD_TABLES: tuple[Any, ...] = (CardSection, CardFollowUp, CardLink, CardClaim)


class SyncError(Exception):
    """The deck has invalid files; nothing was written."""

    def __init__(self, errors: list[CardFileError]) -> None:
        self.errors = errors
        super().__init__(f"{len(errors)} invalid card file(s); database unchanged:\n" + "\n".join(map(str, errors)))


@dataclass
class SyncReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    math_fallbacks: list[str] = field(default_factory=list)  # "slug: section/lang: $tex$: reason"
    claim_notes: list[str] = field(default_factory=list)  # "mismatch FILE: claim ID: …" / "stale …"

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.retired)


def card_files(cards_dir: Path) -> list[Path]:
    """Card files in a folder: every ``*.md`` except README.md, sorted."""
    return sorted(p for p in cards_dir.glob("*.md") if p.name.lower() != "readme.md")


@dataclass(frozen=True)
class CardSource:
    """One parsed card file: where it is, its text, and the card it holds."""

    path: Path
    text: str
    doc: CardDoc


def load_deck(cards_dir: Path, notes: list[str] | None = None, *,
              stored: Callable[[CardDoc, Path, str], bool] | None = None,
              progress: Progress | None = None, strict: bool = False) -> list[CardSource]:
    """Parse every card file; raise :class:`SyncError` listing every bad one (claims' asserts included).

    ``notes`` receives what is wrong with claims but does not stop a sync (mismatch, stale).
    ``stored(doc, path, text)``: whether the database already holds exactly this card; its claims are
    not linted again (the server's start-up sync: linting the bundled deck's 417 asserts with sympy
    costs seconds, and a card that is stored unchanged is not written). ``progress`` gets a step that
    ticks once per file read. ``notes`` also receives each refuted or contradictory statement that no claim
    annotates (``app.cards.statement_lint``); ``strict`` makes them errors."""
    if not cards_dir.is_dir():
        raise SyncError([CardFileError(str(cards_dir), "cards folder does not exist",
                                       hint="set PROOFDECK_CARDS_DIR to a folder of card files")])
    docs: list[CardSource] = []
    errors: list[CardFileError] = []
    seen: dict[str, Path] = {}
    files = card_files(cards_dir)
    for path in progress.each("reading", files, unit="card files") if progress else files:
        try:
            text = read_text(path)
            doc = load_card_text(text, str(path))
        except CardFileError as exc:
            errors.append(exc)
            continue
        if doc.claims and not (stored is not None and stored(doc, path, text)):
            bad, card_notes = lint_claims(text, str(path), with_notes=notes is not None)
            errors += bad
            if notes is not None:
                notes += card_notes
            if bad:
                continue
        if strict:
            bad_statements = strict_errors(text, str(path))
            if bad_statements:
                errors += bad_statements
                continue
        elif notes is not None:
            notes += statement_notes(text, str(path))
        if doc.slug in seen:
            errors.append(CardFileError(str(path), f"slug '{doc.slug}' is already used by {seen[doc.slug].name}",
                                        hint="give each card its own slug"))
            continue
        seen[doc.slug] = path
        docs.append(CardSource(path, text, doc))
    if errors:
        raise SyncError(errors)
    return docs


def search_text(doc: CardDoc) -> str:
    parts = [doc.slug, doc.title.zh, doc.title.en, doc.module.zh, doc.module.en, doc.module.code,
             doc.topic.zh, doc.topic.en, *doc.tags]
    for text in doc.sections.values():
        parts += [text.zh, text.en]
    for fu in doc.follow_ups:
        parts += [fu.question.zh, fu.question.en, fu.answer.zh, fu.answer.en]
    return "\n".join(p for p in parts if p).lower()


def _apply(card: Card, source: CardSource, cards_dir: Path) -> None:
    """Copy a card file's metadata onto its row (same row across edits, so the id stays)."""
    doc, path = source.doc, source.path
    card.title_zh, card.title_en = doc.title.zh, doc.title.en
    card.module_code, card.module_zh, card.module_en = doc.module.code, doc.module.zh, doc.module.en
    card.topic_code, card.topic_zh, card.topic_en = doc.topic.code, doc.topic.zh, doc.topic.en
    card.difficulty = doc.difficulty
    card.tags = list(doc.tags)
    card.content_hash = content_hash(doc)
    card.source_path = path.relative_to(cards_dir).as_posix()
    card.source_text = source.text
    card.search_text = search_text(doc)
    card.retired = False
    card.updated_at = utcnow()


def _child_rows(card_id: int, doc: CardDoc) -> dict[type[SQLModel], list[dict[str, Any]]]:
    """The section, follow-up, link and claim rows of one card, as plain dicts for a bulk insert."""
    return {
        CardSection: [{"card_id": card_id, "key": key, "position": i, "zh": t.zh, "en": t.en}
                      for i, (key, t) in enumerate(doc.sections.items())],
        CardFollowUp: [{"card_id": card_id, "key": fu.id, "position": i, "question_zh": fu.question.zh,
                            "question_en": fu.question.en, "answer_zh": fu.answer.zh, "answer_en": fu.answer.en}
                       for i, fu in enumerate(doc.follow_ups)],
        CardLink: [{"card_id": card_id, "position": i, "target_slug": link.slug, "target_title_zh": link.title.zh,
                        "target_title_en": link.title.en} for i, link in enumerate(doc.links)],
        CardClaim: [{"card_id": card_id, "key": c.id, "position": i, "text_zh": c.text.zh, "text_en": c.text.en,
                         "section": c.section, "asserts": c.asserts, "reading": c.reading,
                         "unverifiable": c.unverifiable} for i, c in enumerate(doc.claims)],
    }


def _math_fallbacks(doc: CardDoc) -> list[str]:
    out = []
    texts = [(f"{key}/{lang}", getattr(t, lang)) for key, t in doc.sections.items() for lang in ("zh", "en")]
    texts += [(f"follow-up {fu.id}/{lang}", getattr(part, lang)) for fu in doc.follow_ups
              for part in (fu.question, fu.answer) for lang in ("zh", "en")]
    texts += [(f"claim {c.id}/{lang}", getattr(c.text, lang)) for c in doc.claims for lang in ("zh", "en")]
    for where, text in texts:
        for tex, reason in math_problems(text):
            out.append(f"{doc.slug}: {where}: ${tex}$: {reason}")
    return out


def _stored(card: Card | None, doc: CardDoc, path: Path, text: str, cards_dir: Path) -> bool:
    """Whether ``card`` (a row) holds exactly this file's card: a sync leaves it alone."""
    return (card is not None and card.content_hash == content_hash(doc) and not card.retired
            # a renamed or reformatted file is a change too: source_path / source_text follow it
            and card.source_path == path.relative_to(cards_dir).as_posix() and card.source_text == text)


def sync_cards(engine: Engine, cards_dir: Path, *, claim_notes: bool = True,
               progress: Progress | None = None, strict: bool = False) -> SyncReport:
    """Load every card file into the database; all or nothing.

    ``claim_notes=False`` skips listing mismatch / stale claims (the server's start-up sync: they cost
    seconds of LaTeX parsing and only ``proofdeck sync`` prints them); errors stop the sync either way.
    ``progress`` shows the steps: reading (a tick per file), then writing (one transaction). ``strict``: a
    card with a refuted or contradictory statement stops the sync like an invalid one."""
    report = SyncReport()
    if claim_notes:  # `proofdeck sync`: every card is linted, and its notes listed
        docs = load_deck(cards_dir, report.claim_notes, progress=progress, strict=strict)
    else:  # the start-up sync lints only what it may write: cards not stored as they are
        with new_session(engine) as session:
            before = {c.slug: c for c in session.exec(select(Card))}
        docs = load_deck(cards_dir, stored=lambda doc, path, text: _stored(before.get(doc.slug), doc, path, text,
                                                                           cards_dir), progress=progress)
    if progress:
        progress.step("writing the cards")
    with new_session(engine) as session, session.begin():
        existing = {c.slug: c for c in session.exec(select(Card))}
        changed: list[tuple[Card, CardSource]] = []
        for source in docs:
            doc = source.doc
            card = existing.get(doc.slug)
            if _stored(card, doc, source.path, source.text, cards_dir):
                report.unchanged.append(doc.slug)
                continue
            # formulas that fall back to TeX are reported when a card is added or changed
            report.math_fallbacks += _math_fallbacks(doc)
            (report.updated if card else report.added).append(doc.slug)
            card = card or Card(slug=doc.slug)
            _apply(card, source, cards_dir)
            session.add(card)
            changed.append((card, source))
        session.flush()  # assigns ids to new cards
        ids = [card.id for card, _ in changed]
        rows: dict[type[SQLModel], list[dict[str, Any]]] = {t: [] for t in CHILD_TABLES}
        for card, source in changed:
            assert card.id is not None
            for table, table_rows in _child_rows(card.id, source.doc).items():
                rows[table] += table_rows
        for table in CHILD_TABLES:
            for chunk in range(0, len(ids), 500):
                session.exec(delete(table).where(col(table.card_id).in_(ids[chunk:chunk + 500])))
            if rows[table]:
                session.execute(insert(table), rows[table])
        present = {source.doc.slug for source in docs}
        for slug, card in sorted(existing.items()):
            if slug not in present and not card.retired:
                retire_card_items(session, card)  # its review items leave the queues, history kept
                card.retired = True
                card.updated_at = utcnow()
                session.add(card)
                report.retired.append(slug)
        # review items keyed by (card, kind, key): an edited card keeps its items' history (after the
        # retirements: the ZeRO drills' card is chosen among the cards that stay)
        refresh_items_bulk(session, [(card, source.doc) for card, source in changed],
                           cards_retired=bool(report.retired))
        if report.added or report.updated or report.retired:
            deck_changed(session)  # in-memory review queues: this process drops them, others notice
    return report
