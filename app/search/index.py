"""BM25 indexes over the live cards (``bm25s``), built from the database, one per deck revision.

Two indexes per language choice (zh, en, both):

- **cards**: one document per card: title (x3), tags and slug (x2), module and topic, follow-up questions
  (x2), sections and follow-up answers. Ranks the cards.
- **units**: one document per part of a card: its head (title + summary), each other section, each
  follow-up (question x2 + answer). Adds the best part's score to its card's (a question that matches one
  follow-up closely beats one whose words are spread over a whole card), picks the follow-up to show and
  where the snippet comes from.

Everything comes from the same rows on SQLite and PostgreSQL and is ranked here, in process, so both give
the same answers. An index is built on first use after the deck revision (``app.models.clock``, bumped by
every sync) moves, and at server start-up (:func:`warm`). No Chinese dictionary to load (bigrams,
:mod:`app.search.text`); texts' tokens are cached, so a rebuild after a sync tokenises only what changed
(README, "Matching", has the times). Each request reads the revision (one indexed row) to know.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import bm25s
import numpy as np
from sqlalchemy import select
from sqlalchemy.engine import Engine

from app.models import clock
from app.models.tables import CARDS, FOLLOW_UPS, SECTIONS
from app.search.text import tokens

K1, B = 1.2, 0.75  # the usual BM25 constants (Lucene's defaults)
LANG_FIELDS = {"zh": ("zh",), "en": ("en",), "both": ("zh", "en")}
TITLE_WEIGHT, TAG_WEIGHT, QUESTION_WEIGHT = 3, 2, 2


@dataclass(frozen=True, slots=True)
class Unit:
    """A part of a card: ``kind`` is head | section | follow_up, ``key`` the section key or follow-up id."""

    card: int  # position in SearchIndex.cards
    kind: str
    key: str
    zh: str  # the text a snippet is cut from
    en: str
    question_zh: str = ""  # follow-ups only
    question_en: str = ""


@dataclass(frozen=True, slots=True)
class CardRow:
    id: int
    slug: str
    title_zh: str
    title_en: str
    module_code: str
    module_zh: str
    module_en: str
    topic_code: str
    topic_zh: str
    topic_en: str
    difficulty: str
    tags: tuple[str, ...]


@dataclass
class Bm25:
    """A ``bm25s`` index over token lists, scoring a token list against every document."""

    model: Any
    vocab: dict[str, int]
    size: int

    @classmethod
    def build(cls, docs: Sequence[list[str]]) -> Bm25:
        # numbered in order of first use, then each document mapped through the finished vocabulary (C loops)
        vocab = {t: i for i, t in enumerate(dict.fromkeys(itertools.chain.from_iterable(docs)))}
        ids = [list(map(vocab.__getitem__, doc)) for doc in docs]
        model = bm25s.BM25(k1=K1, b=B, method="lucene")
        if vocab:
            # bm25s adds its own entry ("") to the vocabulary it is given: hand it a copy
            model.index(bm25s.tokenization.Tokenized(ids=ids, vocab=dict(vocab)), show_progress=False)
        return cls(model, vocab, len(docs))

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """Each document's BM25 score; a query token repeated counts once, unknown tokens score nothing."""
        known = sorted({self.vocab[t] for t in query if t in self.vocab})
        if not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self.model.get_scores_from_ids(known), dtype=np.float32)

    def postings(self) -> dict[str, list[tuple[int, float]]]:
        """token → [(document, its precomputed BM25 weight)], what the offline handbook ships."""
        m = self.model.scores
        names = {i: t for t, i in self.vocab.items()}
        # Python ints and floats once for the whole matrix (``tolist`` gives the same values as int()/float())
        indptr, docs, weights = (np.asarray(m[k]).tolist() for k in ("indptr", "indices", "data"))
        out: dict[str, list[tuple[int, float]]] = {}
        for tid in range(len(self.vocab)):
            lo, hi = indptr[tid], indptr[tid + 1]
            out[names[tid]] = list(zip(docs[lo:hi], weights[lo:hi], strict=True))
        return out


@dataclass
class SearchIndex:
    """The live cards at one deck revision, for one language choice."""

    rev: int
    lang: str
    cards: list[CardRow]
    units: list[Unit]
    card_bm25: Bm25
    unit_bm25: Bm25
    unit_card: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # each card's first unit


@dataclass(frozen=True, slots=True)
class CardText:
    """What the index reads of one card (from database rows, or from a card file for the handbook)."""

    row: CardRow
    sections: tuple[tuple[str, str, str], ...]  # (key, zh, en) in card order
    follow_ups: tuple[tuple[str, str, str, str, str], ...]  # (id, question zh, en, answer zh, en)


def _tok(parts: Sequence[str]) -> list[str]:
    return list(_text_tokens("\n".join(p for p in parts if p)))


@lru_cache(maxsize=65536)
def _text_tokens(text: str) -> tuple[str, ...]:
    """Cached by text: a rebuild after a sync tokenises only the texts that changed (incremental)."""
    return tuple(tokens(text))


def _pick(zh: str, en: str, langs: Sequence[str]) -> list[str]:
    return [zh] * ("zh" in langs) + [en] * ("en" in langs)


def index_cards(cards: Sequence[CardText], rev: int, lang: str) -> SearchIndex:
    """Index ``cards`` (ranked ties keep this order) for the language choice ``lang``."""
    langs = LANG_FIELDS[lang]
    units: list[Unit] = []
    card_docs: list[list[str]] = []
    unit_docs: list[list[str]] = []
    for i, card in enumerate(cards):
        r = card.row
        title = _tok(_pick(r.title_zh, r.title_en, langs))
        labels = (_tok([r.slug, *r.tags]) * TAG_WEIGHT
                  + _tok(_pick(r.module_zh, r.module_en, langs) + _pick(r.topic_zh, r.topic_en, langs)))
        doc = title * TITLE_WEIGHT + labels
        head: list[str] = list(title)
        head_text = (r.title_zh, r.title_en)
        for key, zh, en in card.sections:
            toks = _tok(_pick(zh, en, langs))
            doc += toks
            if key == "summary":
                head += toks
                head_text = (f"{r.title_zh}\n{zh}", f"{r.title_en}\n{en}")
            else:
                units.append(Unit(i, "section", key, zh, en))
                unit_docs.append(toks)
        units.append(Unit(i, "head", "", *head_text))
        unit_docs.append(head)
        for key, q_zh, q_en, a_zh, a_en in card.follow_ups:
            question = _tok(_pick(q_zh, q_en, langs))
            answer = _tok(_pick(a_zh, a_en, langs))
            doc += question * QUESTION_WEIGHT + answer
            units.append(Unit(i, "follow_up", key, f"{q_zh}\n{a_zh}", f"{q_en}\n{a_en}", q_zh, q_en))
            unit_docs.append(question * QUESTION_WEIGHT + answer)
        card_docs.append(doc)
    unit_card = np.array([u.card for u in units], dtype=np.int64)
    # a card's units are contiguous and every card has its head, so each card starts somewhere
    starts = np.searchsorted(unit_card, np.arange(len(cards)))
    return SearchIndex(rev, lang, [c.row for c in cards], units, Bm25.build(card_docs), Bm25.build(unit_docs),
                       unit_card, starts)


def read_cards(conn: Any) -> list[CardText]:
    """The live cards with their sections and follow-ups, in slug order (three queries)."""
    rows = conn.execute(select(CARDS).where(CARDS.c.retired.is_(False)).order_by(CARDS.c.slug)).all()
    live = {r.id for r in rows}
    sections: dict[int, list[tuple[str, str, str]]] = {}
    for s in conn.execute(select(SECTIONS).order_by(SECTIONS.c.card_id, SECTIONS.c.position)):
        if s.card_id in live:
            sections.setdefault(s.card_id, []).append((s.key, s.zh, s.en))
    follow_ups: dict[int, list[tuple[str, str, str, str, str]]] = {}
    for f in conn.execute(select(FOLLOW_UPS).order_by(FOLLOW_UPS.c.card_id, FOLLOW_UPS.c.position)):
        if f.card_id in live:
            follow_ups.setdefault(f.card_id, []).append(
                (f.key, f.question_zh, f.question_en, f.answer_zh, f.answer_en))
    return [CardText(CardRow(r.id, r.slug, r.title_zh, r.title_en, r.module_code, r.module_zh, r.module_en,
                             r.topic_code, r.topic_zh, r.topic_en, r.difficulty, tuple(r.tags or ())),
                     tuple(sections.get(r.id, ())), tuple(follow_ups.get(r.id, ())))
            for r in rows]


def build_index(conn: Any, rev: int, lang: str) -> SearchIndex:
    return index_cards(read_cards(conn), rev, lang)


class Indexes:
    """One engine's indexes: rebuilt for a language when the deck revision has moved since it was built."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._built: dict[str, SearchIndex] = {}
        self._lock = threading.Lock()

    def get(self, lang: str) -> SearchIndex:
        with self.engine.connect() as conn:
            rev = clock.read(conn, clock.DECK)[clock.DECK]
            found = self._built.get(lang)
            if found is not None and found.rev == rev:
                return found
            with self._lock:  # one build at a time; a request that waited finds it built
                found = self._built.get(lang)
                if found is None or found.rev != rev:
                    found = self._built[lang] = build_index(conn, rev, lang)
                return found


_registry: weakref.WeakKeyDictionary[Engine, Indexes] = weakref.WeakKeyDictionary()
_registry_lock = threading.Lock()


def indexes(engine: Engine) -> Indexes:
    with _registry_lock:
        found = _registry.get(engine)
        if found is None:
            found = _registry[engine] = Indexes(engine)
        return found


def warm(engine: Engine) -> None:
    """Build the default (``both``) index now: called at server start-up, after the start-up sync."""
    indexes(engine).get("both")
