"""One token lookup: the sign-in cache and the login route read tokens through ``users.find_token`` only,
so a rule added there (a refused token) holds for both at once."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.auth import cache, users


def test_the_cache_and_the_login_route_share_one_lookup(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    with Session(engine) as s, s.begin():
        user, token = users.create_user(s, "ada")
    cache.clear()
    with Session(engine) as s:
        assert users.user_for_token(s, token) is not None
    assert cache.signed_in(engine, token) is not None
    cache.clear()

    calls: list[str] = []

    def refused(_session: Any, given: str) -> None:  # a security fix made in the one place
        calls.append(given)
        return None

    monkeypatch.setattr(users, "find_token", refused)
    with Session(engine) as s:
        assert users.user_for_token(s, token) is None  # the login route's lookup (login links, sessions)
    assert cache.signed_in(engine, token) is None  # every API request's lookup
    assert cache.login(engine, token) is None
    assert calls == [token, token, token]
