"""``proofdeck serve --workers N`` and concurrent ``proofdeck sync``: start-up work happens once, in turn.

Before ``app.core.dblock``, every worker migrated and synced at once: on a new database 3 of 4 starts
lost a worker ("table card already exists", "UNIQUE constraint failed: card.slug") and uvicorn stopped
the server; two concurrent syncs left the loser with a traceback.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from app.core.db import make_engine
from app.models import Card
from harness.db import fresh_database_url
from harness.server import ROOT, free_port, stop

pytestmark = pytest.mark.slow
WORKERS = 2
STARTS = 2  # new databases (3 of 4 starts lost a worker before); the first is then changed


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    """Three bundled cards: what is tested is who migrates and syncs, not the deck. With the 29-card deck
    each of the three concurrent `proofdeck sync` runs linted 417 claims with sympy (~40 s of CPU each)."""
    folder = tmp_path / "cards"
    folder.mkdir()
    for slug in ("zero-sharding", "pipeline-parallelism", "kv-cache"):
        shutil.copy(ROOT / "cards" / f"{slug}.md", folder)
    return folder


def _env(url: str, cards: Path) -> dict[str, str]:
    return {**os.environ, "PROOFDECK_DATABASE_URL": url, "PROOFDECK_CARDS_DIR": str(cards), "PYTHONUNBUFFERED": "1"}


def _serve(url: str, cards: Path, log: Path) -> None:
    """``proofdeck serve --workers 3``: every worker finishes start-up, the server keeps answering."""
    port = free_port()
    with log.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "app.cli.main", "serve", "--port", str(port),
                                 "--workers", str(WORKERS)], cwd=ROOT, env=_env(url, cards), stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 600  # a bound, not a wait: started workers return at once
        while log.read_text(errors="replace").count("Application startup complete") < WORKERS:
            text = log.read_text(errors="replace")
            assert proc.poll() is None and "Traceback" not in text, f"the server lost a worker:\n{text}"
            assert time.monotonic() < deadline, f"workers did not all start:\n{text}"
            time.sleep(0.2)
        for _ in range(2 * WORKERS):  # new connections: the kernel spreads them over the workers
            assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
        time.sleep(0.5)
        text = log.read_text(errors="replace")
        assert proc.poll() is None, text
        assert "Traceback" not in text and "ERROR" not in text, text
    finally:
        stop(proc)


def _live_slugs(url: str) -> list[str]:
    engine = make_engine(url)
    try:
        with Session(engine) as s:
            return sorted(s.exec(select(Card.slug).where(Card.retired == False)))  # noqa: E712
    finally:
        engine.dispose()


def test_serve_with_workers_starts_on_a_new_and_on_a_changed_database(cards_dir: Path, tmp_path: Path) -> None:
    expected = sorted(p.stem for p in cards_dir.glob("*.md") if p.name != "README.md")
    for n in range(STARTS):
        with fresh_database_url(tmp_path / f"db{n}") as url:
            (tmp_path / f"db{n}").mkdir(exist_ok=True)
            cards = tmp_path / f"cards{n}"
            shutil.copytree(cards_dir, cards)
            _serve(url, cards, tmp_path / f"new{n}.log")  # a new database
            assert _live_slugs(url) == expected
            if n:
                continue
            extra = cards / "zero-sharding-copy.md"  # one new card file, then an existing database
            extra.write_text((cards / "zero-sharding.md").read_text(encoding="utf-8")
                             .replace("slug: zero-sharding", "slug: zero-sharding-copy", 1), encoding="utf-8")
            _serve(url, cards, tmp_path / f"changed{n}.log")
            assert _live_slugs(url) == sorted([*expected, "zero-sharding-copy"])


def test_concurrent_syncs_take_turns(database_url: str, cards_dir: Path, tmp_path: Path) -> None:
    runs = [subprocess.Popen([sys.executable, "-m", "app.cli.main", "sync"], cwd=ROOT,
                             env=_env(database_url, cards_dir), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(3)]
    try:  # a bound, not a wait; every sync is killed if one overruns it (a leftover broke the next test)
        outputs = [(p.wait(timeout=600), *p.communicate()) for p in runs]
    finally:
        for p in runs:
            if p.poll() is None:
                p.kill()
            p.communicate()
    for rc, out, err in outputs:
        assert rc == 0 and "Traceback" not in out + err, out + err
    summaries = [re.search(r"synced .*: (\d+) added, (\d+) updated, (\d+) unchanged", " ".join(out.split()))
                 for _rc, out, _err in outputs]  # rich wraps long lines
    assert all(summaries), outputs
    added = sorted(int(m.group(1)) for m in summaries if m)
    expected = sorted(p.stem for p in cards_dir.glob("*.md") if p.name != "README.md")
    assert added == [0, 0, len(expected)], outputs  # one added the cards; the others found them unchanged
    assert _live_slugs(database_url) == expected
    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            assert s.exec(select(func.count()).select_from(Card)).one() == len(expected)
    finally:
        engine.dispose()
