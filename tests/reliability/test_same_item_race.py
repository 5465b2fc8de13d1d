"""Answers of one item racing each other on a real uvicorn: the same Idempotency-Key is stored once and
every copy gets its response; different keys store one answer, the rest hear 409 (not due) — no 5xx.

PostgreSQL (read committed) once answered 500 (a duplicate first state row) or 409 to a same-key retry.
"""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update
from sqlmodel import Session, col, func, select

from app.core.db import make_engine
from app.models import ItemState, ReviewLog
from app.srs.scheduler import now_utc
from harness.load import build_deck
from harness.server import uvicorn_server

RACERS = 8


def _race(base: str, token: str, item: int, keys: list[str]) -> list[tuple[int, dict[str, Any]]]:
    barrier = threading.Barrier(len(keys))
    out: list[tuple[int, dict[str, Any]]] = []

    def go(key: str) -> None:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            barrier.wait()
            r = http.post("/api/review", json={"item_id": item, "rating": 3}, headers={"Idempotency-Key": key})
            out.append((r.status_code, r.json()))

    threads = [threading.Thread(target=go, args=(k,)) for k in keys]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


@pytest.mark.slow
def test_racing_answers_of_one_item(tmp_path: Path, database_url: str) -> None:
    tokens, items = build_deck(tmp_path / "cards", database_url, cards=4, users=1)
    token = tokens["u0"]
    engine = make_engine(database_url)
    try:
        with uvicorn_server(database_url, tmp_path / "cards", env={"PROOFDECK_SYNC_ON_STARTUP": "false"}) as base:
            for trial, item in enumerate(items[:12]):
                if trial % 4 >= 2:  # an item already reviewed once and due again: the race updates its state
                    r = httpx.post(f"{base}/api/review", json={"item_id": item, "rating": 3},
                                   headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"first-{item}"})
                    assert r.status_code == 200
                    with engine.begin() as conn:
                        conn.execute(update(ItemState).where(col(ItemState.item_id) == item)
                                     .values(due=now_utc() - timedelta(hours=1)))
                same_key = trial % 2 == 0
                keys = [f"k-{item}" if same_key else f"k-{item}-{n}" for n in range(RACERS)]
                answers = _race(base, token, item, keys)
                codes = Counter(code for code, _body in answers)
                with Session(engine) as s:
                    logged = s.exec(select(func.count()).select_from(ReviewLog)
                                    .where(col(ReviewLog.item_id) == item, ~col(ReviewLog.idempotency_key)
                                           .startswith("first-"))).one()
                    reps = s.exec(select(ItemState.reps).where(col(ItemState.item_id) == item)).one()
                assert logged == 1, f"trial {trial}: {logged} answers stored; statuses {codes}"
                assert reps == (2 if trial % 4 >= 2 else 1)
                if same_key:
                    assert codes == {200: RACERS}, answers
                    assert len({body["log_id"] for _c, body in answers}) == 1
                    assert sum(not body["replayed"] for _c, body in answers) == 1
                else:
                    assert codes == {200: 1, 409: RACERS - 1}, answers
    finally:
        engine.dispose()
