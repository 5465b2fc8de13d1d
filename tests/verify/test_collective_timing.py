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
from typing import Any

import pytest

from tests.utils.judging import card_claim, judge_assertion
from verify.judge import Evidence, judge
from verify.judge.pipeline import reset_caches
from verify.known.vocabulary.data_parallel import _ring_phase_send
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


# ---- FSDP2's payloads run through the ring simulator (fsdp_ring_volume): each call's group and payload

PSI = 64  # elements of a synthetic FSDP2 step: one all-gather forward and backward, one reduce-scatter, of Ψ each


def _fsdp_probe(n: int) -> dict[str, Any]:
    calls = (("all_gather", "forward"), ("all_gather", "backward"), ("reduce_scatter", "backward"))
    records = [{"kind": kind, "phase": phase, "bytes": 4 * PSI, "group": n} for kind, phase in calls]
    return {"fsdp2": {"True": {"records": records, "model_elements": PSI}}}


def _ring_resending_in_all_gather(data: list[list[float]]) -> ring.RingRun:
    """The ring, with one all-gather step more than it needs (each rank forwards a chunk its neighbour holds):
    the sums stay right, each rank sends a chunk more."""
    plain = _plain_ring(data)
    n, chunk = len(data), len(data[0]) // len(data)
    sent = {"reduce_scatter": plain.sent_by_phase["reduce_scatter"],
            "all_gather": [x + chunk for x in plain.sent_by_phase["all_gather"]]}
    return ring.RingRun(plain.result, [a + b for a, b in zip(*sent.values(), strict=True)], sent,
                        {**plain.steps, "all_gather": n}, plain.step_messages)


_plain_ring = ring.ring_allreduce


def test_fsdp_payloads_through_the_ring_simulator(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("verify.measure.probes.probe", _fsdp_probe)
    claim = "fsdp_ring_volume(reshard_true) == 3*(N-1)/N*Psi"  # Rajbhandari et al.: ZeRO-3 moves 3(N−1)/N·Ψ
    got = judge_assertion(claim, Evidence([]))
    assert (got.verdict, got.method) == ("confirmed", "simulated"), got.raw["reason_en"]
    _ring_phase_send.cache_clear()
    monkeypatch.setattr(ring, "ring_allreduce", _ring_resending_in_all_gather)
    reset_caches()
    assert judge_assertion(claim, Evidence([])).verdict == "refuted"
    _ring_phase_send.cache_clear()
