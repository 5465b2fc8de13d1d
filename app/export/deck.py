"""The deck as exporters see it: non-retired cards from the database as ``CardDoc``s, in a stable
order (module, topic, slug), plus the optional verification verdicts per card slug."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session, col, select

from app.cards.cardfile import load_card_text
from app.cards.schema import CardDoc, Label, LangText
from app.models.card import Card
from app.verification.store import card_verdicts, latest_verdicts_by_card

# slug -> verdict dicts {claim_id, verdict, text_zh, text_en, predicted, measured, condition, reason_zh, reason_en}
Verdicts = Mapping[str, Sequence[Mapping[str, Any]]]
class UnknownCardError(LookupError):
    """No live card has this slug."""

    def __init__(self, slug: str) -> None:
        self.slug = slug
        super().__init__(f"no card with slug {slug!r}; list the deck with GET /api/cards")


def sort_key(doc: CardDoc) -> tuple[bool, str, str, str, bool, str, str, str, str]:
    """Module, topic, slug; cards without a module or topic come after the others."""
    return (doc.module.is_empty() and not doc.module.code, doc.module.code, doc.module.en, doc.module.zh,
            doc.topic.is_empty() and not doc.topic.code, doc.topic.code, doc.topic.en, doc.topic.zh, doc.slug)


def sorted_docs(docs: Sequence[CardDoc]) -> list[CardDoc]:
    return sorted(docs, key=sort_key)


def load_docs(session: Session) -> list[CardDoc]:
    """Every live card, parsed back from the file text stored at sync time, in export order."""
    cards = session.exec(select(Card).where(col(Card.retired).is_(False)).order_by(col(Card.slug)))
    return sorted_docs([load_card_text(card.source_text, card.slug) for card in cards])


def load_outline(session: Session) -> list[CardDoc]:
    """Every live card with only what a vault layout needs (slug, titles, module, topic), read from
    columns without parsing the card text: cheap enough for a single-note request."""
    rows = session.exec(select(Card).where(col(Card.retired).is_(False)).order_by(col(Card.slug)))
    return sorted_docs([CardDoc(slug=c.slug, title=LangText(zh=c.title_zh, en=c.title_en),
                                module=Label(code=c.module_code, zh=c.module_zh, en=c.module_en),
                                topic=Label(code=c.topic_code, zh=c.topic_zh, en=c.topic_en))
                        for c in rows])


def load_doc(session: Session, slug: str) -> CardDoc:
    """One live card, or :class:`UnknownCardError`."""
    card = session.exec(select(Card).where(Card.slug == slug, col(Card.retired).is_(False))).first()
    if card is None:
        raise UnknownCardError(slug)
    return load_card_text(card.source_text, card.slug)


VERDICT_FIELDS = ("verdict", "text_zh", "text_en", "predicted", "measured", "condition", "reason_zh",
                  "reason_en", "evaluated", "counterexamples", "method")


def verdict_dict(row: Any) -> dict[str, Any]:
    """A stored verdict (an object with ``claim_key`` or ``claim_id`` and the verdict fields) as a dict."""
    out = {"claim_id": getattr(row, "claim_id", None) or getattr(row, "claim_key", "")}
    out.update({name: getattr(row, name, None) for name in VERDICT_FIELDS})
    return out


def load_verdicts(session: Session) -> dict[str, list[dict[str, Any]]]:
    """The latest verification verdicts per card slug (none for cards never verified)."""
    by_card = latest_verdicts_by_card(session)
    psi = {slug: cv.psi for slug, cv in card_verdicts(session).items()}
    return {slug: [verdict_dict(v) | {"psi": psi.get(slug)} for v in rows] for slug, rows in by_card.items()}
