"""One shared sweep for the verify tests (reference + PyTorch, N = 2 and 4, a small odd-Ψ MLP)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CARDS = Path(__file__).resolve().parents[2] / "cards"
SWEEP_PARAMS = 300_000


@pytest.fixture(scope="session")
def report() -> dict[str, Any]:
    from verify.cli import run_verify

    return run_verify(world_sizes=(2, 4), params=SWEEP_PARAMS, cards=CARDS, timeout_s=240)


@pytest.fixture(scope="session")
def ref_runs(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in report["runs"] if r["impl"] == "reference"]


@pytest.fixture(scope="session")
def cards_dir() -> Path:
    return CARDS
