"""kill -9 of the server while it syncs 1,000 cards: the database holds the old deck or the new one, never a mix."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from app.cards.cardfile import content_hash
from app.core.db import make_engine
from app.deck.sync import sync_cards
from app.models import Card, CardFollowUp, CardSection
from app.models.migrate import init_db
from harness.deckgen import write_deck
from harness.server import ROOT, free_port

N = 1000


def _deck_state(url: str) -> tuple[dict[str, str], int, int]:
    engine = make_engine(url)
    try:
        with Session(engine) as s:
            hashes = {c.slug: c.content_hash for c in s.exec(select(Card).where(Card.retired == False))}  # noqa: E712
            sections = s.exec(select(func.count()).select_from(CardSection)).one()
            followups = s.exec(select(func.count()).select_from(CardFollowUp)).one()
        return hashes, sections, followups
    finally:
        engine.dispose()


def _start_server_and_kill_mid_sync(url: str, cards: Path, delay: float) -> bool:
    """Start uvicorn (it syncs at start-up), SIGKILL it ``delay`` s after the sync began; True if it was killed
    before it answered (i.e. during or right after the sync)."""
    env = {**os.environ, "PROOFDECK_DATABASE_URL": url, "PROOFDECK_CARDS_DIR": str(cards), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(free_port()),
                             "--log-level", "info"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True, text=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 300  # a hang bound: start-up imports take a minute at load ~18
        for line in proc.stdout:
            if "syncing cards" in line:
                break
            assert time.monotonic() < deadline, "the server never started syncing"
        time.sleep(delay)
        synced_before_kill = proc.poll() is None
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        return synced_before_kill
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stdout:
            proc.stdout.close()


@pytest.mark.slow
def test_kill_9_during_startup_sync(tmp_path: Path, database_url: str) -> None:
    cards = tmp_path / "cards"
    old_docs = write_deck(cards, N, version=0)
    engine = make_engine(database_url)
    init_db(engine)
    sync_cards(engine, cards)
    engine.dispose()
    old = ({d.slug: content_hash(d) for d in old_docs}, 5 * N, 3 * N)
    assert _deck_state(database_url) == old

    # the new deck: every card edited, the last 100 removed
    new_docs = write_deck(cards, N, version=1)[: N - 100]
    for i in range(N - 100, N):
        (cards / f"card-{i:04d}.md").unlink()
    new = ({d.slug: content_hash(d) for d in new_docs}, 5 * (N - 100) + 5 * 100, 3 * (N - 100) + 3 * 100)
    # retired cards keep their child rows; the new deck's counts are the same as the old deck's

    rng = random.Random(7)
    outcomes = []
    for _ in range(3):
        _start_server_and_kill_mid_sync(database_url, cards, rng.uniform(0.0, 0.4))
        state = _deck_state(database_url)
        assert state in (old, new), "a kill -9 during sync left a mix of old and new cards"
        outcomes.append("old" if state == old else "new")
    # a sync of 1,000 edited cards takes over a second here: every kill landed inside its transaction
    assert outcomes == ["old", "old", "old"]
    # a normal start afterwards completes the new deck
    engine = make_engine(database_url)
    report = sync_cards(engine, cards)
    engine.dispose()
    assert _deck_state(database_url) == new
    assert len(report.updated) == N - 100 and len(report.retired) == 100
