"""A kill -9 at any point of first-time schema creation leaves a database the next start completes.

Before, pysqlite autocommitted each CREATE TABLE: a kill between two of them left tables and no
``alembic_version``, and every later start refused the file ("has tables but no migration history").
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel

import app.models.migrate as migrate
from app.auth.users import create_user
from app.core.db import make_engine
from app.models.migrate import init_db
from harness.db import fresh_database_url
from harness.server import ROOT

DDL = ("CREATE", "DROP", "ALTER")


def _count_ddl(engine: Engine, on_ddl: Any) -> None:
    count = [0]

    @event.listens_for(engine, "after_cursor_execute")
    def _after(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith(DDL):
            count[0] += 1
            on_ddl(count[0])


def _ddl_statements(tmp_path: Path) -> int:
    seen: list[int] = []
    with fresh_database_url(tmp_path / "count") as url:
        (tmp_path / "count").mkdir(exist_ok=True)
        engine = make_engine(url)
        _count_ddl(engine, seen.append)
        init_db(engine)
        engine.dispose()
    return len(seen)


def _killed_after(url: str, n: int) -> None:
    """Create the schema in a forked child that SIGKILLs itself right after its ``n``-th DDL statement."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            engine = make_engine(url)
            _count_ddl(engine, lambda k: os.kill(os.getpid(), signal.SIGKILL) if k == n else None)
            init_db(engine)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"child not killed at DDL {n}"


def _assert_complete(url: str) -> None:
    engine = make_engine(url)
    try:
        init_db(engine)  # what the next `proofdeck db upgrade`, sync or server start does
        assert migrate.current_revision(engine) == migrate.head_revision()
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                    SQLModel.metadata) == []
        with Session(engine) as s, s.begin():  # and it works
            create_user(s, "ada")
    finally:
        engine.dispose()


def test_kill_after_ddl_statements_of_the_first_start(tmp_path: Path) -> None:
    total = _ddl_statements(tmp_path)
    assert total >= 10  # every table and index of the schema
    # 12 points spread over the whole creation, the first and the last DDL included (every point: ~1 s
    # each on SQLite, ~3.5 s on PostgreSQL, which CI's time budget does not allow)
    points = sorted({1, total, *range(1, total + 1, max(1, total // 10))})
    for n in points:
        with fresh_database_url(tmp_path / f"k{n}") as url:
            (tmp_path / f"k{n}").mkdir(exist_ok=True)
            _killed_after(url, n)
            engine = make_engine(url)
            try:  # the kill left nothing half made: no table, or all of them with their revision
                tables = set(inspect(engine).get_table_names())
                assert tables in (set(), {*SQLModel.metadata.tables, "alembic_version"}), (n, sorted(tables))
            finally:
                engine.dispose()
            _assert_complete(url)


@pytest.mark.slow
def test_kill_of_db_upgrade_at_random_moments(tmp_path: Path) -> None:
    """The real command, SIGKILLed after a random delay (before, during or after its schema work)."""
    rng = random.Random(18)
    for trial in range(6):
        with fresh_database_url(tmp_path / f"r{trial}") as url:
            (tmp_path / f"r{trial}").mkdir(exist_ok=True)
            env = {**os.environ, "PROOFDECK_DATABASE_URL": url}
            proc = subprocess.Popen([sys.executable, "-m", "app.cli.main", "db", "upgrade"], cwd=ROOT, env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.5, 3.0))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            _assert_complete(url)


def test_half_schema_of_an_older_release_is_recreated(engine: Engine) -> None:
    """What a killed first start of the previous release left (empty tables, no history) is made again."""
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE alembic_version"))
        SQLModel.metadata.tables["reviewlog"].drop(conn)
    init_db(engine)
    assert migrate.current_revision(engine) == migrate.head_revision()
    assert "reviewlog" in inspect(engine).get_table_names()


def test_tables_with_rows_but_no_history_are_refused(engine: Engine) -> None:
    with Session(engine) as s, s.begin():
        create_user(s, "ada")
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE alembic_version"))
    with pytest.raises(RuntimeError, match="no migration history"):
        init_db(engine)
    assert "user" in inspect(engine).get_table_names()  # nothing dropped
