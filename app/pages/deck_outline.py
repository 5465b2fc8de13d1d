"""The home page's outline of the deck: modules → topics → cards, folded to modules → topics on a large deck.

A deck of a thousand cards listed in full made ``GET /`` a 400 KB page that took 30× ``/healthz`` to build; above
:data:`FOLD_AT` live cards the unfiltered page lists each module's topics with their card counts, each one a link
to the same page filtered to that topic (which lists its cards as before). Filters and search are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from sqlalchemy import select as core_select
from sqlmodel import Session, col

from app.cards.catalog import ORDER
from app.models.card import Card
from app.schemas.cards import CardSummary, LabelPublic

FOLD_AT = 200  # live cards above which the unfiltered home page folds each topic to a link
STUDY_SLUGS = 20  # cards a topic's "study this topic" link starts with


@dataclass
class TopicGroup:
    label: LabelPublic
    cards: list[CardSummary] = field(default_factory=list)
    count: int = 0  # cards in the topic (folded: the cards themselves are not listed)
    slugs: list[str] = field(default_factory=list)  # the first STUDY_SLUGS slugs, for the study link
    href: str = ""  # folded: the home page filtered to this topic


@dataclass
class ModuleGroup:
    label: LabelPublic
    topics: list[TopicGroup] = field(default_factory=list)


def group_cards(cards: list[CardSummary]) -> list[ModuleGroup]:
    """Cards (already in module, topic, slug order) grouped module → topic."""
    modules: list[ModuleGroup] = []
    for card in cards:
        topic = _place(modules, card.module, card.topic)
        topic.cards.append(card)
        topic.count += 1
        if len(topic.slugs) < STUDY_SLUGS:
            topic.slugs.append(card.slug)
    return modules


def _place(modules: list[ModuleGroup], module: LabelPublic, topic: LabelPublic) -> TopicGroup:
    if not modules or modules[-1].label != module:
        modules.append(ModuleGroup(label=module))
    topics = modules[-1].topics
    if not topics or topics[-1].label != topic:
        topics.append(TopicGroup(label=topic))
    return topics[-1]


def _key(label: LabelPublic) -> str:
    """The value the filter selects take for a label (as ``_choices`` offers them)."""
    return label.code or label.en or label.zh


def folded_outline(session: Session) -> list[ModuleGroup]:
    """Every live card's module and topic, counted, without the cards: one query of seven short columns."""
    rows = session.connection().execute(
        core_select(*(col(getattr(Card, name)) for name in ("slug", "module_code", "module_zh", "module_en",
                                                             "topic_code", "topic_zh", "topic_en")))
        .where(col(Card.retired).is_(False)).order_by(*ORDER))
    modules: list[ModuleGroup] = []
    for slug, m_code, m_zh, m_en, t_code, t_zh, t_en in rows:
        module, topic_label = LabelPublic(code=m_code, zh=m_zh, en=m_en), LabelPublic(code=t_code, zh=t_zh, en=t_en)
        topic = _place(modules, module, topic_label)
        if not topic.count:
            query = {k: v for k, v in (("module", _key(module)), ("topic", _key(topic_label))) if v}
            topic.href = "/?" + urlencode(query) if query else ""  # no module, no topic: found by search
        topic.count += 1
        if len(topic.slugs) < STUDY_SLUGS:
            topic.slugs.append(slug)
    return modules
