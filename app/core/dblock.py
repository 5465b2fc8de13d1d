"""One process at a time changes a database's schema or deck: start-up, ``proofdeck sync``, admin sync.

``proofdeck serve --workers N`` starts N processes that each run the start-up work (migrations, card
sync, first admin); several hosts may share one PostgreSQL; an admin may run ``proofdeck sync`` while
the server starts. :func:`database_lock` makes them take turns: the first does the work, the others
wait, then find nothing left to do (schema at head, cards unchanged) and go on.

- SQLite: an exclusive ``flock`` on a file next to the database (``proofdeck.db.lock``). The kernel
  drops it when its holder exits, even on kill -9. An in-memory database needs no lock.
- PostgreSQL: a session-level advisory lock (:data:`PG_LOCK_KEY`) on a connection of its own, held in
  autocommit mode; the server drops it when that connection ends (a killed holder included).

The lock is re-entrant within a process (start-up holds it while it calls ``init_db`` and the sync,
which take it too); threads of one process take turns on an in-process lock first.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

PG_LOCK_KEY = 0x70726F6F66  # "proof": one advisory lock key for every proofdeck database
TIMEOUT = 600.0  # seconds a process waits for another's start-up or sync before giving up
POLL = 0.1


class DatabaseBusy(RuntimeError):
    """Another process held the lock for longer than the timeout."""


def lock_file(engine: Engine) -> Path | None:
    """The lock file of a SQLite database (None: in-memory, or not SQLite)."""
    if engine.dialect.name != "sqlite":
        return None
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        return None
    return Path(database).with_name(Path(database).name + ".lock")


def describe(engine: Engine) -> str:
    path = lock_file(engine)
    return f"lock file {path}" if path is not None else f"PostgreSQL advisory lock {PG_LOCK_KEY}"


_guard = threading.Lock()
_local: dict[str, threading.RLock] = {}
_depth: dict[str, int] = {}


@contextmanager
def database_lock(engine: Engine, *, waiting: Callable[[str], None] | None = None,
                  timeout: float = TIMEOUT) -> Iterator[None]:
    """Hold the database's start-up/sync lock for the block.

    ``waiting(message)`` is called once if another process holds it (then this one waits, polling);
    :class:`DatabaseBusy` after ``timeout`` seconds.
    """
    key = engine.url.render_as_string(hide_password=True)
    with _guard:
        local = _local.setdefault(key, threading.RLock())
    with local:
        if _depth.get(key, 0):
            _depth[key] += 1
            try:
                yield
            finally:
                _depth[key] -= 1
            return
        with _os_lock(engine, waiting, timeout):
            _depth[key] = 1
            try:
                yield
            finally:
                _depth[key] = 0


def _wait(try_once: Callable[[], bool], engine: Engine, waiting: Callable[[str], None] | None,
          timeout: float) -> None:
    if try_once():
        return
    if waiting is not None:
        waiting(f"another proofdeck process is migrating or syncing this database ({describe(engine)}); "
                f"waiting for it (up to {timeout:g} s)")
    deadline = time.monotonic() + timeout
    while not try_once():
        if time.monotonic() > deadline:
            raise DatabaseBusy(f"gave up after {timeout:g} s: another proofdeck process still holds "
                               f"{describe(engine)} (a sync or server start-up); try again when it has finished")
        time.sleep(POLL)


@contextmanager
def _os_lock(engine: Engine, waiting: Callable[[str], None] | None, timeout: float) -> Iterator[None]:
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            _wait(lambda: _pg_try(conn), engine, waiting, timeout)
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": PG_LOCK_KEY})
        return
    path = lock_file(engine)
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _wait(lambda: _flock_try(fd), engine, waiting, timeout)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _pg_try(conn: Connection) -> bool:
    return bool(conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": PG_LOCK_KEY}).scalar_one())


def _flock_try(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
