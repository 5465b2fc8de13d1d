"""The daily loop over HTTP: undo (idempotent, own answers only), bury / suspend / resume and the held list
(per user), interval previews, an item's history, the counts equal in next and stats, the review limit
setting. Another user can never undo, bury or see your items' state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.auth.users import create_user
from app.models import ItemHold, ReviewLog
from tests.utils.srs_cards import small_deck

H = dict[str, str]


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:  # overrides the bundled deck for this module
    return small_deck(tmp_path / "cards")


@pytest.fixture
def two(client: TestClient) -> Iterator[tuple[TestClient, H, H]]:
    heads = []
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        for name in ("alice", "bob"):
            _user, token = create_user(s, name)
            heads.append({"Authorization": f"Bearer {token}"})
    yield client, heads[0], heads[1]


def _next(client: TestClient, h: H) -> dict[str, Any]:
    r = client.get("/api/review/next", headers=h)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _answer(client: TestClient, h: H, item_id: int, rating: int = 3) -> dict[str, Any]:
    r = client.post("/api/review", json={"item_id": item_id, "rating": rating}, headers=h)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _log_count(client: TestClient, h: H) -> int:
    return int(client.get("/api/review/log", headers=h).json()["count"])


def test_undo_is_idempotent_and_only_yours(two: tuple[TestClient, H, H]) -> None:
    client, alice, bob = two
    first = _next(client, alice)["item"]
    _answer(client, alice, first["id"], 3)
    second = _next(client, alice)["item"]
    _answer(client, alice, second["id"], 4)
    assert _log_count(client, alice) == 2

    r = client.post("/api/review/undo", headers=bob)  # bob answered nothing: 409, alice keeps hers
    assert r.status_code == 409 and "nothing to undo" in r.json()["detail"]
    assert _log_count(client, alice) == 2

    key = {"Idempotency-Key": "undo-once"}
    r1 = client.post("/api/review/undo", headers={**alice, **key})
    assert r1.status_code == 200, r1.text
    assert r1.json()["undone"]["item_id"] == second["id"] and r1.json()["state"] is None  # new again
    r2 = client.post("/api/review/undo", headers={**alice, **key})  # a retry: same answer, nothing more undone
    assert r2.status_code == 200 and r2.json() == {**r1.json(), "replayed": True}
    assert _log_count(client, alice) == 1
    assert client.get(f"/api/review/items/{second['id']}", headers=alice).json()["state"] is None
    # the key in the body works the same
    r3 = client.post("/api/review/undo", json={"idempotency_key": "body-key"}, headers=alice)
    assert r3.status_code == 200 and r3.json()["undone"]["item_id"] == first["id"]
    assert client.post("/api/review/undo", json={"idempotency_key": "body-key"}, headers=alice).json()["replayed"]
    assert _log_count(client, alice) == 0
    assert client.post("/api/review/undo", headers=alice).status_code == 409
    assert _next(client, alice)["item"]["id"] == first["id"]  # first in line again
    assert client.post("/api/review/undo").status_code == 401


def test_bury_suspend_resume_are_per_user(two: tuple[TestClient, H, H]) -> None:
    client, alice, bob = two
    start = _next(client, alice)
    a = start["item"]["id"]
    r = client.post(f"/api/review/items/{a}/bury", headers=bob)  # bob's bury is bob's
    assert r.status_code == 200 and r.json()["hold"]["kind"] == "bury" and r.json()["hold"]["until"]
    assert _next(client, alice)["item"]["id"] == a
    assert client.get("/api/review/held", headers=alice).json() == {"data": [], "count": 0}
    assert [h["item_id"] for h in client.get("/api/review/held", headers=bob).json()["data"]] == [a]

    r = client.post(f"/api/review/items/{a}/suspend", headers=alice)
    assert r.status_code == 200 and r.json()["hold"] == {"kind": "suspend", "until": None}
    after = _next(client, alice)
    assert after["item"]["id"] != a and after["counts"]["new"] == start["counts"]["new"] - 1
    b = after["item"]["id"]
    assert client.post(f"/api/review/items/{b}/bury", headers=alice).status_code == 200
    assert a != _next(client, alice)["item"]["id"] != b
    held = client.get("/api/review/held", headers=alice).json()
    assert {(h["item_id"], h["hold"]["kind"]) for h in held["data"]} == {(a, "suspend"), (b, "bury")}
    assert held["data"][0]["card"]["slug"]

    # bob resuming alice's item lifts only his own hold
    assert client.post(f"/api/review/items/{a}/resume", headers=bob).json()["resumed"] is True
    assert client.get("/api/review/held", headers=alice).json()["count"] == 2
    assert client.post(f"/api/review/items/{a}/resume", headers=alice).json()["resumed"] is True
    assert client.post(f"/api/review/items/{a}/resume", headers=alice).json()["resumed"] is False
    assert _next(client, alice)["item"]["id"] == a
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        assert len(s.exec(select(ItemHold)).all()) == 1  # alice's bury of b

    assert client.post("/api/review/items/999999/bury", headers=alice).status_code == 404
    assert client.post(f"/api/review/items/{a}/suspend").status_code == 401


def test_intervals_and_item_history(two: tuple[TestClient, H, H]) -> None:
    client, alice, bob = two
    item = _next(client, alice)["item"]["id"]
    r = client.get(f"/api/review/items/{item}/intervals", headers=alice)
    assert r.status_code == 200
    body = r.json()
    assert [i["rating"] for i in body["intervals"]] == [1, 2, 3, 4] and body["new"] is True
    assert body["summary"].startswith("1 min · ") and body["hold"] is None
    out = _answer(client, alice, item, 4)
    assert out["interval_seconds"] > 0
    assert client.get(f"/api/review/items/{item}/intervals", headers=alice).json()["new"] is False
    assert client.get(f"/api/review/items/{item}/intervals", headers=bob).json()["new"] is True  # bob's state
    assert client.get("/api/review/items/999999/intervals", headers=alice).status_code == 404

    hist = client.get(f"/api/review/items/{item}/log", headers=alice).json()
    assert hist["count"] == 1 and hist["data"][0]["rating"] == 4 and hist["data"][0]["item_id"] == item
    assert client.get(f"/api/review/items/{item}/log", headers=bob).json() == {"item_id": item, "data": [],
                                                                               "count": 0}
    assert client.get(f"/api/review/items/{item}/log").status_code == 401


def test_counts_equal_in_next_and_stats_and_the_review_limit_setting(two: tuple[TestClient, H, H]) -> None:
    client, alice, _bob = two
    for rating in (3, 1, 4):
        nxt = _next(client, alice)
        stats = client.get("/api/review/stats", headers=alice).json()
        assert stats["counts"] == nxt["counts"]
        _answer(client, alice, nxt["item"]["id"], rating)
    nxt = _next(client, alice)
    assert client.get("/api/review/stats", headers=alice).json()["counts"] == nxt["counts"]
    assert nxt["counts"]["learning"] == 2  # good and again on new items: learning steps later today

    r = client.put("/api/review/settings", json={"reviews_per_day": 50}, headers=alice)
    assert r.status_code == 200 and r.json()["reviews_per_day"] == 50
    r = client.put("/api/review/settings", json={"reviews_per_day": -1}, headers=alice)
    assert r.status_code == 422 and "reviews_per_day must be between 0 and 100000" in r.text


def test_regrade_refuses_what_is_no_wrong_typed_answer_of_yours(two: tuple[TestClient, H, H]) -> None:
    client, alice, bob = two
    item = _next(client, alice)["item"]["id"]
    out = _answer(client, alice, item, 3)
    r = client.post("/api/review/regrade", json={"log_id": out["log_id"], "rating": 4}, headers=alice)
    assert r.status_code == 422 and "no wrong typed answer" in r.json()["detail"]
    r = client.post("/api/review/regrade", json={"log_id": out["log_id"], "rating": 4}, headers=bob)
    assert r.status_code == 409
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        log = s.get(ReviewLog, out["log_id"])
        assert log is not None and log.rating == 3
    r = client.post("/api/review/regrade", json={"log_id": out["log_id"], "rating": 7}, headers=alice)
    assert r.status_code == 422
