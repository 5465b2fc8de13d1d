"""CSRF: every state-changing route, reached with a session cookie, refuses a request from another site
(403) and works from our own pages; bearer-token API calls are unaffected; JSON routes want JSON.

The routes come from the app itself, so a route added later is covered (or this test fails for want
of a request to make)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.auth.links import issue_link
from app.auth.users import SESSION_COOKIE, create_user
from app.models.user import User, UserSettings
from app.verification.store import start_run
from tests.api.test_access_table import app_routes

OURS = "http://testserver"
EVIL = "http://evil.example"
PASSWORD = "admin password!"
SAFE = {"GET", "HEAD", "OPTIONS"}
# The session-ending routes go last: they end the session the others use.
LAST = [("POST", "/logout/everywhere"), ("POST", "/logout")]


@dataclass
class Site:
    client: TestClient
    cookie: str
    bearer: str
    item_id: int
    victims: int = 0

    def victim(self) -> int:
        self.victims += 1
        with Session(self.client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
            user, _t = create_user(s, f"victim{self.victims}")
            assert user.id is not None
            return user.id

    def link(self) -> str:
        """A fresh one-time login link for boss (each request may spend one)."""
        with Session(self.client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
            return issue_link(s, s.exec(select(User).where(User.username == "boss")).one())

    def handbook_file(self) -> dict[str, Any]:
        """An empty reviews file of this site's deck, anyone's (exported without --user)."""
        from app.models.deck import deck_id

        return {"format": "proofdeck-handbook-reviews", "version": 1, "export": "x", "user": None, "reviews": [],
                "deck": deck_id(self.client.app.state.engine)}  # type: ignore[attr-defined]

    def request(self, method: str, path: str, headers: dict[str, str]) -> Any:
        kwargs: dict[str, Any] = {}
        body: dict[tuple[str, str], dict[str, Any]] = {
            ("POST", "/api/review"): {"json": {"item_id": self.item_id, "rating": 3}},
            ("PUT", "/api/review/settings"): {"json": {"new_per_day": 7}},
            ("POST", "/api/users"): {"json": {"username": f"made{self.victims}"}},
            ("POST", "/api/admin/verification"): {"json": {"world_sizes": "2", "with_torch": False}},
            ("POST", "/api/export/obsidian.zip"): {"json": {"notes": {}}},
            ("POST", "/api/review/import/obsidian"): {"json": {"notes": {}}},
            ("POST", "/api/review/import/handbook"): {"json": self.handbook_file()},
            ("POST", "/login"): {"data": {"username": "boss", "password": PASSWORD}},
            ("POST", "/login/link"): {"data": {"token": self.link()}},  # the "Sign in as NAME" button
            ("POST", "/quiz/settings"): {"data": {"desired_retention": "0.85", "new_per_day": "9",
                                                  "language": "zh", "reviews_per_day": "150"}},
            ("POST", "/api/review/undo"): {"json": {"idempotency_key": f"undo-{self.victims}"}},
            # a log that is not the latest answer: 409 once the request gets through (no 4xx of CSRF)
            ("POST", "/api/review/regrade"): {"json": {"log_id": 2_000_000, "rating": 3}},
            ("POST", "/quiz/held/resume"): {"data": {"item_id": str(self.item_id)}},
        }
        assert (method, path) in body or method == "DELETE" or "{user_id}" in path or "{item_id}" in path or path in (
            "/api/admin/sync", "/logout", "/logout/everywhere"), f"no request written for {method} {path}"
        kwargs.update(body.get((method, path), {}))
        url = path.replace("{user_id}", str(self.victim())).replace("{item_id}", str(self.item_id))
        self.client.cookies.clear()
        return self.client.request(method, url, headers={"Cookie": f"{SESSION_COOKIE}={self.cookie}", **headers},
                                   follow_redirects=False, **kwargs)


@pytest.fixture
def site(client: TestClient) -> Site:
    engine = client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as s, s.begin():
        _admin, bearer = create_user(s, "boss", is_admin=True, password=PASSWORD)
    with Session(engine) as s:
        start_run(s)  # a verification run in flight: POST /api/admin/verification answers 409, runs nothing
    r = client.post("/login", data={"username": "boss", "password": PASSWORD}, headers={"Origin": OURS},
                    follow_redirects=False)
    assert r.status_code == 303
    cookie = r.cookies[SESSION_COOKIE]
    client.cookies.clear()
    item = client.get("/api/review/next", headers={"Authorization": f"Bearer {bearer}"}).json()["item"]["id"]
    return Site(client, cookie, bearer, item)


def unsafe_routes(client: TestClient) -> list[tuple[str, str]]:
    routes = sorted(r for r in app_routes(client.app) if r[0] not in SAFE)  # type: ignore[arg-type]
    return [r for r in routes if r not in LAST] + LAST


def test_every_state_changing_route_refuses_another_site(site: Site) -> None:
    routes = unsafe_routes(site.client)
    assert len(routes) >= 11
    for method, path in routes:
        for headers in ({"Origin": EVIL}, {"Origin": "http://testserver:8080"}, {"Origin": "http://api.testserver"},
                        {"Origin": "https://testserver"}, {"Origin": "null"}, {},
                        {"Referer": f"{EVIL}/page"}):
            r = site.request(method, path, headers)
            assert r.status_code == 403, (method, path, headers, r.status_code, r.text)
            assert "cross-site request refused" in r.json()["detail"]
    # nothing changed: the session works, the settings and users are as they were
    me = site.client.get("/api/users/me", headers={"Cookie": f"{SESSION_COOKIE}={site.cookie}"})
    assert me.status_code == 200
    with Session(site.client.app.state.engine) as s:  # type: ignore[attr-defined]
        assert s.exec(select(UserSettings.new_per_day).where(UserSettings.user_id == me.json()["id"])).one() == 20
        names = s.exec(select(User.username)).all()
        assert not [u for u in names if u.startswith("made")]  # POST /api/users made nobody
        assert len([u for u in names if u.startswith("victim")]) == site.victims  # DELETE deleted nobody


def test_every_state_changing_route_works_from_our_own_pages(site: Site) -> None:
    got = {}
    for method, path in unsafe_routes(site.client):
        headers = {"Origin": OURS} if path != "/quiz/settings" else {"Referer": f"{OURS}/quiz/stats"}
        got[(method, path)] = site.request(method, path, headers).status_code
    refused = {route: code for route, code in got.items() if code in (401, 403, 415, 422)}
    assert not refused, refused
    assert got[("POST", "/api/review")] == 200 and got[("PUT", "/api/review/settings")] == 200
    assert got[("POST", "/quiz/settings")] == 303 and got[("POST", "/logout/everywhere")] == 303


def test_bearer_calls_are_unaffected(site: Site) -> None:
    headers = {"Authorization": f"Bearer {site.bearer}", "Origin": EVIL}
    r = site.client.put("/api/review/settings", json={"new_per_day": 11}, headers=headers)
    assert r.status_code == 200
    assert site.client.post("/api/admin/sync", headers=headers).status_code == 200


def test_a_cross_site_login_form_is_refused(client: TestClient) -> None:
    r = client.post("/login", data={"username": "x", "password": "y"}, headers={"Origin": EVIL},
                    follow_redirects=False)
    assert r.status_code == 403  # login CSRF: signing a victim into the attacker's account


def test_review_with_text_plain_is_refused(site: Site) -> None:
    body = f'{{"item_id": {site.item_id}, "rating": 3}}'
    plain = {"Content-Type": "text/plain"}
    r = site.client.post("/api/review", content=body, headers={
        "Cookie": f"{SESSION_COOKIE}={site.cookie}", "Origin": EVIL, **plain})
    assert r.status_code == 403
    r = site.client.post("/api/review", content=body, headers={
        "Cookie": f"{SESSION_COOKIE}={site.cookie}", "Origin": OURS, **plain})
    assert r.status_code == 415
    r = site.client.post("/api/review", content=body, headers={"Authorization": f"Bearer {site.bearer}", **plain})
    assert r.status_code == 415 and "application/json" in r.json()["detail"]
    r = site.client.post("/api/review", content=body, headers={"Authorization": f"Bearer {site.bearer}",
                                                               "Content-Type": "application/json"})
    assert r.status_code == 200
