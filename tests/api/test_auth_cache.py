"""The sign-in cache (``app.auth.cache``): hashed keys only, and a change in this process is seen at once."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.auth import cache
from app.auth.users import create_user
from app.core.db import new_session
from app.models.user import ApiToken, User


def _user(client: TestClient, name: str, *, admin: bool = False) -> tuple[int, dict[str, str], str]:
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        user, token = create_user(s, name, is_admin=admin)
        s.flush()
        assert user.id is not None
        return user.id, {"Authorization": f"Bearer {token}"}, token


def test_cache_keeps_digests_never_tokens(client: TestClient) -> None:
    _uid, h, token = _user(client, "carol")
    assert client.get("/api/users/me", headers=h).status_code == 200
    assert client.get("/api/users/me", headers=h).status_code == 200  # served from the cache
    assert cache._cache, "the sign-in was cached"
    assert all(token not in key[1] and len(key[1]) == 64 for key in cache._cache)


def test_deleted_user_and_revoked_token_are_refused_at_once(client: TestClient) -> None:
    _aid, admin, _ = _user(client, "root", admin=True)
    uid, h, token = _user(client, "dave")
    _eid, h2, _ = _user(client, "erin")
    assert client.get("/api/review/next", headers=h).status_code == 200
    assert client.delete(f"/api/users/{uid}", headers=admin).status_code == 204
    assert client.get("/api/review/next", headers=h).status_code == 401
    assert client.get("/api/review/next", headers=h2).status_code == 200
    # a revocation by the app's code in this process (its sessions: app.core.db.new_session) is seen at once;
    # one made by any other session is seen within cache.TTL (tests/core/test_sessions.py)
    with new_session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        for row in s.exec(select(ApiToken).join(User).where(User.username == "erin")):
            s.delete(row)
    assert client.get("/api/review/next", headers=h2).status_code == 401


def test_settings_change_is_seen_by_the_next_request(client: TestClient) -> None:
    _uid, h, _ = _user(client, "frank")
    assert client.get("/api/review/next", headers=h).json()["language"] == "both"
    assert client.put("/api/review/settings", json={"language": "zh"}, headers=h).status_code == 200
    assert client.get("/api/review/next", headers=h).json()["language"] == "zh"
    assert client.put("/api/review/settings", json={"new_per_day": 0}, headers=h).status_code == 200
    assert client.get("/api/review/next", headers=h).json()["new_left"] == 0
