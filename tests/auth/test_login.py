"""Credentials end to end: brute force on /login answers 429, tokens are compared safely, hashed,
and never reach the server's logs (a real uvicorn at --log-level info)."""

from __future__ import annotations

import hmac
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.auth import security
from app.auth.links import issue_link
from app.auth.ratelimit import LoginLimiter
from app.auth.users import create_user, login_for_token
from app.core.db import make_engine
from app.models.card import utcnow
from app.models.migrate import init_db
from app.models.user import ApiToken, User
from harness.server import uvicorn_server
from tests.utils.fetch_site import TYPED_URL

PASSWORD = "correct horse battery"


class Clock:
    """Seconds since a fixed start (``now``), as the aware datetimes the limiter stores."""

    def __init__(self) -> None:
        self.now = 0.0
        self.start = utcnow()

    def __call__(self) -> datetime:
        return self.start + timedelta(seconds=self.now)


@pytest.fixture
def users(client: TestClient) -> dict[str, str]:
    """alice and bob with passwords; returns their API tokens."""
    out = {}
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        for name in ("alice", "bob"):
            _user, token = create_user(s, name, password=PASSWORD)
            out[name] = token
    return out


@pytest.fixture
def clock(client: TestClient) -> Clock:
    clock = Clock()
    client.app.state.login_limiter = LoginLimiter(max_failures=5, window_s=600, clock=clock)  # type: ignore[attr-defined]
    return clock


def _links(client: TestClient, *names: str) -> list[str]:
    """A fresh one-time login link for each of ``names``."""
    with Session(client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        return [issue_link(s, s.exec(select(User).where(User.username == name)).one()) for name in names]


def _login(client: TestClient, username: str, password: str) -> httpx.Response:
    response: httpx.Response = client.post("/login", data={"username": username, "password": password},
                                           follow_redirects=False,
                                           headers={"Origin": "http://testserver"})  # as a browser's form does
    return response


def test_password_guessing_is_locked_out_with_retry_after(client: TestClient, users: dict[str, str],
                                                          clock: Clock) -> None:
    for i in range(5):
        r = _login(client, "alice", f"guess {i}")
        assert r.status_code == 401, i
        clock.now += 10
    r = _login(client, "alice", PASSWORD)  # even the right password waits: the key is locked
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "550"  # failures at t=0..40, now t=50: free at t=600
    assert "Too many failed attempts. Try again in 550 seconds." in r.text
    assert "proofdeck_session" not in r.headers.get("set-cookie", "")
    assert _login(client, "bob", PASSWORD).status_code == 303  # other usernames are not slowed
    clock.now += 549
    assert _login(client, "alice", PASSWORD).status_code == 429
    clock.now += 1
    assert _login(client, "alice", PASSWORD).status_code == 303  # after the window: the password works


def test_usernames_are_counted_case_insensitively(client: TestClient, users: dict[str, str], clock: Clock) -> None:
    for name in ("alice", "ALICE", "Alice", "aLiCe", "alicE"):
        assert _login(client, name, "wrong").status_code == 401
    assert _login(client, "alice", PASSWORD).status_code == 429


def test_success_resets_only_its_own_counter(client: TestClient, users: dict[str, str], clock: Clock) -> None:
    for _ in range(4):
        assert _login(client, "alice", "wrong").status_code == 401
    assert _login(client, "bob", PASSWORD).status_code == 303  # bob logging in does not help alice's guesser
    assert _login(client, "alice", "wrong").status_code == 401
    assert _login(client, "alice", "wrong").status_code == 429
    clock.now += 600
    for _ in range(4):
        assert _login(client, "alice", "wrong").status_code == 401
    assert _login(client, "alice", PASSWORD).status_code == 303  # her own success clears her counter
    assert _login(client, "alice", "wrong").status_code == 401  # four more would be allowed again


def test_bad_links_never_lock_a_valid_link(client: TestClient, users: dict[str, str], clock: Clock) -> None:
    for i in range(5):  # five bad links from one address (behind a proxy: from everyone)
        assert client.get(f"/login?token=guess-{i}", follow_redirects=False).status_code == 401
    for _ in range(5):
        assert client.get("/login?token=x", follow_redirects=False).status_code == 401
    r = client.get("/login?token=x", follow_redirects=False)  # the same bad link a sixth time
    assert (r.status_code, r.headers["Retry-After"]) == (429, "600")
    for link in _links(client, "alice", "bob"):
        assert client.get(f"/login?token={link}", follow_redirects=False, headers=TYPED_URL).status_code == 303
    assert _login(client, "alice", PASSWORD).status_code == 303  # the password form is another key
    clock.now += 600
    assert client.get("/login?token=x", follow_redirects=False).status_code == 401


def test_tokens_are_looked_up_by_hash_and_compared_in_constant_time(
        client: TestClient, users: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The database only ever sees SHA-256(token): a lookup's timing depends on the digest, which an
    attacker cannot steer byte by byte, and the final check is ``hmac.compare_digest``."""
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        stored = [row.token_hash for row in s.exec(select(ApiToken))]
        assert security.hash_token(users["alice"]) in stored
        assert users["alice"] not in stored and all(len(h) == 64 for h in stored)
        compared: list[tuple[str, str]] = []

        def spy(a: str, b: str) -> bool:
            compared.append((a, b))
            return a == b

        monkeypatch.setattr(hmac, "compare_digest", spy)
        found = login_for_token(s, users["alice"])
        assert found is not None and found[0].username == "alice"
        assert compared == [(security.hash_token(users["alice"]), security.hash_token(users["alice"]))]
        assert login_for_token(s, users["alice"][:-1] + "x") is None
        assert login_for_token(s, "x" * 257) is None  # oversized: refused before hashing


def test_passwords_are_argon2id(client: TestClient, users: dict[str, str]) -> None:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        alice = s.exec(select(User).where(User.username == "alice")).one()
    assert alice.password_hash is not None and alice.password_hash.startswith("$argon2id$")
    assert PASSWORD not in alice.password_hash
    assert security.verify_password(PASSWORD, alice.password_hash)
    assert not security.verify_password(PASSWORD + "!", alice.password_hash)
    assert not security.verify_password(PASSWORD, None)  # token-only account


def test_tokens_never_reach_the_server_log(database_url: str, cards_dir: Path, tmp_path: Path) -> None:
    engine = make_engine(database_url)
    init_db(engine)
    with Session(engine) as s, s.begin():  # users exist: first start prints no admin link
        user, token = create_user(s, "alice", password=PASSWORD)
        link = issue_link(s, user)
    engine.dispose()
    log = tmp_path / "server.log"
    secrets = {"api token": token, "login link": link, "wrong token": "wrong-" + link[6:], "password": PASSWORD}
    with uvicorn_server(database_url, cards_dir, log_level="info", log_file=log) as base:
        with httpx.Client(base_url=base) as http:
            r = http.get(f"/login?token={link}&next=/quiz/stats", headers=TYPED_URL)  # login by link → session cookie
            assert r.status_code == 303
            secrets["session cookie"] = r.cookies["proofdeck_session"]
            assert http.get("/quiz/stats", follow_redirects=False).status_code == 200
        headers = {"Authorization": f"Bearer {token}"}
        assert httpx.get(f"{base}/api/users/me", headers=headers).json()["username"] == "alice"
        assert httpx.get(f"{base}/api/review/next?token={token}", headers=headers).status_code == 200
        assert httpx.get(f"{base}/login?token={secrets['wrong token']}").status_code == 401
        r = httpx.post(f"{base}/login", data={"username": "alice", "password": PASSWORD})
        assert r.status_code == 303
        secrets["password session"] = r.cookies["proofdeck_session"]
        assert httpx.post(f"{base}/login", data={"username": "alice", "password": "not-" + PASSWORD}).status_code == 401
    output = log.read_text()
    assert '"GET /api/users/me HTTP/1.1" 200' in output  # the access log was on
    assert output.count("token=[redacted]") == 3  # the two login links and the query parameter
    leaked = [name for name, value in secrets.items() if value in output]
    assert not leaked, f"{leaked} found in the server output:\n{output}"
