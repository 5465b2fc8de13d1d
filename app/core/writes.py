"""Short write transactions that never surface "database is locked" to a user.

SQLite allows one writer at a time. Inside one process a lock per engine queues writers in Python
(cheaper than SQLite's busy-wait back-off); each transaction starts with ``BEGIN IMMEDIATE``, so it holds
the database's write lock before its first read (what it reads cannot change under it, even from
another process); across processes the busy timeout set by ``make_engine`` waits, and a write that still
fails with "database is locked" is retried with a fresh transaction. PostgreSQL needs none of this: the
lock is skipped and its row locks do the work.

:func:`try_write_now` is the non-waiting variant for code on the event loop (group commit of answers).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import TypeVar

from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from app.core.db import BUSY_TIMEOUT_MS, new_session, write_lock

T = TypeVar("T")
RETRIES = 5


def _locked(exc: OperationalError) -> bool:
    return "locked" in str(exc.orig).lower() or "busy" in str(exc.orig).lower()


def run_write(engine: Engine, work: Callable[[Session], T], *, release: Session | None = None) -> T:
    """Run ``work(session)`` in its own transaction (commit on return), serialised per SQLite engine.

    ``release``: the caller's (request) session, closed first, so that a request never holds a pooled
    connection while it waits for the lock: writers queue on the lock holding nothing, readers keep the
    pool, and the lock holder's checkout always succeeds (callers must not hold a connection here).
    """
    if release is not None:
        release.close()
    lock = write_lock(engine)
    for attempt in range(RETRIES):
        try:
            with lock if lock is not None else nullcontext(), new_session(engine, expire_on_commit=False) as session:
                if lock is not None:
                    session.connection().exec_driver_sql("BEGIN IMMEDIATE")
                result = work(session)
                session.commit()
                return result
        except OperationalError as exc:
            if not _locked(exc) or attempt == RETRIES - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


NOT_NOW = object()


def try_write_now(engine: Engine, work: Callable[[Session], T]) -> T | object:
    """Run ``work`` like :func:`run_write` only if nothing makes it wait: SQLite, this process's write lock
    free and the database's write lock free (busy timeout 0 for this one transaction). Else
    :data:`NOT_NOW`, having written nothing; the caller then runs :func:`run_write` in a thread.
    PostgreSQL always answers :data:`NOT_NOW` (its statements wait on the network and on row locks).
    """
    lock = write_lock(engine)
    if lock is None or not lock.acquire(blocking=False):
        return NOT_NOW
    try:
        with new_session(engine, expire_on_commit=False) as session:
            conn = session.connection()
            raw = conn.connection.dbapi_connection
            assert raw is not None
            raw.execute("PRAGMA busy_timeout=0")
            try:
                conn.exec_driver_sql("BEGIN IMMEDIATE")  # the one statement that could wait (WAL)
            except OperationalError as exc:
                if not _locked(exc):
                    raise
                return NOT_NOW
            finally:
                raw.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            result = work(session)
            session.commit()
            return result
    finally:
        lock.release()
