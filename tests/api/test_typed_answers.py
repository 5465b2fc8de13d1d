"""POST /api/review with a typed drill answer: a decimal comma is graded, an ambiguous one is asked about
(in English and Chinese) without using up the showing."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.items import drills
from app.models import DrillShowing, ReviewItem, ReviewLog
from tests.api.test_review import _show_drill, _users
from tests.utils.srs_cards import small_deck


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    return small_deck(tmp_path / "cards")


def test_decimal_comma_and_ambiguous_answers(client: TestClient) -> None:
    alice = _users(client.app.state.engine, "alice")["alice"]  # type: ignore[attr-defined]
    engine = client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as s:
        drill = s.exec(select(ReviewItem).where(ReviewItem.key == "memory-zero3")).one()
    showing = _show_drill(client, alice, drill.id or 0)
    with Session(engine) as s:
        expected = drills.answer_gb(s.get_one(DrillShowing, showing).params)

    body = {"item_id": drill.id, "showing_id": showing}
    r = client.post("/api/review", json={**body, "typed_answer": "1,234"}, headers=alice)
    assert r.status_code == 422
    en, zh = r.json()["detail"].splitlines()
    assert "reads two ways: 1234" in en and "两种读法" in zh
    with Session(engine) as s:  # nothing written: the same showing can still be answered
        assert s.exec(select(ReviewLog).where(ReviewLog.showing_id == showing)).first() is None

    comma = f"{expected:.6f}".replace(".", ",") + " GB"  # six digits after the comma: only a decimal comma fits
    r = client.post("/api/review", json={**body, "typed_answer": comma}, headers=alice)
    assert r.status_code == 200, r.text
    # what was typed is read back exactly (the drill's numbers are random: typing rounds to six decimals)
    assert r.json()["correct"] is True and r.json()["given"] == pytest.approx(float(f"{expected:.6f}"), rel=1e-9)


def test_units_are_converted_and_a_wrong_unit_is_named(client: TestClient) -> None:
    """The right amount in MB is right; the number of GB typed with TB is wrong, and the result's
    ``unit_note`` says what that amount is in GB (the handbook's page shows the same text)."""
    engine = client.app.state.engine  # type: ignore[attr-defined]
    users = _users(engine, "alice", "bob")  # one answer each: a card's other drills wait after one
    with Session(engine) as s:
        drill = s.exec(select(ReviewItem).where(ReviewItem.key == "memory-zero3")).one()
    results = []
    for alice, typed in ((users["alice"], "{mb} mb"), (users["bob"], "{gb} TB")):
        showing = _show_drill(client, alice, drill.id or 0)
        with Session(engine) as s:
            expected = drills.answer_gb(s.get_one(DrillShowing, showing).params)
        text = typed.format(mb=f"{expected * 1000:.6f}", gb=f"{expected:.4f}")
        r = client.post("/api/review", json={"item_id": drill.id, "showing_id": showing, "typed_answer": text},
                        headers=alice)
        assert r.status_code == 200, r.text
        results.append((expected, r.json()))
    (gb, right), (gb2, slip) = results
    assert right["correct"] is True and right["given"] == pytest.approx(gb, rel=1e-6) and right["unit_note"] is None
    assert slip["correct"] is False and slip["given"] == pytest.approx(gb2 * 1000, rel=1e-3)
    assert slip["unit_note"]["en"].startswith("you wrote TB; ") and " GB" in slip["unit_note"]["en"]
    assert "你写的单位是 TB" in slip["unit_note"]["zh"]
