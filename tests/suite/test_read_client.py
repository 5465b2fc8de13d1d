"""``read_client``'s guard (tests/utils/readonly.py): a write to the shared database during a test is seen."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, text

from tests.utils.readonly import WriteGuard


def test_writes_are_seen_only_while_watching(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'guarded.db'}")
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE t (x INTEGER)"))
        with WriteGuard(engine) as guard:
            with engine.begin() as conn:
                conn.execute(text("INSERT INTO t VALUES (0)"))  # not watched: a fixture's set-up
            with guard.watching() as writes, engine.begin() as conn:
                conn.execute(text("SELECT x FROM t")).all()
                conn.exec_driver_sql("PRAGMA table_info(t)")
                assert writes == []
                conn.execute(text("  update t SET x = 1"))
                conn.execute(text("DELETE FROM t"))
                conn.execute(text("DROP TABLE t"))
            assert [w.split()[0].upper() for w in writes] == ["UPDATE", "DELETE", "DROP"]
        with engine.begin() as conn:  # the listener is gone with the guard
            conn.execute(text("CREATE TABLE u (x INTEGER)"))
        assert len(writes) == 3
    finally:
        engine.dispose()
