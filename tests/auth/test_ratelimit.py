"""The login limiter: failures in the database (every worker counts the same), keyed so that nobody can
lock out another user's valid login, and client addresses from proxy headers only when configured."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select

from app.auth.ratelimit import LINK, PASSWORD, LoginLimiter
from app.auth.users import create_user
from app.models.card import utcnow
from app.models.user import LoginFailure
from harness.server import ROOT, free_port, stop, wait_healthy

PASSWORD_OK = "correct horse battery"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.start = utcnow()

    def __call__(self) -> datetime:
        return self.start + timedelta(seconds=self.now)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _wait(engine: Engine, limiter: LoginLimiter, user: str, address: str) -> int | None:
    with Session(engine) as s:
        return limiter.password_wait(s, user, address)


def _fail(engine: Engine, limiter: LoginLimiter, user: str, address: str, times: int = 1) -> None:
    for _ in range(times):
        limiter.failed(engine, PASSWORD, user, address)


def test_locks_after_max_failures_and_says_how_long(engine: Engine, clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=3, window_s=60, clock=clock)
    for _ in range(2):
        _fail(engine, limiter, "alice", "10.0.0.1")
        clock.now += 1
    assert _wait(engine, limiter, "alice", "10.0.0.1") is None  # two failures: still free to try
    _fail(engine, limiter, "alice", "10.0.0.1")  # third failure at t=2; the first was at t=0
    assert _wait(engine, limiter, "alice", "10.0.0.1") == 58  # until the first leaves the 60 s window
    assert _wait(engine, limiter, "ALICE", "10.0.0.1") == 58  # usernames are case-insensitive
    clock.now += 57.5
    assert _wait(engine, limiter, "alice", "10.0.0.1") == 1  # rounded up, never 0
    clock.now += 0.5
    assert _wait(engine, limiter, "alice", "10.0.0.1") is None  # the window slid past the first failure


def test_an_attacker_locks_only_their_own_address(engine: Engine, clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=2, window_s=60, clock=clock)
    _fail(engine, limiter, "bob", "10.6.6.6", 2)
    assert _wait(engine, limiter, "bob", "10.6.6.6") == 60
    assert _wait(engine, limiter, "bob", "10.0.0.2") is None  # bob himself, elsewhere, logs in
    assert _wait(engine, limiter, "carol", "10.6.6.6") is None  # another account from that address
    _fail(engine, limiter, "alice", "10.0.0.1")
    limiter.succeeded(engine, "alice", "10.0.0.1")  # alice logs in: her counter is cleared ...
    assert _wait(engine, limiter, "bob", "10.6.6.6") == 60  # ... the attacker's is not
    _fail(engine, limiter, "alice", "10.0.0.1")
    assert _wait(engine, limiter, "alice", "10.0.0.1") is None  # counted from zero again


def test_the_account_ceiling_stops_guessing_from_many_addresses_but_not_the_owner(engine: Engine,
                                                                                  clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=5, window_s=60, account_ceiling=10, clock=clock)
    for i in range(10):
        _fail(engine, limiter, "bob", f"10.6.0.{i}")  # one guess each from ten addresses
    assert _wait(engine, limiter, "bob", "10.6.0.3") == 60  # a guesser that failed before: locked
    assert _wait(engine, limiter, "bob", "192.168.1.7") is None  # bob, who never failed: not locked
    assert _wait(engine, limiter, "alice", "10.6.0.3") is None  # other accounts are not affected


def test_the_global_ceiling_answers_bad_links_429(engine: Engine, clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=5, window_s=60, global_ceiling=20, clock=clock)
    for i in range(20):
        limiter.failed(engine, LINK, f"guess-{i}", "10.6.6.6")
    with Session(engine) as s:
        assert limiter.link_wait(s, "another-guess") == 60
        stored = s.exec(select(LoginFailure.subject)).all()
    assert len(stored) == 20 and not any(x.startswith("guess") for x in stored)  # digests, not tokens


def test_old_failures_are_deleted(engine: Engine, clock: Clock) -> None:
    limiter = LoginLimiter(max_failures=5, window_s=60, clock=clock)
    _fail(engine, limiter, "alice", "10.0.0.1", 3)
    clock.now += 61
    _fail(engine, limiter, "alice", "10.0.0.1")
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(LoginFailure)).one() == 1


@pytest.mark.parametrize(("max_failures", "window_s"), [(0, 60.0), (3, 0.0)])
def test_bad_configuration_is_refused(max_failures: int, window_s: float) -> None:
    with pytest.raises(ValueError, match="max_failures must be >= 1 and window_s > 0"):
        LoginLimiter(max_failures=max_failures, window_s=window_s)


def test_workers_share_the_counts(database_url: str, cards_dir: Path) -> None:
    """Two apps on one database (two workers, or two hosts): failures on one lock on the other."""
    from app.main import create_app

    first, second = (create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=False)
                     for _ in range(2))
    with TestClient(first) as a, TestClient(second) as b:
        with Session(first.state.engine) as s, s.begin():
            create_user(s, "alice", password=PASSWORD_OK)
        for client in (a, b, a, b, a):
            r = client.post("/login", data={"username": "alice", "password": "wrong"}, follow_redirects=False)
            assert r.status_code == 401
        for client in (a, b):
            r = client.post("/login", data={"username": "alice", "password": PASSWORD_OK}, follow_redirects=False)
            assert r.status_code == 429


@pytest.fixture
def served(database_url: str, cards_dir: Path, tmp_path: Path) -> Iterator[object]:
    """``proofdeck serve`` (the real command, real uvicorn) with alice; call it with extra env to start."""
    from app.core.db import make_engine
    from app.models.migrate import init_db

    engine = make_engine(database_url)
    init_db(engine)
    with Session(engine) as s, s.begin():
        create_user(s, "alice", password=PASSWORD_OK)
    engine.dispose()
    procs: list[subprocess.Popen[bytes]] = []

    def start(env: dict[str, str]) -> str:
        port = free_port()
        proc_env = {**os.environ, "PROOFDECK_DATABASE_URL": database_url, "PROOFDECK_CARDS_DIR": str(cards_dir),
                    "PROOFDECK_SYNC_ON_STARTUP": "false", **env}
        proc_env.pop("FORWARDED_ALLOW_IPS", None)
        proofdeck = Path(sys.executable).parent / "proofdeck"
        proc = subprocess.Popen([str(proofdeck), "serve", "--port", str(port)], cwd=ROOT, env=proc_env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        procs.append(proc)
        base = f"http://127.0.0.1:{port}"
        wait_healthy(proc, base)
        return base

    yield start
    for proc in procs:
        stop(proc)


def _post(base: str, password: str, forwarded_for: str) -> int:
    return httpx.post(f"{base}/login", data={"username": "alice", "password": password},
                      headers={"X-Forwarded-For": forwarded_for}, follow_redirects=False).status_code


def test_x_forwarded_for_from_an_untrusted_peer_does_not_bypass_the_limit(served: object) -> None:
    base = served({})  # type: ignore[operator]  # PROOFDECK_TRUSTED_PROXIES unset: the default
    assert [_post(base, "wrong", f"203.0.113.{i}") for i in range(5)] == [401] * 5
    assert [_post(base, "wrong", f"198.51.100.{i}") for i in range(8)] == [429] * 8  # fresh "addresses"
    assert _post(base, PASSWORD_OK, "192.0.2.1") == 429  # the real address stays locked


def test_x_forwarded_for_is_believed_from_a_configured_proxy(served: object) -> None:
    base = served({"PROOFDECK_TRUSTED_PROXIES": "127.0.0.1"})  # type: ignore[operator]
    assert [_post(base, "wrong", "203.0.113.9") for _ in range(5)] == [401] * 5
    assert _post(base, "wrong", "203.0.113.9") == 429  # that client is locked ...
    assert _post(base, PASSWORD_OK, "198.51.100.1") == 303  # ... another client behind the proxy is not
