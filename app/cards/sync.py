"""``proofdeck sync``: load ``cards/`` into the database in one transaction.

Unchanged cards (same content hash) are left alone, edited cards are updated in place (same row,
same id, so review history survives), removed cards are retired, and any invalid file aborts the
whole sync with nothing changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, delete, select

from app.cards.cardfile import content_hash, dump_card, load_card_file
from app.cards.errors import CardFileError
from app.cards.schema import CardDoc
from app.models.card import Card, CardClaim, CardFollowUp, CardLink, CardSection, utcnow
from app.render.math import math_problems
from app.srs.items import refresh_items, retire_card_items


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

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.retired)


def card_files(cards_dir: Path) -> list[Path]:
    """Card files in a folder: every ``*.md`` except README.md, sorted."""
    return sorted(p for p in cards_dir.glob("*.md") if p.name.lower() != "readme.md")


def load_deck(cards_dir: Path) -> list[tuple[Path, CardDoc]]:
    """Parse every card file; raise :class:`SyncError` listing every bad one."""
    if not cards_dir.is_dir():
        raise SyncError([CardFileError(str(cards_dir), "cards folder does not exist",
                                       hint="set PROOFDECK_CARDS_DIR to a folder of card files")])
    docs: list[tuple[Path, CardDoc]] = []
    errors: list[CardFileError] = []
    seen: dict[str, Path] = {}
    for path in card_files(cards_dir):
        try:
            doc = load_card_file(path)
        except CardFileError as exc:
            errors.append(exc)
            continue
        if doc.slug in seen:
            errors.append(CardFileError(str(path), f"slug '{doc.slug}' is already used by {seen[doc.slug].name}",
                                        hint="give each card its own slug"))
            continue
        seen[doc.slug] = path
        docs.append((path, doc))
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


def _apply(session: Session, card: Card, doc: CardDoc, path: Path, cards_dir: Path) -> None:
    card.title_zh, card.title_en = doc.title.zh, doc.title.en
    card.module_code, card.module_zh, card.module_en = doc.module.code, doc.module.zh, doc.module.en
    card.topic_code, card.topic_zh, card.topic_en = doc.topic.code, doc.topic.zh, doc.topic.en
    card.difficulty = doc.difficulty
    card.tags = list(doc.tags)
    card.content_hash = content_hash(doc)
    card.source_path = path.relative_to(cards_dir).as_posix()
    card.source_text = dump_card(doc)
    card.search_text = search_text(doc)
    card.retired = False
    card.updated_at = utcnow()
    session.add(card)
    session.flush()
    assert card.id is not None
    for table in (CardSection, CardFollowUp, CardLink, CardClaim):
        session.exec(delete(table).where(col(table.card_id) == card.id))
    for i, (key, text) in enumerate(doc.sections.items()):
        session.add(CardSection(card_id=card.id, key=key, position=i, zh=text.zh, en=text.en))
    for i, fu in enumerate(doc.follow_ups):
        session.add(CardFollowUp(card_id=card.id, key=fu.id, position=i, question_zh=fu.question.zh,
                                 question_en=fu.question.en, answer_zh=fu.answer.zh, answer_en=fu.answer.en))
    for i, link in enumerate(doc.links):
        session.add(CardLink(card_id=card.id, position=i, target_slug=link.slug,
                             target_title_zh=link.title.zh, target_title_en=link.title.en))
    for i, claim in enumerate(doc.claims):
        session.add(CardClaim(card_id=card.id, key=claim.id, position=i, text_zh=claim.text.zh,
                              text_en=claim.text.en, check=claim.check, section=claim.section))
    refresh_items(session, card, doc)  # review items keyed by (card, kind, key): history survives edits


def _math_fallbacks(doc: CardDoc) -> list[str]:
    out = []
    texts = [(f"{key}/{lang}", getattr(t, lang)) for key, t in doc.sections.items() for lang in ("zh", "en")]
    texts += [(f"follow-up {fu.id}/{lang}", getattr(part, lang)) for fu in doc.follow_ups
              for part in (fu.question, fu.answer) for lang in ("zh", "en")]
    for where, text in texts:
        for tex, reason in math_problems(text):
            out.append(f"{doc.slug}: {where}: ${tex}$: {reason}")
    return out


def sync_cards(engine: Engine, cards_dir: Path) -> SyncReport:
    """Load every card file into the database; all or nothing."""
    docs = load_deck(cards_dir)
    report = SyncReport()
    with Session(engine) as session, session.begin():
        existing = {c.slug: c for c in session.exec(select(Card))}
        for path, doc in docs:
            report.math_fallbacks += _math_fallbacks(doc)
            card = existing.get(doc.slug)
            if card is None:
                _apply(session, Card(slug=doc.slug), doc, path, cards_dir)
                report.added.append(doc.slug)
            elif card.content_hash != content_hash(doc) or card.retired:
                _apply(session, card, doc, path, cards_dir)
                report.updated.append(doc.slug)
            else:
                report.unchanged.append(doc.slug)
        present = {doc.slug for _, doc in docs}
        for slug, card in sorted(existing.items()):
            if slug not in present and not card.retired:
                retire_card_items(session, card)  # its review items leave the queues, history kept
                card.retired = True
                card.updated_at = utcnow()
                session.add(card)
                report.retired.append(slug)
    return report
