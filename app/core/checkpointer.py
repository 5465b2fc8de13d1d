"""WAL checkpoints in a background thread while the server runs (SQLite), never inside a commit.

By default SQLite checkpoints whichever commit makes the write-ahead log pass 1,000 pages: that commit
then copies the log into the database file and syncs it to disk, a stall of several milliseconds. Group
commit (``app.review.committer``) commits on the event loop, so such a stall would hold every request in
flight. While the server runs, its connections turn automatic checkpoints off and this thread runs a
PASSIVE checkpoint every :data:`INTERVAL` seconds: it never blocks writers or readers, and its disk
writes and sync happen with the GIL released. When the log has grown past :data:`RESTART_PAGES` (steady
writes with no pause), one more checkpoint runs holding the process's write lock (``write_lock``) for
the few milliseconds it takes to copy the last frames; a batch of answers arriving then waits in a
worker thread while the event loop keeps serving. At shutdown it checkpoints the whole log and
truncates it.

Other processes (the CLI, tests) keep SQLite's default. PostgreSQL has nothing to do here.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from app.core.db import write_lock

log = logging.getLogger("proofdeck")
INTERVAL = 0.2  # seconds between checkpoints
RESTART_PAGES = 16_384  # a log this long (64 MiB of 4 KiB pages) is made to start over


def _no_auto_checkpoint(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")


class Checkpointer:
    """Started and stopped by the app's lifespan; one per engine at a time."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="proofdeck-wal-checkpoint", daemon=True)

    def start(self) -> None:
        event.listen(self.engine, "connect", _no_auto_checkpoint)
        self.engine.pool.dispose()  # pooled connections reconnect with automatic checkpoints off
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        if event.contains(self.engine, "connect", _no_auto_checkpoint):
            event.remove(self.engine, "connect", _no_auto_checkpoint)
        self.engine.pool.dispose()
        self.checkpoint("TRUNCATE")

    def checkpoint(self, mode: str = "PASSIVE") -> tuple[int, int, int]:
        """(busy, pages in the log, pages checkpointed), as SQLite reports them."""
        with self.engine.connect() as conn:
            busy, pages, done = conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})").one()
            return int(busy), int(pages), int(done)

    def _run(self) -> None:
        lock = write_lock(self.engine)
        assert lock is not None
        while not self._stop.wait(INTERVAL):
            try:
                _busy, pages, _done = self.checkpoint()  # alongside the writers
                if pages >= RESTART_PAGES:
                    # under steady writes a checkpoint always lags the newest commit, so the log never starts
                    # over and only grows: copy the last frames holding this process's write lock (no commit
                    # of ours can add any), and the next commit starts the log from the beginning
                    with lock:
                        self.checkpoint()
            except Exception:  # retried on the next tick; the server keeps serving
                log.exception("WAL checkpoint failed")


def start_checkpointer(engine: Engine) -> Checkpointer | None:
    """A running :class:`Checkpointer` for a SQLite engine (None for any other database)."""
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return None
    checkpointer = Checkpointer(engine)
    checkpointer.start()
    return checkpointer
