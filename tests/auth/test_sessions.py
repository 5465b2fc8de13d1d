"""Web sessions end on the server (idle and absolute limits, the sign-in cache included) and
"log out everywhere" ends them all, from the page and from the CLI."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from app.auth import cache as auth_cache
from app.auth import sessions
from app.auth.users import SESSION_COOKIE, create_user
from app.models.card import utcnow
from app.models.user import ApiToken

PASSWORD = "correct horse battery"


@pytest.fixture
def alice(client: TestClient) -> str:
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        _u, token = create_user(s, "alice", password=PASSWORD)
    return token


def _log_in(client: TestClient) -> str:
    r = client.post("/login", data={"username": "alice", "password": PASSWORD}, follow_redirects=False,
                    headers={"Origin": "http://testserver"})  # as a browser's form does
    assert r.status_code == 303
    return str(r.cookies[SESSION_COOKIE])


def _cookie(value: str) -> dict[str, str]:
    return {"Cookie": f"{SESSION_COOKIE}={value}"}


def _me(client: TestClient, cookie: str) -> int:
    client.cookies.clear()
    return int(client.get("/api/users/me", headers=_cookie(cookie)).status_code)


def _age(client: TestClient, *, created_days: float, used_days: float | None) -> None:
    """Move every session of the database back in time (raw SQL: other processes' caches see it in 2 s)."""
    now = utcnow()
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        s.exec(update(ApiToken).where(col(ApiToken.kind) == "session").values(
            created_at=now - timedelta(days=created_days),
            last_used_at=None if used_days is None else now - timedelta(days=used_days)))
    auth_cache.clear()


def test_a_session_400_days_old_no_longer_works(client: TestClient, alice: str) -> None:
    cookie = _log_in(client)
    assert _me(client, cookie) == 200
    _age(client, created_days=400, used_days=0.01)  # used a minute ago, but logged in 400 days ago
    assert _me(client, cookie) == 401
    client.cookies.clear()
    r = client.get("/quiz", headers=_cookie(cookie), follow_redirects=False)
    assert (r.status_code, r.headers["location"]) == (303, "/login?next=/quiz")
    assert client.get("/api/users/me", headers={"Authorization": f"Bearer {alice}"}).status_code == 200  # API token


def test_idle_and_absolute_limits(client: TestClient, alice: str) -> None:
    cookie = _log_in(client)
    _age(client, created_days=40, used_days=29)  # idle 29 of 30 days, 40 of 90 since the login: alive
    assert _me(client, cookie) == 200
    _age(client, created_days=40, used_days=31)  # idle too long
    assert _me(client, cookie) == 401
    _age(client, created_days=31, used_days=None)  # never used since the login, 31 days ago
    assert _me(client, cookie) == 401
    _age(client, created_days=89, used_days=1)
    assert _me(client, cookie) == 200
    _age(client, created_days=91, used_days=1)
    assert _me(client, cookie) == 401


def test_limits_follow_the_settings(client: TestClient, alice: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cookie = _log_in(client)
    _age(client, created_days=2, used_days=1.5)
    assert _me(client, cookie) == 200  # (this request records the use: age it again)
    _age(client, created_days=2, used_days=1.5)
    monkeypatch.setattr("app.auth.sessions.settings.SESSION_IDLE_DAYS", 1.0)
    assert _me(client, cookie) == 401
    monkeypatch.setattr("app.auth.sessions.settings.SESSION_IDLE_DAYS", 30.0)
    monkeypatch.setattr("app.auth.sessions.settings.SESSION_MAX_DAYS", 1.0)
    auth_cache.clear()
    assert _me(client, cookie) == 401


def test_use_is_recorded_at_most_hourly(client: TestClient, alice: str) -> None:
    cookie = _log_in(client)
    engine = client.app.state.engine  # type: ignore[attr-defined]

    def last_used() -> object:
        with Session(engine) as s:
            return s.exec(select(ApiToken.last_used_at).where(ApiToken.kind == "session")).one()

    assert _me(client, cookie) == 200 and last_used() is None  # fresh: nothing to record
    _age(client, created_days=10, used_days=10)
    assert _me(client, cookie) == 200
    first = last_used()
    assert first is not None and utcnow() - first < timedelta(minutes=1)  # type: ignore[operator]
    auth_cache.clear()
    assert _me(client, cookie) == 200 and last_used() == first  # a minute later: no second write


def test_the_sign_in_cache_keeps_a_session_no_longer_than_it_lives(client: TestClient, alice: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    cookie = _log_in(client)
    _age(client, created_days=90 - 1 / 86400 * 30, used_days=0.01)  # 30 s left
    monkeypatch.setattr(auth_cache, "TTL", 3600.0)  # the cache alone would keep it an hour
    assert _me(client, cookie) == 200
    later = time.monotonic() + 31
    monkeypatch.setattr(time, "monotonic", lambda: later)
    monkeypatch.setattr("app.auth.sessions.utcnow", lambda: utcnow() + timedelta(seconds=31))
    assert _me(client, cookie) == 401


def test_log_out_everywhere_from_the_page(client: TestClient, alice: str) -> None:
    laptop, phone = _log_in(client), _log_in(client)
    assert _me(client, laptop) == 200 and _me(client, phone) == 200
    client.cookies.clear()
    page = client.get("/quiz", headers=_cookie(phone))
    assert 'action="/logout/everywhere"' in page.text
    client.cookies.clear()
    r = client.post("/logout/everywhere", follow_redirects=False,
                    headers={**_cookie(phone), "Origin": str(client.base_url)})
    assert (r.status_code, r.headers["location"]) == (303, "/login")
    assert _me(client, laptop) == 401 and _me(client, phone) == 401
    assert client.get("/api/users/me", headers={"Authorization": f"Bearer {alice}"}).status_code == 200
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        assert s.exec(select(ApiToken).where(ApiToken.kind == "session")).all() == []


def test_log_out_everywhere_from_the_cli(client: TestClient, alice: str, database_url: str) -> None:
    from app.cli.main import cli

    cookie = _log_in(client)
    result = CliRunner().invoke(cli, ["user", "logout", "alice", "--database-url", database_url])
    assert result.exit_code == 0, result.output
    assert "1 web session(s) and 0 pending login link(s) ended" in result.output
    auth_cache.clear()  # another process: this one's cache forgets within TTL seconds
    assert _me(client, cookie) == 401
    missing = CliRunner().invoke(cli, ["user", "logout", "nobody", "--database-url", database_url])
    assert missing.exit_code == 1 and "no user 'nobody'" in missing.output


def test_expired_sessions_are_purged_at_the_next_login(client: TestClient, alice: str) -> None:
    _log_in(client)
    _age(client, created_days=100, used_days=50)
    _log_in(client)
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        rows = s.exec(select(ApiToken).where(ApiToken.kind == "session")).all()
    assert len(rows) == 1 and sessions.remaining_s(rows[0]) > 0  # type: ignore[operator]
