"""Review items derived from a card, and what each one shows (front / back, zh and en).

A card yields: itself (``card``/``card``: its back is the key insights only), one item per follow-up
(``followup``/<follow-up id>), one item per pitfall (``pitfall``/``pitfall-2``: the i-th zh and i-th en
bullet are one pitfall, asked once in both-language mode; ``lang`` set only when one language has it),
whose front is the mistake ("what goes wrong, and why?") and whose back the consequence (the bullet's
part after ``⟹``, see :func:`split_pitfall`), a misconception drill per claim whose latest verdict is
refuted or conditional on a fact of the system, not on a reading of its wording
(``misconception``/<claim id>; its numbers come from the stored verdict, see :mod:`app.items.misconceptions`),
and the ZeRO drills (``drill``/``memory-zero2``) on the one card whose claims reference ZeRO checks most (see
``app.items.drills.ledger_owner``: a drill is defined once; the duplicates an older sync hung on other cards
are retired like any item whose source went, their reviews kept as history).
Sync calls :func:`refresh_items_bulk`; an item whose source disappears is retired, never deleted, so its history
stays; if it comes back it returns with its history.
"""

from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy import insert, update
from sqlmodel import Session, col, select

from app.cards.cardfile import load_card_text
from app.cards.pitfalls import split_pitfall
from app.cards.schema import SECTION_TITLES, CardDoc
from app.core.vocab import CARD_LANGS
from app.items import drills
from app.models.card import Card
from app.models.clock import deck_changed
from app.models.review import ItemSource, ItemState, ReviewItem
from app.render.markdown import render_markdown
from app.render.marks import Mark
from app.verification.learnable import drill_kind
from app.verification.present import marked_html

LANGS = CARD_LANGS
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$")


@dataclass(frozen=True)
class ItemSpec:
    kind: str
    key: str
    lang: str = ""


def pitfall_statements(text: str) -> list[str]:
    """The bullets of a pitfalls section (continuation lines joined); a bullet-less text is one statement."""
    items: list[str] = []
    for line in text.splitlines():
        m = _BULLET.match(line)
        if m:
            items.append(m.group(1).strip())
        elif line.strip() and items:
            items[-1] += " " + line.strip()
    if not items and text.strip():
        items = [" ".join(text.split())]
    return [i for i in items if i]


def pitfall_pairs(doc: CardDoc) -> list[tuple[str, str]]:
    """The card's pitfalls as (zh bullet, en bullet) pairs, by position; "" where a language has fewer."""
    pitfalls = doc.section("pitfalls")
    zh, en = pitfall_statements(pitfalls.zh), pitfall_statements(pitfalls.en)
    return [(zh[i] if i < len(zh) else "", en[i] if i < len(en) else "") for i in range(max(len(zh), len(en)))]


MISCONCEPTION_KINDS = ("refuted", "conditional")
PITFALL_PROMPT = {"zh": "这样做会出什么问题？为什么？", "en": "What goes wrong here, and why?"}
PITFALL_FALLBACK = {"zh": "这是本卡列出的常见陷阱（卡片未写明后果）。",
                    "en": "The card lists this as a pitfall (it does not say what follows)."}


def item_specs(doc: CardDoc, verdict_kinds: dict[str, str] | None = None,
               owns_ledger: bool | None = None) -> list[ItemSpec]:
    """``verdict_kinds``: claim id → the drill its latest verdict makes (see :func:`latest_verdict_kinds`);
    ``owns_ledger``: whether the card is the one the ZeRO drills belong to (None: judged from the card
    alone, ``app.items.drills.drill_keys``)."""
    specs = [ItemSpec("card", "card")]
    specs += [ItemSpec("followup", fu.id) for fu in doc.follow_ups]
    for i, (zh, en) in enumerate(pitfall_pairs(doc), start=1):
        specs.append(ItemSpec("pitfall", f"pitfall-{i}", "" if zh and en else ("zh" if zh else "en")))
    kinds = verdict_kinds or {}
    for c in doc.claims:
        if kinds.get(c.id) in MISCONCEPTION_KINDS:
            lang = "" if c.text.zh and c.text.en else ("zh" if c.text.zh else "en")
            specs.append(ItemSpec("misconception", c.id, lang))
    specs += [ItemSpec("drill", key)
              for key in drills.drill_keys(doc.slug, [c.asserts for c in doc.claims], owns_ledger)]
    return specs


def latest_verdict_kinds(session: Session) -> dict[str, dict[str, str]]:
    """slug → claim id → the drill its verdict in the latest finished run makes: "refuted" / "conditional",
    "" for none (a confirmed claim, or one conditional only on a reading of its wording) (one query)."""
    from app.verification.store import latest_verdicts_by_card

    return {slug: {v.claim_key: drill_kind(v) for v in rows} for slug, rows in latest_verdicts_by_card(session).items()}


def _chunks(ids: list[int], size: int = 500) -> list[list[int]]:
    return [ids[i:i + size] for i in range(0, len(ids), size)]


def _with_drill_candidates(session: Session, cards: list[tuple[Card, CardDoc]]) -> tuple[
        list[tuple[Card, CardDoc]], str | None]:
    """``cards`` plus every other live card that may hold the ZeRO drills (their owner may move when one
    card changes or retires), and the slug of the card that holds them (``app.items.drills.ledger_owner``)."""
    given = {card.id for card, _ in cards}
    out = list(cards)
    for card in session.exec(select(Card).where(col(Card.retired).is_(False))):
        if card.id not in given and drills.may_have_drills(card.source_text):
            out.append((card, card_doc(card.source_text, card.slug)))
    live = [(doc.slug, [c.asserts for c in doc.claims]) for card, doc in out if not card.retired]
    return out, drills.ledger_owner(live)


def refresh_items_bulk(session: Session, cards: list[tuple[Card, CardDoc]], *, cards_retired: bool = False) -> None:
    """Create, revive or retire each card's items to match its doc, in a few statements (inside the
    caller's transaction). ``cards_retired``: the caller retired cards just before (the ZeRO drills may
    move to another card even when no card changed)."""
    if not cards and not cards_retired:
        return
    cards, owner = _with_drill_candidates(session, cards)
    ids = [card.id for card, _ in cards if card.id is not None]
    assert len(ids) == len(cards), "cards must be flushed (have ids) before their items are derived"
    existing: dict[tuple[int, str, str], ReviewItem] = {}
    sources: dict[int, ItemSource] = {}
    for chunk in _chunks(ids):
        for i in session.exec(select(ReviewItem).where(col(ReviewItem.card_id).in_(chunk))):
            existing[(i.card_id, i.kind, i.key)] = i
        for src in session.exec(select(ItemSource).where(col(ItemSource.card_id).in_(chunk))):
            sources[src.card_id] = src
    new_rows: list[dict[str, object]] = []
    kinds = latest_verdict_kinds(session)
    for card, doc in cards:
        assert card.id is not None
        for pos, spec in enumerate(item_specs(doc, kinds.get(doc.slug), owns_ledger=doc.slug == owner)):
            item = existing.pop((card.id, spec.kind, spec.key), None)
            position = card.id * 1000 + pos
            if item is None:
                new_rows.append({"card_id": card.id, "kind": spec.kind, "key": spec.key, "lang": spec.lang,
                                 "position": position, "retired": False})
            elif (item.lang, item.position, item.retired) != (spec.lang, position, False):
                item.lang, item.position, item.retired = spec.lang, position, False
                session.add(item)
        source = sources.get(card.id) or ItemSource(card_id=card.id)
        source.content_hash = card.content_hash
        session.add(source)
    for item in existing.values():  # left over: their follow-up / pitfall / drill is gone
        if not item.retired:
            item.retired = True
            session.add(item)
    if new_rows:
        session.execute(insert(ReviewItem), new_rows)
    session.flush()
    for chunk in _chunks(ids):
        _sync_live(session, chunk)


def _sync_live(session: Session, card_ids: list[int]) -> None:
    """Copy each item's liveness onto the users' states (the denormalised ``ItemState.live``)."""
    for retired in (True, False):
        items = select(ReviewItem.id).where(col(ReviewItem.card_id).in_(card_ids),
                                            col(ReviewItem.retired).is_(retired))
        session.execute(update(ItemState).where(col(ItemState.item_id).in_(items)).values(live=not retired))


def retire_card_items(session: Session, card: Card) -> None:
    """A retired card's items leave every queue (rows and history stay; a re-added card revives them)."""
    assert card.id is not None
    session.execute(update(ReviewItem).where(col(ReviewItem.card_id) == card.id).values(retired=True))
    _sync_live(session, [card.id])
    source = session.get(ItemSource, card.id)
    if source is not None:
        source.content_hash = ""  # derive again if the card comes back
        session.add(source)


def refresh_stale_items(session: Session) -> int:
    """Refresh the items of every live card whose content changed since its items were derived.

    Sync calls :func:`refresh_items_bulk` itself; this catches cards synced by code that did not (an older
    sync, a bulk import) and runs at start-up and after an admin sync. Returns how many cards it fixed.
    """
    rows = session.exec(select(Card, ItemSource).outerjoin(ItemSource, col(ItemSource.card_id) == Card.id)).all()
    fixed = 0
    stale: list[tuple[Card, CardDoc]] = []
    for card, src in rows:
        if card.retired:
            if src is None or src.content_hash:
                retire_card_items(session, card)
                fixed += 1
        elif src is None or src.content_hash != card.content_hash:
            stale.append((card, card_doc(card.source_text, card.slug)))
    refresh_items_bulk(session, stale, cards_retired=bool(fixed))
    if fixed or stale:
        deck_changed(session)
    return fixed + len(stale)


def refresh_after_verdicts(session: Session) -> None:
    """A new report was stored: misconception drills follow the latest verdicts (commits)."""
    live = session.exec(select(Card).where(col(Card.retired).is_(False))).all()
    refresh_items_bulk(session, [(card, card_doc(card.source_text, card.slug)) for card in live])
    deck_changed(session)
    session.commit()


@lru_cache(maxsize=2048)
def card_doc(source_text: str, slug: str) -> CardDoc:
    return load_card_text(source_text, slug)


# ------------------------------------------------------------------ what an item shows

@dataclass(frozen=True)
class Face:
    """Rendered HTML (safe: through ``render_markdown``) per language; "" where a language is missing."""

    zh: str
    en: str


def _md(text: str) -> str:
    return str(render_markdown(text)) if text.strip() else ""


def _sections(doc: CardDoc, keys: tuple[str, ...], lang: str) -> str:
    parts = []
    for key in keys:
        text = getattr(doc.section(key), lang)
        if text.strip():
            heading = SECTION_TITLES[key][0 if lang == "zh" else 1]
            parts.append(f"### {heading}\n\n{text}")
    return "\n\n".join(parts)


_WORD = re.compile(r"[a-z0-9]{3,}|[\u4e00-\u9fff]")


def _terms(text: str) -> set[str]:
    chars = _WORD.findall(text.lower())
    cjk = [c for c in chars if len(c) == 1]
    return {c for c in chars if len(c) > 1} | {a + b for a, b in zip(cjk, cjk[1:], strict=False)}


def answering_sections(doc: CardDoc, question: str) -> tuple[str, ...]:
    """The card section (besides the summary) sharing most terms with a question that has no answer."""
    q = _terms(question)
    scored = []
    for key, text in doc.sections.items():
        if key == "summary":
            continue
        scored.append((len(q & _terms(text.zh + " " + text.en)), key))
    best = max(scored, default=(0, "insights"))
    return ("summary", best[1]) if best[0] > 0 else ("summary", "insights")


Marks = tuple[tuple[Mark, ...], tuple[Mark, ...]]  # (zh, en) verdict marks of the card's claims


@lru_cache(maxsize=8192)
def faces(source_text: str, slug: str, kind: str, key: str, marks: Marks = ((), ())) -> tuple[Face, Face]:
    """(front, back) of a non-drill item, cached by the card's text and its verdict marks (the claims'
    quoted words are marked where they occur, as on the card page)."""
    front, back = _faces(source_text, slug, kind, key)
    if not any(marks):
        return front, back
    doc = card_doc(source_text, slug)
    texts = _item_texts(doc, kind, key)
    out = []
    for face, part in ((front, 0), (back, 1)):
        marked = {}
        for i, lang in enumerate(LANGS):
            text = texts[part][lang]
            marked[lang] = marked_html(text, marks[i]) if text and getattr(face, lang) else getattr(face, lang)
        out.append(Face(**marked))
    return out[0], out[1]


def _item_texts(doc: CardDoc, kind: str, key: str) -> tuple[dict[str, str], dict[str, str]]:
    """The Markdown behind a card / follow-up item's front and back (for marking); {} parts are skipped."""
    empty = dict.fromkeys(LANGS, "")
    if kind == "card":
        return empty, {lang: _sections(doc, ("insights",), lang) for lang in LANGS}
    if kind == "followup":
        fu = next(f for f in doc.follow_ups if f.id == key)
        return ({"zh": fu.question.zh, "en": fu.question.en},
                {lang: atomic(getattr(fu.answer, lang), lang) for lang in LANGS})
    return empty, empty


BACK_LIMIT = 1200  # visible characters per language of an item's back (tested on the bundled deck)
_MORE = {"zh": "*（其余——算例、注意事项——见卡片的“追问”。）*",
         "en": "*(The rest — worked example, caveats — is in the card's follow-ups.)*"}


def visible_text(html_text: str) -> str:
    """What a reader sees of rendered HTML (tags and MathML annotations dropped)."""
    text = re.sub(r"<annotation[^>]*>.*?</annotation>", "", html_text, flags=re.DOTALL)
    return _html.unescape(re.sub(r"<[^>]+>", "", text))


def visible_length(html_text: str) -> int:
    """Characters a reader sees in rendered HTML."""
    return len(visible_text(html_text))


def atomic(text: str, lang: str) -> str:
    """``text`` cut after the last whole paragraph that keeps the back within :data:`BACK_LIMIT`, with a
    line saying the rest is on the card (a long answer is a defect of the item, not of the card)."""
    if visible_length(_md(text)) <= BACK_LIMIT:
        return text
    kept: list[str] = []
    room = BACK_LIMIT - visible_length(_md(_MORE[lang])) - 10
    for block in re.split(r"\n\s*\n", text):
        size = visible_length(_md(block))
        if kept and size > room:
            break
        kept.append(block)
        room -= size
    return "\n\n".join(kept + [_MORE[lang]])


def _faces(source_text: str, slug: str, kind: str, key: str) -> tuple[Face, Face]:
    doc = card_doc(source_text, slug)
    if kind == "card":
        front = Face(zh=_md(f"## {doc.title.zh}") if doc.title.zh else "",
                     en=_md(f"## {doc.title.en}") if doc.title.en else "")
        back = Face(**{lang: _md(_sections(doc, ("insights",), lang)) for lang in LANGS})
        return front, back
    if kind == "followup":
        fu = next(f for f in doc.follow_ups if f.id == key)
        front = Face(zh=_md(fu.question.zh), en=_md(fu.question.en))
        q = fu.question.zh + " " + fu.question.en
        back_text = {lang: atomic(getattr(fu.answer, lang) or _sections(doc, answering_sections(doc, q), lang), lang)
                     for lang in LANGS}
        return front, Face(**{lang: _md(back_text[lang]) for lang in LANGS})
    if kind == "pitfall":
        pair = dict(zip(LANGS, pitfall_pairs(doc)[int(key.rsplit("-", 1)[1]) - 1], strict=True))
        fronts, backs = {}, {}
        for lang in LANGS:
            mistake, consequence = split_pitfall(pair[lang]) if pair[lang] else ("", "")
            fronts[lang] = _md(f"{PITFALL_PROMPT[lang]}\n\n> {mistake}") if mistake else ""
            backs[lang] = _md(consequence or PITFALL_FALLBACK[lang]) if mistake else ""
        return Face(**fronts), Face(**backs)
    raise ValueError(f"no static faces for item kind {kind!r}")


def drill_faces(params: dict[str, object]) -> tuple[Face, Face]:
    q, s = drills.question(params), drills.solution(params)
    return Face(zh=_md(q["zh"]), en=_md(q["en"])), Face(zh=_md(s["zh"]), en=_md(s["en"]))
