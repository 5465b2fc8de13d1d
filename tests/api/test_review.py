"""The review API: who may see what, idempotent answers, precise 4xx, 8 concurrent clients on uvicorn."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.auth.users import create_user
from app.models import ReviewItem, ReviewLog, UserSettings
from tests.utils.fetch_site import TYPED_URL
from tests.utils.srs_cards import make_card, small_deck, write_deck


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:  # overrides the bundled deck for this module
    return small_deck(tmp_path / "cards")


def _users(engine: object, *names: str, admin: bool = False) -> dict[str, dict[str, str]]:
    out = {}
    with Session(engine) as s, s.begin():  # type: ignore[arg-type]
        for name in names:
            _user, token = create_user(s, name, is_admin=admin)
            out[name] = {"Authorization": f"Bearer {token}"}
    return out


@pytest.fixture
def two(client: TestClient) -> Iterator[tuple[TestClient, dict[str, str], dict[str, str]]]:
    u = _users(client.app.state.engine, "alice", "bob")  # type: ignore[attr-defined]
    yield client, u["alice"], u["bob"]


def _first(client: TestClient, h: dict[str, str]) -> dict[str, object]:
    r = client.get("/api/review/next", headers=h)
    assert r.status_code == 200
    return r.json()["item"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("method", "url"), [("GET", "/api/review/next"), ("POST", "/api/review"),
                                             ("GET", "/api/review/stats"), ("GET", "/api/review/log"),
                                             ("GET", "/api/review/log/1"), ("GET", "/api/review/chain/1"),
                                             ("PUT", "/api/review/settings"), ("GET", "/api/users/me")])
def test_anonymous_gets_401(client: TestClient, method: str, url: str) -> None:
    r = client.request(method, url, json={"item_id": 1, "rating": 3})
    assert r.status_code == 401
    assert r.json()["detail"] == "not signed in: send 'Authorization: Bearer <token>' or log in at /login"
    assert client.get("/api/review/next", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_privacy_between_two_users(two: tuple[TestClient, dict[str, str], dict[str, str]]) -> None:
    client, alice, bob = two
    item = _first(client, alice)
    r = client.post("/api/review", json={"item_id": item["id"], "rating": 3}, headers=alice)
    assert r.status_code == 200
    log_id = r.json()["log_id"]
    assert client.get(f"/api/review/log/{log_id}", headers=alice).json()["rating"] == 3
    r = client.get(f"/api/review/log/{log_id}", headers=bob)
    assert r.status_code == 404 and r.json()["detail"] == f"review log {log_id} not found"
    assert client.get("/api/review/log", headers=bob).json() == {"data": [], "count": 0}
    assert client.get(f"/api/review/items/{item['id']}", headers=bob).json()["state"] is None
    assert client.get(f"/api/review/items/{item['id']}", headers=alice).json()["state"]["reps"] == 1
    # alice's answer is not due again for her, but bob's copy of the item is new
    assert client.post("/api/review", json={"item_id": item["id"], "rating": 3}, headers=alice).status_code == 409
    assert client.post("/api/review", json={"item_id": item["id"], "rating": 3}, headers=bob).status_code == 200
    assert client.get("/api/review/stats", headers=bob).json()["reviewed_today"] == 1
    # a drill showing belongs to the user it was shown to
    engine = client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as s:
        drill = s.exec(select(ReviewItem).where(ReviewItem.kind == "drill")).first()
    assert drill is not None
    showing = _show_drill(client, alice, drill.id or 0)
    r = client.post("/api/review", json={"item_id": drill.id, "typed_answer": "1", "showing_id": showing},
                    headers=bob)
    assert r.status_code == 404
    assert r.json()["detail"] == (f"drill showing {showing} of item {drill.id} not found; "
                                  "answer the showing_id that GET /api/review/next gave you")
    # admin-only routes
    for method, url in (("GET", "/api/users"), ("POST", "/api/admin/sync")):
        r = client.request(method, url, headers=bob)
        assert r.status_code == 403 and r.json()["detail"] == "user 'bob' is not an admin; ask an admin for access"


def _show_drill(client: TestClient, h: dict[str, str], drill_id: int) -> int:
    """Make the drill the next item for this user (only due/new drills), return its showing id."""
    # every item of the drill's card may come today (no sibling burying)
    client.put("/api/review/settings", json={"new_per_day": 500, "bury_siblings": False}, headers=h)
    for _ in range(60):
        item = _first(client, h)
        if item["id"] == drill_id:
            return int(str(item["showing_id"]))
        answer = {"typed_answer": "1", "showing_id": item["showing_id"]} if item["typed"] else {"rating": 4}
        assert client.post("/api/review", json={"item_id": item["id"], **answer}, headers=h).status_code == 200
    raise AssertionError("drill never came up")


def test_idempotent_post(two: tuple[TestClient, dict[str, str], dict[str, str]]) -> None:
    client, alice, _ = two
    item = _first(client, alice)
    body = {"item_id": item["id"], "rating": 2, "duration_ms": 1500}
    first = client.post("/api/review", json=body, headers={**alice, "Idempotency-Key": "show-1"})
    again = client.post("/api/review", json=body, headers={**alice, "Idempotency-Key": "show-1"})
    assert first.status_code == again.status_code == 200
    assert {**first.json(), "replayed": True} == again.json()
    via_body = client.post("/api/review", json={**body, "idempotency_key": "show-1"}, headers=alice)
    assert via_body.json()["log_id"] == first.json()["log_id"]
    assert client.get("/api/review/log", headers=alice).json()["count"] == 1
    other = _first(client, alice)
    r = client.post("/api/review", json={"item_id": other["id"], "rating": 3},
                    headers={**alice, "Idempotency-Key": "show-1"})
    assert r.status_code == 422
    assert r.json()["detail"] == (f"Idempotency-Key 'show-1' was already used for review item {item['id']}; "
                                  "use a new key per answer")


def test_clear_4xx(two: tuple[TestClient, dict[str, str], dict[str, str]]) -> None:
    client, alice, _ = two
    item = _first(client, alice)
    for bad in (0, 5, "good", None):
        r = client.post("/api/review", json={"item_id": item["id"], "rating": bad}, headers=alice)
        assert r.status_code == 422
        assert r.json()["detail"] == f"rating must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy); got {bad!r}"
    r = client.post("/api/review", json={"item_id": 999999, "rating": 3}, headers=alice)
    assert r.status_code == 404
    assert r.json()["detail"] == "review item 999999 does not exist (or its card was retired)"
    assert client.post("/api/review", json={"item_id": item["id"], "rating": 3}, headers=alice).status_code == 200
    r = client.post("/api/review", json={"item_id": item["id"], "rating": 3}, headers=alice)
    assert r.status_code == 409
    assert r.json()["detail"].startswith(f"review item {item['id']} is not due until 20")
    r = client.put("/api/review/settings", json={"language": "fr"}, headers=alice)
    assert r.status_code == 422 and r.json()["detail"] == "language must be one of zh, en, both; got 'fr'"


def test_bad_bodies_get_field_by_field_422(two: tuple[TestClient, dict[str, str], dict[str, str]]) -> None:
    """POST /api/review checks its body itself (a hot route): the same 422 shape FastAPI gives elsewhere."""
    client, alice, _ = two
    cases = [(b"\xa9\x99 not utf-8", "json_invalid", ["body"]), (b"{", "json_invalid", ["body"]),
             (b'{"rating": 3}', "missing", ["body", "item_id"]),
             (b'{"item_id": 0, "rating": 3}', "greater_than_equal", ["body", "item_id"]),
             (b'{"item_id": 1, "typed_answer": "a\\u0000b"}', "string_pattern_mismatch", ["body", "typed_answer"])]
    for raw, kind, loc in cases:
        r = client.post("/api/review", content=raw, headers={**alice, "Content-Type": "application/json"})
        assert r.status_code == 422, (raw, r.text)
        errors = r.json()["detail"]
        assert [(e["type"], e["loc"]) for e in errors][:1] == [(kind, loc)], (raw, errors)
    r = client.post("/api/review", content=b"{", headers={"Content-Type": "application/json"})
    assert r.status_code == 401  # who you are is checked before what you sent
    r = client.post("/api/review", json={"item_id": 1, "rating": 3}, headers={**alice, "Idempotency-Key": "k" * 129})
    assert r.status_code == 422 and "use at most 128" in r.json()["detail"]


def test_drill_answer_graded_with_stored_numbers(two: tuple[TestClient, dict[str, str], dict[str, str]]) -> None:
    from app.items import drills
    from app.models import DrillShowing

    client, alice, _ = two
    engine = client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as s:
        drill = s.exec(select(ReviewItem).where(ReviewItem.key == "memory-zero3")).one()
    showing = _show_drill(client, alice, drill.id or 0)
    with Session(engine) as s:
        params = s.get_one(DrillShowing, showing).params
    r = client.post("/api/review", json={"item_id": drill.id, "showing_id": showing, "rating": 4}, headers=alice)
    assert r.status_code == 422 and "is a drill: send typed_answer" in r.json()["detail"]
    right = f"{drills.answer_gb(params) * 1.005:.6f}"
    r = client.post("/api/review", json={"item_id": drill.id, "showing_id": showing, "typed_answer": right},
                    headers=alice)
    assert r.status_code == 200
    body = r.json()
    assert body["correct"] is True and body["rating"] == 3
    assert body["expected"] == pytest.approx(drills.answer_gb(params))
    assert "<math" in body["solution"]["en"]


def test_first_start_prints_a_login_link_and_it_logs_in(client: TestClient, capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    # the client fixture already started the app: the admin exists; start a second app on an empty database
    from app.main import create_app

    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        assert s.exec(select(UserSettings)).first() is not None
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(database_url=f"sqlite:///{tmp}/x.db", cards_dir=Path(tmp), sync_on_startup=False)
        with TestClient(app) as c:
            line = [ln for ln in capsys.readouterr().out.splitlines() if "/login?token=" in ln][0]
            link = line.split("Log in at ")[1]
            r = c.get(link.replace("http://127.0.0.1:8000", ""), follow_redirects=False, headers=TYPED_URL)
            assert r.status_code == 303 and r.headers["location"] == "/quiz"
            assert "proofdeck_session" in r.cookies
            assert c.get("/api/users/me").json()["username"] == "admin"
            bad = c.get("/login?token=forged", follow_redirects=False)
            assert bad.status_code == 401
        app.state.engine.dispose()


SAME_SITE = {"Origin": "http://testserver"}  # what a browser sends with our own forms


def test_password_login(two: tuple[TestClient, dict[str, str], dict[str, str]]) -> None:
    client, _, _ = two
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        create_user(s, "carol", password="correct horse")
    r = client.post("/login", data={"username": "carol", "password": "wrong one!"}, follow_redirects=False,
                    headers=SAME_SITE)
    assert r.status_code == 401 and "Wrong username or password." in r.text
    r = client.post("/login", data={"username": "carol", "password": "correct horse", "next": "//evil.example"},
                    follow_redirects=False, headers=SAME_SITE)
    assert r.status_code == 303 and r.headers["location"] == "/quiz"
    assert client.get("/api/users/me").json()["username"] == "carol"
    r = client.post("/quiz/settings", data={"desired_retention": "0.85", "new_per_day": "7", "language": "zh",
                                                  "reviews_per_day": "150", "gather_order": "random",
                                                  "bury_siblings": "off"},
                    follow_redirects=False, headers=SAME_SITE)
    assert r.status_code == 303
    assert client.get("/api/review/settings").json() == {"desired_retention": 0.85, "new_per_day": 7,
                                                         "reviews_per_day": 150, "language": "zh",
                                                         "gather_order": "random", "bury_siblings": False,
                                                         "optimized": False, "optimized_reviews": 0}
    # a form without the two queue fields (an older page) keeps them
    r = client.post("/quiz/settings", data={"desired_retention": "0.85", "new_per_day": "7", "language": "zh",
                                            "reviews_per_day": "150"}, follow_redirects=False, headers=SAME_SITE)
    assert r.status_code == 303
    kept = client.get("/api/review/settings").json()
    assert (kept["gather_order"], kept["bury_siblings"]) == ("random", False)
    r = client.put("/api/review/settings", json={"gather_order": "shuffled"}, headers=SAME_SITE)
    assert r.status_code == 422 and "gather_order must be one of deck, interleaved, random" in r.json()["detail"]
    page = client.get("/quiz/stats")
    assert page.status_code == 200 and 'value="7"' in page.text
    assert client.post("/logout", headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.get("/api/users/me").status_code == 200  # a cross-site logout did nothing
    client.post("/logout", headers=SAME_SITE)
    assert client.get("/api/users/me").status_code == 401


@pytest.mark.slow
def test_eight_concurrent_clients_lose_nothing(live_server: str, database_url: str, tmp_path: Path) -> None:
    from app.core.db import make_engine

    engine = make_engine(database_url)
    try:
        headers = _users(engine, *(f"u{i}" for i in range(4)))
        with Session(engine) as s:
            item_ids = [i.id for i in s.exec(select(ReviewItem).where(ReviewItem.kind != "drill"))]
        assert len(item_ids) >= 8
        # 8 clients: 4 users × 2 connections; a user's two clients answer disjoint halves of the items,
        # each answer sent twice with the same Idempotency-Key
        jobs = [(f"u{c % 4}", item_ids[c // 4::2]) for c in range(8)]

        def run(job: tuple[str, list[int]]) -> list[int]:
            user, items = job
            codes = []
            with httpx.Client(base_url=live_server, headers=headers[user], timeout=30) as http:
                for item in items:
                    for _attempt in range(2):  # a retry with the same key must not count twice
                        r = http.post("/api/review", json={"item_id": item, "rating": 3},
                                      headers={"Idempotency-Key": f"{user}-{item}"})
                        codes.append(r.status_code)
            return codes

        with ThreadPoolExecutor(8) as pool:
            codes = [c for out in pool.map(run, jobs) for c in out]
        assert set(codes) == {200}
        expected = sum(len(items) for _u, items in jobs)
        with Session(engine) as s:
            assert len(s.exec(select(ReviewLog)).all()) == expected
        for i in range(4):
            log = httpx.get(f"{live_server}/api/review/log?limit=500", headers=headers[f"u{i}"]).json()
            assert log["count"] == len(item_ids)  # its two clients split the items between them
            assert {e["item_id"] for e in log["data"]} == set(item_ids)
    finally:
        engine.dispose()


def test_sync_keeps_history_through_admin_route(client: TestClient, cards_dir: Path) -> None:
    admin = _users(client.app.state.engine, "root", admin=True)["root"]  # type: ignore[attr-defined]
    item = _first(client, admin)
    client.post("/api/review", json={"item_id": item["id"], "rating": 3}, headers=admin)
    write_deck(cards_dir, [make_card("mixed-precision", pitfalls=(0, 2), follow_ups=3)])
    r = client.post("/api/admin/sync", headers=admin)
    assert r.status_code == 200 and r.json()["updated"] == ["mixed-precision"]
    assert client.get(f"/api/review/items/{item['id']}", headers=admin).json()["state"]["reps"] == 1


def test_access_log_never_shows_a_login_token() -> None:
    import logging

    from app.main import _RedactTokens

    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5", "GET", "/login?token=s3cr3t-T0k&next=/quiz", "1.1", 303), None)
    assert _RedactTokens().filter(record)
    assert record.getMessage() == '127.0.0.1:5 - "GET /login?token=[redacted]&next=/quiz HTTP/1.1" 303'
