"""Engine and sessions. SQLite gets WAL + a busy timeout; PostgreSQL uses the same code."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from fastapi import Request
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
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


def get_session(request: Request) -> Iterator[Session]:
    """A session on the engine of the app serving this request (``app.state.engine``)."""
    with Session(request.app.state.engine) as session:
        yield session
