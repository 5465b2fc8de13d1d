"""Micro-batch schedules judged by simulation (issue 32): the global batch of a data-parallel loop with gradient
accumulation, and the pipeline bubble of 1F1B and interleaved 1F1B; no formula in either simulator.

Known values: Goyal et al. (2017, "Accurate, Large Minibatch SGD"): 256 workers × 32 images = a minibatch of
8192; the gradient-accumulation card's 4 × 8 × 64 = 2048. Narayanan et al. (2021, "Efficient Large-Scale Language
Model Training on GPU Clusters Using Megatron-LM", §2.2): the bubble over ideal compute is (p − 1)/m for 1F1B and
(p − 1)/(v·m) interleaved: 3/8 at p = 4, m = 8; 7/16 at p = 8, m = 16; 3/16 at p = 4, m = 8, v = 2.
Mutations (the processes): ``zero_grad`` after every micro-batch (no accumulation) or no all-reduce (each rank
steps alone) refutes the card's B = b·k·d; a pipeline that runs one micro-batch through every stage before the
next (no overlap) refutes the card's (p − 1)/m.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.utils.judging import card_claim
from verify.judge import Evidence, judge
from verify.measure.sim import global_batch, pipeline
from verify.measure.sim.pipeline import simulate
from verify.reading.claims import Claim

NARAYANAN = {("1f1b", 4, 8, 1): Fraction(3, 8), ("1f1b", 8, 16, 1): Fraction(7, 16),
             ("interleaved", 4, 8, 2): Fraction(3, 16)}


@pytest.fixture(scope="module")
def batch_claim() -> Claim:
    return card_claim("gradient-accumulation", "global-batch")


@pytest.fixture(scope="module")
def bubble_claim() -> Claim:
    return card_claim("pipeline-parallelism", "pipeline-bubble-over-ideal")


@pytest.mark.parametrize(("b", "k", "d", "want"), [(32, 1, 256, 8192), (4, 8, 64, 2048)])
def test_samples_per_step_are_goyals(b: int, k: int, d: int, want: int) -> None:
    run = global_batch.run(b=b, k=k, d=d)
    assert (run.samples_per_step, run.steps_agree) == (want, True)


@pytest.mark.parametrize("key", list(NARAYANAN))
def test_bubble_is_narayanans(key: tuple[str, int, int, int]) -> None:
    schedule, p, m, v = key
    run = simulate(schedule, p=p, m=m, **({"v": v} if schedule == "interleaved" else {}))
    assert Fraction(run.bubble_over_ideal).limit_denominator(1000) == NARAYANAN[key]


def test_the_simulations_confirm_the_cards(batch_claim: Claim, bubble_claim: Claim, fresh: None) -> None:
    for claim in (batch_claim, bubble_claim):
        verdict = judge(claim, Evidence([]))
        assert (verdict["verdict"], verdict["method"]) == ("confirmed", "simulated"), verdict["reason_en"]


@pytest.mark.parametrize("broken", [{"accumulate": False}, {"all_reduce": False}])
def test_a_broken_training_loop_refutes_the_global_batch(broken: dict[str, bool], batch_claim: Claim, fresh: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    plain = global_batch.run
    monkeypatch.setattr(global_batch, "run", lambda **kw: plain(**kw, **broken))
    assert judge(batch_claim, Evidence([]))["verdict"] == "refuted"


def test_a_pipeline_without_overlap_refutes_the_bubble(bubble_claim: Claim, fresh: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def one_at_a_time(p: int, m: int, device: int, v: int = 1) -> list[pipeline.Op]:
        return [op for i in range(m) for op in (("F", device, i), ("B", device, i))]

    monkeypatch.setitem(pipeline.ORDERS, "1f1b", one_at_a_time)
    assert simulate("1f1b", p=4, m=8).bubble_over_ideal == pytest.approx(3)  # (p − 1) per micro-batch
    assert judge(bubble_claim, Evidence([]))["verdict"] == "refuted"
