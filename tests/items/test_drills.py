"""Drills: numbers come from verify.known.ledger, grading within 1 %, fresh inputs per showing."""

from __future__ import annotations

from typing import Any

import pytest

from app.items import drills
from verify.known import ledger


def test_known_value_zero2_memory() -> None:
    # Ψ = 7.5B, N = 64, ZeRO-2: 2Ψ + (2 + 12)Ψ/N = 15 GB + 1.640625 GB
    params = {"key": "memory-zero2", "psi": 7.5e9, "n": 64}
    assert drills.answer_gb(params) == pytest.approx(16.640625)
    assert drills.grade(params, "16.8").correct  # 0.96 % off
    assert not drills.grade(params, "16.9").correct  # 1.6 % off
    assert drills.grade(params, " 16.64 GB ").correct


def test_every_drill_uses_the_ledger() -> None:
    for key in drills.DRILL_KEYS:
        params = drills.new_params(key, seed=3)
        kind, stage_name = key.split("-")
        stage: Any = stage_name  # one of the ledger's stage literals
        fn = ledger.model_state_bytes if kind == "memory" else ledger.ring_volume_bytes
        assert drills.answer_gb(params) * 1e9 == pytest.approx(fn(stage=stage, psi=params["psi"], n=params["n"]))
        sol = drills.solution(params)
        assert f"{drills.answer_gb(params):,.4g} GB" in sol["en"] and "$$" in sol["zh"]


def test_fresh_numbers_per_showing_reproducible_by_seed() -> None:
    shown = {(p["psi"], p["n"]) for p in (drills.new_params("comm-zero3", seed=s) for s in range(40))}
    assert len(shown) > 10
    assert drills.new_params("comm-zero3", seed=5) == drills.new_params("comm-zero3", seed=5)


@pytest.mark.parametrize("typed", ["", "abc", "1.2.3", "nan", "GB"])
def test_non_numbers_are_refused_with_a_hint(typed: str) -> None:
    with pytest.raises(drills.DrillError, match="is not a (finite )?number"):
        drills.grade({"key": "memory-ddp", "psi": 1.3e9, "n": 8}, typed)


def test_unknown_drill_and_the_card_rule() -> None:
    with pytest.raises(drills.DrillError, match="unknown drill 'memory-zero4'"):
        drills.new_params("memory-zero4")
    assert drills.card_has_drills(["model_state_bytes(zero3) == 16*Psi/N"])
    assert drills.card_has_drills(["", "comm_volume(zero3) / comm_volume(ddp) == 3/2"])
    assert not drills.card_has_drills(["zero.memory", "ledger.comm", "attention_hbm_accesses(flash) < 1", ""])
