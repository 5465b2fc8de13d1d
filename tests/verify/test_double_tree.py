"""NCCL's double binary tree simulated round by round (issue 32): its trees, step counts and busiest rank.

Known values: NCCL's ``src/graph/trees.cc`` (NCCL ≥ 2.4) draws the first tree for 14 ranks (0 → 8; 8 → 4, 12;
4 → 2, 6; 12 → 10, 13; …) and the mirrored second tree for 12 ranks (11 → 3; 3 → 1, 7); after Sanders, Speck and
Träff (2009) every rank is inner in at most one tree, so each tree has depth ⌈log₂N⌉ (2⌈log₂N⌉ rounds: 12 at
N = 64) and the busiest rank sends 2M (M/2 up and M down where inner, M/2 up where a leaf). Mutation (the
process): both halves on the same tree (no mirror) make an inner rank send 3M, and the card's tree-time claim is
refuted.
"""

from __future__ import annotations

from math import ceil, log2

import pytest

from tests.utils.judging import card_claim
from verify.judge import Evidence, judge
from verify.measure.sim import double_tree
from verify.measure.sim.double_tree import binary_tree_parents, double_tree_allreduce, second_tree_parents
from verify.reading.claims import Claim

NCCL_14 = {8: 0, 4: 8, 12: 8, 2: 4, 6: 4, 10: 12, 13: 12, 1: 2, 3: 2, 5: 6, 7: 6, 9: 10, 11: 10}  # child → parent
NCCL_12_MIRROR = {3: 11, 1: 3, 7: 3}


@pytest.fixture(scope="module")
def claim() -> Claim:
    return card_claim("nccl-ring-vs-tree", "tree-time")



def _data(n: int, m: int) -> list[list[float]]:
    return [[float(r * m + i) for i in range(m)] for r in range(n)]


def test_the_trees_are_nccls() -> None:
    assert {r: up for r, up in enumerate(binary_tree_parents(14)) if up >= 0} == NCCL_14
    assert second_tree_parents(12)[11] == -1
    assert {r: second_tree_parents(12)[r] for r in NCCL_12_MIRROR} == NCCL_12_MIRROR


@pytest.mark.parametrize("n", [4, 5, 7, 8, 12, 16, 64])
def test_steps_and_busiest_rank_are_the_papers(n: int) -> None:
    run = double_tree_allreduce(_data(n, 8))
    assert run.result == [[sum(col) for col in zip(*_data(n, 8), strict=True)]] * n
    assert run.rounds == 2 * ceil(log2(n))
    assert max(run.sent) == 2 * 8
    inner = [{up for up in parents if up >= 0} for parents in run.parents]
    if n % 2 == 0:
        assert not inner[0] & inner[1]  # no rank is inner in both trees


def test_the_simulated_tree_time_judges_the_card(claim: Claim, fresh: None) -> None:
    verdict = judge(claim, Evidence([]))
    assert verdict["method"] == "simulated", verdict["reason_en"]
    assert verdict["verdict"] == "conditional"  # the card's stated reading keeps it conditional
    assert {r["config"] for r in verdict["evaluated"] if "relations" in r} == {"ring N=4", "ring N=8"}


def test_one_tree_for_both_halves_refutes_it(claim: Claim, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = double_tree.double_tree_allreduce
    monkeypatch.setattr(double_tree, "double_tree_allreduce", lambda data: plain(data, mirrored=False))
    assert max(plain(_data(8, 8), mirrored=False).sent) == 3 * 8
    assert judge(claim, Evidence([]))["verdict"] == "refuted"


def test_the_crossover_is_solved_from_both_schedules(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # N·α·β·(N − 1 − ⌈log₂N⌉) at α = 3, β = 2: 24 at N = 4, 192 at N = 8 (by hand)
    crossover = card_claim("nccl-ring-vs-tree", "crossover")
    verdict = judge(crossover, Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "simulated"), verdict["reason_en"]
    assert "ring N=4: 24 (claimed == 24); ring N=8: 192 (claimed == 192)" in verdict["reason_en"]
    plain = double_tree.double_tree_allreduce
    monkeypatch.setattr(double_tree, "double_tree_allreduce", lambda data: plain(data, mirrored=False))
    assert judge(crossover, Evidence([]))["verdict"] == "refuted"
