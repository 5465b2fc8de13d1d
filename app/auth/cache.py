"""Sign-ins remembered for a few seconds: token digest → (user, settings), per process.

Every API request authenticates; a hit saves the token query (and, in ``app.api.deps``, a thread hop).
Keyed by the engine URL and the SHA-256 digest the database stores: the raw token is never kept.

Invalidation: any flush of the app's sessions (``app.core.db.new_session``, on an engine where
``create_app`` installed :func:`install_listeners`) that adds, changes or deletes a ``User``, ``ApiToken``
or ``UserSettings`` row clears the cache, at the flush and again at the commit (a generation counter stops
a lookup that raced with the change from storing the old row). A change made by another process (a
second worker, the ``proofdeck`` CLI), by a session made otherwise or by raw SQL is seen within
:data:`TTL` seconds.
Each request gets its own detached copies of the rows, so no two requests share an ORM object; the hot
review routes take the immutable :class:`SignedIn` value instead, which costs no copy.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import make_transient_to_detached

from app.auth import sessions, users
from app.auth.security import hash_token
from app.core.db import new_session, session_factory
from app.core.writes import run_write
from app.models.user import ApiToken, User, UserSettings
from app.srs.prefs import Prefs

TTL = 2.0
MAX_ENTRIES = 10_000
KINDS = ("api", "session")
_USER_COLS = ("id", "username", "is_admin", "password_hash", "created_at")
_SETTINGS_COLS = ("user_id", "desired_retention", "new_per_day", "reviews_per_day", "language", "parameters",
                  "gather_order", "bury_siblings", "optimized_at", "optimized_reviews")


@dataclass(frozen=True, slots=True)
class SignedIn:
    """Who is signed in, as an immutable value shared by requests (the hot review routes take this
    instead of ORM copies of the rows)."""

    user_id: int
    is_admin: bool
    prefs: Prefs


Entry = tuple[float, str, dict[str, Any], dict[str, Any] | None, SignedIn]  # (expires, kind, user, settings, ...)
_cache: dict[tuple[str, str], Entry] = {}
_lock = threading.Lock()
_generation = 0
MISS = object()


def clear() -> None:
    global _generation
    with _lock:
        _generation += 1
        _cache.clear()


def _key(engine: Engine, token: str) -> tuple[str, str]:
    return str(engine.url), hash_token(token)


def _copy(cls: Any, data: dict[str, Any]) -> Any:
    obj = cls(**{k: list(v) if isinstance(v, list) else v for k, v in data.items()})
    make_transient_to_detached(obj)  # as if loaded by a closed session: adding it back updates, never inserts
    return obj


def _answer(entry: Entry, kinds: tuple[str, ...]) -> tuple[User, UserSettings | None] | None:
    _expires, kind, user, st, _signed_in = entry
    if kind not in kinds:
        return None
    return _copy(User, user), (_copy(UserSettings, st) if st is not None else None)


def _cached(engine: Engine, token: str) -> Entry | None:
    entry = _cache.get(_key(engine, token))
    return entry if entry is not None and entry[0] >= time.monotonic() else None


def cached_login(engine: Engine, token: str, kinds: tuple[str, ...] = KINDS) -> Any:
    """The cached sign-in for ``token`` (None: no such token), or :data:`MISS`; never touches the database."""
    entry = _cached(engine, token)
    return MISS if entry is None else _answer(entry, kinds)


def cached_signed_in(engine: Engine, token: str, kinds: tuple[str, ...] = KINDS) -> Any:
    """:class:`SignedIn` for a cached ``token`` of one of ``kinds`` (None: no such token), or :data:`MISS`."""
    entry = _cached(engine, token)
    if entry is None:
        return MISS
    return entry[4] if entry[1] in kinds else None


def signed_in(engine: Engine, token: str, kinds: tuple[str, ...] = KINDS) -> SignedIn | None:
    """:class:`SignedIn` behind ``token`` (None when unknown or of another kind); a miss reads and caches it."""
    found = cached_signed_in(engine, token, kinds)
    if found is not MISS:
        return cast(SignedIn | None, found)
    entry = _load(engine, token)
    return entry[4] if entry is not None and entry[1] in kinds else None


def login(engine: Engine, token: str, kinds: tuple[str, ...] = KINDS) -> tuple[User, UserSettings | None] | None:
    """(user, settings) behind ``token`` (None when unknown or of another kind); a miss reads and caches it."""
    found = cached_login(engine, token, kinds)
    if found is not MISS:
        return cast(tuple[User, UserSettings | None] | None, found)
    entry = _load(engine, token)
    return _answer(entry, kinds) if entry is not None else None


def _load(engine: Engine, token: str) -> Entry | None:
    generation = _generation
    with new_session(engine) as session:
        row = users.find_token(session, token)
        if row is None:
            return None
        api_token, user, st = row
        assert user.id is not None
        left = sessions.remaining_s(api_token)  # a session is cached no longer than it lives
        settings = {c: getattr(st, c) for c in _SETTINGS_COLS} if st is not None else None
        entry: Entry = (time.monotonic() + min(TTL, left if left is not None else TTL), api_token.kind,
                        {c: getattr(user, c) for c in _USER_COLS},
                        settings, SignedIn(user_id=user.id, is_admin=user.is_admin, prefs=Prefs.of(settings)))
    if sessions.touch_due(api_token):
        run_write(engine, lambda s: sessions.touch(s, api_token))
    with _lock:
        if len(_cache) > MAX_ENTRIES:
            _cache.clear()
        if generation == _generation:
            _cache[_key(engine, token)] = entry
    return entry


_WATCHED = (User, ApiToken, UserSettings)


def _after_flush(session: OrmSession, _ctx: Any) -> None:
    if any(isinstance(o, _WATCHED) for group in (session.new, session.dirty, session.deleted) for o in group):
        session.info["auth_cache_dirty"] = True
        clear()


def _after_commit(session: OrmSession) -> None:
    if session.info.pop("auth_cache_dirty", False):
        clear()


def _after_rollback(session: OrmSession) -> None:
    session.info.pop("auth_cache_dirty", None)


def install_listeners(engine: Engine) -> None:
    """Drop cached sign-ins when the app's sessions on ``engine`` change users, tokens or settings (installed
    by ``create_app`` on the app's sessionmaker of ``engine``, ``app.core.db.session_factory``; idempotent)."""
    maker = session_factory(engine)
    for name, fn in (("after_flush", _after_flush), ("after_commit", _after_commit),
                     ("after_rollback", _after_rollback)):
        if not event.contains(maker, name, fn):
            event.listen(maker, name, fn)
