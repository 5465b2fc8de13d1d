"""Slow down password and token guessing on ``/login`` without letting anyone lock out someone else.

Every failed login is a row in ``loginfailure`` (the database, so every worker and every host counts the
same attempts; a restart forgets nothing within the window). Within a sliding window (15 minutes):

- **Password**, per (username, client address): 5 failures lock that pair. Only the guesser's own
  address is locked: the account's owner, from anywhere else, still logs in. A success clears the pair.
- **Password, per account** (many addresses guessing one username): once 50 failures on the account
  pile up from all addresses, an address that has itself failed on it gets 429 at once; an address
  with no failure there (the owner, usually) still gets its tries.
- **Login links**, per token tried (its SHA-256): a link that failed 5 times answers 429. A valid link
  always works: it is checked before any limit (a lookup by digest costs no more than a refusal), so
  bad links from one address, or from everyone behind one proxy, never lock anybody's valid link.
- **Global ceiling** per kind (1,000 failures in the window, all addresses): a request that would fail
  is answered 429 and no longer recorded, so a flood cannot grow the table without bound.

The client address is the TCP peer; ``X-Forwarded-For`` is believed only from the proxies listed in
``PROOFDECK_TRUSTED_PROXIES`` (``proofdeck serve`` passes them to uvicorn; none by default). The clock
is injectable so tests need no sleeps.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, delete, select

from app.auth.security import hash_token
from app.core.writes import run_write
from app.models.card import utcnow
from app.models.user import LoginFailure

PASSWORD, LINK = "password", "link"


@dataclass
class LoginLimiter:
    """Failure counts over a sliding window, read from and written to the database."""

    max_failures: int = 5
    window_s: float = 15 * 60.0
    account_ceiling: int = 50
    global_ceiling: int = 1_000
    clock: Callable[[], datetime] = utcnow

    def __post_init__(self) -> None:
        if self.max_failures < 1 or self.window_s <= 0:
            raise ValueError(f"max_failures must be >= 1 and window_s > 0; got {self.max_failures}, {self.window_s}")

    def _window(self) -> tuple[datetime, datetime]:
        now = self.clock()
        return now, now - timedelta(seconds=self.window_s)

    def _wait(self, session: Session, limit: int, *where: Any) -> int | None:
        """Seconds until fewer than ``limit`` failures matching ``where`` are left in the window."""
        now, since = self._window()
        times = session.exec(select(LoginFailure.at).where(col(LoginFailure.at) > since, *where)
                             .order_by(col(LoginFailure.at).desc()).offset(limit - 1).limit(1)).first()
        if times is None:
            return None
        return max(1, math.ceil((times - now).total_seconds() + self.window_s))

    def _count(self, session: Session, *where: Any) -> int:
        _now, since = self._window()
        return int(session.exec(select(func.count()).select_from(LoginFailure)
                                .where(col(LoginFailure.at) > since, *where)).one())

    def password_wait(self, session: Session, username: str, address: str) -> int | None:
        """Seconds this address must wait before trying a password for ``username``; None: try now."""
        user = username.lower()
        mine = (LoginFailure.kind == PASSWORD, LoginFailure.subject == user, LoginFailure.address == address)
        wait = self._wait(session, self.max_failures, *mine)
        if wait is not None or self._count(session, *mine) == 0:
            return wait  # locked by its own failures; or no failure of its own: the ceilings spare it
        return (self._wait(session, self.account_ceiling, LoginFailure.kind == PASSWORD, LoginFailure.subject == user)
                or self._wait(session, self.global_ceiling, LoginFailure.kind == PASSWORD))

    def link_wait(self, session: Session, token: str) -> int | None:
        """Seconds before this (failed, unknown) token may be tried again; checked only for bad links."""
        digest = hash_token(token)
        return (self._wait(session, self.max_failures, LoginFailure.kind == LINK, LoginFailure.subject == digest)
                or self._wait(session, self.global_ceiling, LoginFailure.kind == LINK))

    def failed(self, engine: Engine, kind: str, subject: str, address: str) -> None:
        """Record one failure (``subject``: the username, or the token tried; only its digest is kept)."""
        now, since = self._window()
        subject = subject.lower() if kind == PASSWORD else hash_token(subject)

        def work(s: Session) -> None:
            s.exec(delete(LoginFailure).where(col(LoginFailure.at) <= since))
            s.add(LoginFailure(kind=kind, subject=subject[:64], address=address[:64], at=now))

        run_write(engine, work)

    def succeeded(self, engine: Engine, username: str, address: str) -> None:
        """A good password clears the failures of its own (username, address) pair, and only those."""
        user = username.lower()

        def work(s: Session) -> None:
            s.exec(delete(LoginFailure).where(
                col(LoginFailure.kind) == PASSWORD, col(LoginFailure.subject) == user,
                col(LoginFailure.address) == address))

        run_write(engine, work)
