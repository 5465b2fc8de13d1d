"""One-time login links (issue 36, item 3): a link signs in once, within its lifetime, is not an API token, and
"log out everywhere" ends it; a second open says why it fails and how to get a new one. Tokens are hashed."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url
from sqlmodel import Session, select

from app.auth import links
from app.auth.ratelimit import LoginLimiter
from app.auth.users import SESSION_COOKIE, create_user
from app.core.config import settings
from app.models.card import utcnow
from app.models.user import ApiToken, LoginFailure, LoginLink, User
from tests.utils.accounts import new_link, new_user
from tests.utils.fetch_site import TYPED_URL

PASSWORD = "correct horse battery"
OURS = {"Origin": "http://testserver"}


class Clock:
    """The app's login clock (``app.state.login_limiter.clock``), moved by hand: no sleeping."""

    def __init__(self) -> None:
        self.start, self.ahead = utcnow(), timedelta()

    def __call__(self) -> datetime:
        return self.start + self.ahead


@pytest.fixture
def clock(client: TestClient) -> Clock:
    clock = Clock()
    client.app.state.login_limiter = LoginLimiter(clock=clock)  # type: ignore[attr-defined]
    return clock


@pytest.fixture
def alice(client: TestClient) -> str:
    """alice, with a password; her API token."""
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        _user, token = create_user(s, "alice", password=PASSWORD)
    return token


def _link(client: TestClient, now: datetime | None = None) -> str:
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        return links.issue_link(s, s.exec(select(User).where(User.username == "alice")).one(), now)


def _open(client: TestClient, token: str) -> httpx.Response:
    client.cookies.clear()
    response: httpx.Response = client.get(f"/login?token={token}", headers=TYPED_URL, follow_redirects=False)
    return response


def _me(client: TestClient) -> int:
    return int(client.get("/api/users/me").status_code)


def test_a_link_signs_in_once_over_http(live_server: str, database_url: str) -> None:
    _api_token, link = new_user(database_url, "alice")
    with httpx.Client(base_url=live_server, timeout=30) as first:
        r = first.get(f"/login?token={link}", headers=TYPED_URL)
        assert (r.status_code, r.headers["location"]) == (303, "/quiz")
        assert first.get("/api/users/me").json()["username"] == "alice"
    with httpx.Client(base_url=live_server, timeout=30) as second:  # the link again, another browser
        again = second.get(f"/login?token={link}", headers=TYPED_URL)
        assert again.status_code == 401 and SESSION_COOKIE not in again.cookies
        assert "This login link has already been used" in again.text
        assert "proofdeck user link alice" in again.text  # how to get a new one
        assert second.get("/api/users/me").status_code == 401
        fresh = second.get(f"/login?token={new_link(database_url, 'alice')}", headers=TYPED_URL)
        assert fresh.status_code == 303  # a new link works


def test_a_link_expires_after_its_lifetime(client: TestClient, alice: str, clock: Clock,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    kept, late = _link(client, clock()), _link(client, clock())  # made when the clock starts
    clock.ahead = timedelta(minutes=14, seconds=59)
    assert _open(client, kept).status_code == 303  # within 15 minutes
    clock.ahead = timedelta(minutes=15)
    r = _open(client, late)
    assert r.status_code == 401 and SESSION_COOKIE not in r.cookies and _me(client) == 401
    assert "This login link has expired" in r.text and "proofdeck user link alice" in r.text
    monkeypatch.setattr(settings, "LOGIN_LINK_MINUTES", 60.0)  # PROOFDECK_LOGIN_LINK_MINUTES
    hour = _link(client, clock())
    clock.ahead += timedelta(minutes=59)
    assert _open(client, hour).status_code == 303
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        assert s.exec(select(LoginFailure)).all() == []  # a known link is no guess: never counted


def test_log_out_everywhere_ends_pending_links(client: TestClient, alice: str, clock: Clock) -> None:
    pending = _link(client)
    r = client.post("/login", data={"username": "alice", "password": PASSWORD}, headers=OURS,
                    follow_redirects=False)
    assert r.status_code == 303 and _me(client) == 200
    assert client.post("/logout/everywhere", headers=OURS, follow_redirects=False).status_code == 303
    assert _me(client) == 401
    r = _open(client, pending)
    assert r.status_code == 401 and _me(client) == 401
    assert "was ended by \u201clog out everywhere\u201d" in r.text
    assert _open(client, _link(client)).status_code == 303  # links made afterwards work
    assert client.get("/api/users/me", headers={"Authorization": f"Bearer {alice}"}).status_code == 200


def test_an_api_token_is_no_login_link(client: TestClient, alice: str) -> None:
    r = _open(client, alice)
    assert r.status_code == 401 and SESSION_COOKIE not in r.cookies and _me(client) == 401
    assert "This is an API token" in r.text and "proofdeck user link alice" in r.text
    r = client.post("/login/link", data={"token": alice}, headers=OURS, follow_redirects=False)
    assert r.status_code == 401 and _me(client) == 401
    link = _link(client)
    assert client.get("/api/users/me", headers={"Authorization": f"Bearer {link}"}).status_code == 401


def test_a_link_from_elsewhere_spends_nothing_until_the_button(client: TestClient, alice: str) -> None:
    link = _link(client)
    for _ in range(2):  # a chat preview, then the visitor: each only sees the button
        page = client.get(f"/login?token={link}", headers={"Sec-Fetch-Site": "cross-site"})
        assert page.status_code == 200 and "Sign in as alice" in page.text
    r = client.post("/login/link", data={"token": link}, headers=OURS, follow_redirects=False)
    assert r.status_code == 303 and _me(client) == 200
    client.cookies.clear()
    again = client.post("/login/link", data={"token": link}, headers=OURS, follow_redirects=False)
    assert again.status_code == 401 and "already been used" in again.text and _me(client) == 401


def test_two_opens_at_once_spend_the_link_once(client: TestClient, alice: str) -> None:
    link = _link(client)
    engine = client.app.state.engine  # type: ignore[attr-defined]
    now = utcnow()
    with Session(engine) as s:
        found = links.find_link(s, link, now)
    assert found is not None and found.refusal is None  # both tabs looked it up before either spent it
    with Session(engine) as s, s.begin():
        assert links.spend(s, found.link_id, now)
    with Session(engine) as s, s.begin():
        assert not links.spend(s, found.link_id, now)


def _database_bytes(database_url: str) -> bytes:
    path = Path(str(make_url(database_url).database))
    return b"".join(p.read_bytes() for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def test_tokens_and_links_are_stored_hashed(client: TestClient, alice: str, database_url: str) -> None:
    link = _link(client)
    r = _open(client, _link(client))
    session = r.cookies[SESSION_COOKIE]
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        stored = [t.token_hash for t in s.exec(select(ApiToken))] + [k.token_hash for k in s.exec(select(LoginLink))]
    for secret in (alice, link, session):
        assert hashlib.sha256(secret.encode()).hexdigest() in stored
        assert secret not in stored
        if database_url.startswith("sqlite"):  # the file itself, and its write-ahead log
            assert secret.encode() not in _database_bytes(database_url), "a token in clear in the database file"
