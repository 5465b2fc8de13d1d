"""Two server processes on one database (two workers, or two hosts): a change made through one is seen
through the other within the documented bound.

Each process keeps a sign-in cache (``app.auth.cache``, :data:`TTL` s) and review queues
(``app.review.queue``, checked against the change clock every :data:`CHECK_SECONDS` s). Process A makes the
change; process B, which has just served (and cached) the old state, must serve the new one in time.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session

from app.auth import cache
from app.auth.links import issue_link
from app.auth.users import create_user
from app.core.db import make_engine
from app.models.migrate import init_db
from app.review import queue
from harness.server import uvicorn_server
from tests.utils.fetch_site import TYPED_URL
from tests.utils.staleness import seen_within

pytestmark = pytest.mark.slow


def test_changes_through_one_process_reach_the_other(database_url: str, cards_dir: Path, tmp_path: Path) -> None:
    engine = make_engine(database_url)
    init_db(engine)
    with Session(engine) as s, s.begin():
        user, token = create_user(s, "ada")
        link = issue_link(s, user)
    engine.dispose()
    bearer = {"Authorization": f"Bearer {token}"}
    with uvicorn_server(database_url, cards_dir) as a, uvicorn_server(database_url, cards_dir) as b, \
            httpx.Client(base_url=a, timeout=30) as ca, httpx.Client(base_url=b, timeout=30) as cb:
        # a review answered through A: B's queue (and its counts) move on
        first: dict[str, Any] = cb.get("/api/review/next", headers=bearer).json()
        item = first["item"]["id"]
        answered = ca.post("/api/review", json={"item_id": item, "rating": 3},
                           headers={**bearer, "Idempotency-Key": "coherence-1"})
        assert answered.status_code == 200, answered.text
        changed_at = time.monotonic()

        def moved() -> bool:
            now = cb.get("/api/review/next", headers=bearer).json()
            return bool(now["item"]["id"] != item and now["new_left"] == first["new_left"] - 1)

        seen_within(moved, queue.CHECK_SECONDS, changed_at)

        # a settings change through A: B's cached sign-in (which carries the settings) follows
        assert ca.put("/api/review/settings", json={"new_per_day": 0}, headers=bearer).status_code == 200
        changed_at = time.monotonic()
        seen_within(lambda: cb.get("/api/review/next", headers=bearer).json()["new_left"] == 0, cache.TTL,
                     changed_at)

        # a web session ended through A (logout): B refuses it
        login = ca.get(f"/login?token={link}", follow_redirects=False, headers=TYPED_URL)
        assert login.status_code == 303, login.text
        session_cookie = {"cookie": "; ".join(f"{k}={v}" for k, v in login.cookies.items())}
        assert cb.get("/api/review/next", headers=session_cookie).status_code == 200  # B caches it
        out = ca.post("/logout", headers={**session_cookie, "Origin": a}, follow_redirects=False)
        assert out.status_code == 303
        changed_at = time.monotonic()
        seen_within(lambda: cb.get("/api/review/next", headers=session_cookie).status_code == 401, cache.TTL,
                     changed_at)
