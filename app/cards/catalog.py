"""Reading the deck from the database: filtered lists, one card in full, the link graph.

Pure queries on a session, portable across SQLite and PostgreSQL (no JSON operators: the tag filter
runs in Python over the light (id, tags) rows, which is cheap at the deck's ~1,000 cards).
Problems raise :class:`CardNotFoundError` / :class:`InvalidFilterError`; routes turn them into
404 / 422.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import ColumnElement, func, or_
from sqlalchemy.orm import load_only
from sqlmodel import Session, col, select

from app.cards.schema import DIFFICULTIES, SECTION_TITLES
from app.models.card import Card, CardClaim, CardFollowUp, CardLink, CardSection
from app.render.markdown import render_markdown
from app.schemas.cards import (
    CardDetail,
    CardSummary,
    ClaimPublic,
    FollowUpPublic,
    LabelPublic,
    LangTextPublic,
    LinkPublic,
    RenderedText,
    SectionPublic,
)

_Row = TypeVar("_Row", CardSection, CardFollowUp, CardLink, CardClaim)
LANG_CHOICES = {"zh": ("zh",), "en": ("en",), "both": ("zh", "en")}
MAX_LIMIT = 200
# A search is one LIKE per distinct word: SQLite refuses an expression tree deeper than 1,000, and a long
# query costs every card a scan per word. The length bound is in the API schema; it caps the words too.
MAX_QUERY_CHARS = 256
MAX_QUERY_WORDS = MAX_QUERY_CHARS // 2  # "a b c ...": the most words 256 characters can hold


class CardNotFoundError(LookupError):
    def __init__(self, slug: str) -> None:
        self.slug = slug
        super().__init__(f"no card with slug '{slug}'")


class InvalidFilterError(ValueError):
    """A query parameter with a value we cannot use; the message says which and what is allowed."""


@dataclass(frozen=True)
class CardFilter:
    module: str | None = None  # module code, zh or en name (case-insensitive)
    topic: str | None = None  # topic code, zh or en name (case-insensitive)
    difficulty: str | None = None  # easy | medium | hard
    tag: str | None = None  # exact tag
    q: str | None = None  # words that must all appear (substring, case-insensitive, zh or en)
    include_retired: bool = False

    def words(self) -> list[str]:
        """The distinct lower-case words of ``q``, in order."""
        return list(dict.fromkeys((self.q or "").lower().split()))

    def validate(self) -> CardFilter:
        if self.q is not None and len(self.q) > MAX_QUERY_CHARS:
            raise InvalidFilterError(f"the search has {len(self.q)} characters; use at most {MAX_QUERY_CHARS} "
                                     "(a few distinctive words find a card)")
        if len(self.words()) > MAX_QUERY_WORDS:
            raise InvalidFilterError(f"the search has {len(self.words())} words; use at most {MAX_QUERY_WORDS}")
        if self.difficulty is not None and self.difficulty not in DIFFICULTIES:
            raise InvalidFilterError(
                f"difficulty '{self.difficulty}' is not one of {', '.join(DIFFICULTIES)}")
        return self


def parse_langs(lang: str) -> tuple[str, ...]:
    try:
        return LANG_CHOICES[lang]
    except KeyError:
        raise InvalidFilterError(f"lang '{lang}' is not one of zh, en, both") from None


def _label_match(value: str, *columns: object) -> ColumnElement[bool]:
    wanted = value.strip().lower()
    return or_(*(func.lower(c) == wanted for c in columns))


def _conditions(f: CardFilter) -> list[ColumnElement[bool]]:
    conds: list[ColumnElement[bool]] = []
    if not f.include_retired:
        conds.append(col(Card.retired).is_(False))
    if f.module:
        conds.append(_label_match(f.module, Card.module_code, Card.module_zh, Card.module_en))
    if f.topic:
        conds.append(_label_match(f.topic, Card.topic_code, Card.topic_zh, Card.topic_en))
    if f.difficulty:
        conds.append(col(Card.difficulty) == f.difficulty)
    for word in f.words():
        conds.append(col(Card.search_text).contains(word, autoescape=True))
    return conds


ORDER = (col(Card.module_code), col(Card.module_en), col(Card.topic_code), col(Card.topic_en), col(Card.slug))


_NODE_FIELDS = ("id", "slug", "title_zh", "title_en", "module_code", "module_zh", "module_en", "topic_code",
                "topic_zh", "topic_en")
_SUMMARY_FIELDS = (*_NODE_FIELDS, "difficulty", "tags", "retired")


def find_cards(session: Session, f: CardFilter, *, limit: int | None = 50,
               offset: int = 0) -> tuple[list[Card], int]:
    """Cards matching ``f`` in (module, topic, slug) order, one page of them, and the total count."""
    f.validate()
    if limit is not None and not 1 <= limit <= MAX_LIMIT:
        raise InvalidFilterError(f"limit {limit} is out of range (use 1 to {MAX_LIMIT})")
    if offset < 0:
        raise InvalidFilterError(f"offset {offset} is negative (use 0 or more)")
    rows = session.exec(select(Card.id, Card.tags).where(*_conditions(f)).order_by(*ORDER)).all()
    ids = [card_id for card_id, tags in rows if f.tag is None or f.tag in (tags or [])]
    page = ids[offset:] if limit is None else ids[offset:offset + limit]
    if not page:
        return [], len(ids)
    rows_needed = load_only(*(getattr(Card, name) for name in _SUMMARY_FIELDS))  # not the card file or search text
    by_id = {c.id: c for c in session.exec(select(Card).where(col(Card.id).in_(page)).options(rows_needed))}
    return [by_id[i] for i in page], len(ids)


def get_card(session: Session, slug: str) -> Card:
    card = session.exec(select(Card).where(Card.slug == slug)).first()
    if card is None:
        raise CardNotFoundError(slug)
    return card


def _lt(zh: str, en: str) -> LangTextPublic:
    return LangTextPublic(zh=zh, en=en)


def summary(card: Card) -> CardSummary:
    return CardSummary(
        slug=card.slug, title=_lt(card.title_zh, card.title_en),
        module=LabelPublic(code=card.module_code, zh=card.module_zh, en=card.module_en),
        topic=LabelPublic(code=card.topic_code, zh=card.topic_zh, en=card.topic_en),
        difficulty=card.difficulty,  # type: ignore[arg-type]
        tags=list(card.tags or []), retired=card.retired,
    )


def _rendered(zh: str, en: str, langs: Iterable[str]) -> RenderedText:
    text = {"zh": zh, "en": en}
    return RenderedText(text=_lt(zh, en), html={lang: render_markdown(text[lang]) for lang in langs})


def title_index(session: Session) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """Live cards' slug → (zh, en) title, and lower-cased zh/en title → slug."""
    slugs: dict[str, tuple[str, str]] = {}
    titles: dict[str, str] = {}
    live = select(Card.slug, Card.title_zh, Card.title_en).where(col(Card.retired).is_(False))
    for slug, zh, en in session.exec(live.order_by(Card.slug)):
        slugs[slug] = (zh, en)
        for t in (zh, en):
            if t.strip():
                titles.setdefault(t.strip().lower(), slug)
    return slugs, titles


def resolve_target(target_slug: str, title_zh: str, title_en: str, slugs: dict[str, tuple[str, str]],
                   titles: dict[str, str]) -> str | None:
    """The slug a link points to, if that card is in the deck: by slug, else by its zh or en title."""
    if target_slug:
        return target_slug if target_slug in slugs else None
    for t in (title_zh, title_en):
        if t.strip() and t.strip().lower() in titles:
            return titles[t.strip().lower()]
    return None


def resolve_link(link: CardLink, slugs: dict[str, tuple[str, str]], titles: dict[str, str]) -> str | None:
    return resolve_target(link.target_slug, link.target_title_zh, link.target_title_en, slugs, titles)


def _children(session: Session, table: type[_Row], card_id: int | None) -> Sequence[_Row]:
    return session.exec(
        select(table).where(col(table.card_id) == card_id)
        .order_by(col(table.position))
    ).all()


def card_detail(session: Session, card: Card, langs: Sequence[str] = ("zh", "en")) -> CardDetail:
    """The full card with every text rendered in ``langs``."""
    slugs, titles = title_index(session)
    sections = [
        SectionPublic(key=s.key, title=_lt(*SECTION_TITLES.get(s.key, (s.key, s.key))),
                      **_rendered(s.zh, s.en, langs).model_dump())
        for s in _children(session, CardSection, card.id)
    ]
    follow_ups = [
        FollowUpPublic(id=fu.key, question=_rendered(fu.question_zh, fu.question_en, langs),
                       answer=_rendered(fu.answer_zh, fu.answer_en, langs))
        for fu in _children(session, CardFollowUp, card.id)
    ]
    links = []
    for link in _children(session, CardLink, card.id):
        target = resolve_link(link, slugs, titles)
        links.append(LinkPublic(slug=link.target_slug, title=_lt(link.target_title_zh, link.target_title_en),
                                resolved_slug=target, resolved_title=_lt(*slugs[target]) if target else None))
    claims = [
        ClaimPublic(id=c.key, section=c.section, asserts=c.asserts, reading=c.reading,
                    **_rendered(c.text_zh, c.text_en, langs).model_dump())
        for c in _children(session, CardClaim, card.id)
    ]
    return CardDetail(**summary(card).model_dump(), sections=sections, follow_ups=follow_ups, links=links,
                      claims=claims, source=card.source_text)
