"""``proofdeck sync`` and claims: bad asserts stop the sync with "FILE: claim ID: what (how)", nothing stored;
mismatched and stale claims are listed; asserts are stored with the claim."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.deck.sync import SyncError, sync_cards
from app.models.card import Card, CardClaim

SEED_CARD = Path(__file__).resolve().parents[2] / "cards" / "zero-sharding.md"
ASSERT_16 = "asserts: 'model_state_bytes(zero3) == 16*Psi/N'"


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    folder = tmp_path / "deck"
    folder.mkdir()
    shutil.copy(SEED_CARD, folder / SEED_CARD.name)
    return folder


def edit(deck: Path, old: str, new: str) -> Path:
    card = deck / SEED_CARD.name
    text = card.read_text(encoding="utf-8")
    assert old in text, old
    card.write_text(text.replace(old, new, 1), encoding="utf-8")
    return card


def test_sync_stores_asserts_and_reading(engine: Engine, deck: Path) -> None:
    report = sync_cards(engine, deck)
    assert report.added == ["zero-sharding"] and report.claim_notes == []
    with Session(engine) as s:
        rows = {c.key: c for c in s.exec(select(CardClaim))}
    assert rows["en-zero3-memory-16psi-over-n"].asserts == "model_state_bytes(zero3) == 16*Psi/N"
    assert "relative to ZeRO-1" in rows["zero2-memory-2x"].reading
    assert rows["zero3-10gbps-90pct-comm-bound"].unverifiable.startswith("a 10 Gbps link")


@pytest.mark.parametrize(("old", "new", "message"), [
    (ASSERT_16, "asserts: 'model_state_bytes(zero3) == 16*Psi/'", "claim en-zero3-memory-16psi-over-n: asserts"),
    (ASSERT_16, "asserts: 'memory_bytes(zero3) == 16*Psi/N'", "unknown name 'memory_bytes'"),
    (ASSERT_16, "asserts: 'model_state_bytes(zero3) == 16*Phi/N'", "unknown name 'Phi'"),
    (ASSERT_16, "asserts: 'model_state_bytes(zero9) == 16*Psi/N'", "unknown name 'zero9'"),
    ("\n  asserts: 'model_state_bytes(ddp) == 14*Psi'", "",
     "claim zh-interview-14psi: quotes 14Ψ but has no asserts (add asserts:"),
])
def test_bad_claims_stop_the_sync_and_store_nothing(engine: Engine, deck: Path, old: str, new: str,
                                                    message: str) -> None:
    card = edit(deck, old, new)
    with pytest.raises(SyncError) as info:
        sync_cards(engine, deck)
    text = str(info.value.errors[0])
    assert text.startswith(f"{card}: claim ") and message in text and "(" in text.split(": ", 3)[-1]
    with Session(engine) as s:
        assert s.exec(select(Card)).all() == [] and s.exec(select(CardClaim)).all() == []


def test_sync_lists_mismatched_and_stale_claims(engine: Engine, deck: Path) -> None:
    edit(deck, r"en: 'ZeRO-1: ... reduces memory by $4\times$'", r"en: 'ZeRO-1: ... reduces memory by $8\times$'")
    edit(deck, "incurs 50% more communication, requiring", "incurs 60% more communication, requiring")
    report = sync_cards(engine, deck)  # notes do not stop a sync
    notes = "\n".join(report.claim_notes)
    assert "claim zero1-memory-4x:" in notes and "mismatch" in notes  # 8× in the claim, == 4 asserted
    assert "stale" in notes and "claim zero1-memory-4x: quoted text no longer" in notes  # and not in the prose
    assert "stale" in notes and "claim zero3-50pct-more-communication: quoted text" in notes
    assert report.added == ["zero-sharding"]
