"""One shared sweep for the verify tests (reference + PyTorch, N = 2 and 4, a small odd-Ψ MLP)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.utils.once import computed_once

CARDS = Path(__file__).resolve().parents[2] / "cards"
SWEEP_PARAMS = 300_000


@pytest.fixture(scope="session")
def report(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, Any]:
    """Built once per run, whichever workers need it (tests/utils/once.py); tests only read it. A test that
    varies the sweep (a crashed rank, a mutation) runs its own ranks."""
    from verify.cli import run_verify

    # a hang bound, not a speed limit: three workers each running the sweep at load ~20 passed 300 s (2026-12-01)
    def sweep() -> dict[str, Any]:
        return run_verify(world_sizes=(2, 4), params=SWEEP_PARAMS, cards=CARDS, timeout_s=600)

    result: dict[str, Any] = computed_once("verify-sweep", sweep, tmp_path_factory, worker_id)
    return result


@pytest.fixture(scope="session")
def ref_runs(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in report["runs"] if r["impl"] == "reference"]


@pytest.fixture(scope="session")
def cards_dir() -> Path:
    return CARDS


@pytest.fixture(scope="session")
def seed_cards_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed card (cards/zero-sharding.md) alone: for tests of the CLI's plumbing, which read its claims and
    contradictions; judging the other cards' 400 claims added ~25 s of CPU to each such run."""
    folder = tmp_path_factory.mktemp("seed-card") / "cards"
    folder.mkdir()
    shutil.copy(CARDS / "zero-sharding.md", folder)
    return folder


@pytest.fixture
def fresh() -> Iterator[None]:
    """The judge's caches emptied before and after: a test that mutates a formula or the ledger is judged
    afresh and leaves nothing behind."""
    from verify.judge.pipeline import reset_caches

    reset_caches()
    yield
    reset_caches()
