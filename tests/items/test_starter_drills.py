"""The starter deck's drills in the quiz: fresh numbers, graded with the formulas its checks use."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.auth.users import create_user
from app.items import drills
from app.models import Card, ReviewItem
from app.review.service import item_view
from verify.known import drills as formula_drills


def test_every_starter_drill_is_an_item_of_its_card(client: TestClient) -> None:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        rows = s.exec(select(ReviewItem, Card).join(Card).where(ReviewItem.kind == "drill"))
        keys = {(c.slug, i.key) for i, c in rows}
    for d in formula_drills.DRILLS.values():
        assert (d.card, d.key) in keys, f"drill {d.key} missing from card {d.card}"
    assert ("zero-sharding", "memory-zero2") in keys


@pytest.mark.parametrize("key", sorted(formula_drills.DRILLS))
def test_formula_drill_grades_within_one_percent(key: str) -> None:
    params = drills.new_params(key, seed=11)
    expected = formula_drills.answer(key, {k: v for k, v in params.items() if k != "key"})
    assert drills.answer(params) == pytest.approx(expected)
    unit = drills.unit(params)
    assert drills.grade(params, f"{expected * 1.009:.9g} {unit}").correct
    assert not drills.grade(params, f"{expected * 1.02 + 1e-9:.9g}").correct
    q, sol = drills.question(params), drills.solution(params)
    assert unit in q["en"] and f"{expected:,.4g} {unit}" in sol["en"] and f"{expected:,.4g} {unit}" in sol["zh"]


def test_drill_through_the_api(client: TestClient) -> None:
    engine = client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as s, s.begin():
        user, token = create_user(s, "drill-user")
        user_id = user.id
    with Session(engine) as s:
        item, card = s.exec(select(ReviewItem, Card).join(Card).where(ReviewItem.key == "bubble-fraction")).one()
        assert user_id is not None
        view = item_view(s, user_id, item, card, None)  # what GET /api/review/next shows for this drill
    assert view["unit"] == "%" and view["showing_id"] and view["back"] is None
    found = re.search(r"p = (\d+) stages, m = (\d+)", view["front"]["en"])
    assert found, view["front"]["en"]
    p, m = (int(x) for x in found.groups())
    right = 100 * (p - 1) / (m + p - 1)
    r = client.post("/api/review", json={"item_id": item.id, "showing_id": view["showing_id"],
                                         "typed_answer": f"{right:.4f}%"}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    assert r.json()["correct"] is True and r.json()["unit"] == "%"
    assert "pipeline-parallelism" in r.json()["solution_markdown"]["en"]
