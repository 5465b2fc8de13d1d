"""α-β times of collectives judged on simulated schedules (issue 32): the ring and binomial-tree simulators run
step by step and each step costs α + its largest message / β (``verify.measure.sim.timing``); no step count or
volume formula is in it.

Known values: Thakur, Rabenseifner and Gropp (2005, "Optimization of Collective Communication Operations in
MPICH"): a ring all-reduce of n bytes on p ranks takes 2(p−1)α + 2(p−1)/p·n/β, a reduce-scatter or all-gather
half of it, a binomial-tree broadcast ⌈log₂p⌉(α + n/β); worked at α = 3, β = 2 below. Mutation (the process): a
ring whose chunks are unbalanced (one chunk holds the whole message) still sums correctly but every step waits
for a whole-message send, and the card's α-β claim is refuted.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.utils.judging import card_claim
from verify.judge import Evidence, judge
from verify.measure.sim import ring
from verify.measure.sim.ring import ring_allreduce
from verify.measure.sim.timing import lockstep_time
from verify.measure.sim.tree import tree_allreduce
from verify.reading.claims import Claim

ALPHA, BETA = 3, 2
# (p, n) → all-reduce time 2(p−1)·3 + 2(p−1)/p·n/2, by hand
RING_ALLREDUCE = {(2, 8): 6 + 4, (4, 16): 18 + 12, (8, 32): 42 + 28}
BROADCAST = {(2, 8): 1 * (3 + 4), (5, 20): 3 * (3 + 10), (8, 32): 3 * (3 + 16)}  # ⌈log₂p⌉(α + n/β)


@pytest.fixture(scope="module")
def claim() -> Claim:
    return card_claim("collectives", "ring-allreduce-alpha-beta")



def _data(p: int, n: int) -> list[list[float]]:
    return [[float(r * n + i) for i in range(n)] for r in range(p)]


@pytest.mark.parametrize(("p", "n"), list(RING_ALLREDUCE))
def test_ring_schedule_times_are_thakurs(p: int, n: int) -> None:
    run = ring_allreduce(_data(p, n))
    both = run.step_messages["reduce_scatter"] + run.step_messages["all_gather"]
    assert lockstep_time(both, ALPHA, BETA) == RING_ALLREDUCE[(p, n)]
    assert lockstep_time(run.step_messages["reduce_scatter"], ALPHA, BETA) == Fraction(RING_ALLREDUCE[(p, n)], 2)


@pytest.mark.parametrize(("p", "n"), list(BROADCAST))
def test_binomial_broadcast_times_are_thakurs(p: int, n: int) -> None:
    assert lockstep_time(tree_allreduce(_data(p, n)).round_messages["broadcast"], ALPHA, BETA) == BROADCAST[(p, n)]


def test_the_ring_confirms_the_alpha_beta_claim_by_simulation(claim: Claim, fresh: None) -> None:
    verdict = judge(claim, Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "simulated"), verdict["reason_en"]


def test_unbalanced_chunks_refute_it(claim: Claim, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ring, "_chunks", lambda m, n: [range(m)] + [range(0)] * (n - 1))
    run = ring_allreduce(_data(4, 16))
    assert run.result == [[sum(col) for col in zip(*_data(4, 16), strict=True)]] * 4  # still the right sums
    assert judge(claim, Evidence([]))["verdict"] == "refuted"
