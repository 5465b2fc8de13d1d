"""Engine and sessions. SQLite gets WAL + a busy timeout; PostgreSQL uses the same code.

The app makes every session with :func:`new_session` (one ``sessionmaker`` per engine, :func:`session_factory`): the
session listeners the app needs (the review queues, the sign-in cache) are installed by ``create_app`` on
that engine's sessionmaker, so they fire for the app's sessions on that engine only, never for a session
that other code (a test, a script, another engine) makes with ``Session(...)``. Nothing is registered at
import. ``tests/core/test_sessions.py`` fails on a ``Session(...)`` constructed elsewhere in ``app/``.
"""

from __future__ import annotations

import threading
import weakref
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.orm import sessionmaker
from sqlmodel import Session, create_engine

from app.core.config import settings

BUSY_TIMEOUT_MS = 30_000  # how long a SQLite writer waits for another process's write lock
# Durability (README "Durability"): by default (PROOFDECK_SQLITE_SYNCHRONOUS=FULL) every commit syncs the
# write-ahead log before it returns, so an acknowledged answer survives a power loss, not only a crash of
# the process (NORMAL would lose the commits since the last checkpoint). Group commit
# (app/review/committer.py) pays one sync per batch.


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA synchronous={settings.SQLITE_SYNCHRONOUS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.close()


def _json(value: Any) -> str:
    """JSON columns through orjson: several per review answer, and 5-10x cheaper than ``json.dumps``."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def make_engine(url: str) -> Engine:
    """Create an engine for ``url``; creates the SQLite file's folder if needed."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                               json_serializer=_json)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, json_serializer=_json)


_write_locks: weakref.WeakKeyDictionary[Engine, threading.Lock] = weakref.WeakKeyDictionary()
_write_locks_guard = threading.Lock()


def write_lock(engine: Engine) -> threading.Lock | None:
    """The lock this process's writers to a SQLite database take in turn (one writer at a time: queueing
    here is cheaper than SQLite's busy-wait); None for PostgreSQL, whose row locks do that work."""
    if engine.dialect.name != "sqlite":
        return None
    with _write_locks_guard:
        return _write_locks.setdefault(engine, threading.Lock())


_engines: dict[str, Engine] = {}


def get_engine(url: str | None = None) -> Engine:
    """One engine per URL per process (default: ``PROOFDECK_DATABASE_URL``)."""
    key = url or settings.DATABASE_URL
    if key not in _engines:
        _engines[key] = make_engine(key)
    return _engines[key]


def dispose_engines() -> None:
    """Close every pooled connection (tests, before dropping a database)."""
    while _engines:
        _engines.popitem()[1].dispose()


_makers: weakref.WeakKeyDictionary[Engine, sessionmaker[Session]] = weakref.WeakKeyDictionary()
_makers_guard = threading.Lock()


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """The app's session factory of ``engine`` (one per engine object, gone with it): where ``create_app``
    installs the session listeners (``event.listen(session_factory(engine), ...)``)."""
    found = _makers.get(engine)
    if found is None:
        with _makers_guard:
            found = _makers.setdefault(engine, sessionmaker(bind=engine, class_=Session))
    return found


def new_session(engine: Engine, *, bind: Connection | None = None, expire_on_commit: bool = True) -> Session:
    """A new session of the app on ``engine`` (``bind``: on that connection of it instead)."""
    maker = session_factory(engine)
    if bind is not None:
        return maker(bind=bind, expire_on_commit=expire_on_commit)
    return maker(expire_on_commit=expire_on_commit)
