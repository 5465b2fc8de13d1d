"""Catch a test that writes to a database its module shares (``read_client`` in tests/conftest.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

# statements that change the database (SQLite's PRAGMA and PostgreSQL's SET only change the connection)
WRITES = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|UPSERT|MERGE|CREATE|DROP|ALTER|TRUNCATE)\b", re.IGNORECASE)


class WriteGuard:
    """Records the writing statements an engine executes while :meth:`watching`."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._seen: list[str] | None = None

    def _before(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if self._seen is not None and WRITES.match(statement):
            self._seen.append(" ".join(statement.split())[:160])

    def __enter__(self) -> WriteGuard:
        event.listen(self.engine, "before_cursor_execute", self._before)
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        event.remove(self.engine, "before_cursor_execute", self._before)

    @contextmanager
    def watching(self) -> Iterator[list[str]]:
        seen: list[str] = []
        self._seen = seen
        try:
            yield seen
        finally:
            self._seen = None
