"""A study session on matched cards: their items, shown without touching the schedule."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.auth.users import create_user
from app.models.review import ItemState, ReviewLog


@pytest.fixture
def learner(client: TestClient) -> dict[str, str]:
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        _user, token = create_user(s, "lena")
    return {"Authorization": f"Bearer {token}"}


def _count(client: TestClient, table: Any) -> int:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        return int(s.exec(select(func.count()).select_from(table)).one())


def test_study_items_come_in_the_cards_order_and_schedule_nothing(client: TestClient,
                                                                   learner: dict[str, str]) -> None:
    r = client.get("/api/match/study", params={"cards": "pipeline-parallelism,zero-sharding,nope", "lang": "en"},
                   headers=learner)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["missing"] == ["nope"] and body["count"] == len(body["items"]) > 4
    cards = [i["card"]["slug"] for i in body["items"]]
    assert cards == sorted(cards, key=["pipeline-parallelism", "zero-sharding"].index)  # grouped, in that order
    assert {i["kind"] for i in body["items"]} <= {"card", "followup", "pitfall"}  # no drill (it would be logged)
    assert body["items"][0]["kind"] == "card" and body["items"][0]["study"] is True
    assert all(i["lang"] in ("", "en") for i in body["items"])
    assert all(i["front"]["en"] and i["back"]["en"] for i in body["items"])
    assert _count(client, ItemState) == 0 and _count(client, ReviewLog) == 0
    # the scheduled queue is what it was: the first new item of the deck, all items still new
    nxt = client.get("/api/review/next", headers=learner).json()
    assert nxt["item"]["new"] is True and nxt["due_now"] == 0


def test_study_needs_sign_in_and_takes_twenty_cards(client: TestClient, learner: dict[str, str]) -> None:
    assert client.get("/api/match/study", params={"cards": "zero-sharding"}).status_code == 401
    r = client.get("/api/match/study", params={"cards": " , "}, headers=learner)
    assert r.status_code == 200 and r.json()["items"] == []
    many = ["zero-sharding", *(f"c{i}" for i in range(19)), "fsdp-zero"]
    r = client.get("/api/match/study", params={"cards": ",".join(many)}, headers=learner)
    assert r.status_code == 200 and r.json()["cards"] == many[:20]  # the first 20
    assert {i["card"]["slug"] for i in r.json()["items"]} == {"zero-sharding"}
    r = client.get("/api/match/study", params={"cards": "zero-sharding", "lang": "fr"}, headers=learner)
    assert r.status_code == 422


def test_the_quiz_page_turns_a_pasted_question_into_a_study_session(client: TestClient,
                                                                    learner: dict[str, str]) -> None:
    page = client.get("/quiz/study", params={"q": "为什么ZeRO-3通信量更大"}, headers=learner)
    assert page.status_code == 200
    matched = client.get("/api/match", params={"q": "为什么ZeRO-3通信量更大", "limit": 3}).json()["data"]
    top3 = [h["card"]["slug"] for h in matched]
    assert f'data-cards="{",".join(top3)}"' in page.text
    plain = client.get("/quiz", headers=learner).text
    assert 'id="study"' not in plain and 'id="paste-q"' in plain
    long = client.get("/quiz/study", params={"q": "x" * 2001}, headers=learner)
    assert long.status_code == 200 and "2001 characters" in long.text and 'id="study"' not in long.text
