"""Review items follow the cards: derived on sync, retired (never deleted) when their source goes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.deck.sync import sync_cards
from app.items.items import faces, item_specs, pitfall_statements
from app.models import ItemState, ReviewItem, ReviewLog
from app.srs.prefs import Prefs
from tests.utils.review import engine_answer, engine_next
from tests.utils.srs_cards import make_card, new_user_id, write_deck

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)


def test_specs_per_card() -> None:
    specs = item_specs(make_card("zero-sharding", follow_ups=2, pitfalls=(1, 2), drills=True))
    keys = [(s.kind, s.key, s.lang) for s in specs]
    # one item per pitfall: the i-th zh and en bullets are one (asked once in both-language mode)
    assert keys[:5] == [("card", "card", ""), ("followup", "q1", ""), ("followup", "q2", ""),
                        ("pitfall", "pitfall-1", ""), ("pitfall", "pitfall-2", "en")]
    assert [k for k in keys if k[0] == "drill"][0] == ("drill", "memory-ddp", "")
    assert len(specs) == 5 + 8
    assert len(item_specs(make_card("plain", follow_ups=0, pitfalls=(0, 0)))) == 1


def test_pitfall_bullets() -> None:
    text = "- ⚠️ 以为 ZeRO 免费\n  （通信增加）\n* second\n1. third"
    assert pitfall_statements(text) == ["⚠️ 以为 ZeRO 免费 （通信增加）", "second", "third"]
    assert pitfall_statements("One paragraph\nwrapped.") == ["One paragraph wrapped."]
    assert pitfall_statements("  ") == []


def test_followup_without_answer_shows_the_section_that_answers_it() -> None:
    from app.cards.cardfile import dump_card
    from app.cards.schema import CardDoc

    data = make_card("ring", follow_ups=0).model_dump()
    data["follow_ups"] = [{"id": "why-bandwidth", "question": {"en": "Why does the trade-off favour bandwidth?"}}]
    data["sections"]["tradeoffs"] = {"zh": "带宽", "en": "The trade-off: bandwidth favours ring all-reduce."}
    doc2 = CardDoc.model_validate(data)
    _front, back = faces(dump_card(doc2), doc2.slug, "followup", "why-bandwidth")
    assert "ring all-reduce" in back.en and "Summary of ring" in back.en


def test_editing_a_card_keeps_history(engine: Engine, tmp_path: Path) -> None:
    deck = tmp_path / "cards"
    sync_cards(engine, write_deck(deck, [make_card("zero", follow_ups=2, pitfalls=(0, 1))]))
    uid = new_user_id(engine, "ana")
    with Session(engine) as s:
        items = {i.key: i.id for i in s.exec(select(ReviewItem))}
    for key in ("q1", "q2"):
        engine_answer(engine, uid, item_id=items[key] or 0, rating=3, now=T0)

    edited = make_card("zero", follow_ups=3, pitfalls=(0, 1)).model_dump()
    edited["follow_ups"] = [f for f in edited["follow_ups"] if f["id"] != "q2"]  # q2 removed, q3 added
    edited["follow_ups"][0]["question"]["en"] = "Reworded follow-up 1?"
    from app.cards.schema import CardDoc

    sync_cards(engine, write_deck(deck, [CardDoc.model_validate(edited)]))
    with Session(engine) as s:
        after = {i.key: i for i in s.exec(select(ReviewItem))}
        assert after["q1"].id == items["q1"] and not after["q1"].retired
        assert after["q2"].id == items["q2"] and after["q2"].retired
        assert not after["q3"].retired
        assert len(s.exec(select(ReviewLog)).all()) == 2
        assert len(s.exec(select(ItemState)).all()) == 2
        front, _ = faces(_card_text(s), "zero", "followup", "q1")
        assert "Reworded" in front.en
        nxt = engine_next(engine, uid, T0, Prefs(bury_siblings=False))  # (else q1's siblings wait for tomorrow)
    assert nxt["item"]["key"] != "q2"  # a retired item is never offered

    sync_cards(engine, write_deck(deck, [make_card("zero", follow_ups=2, pitfalls=(0, 1))]))  # q2 is back
    with Session(engine) as s:
        q2 = s.exec(select(ReviewItem).where(ReviewItem.key == "q2")).one()
        assert q2.id == items["q2"] and not q2.retired
        assert s.exec(select(ItemState).where(ItemState.item_id == q2.id)).one().reps == 1


def _card_text(s: Session) -> str:
    from app.models import Card

    return s.exec(select(Card).where(Card.slug == "zero")).one().source_text
