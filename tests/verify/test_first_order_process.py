"""The first-order checkpoint waste judged by simulating the process Young's analysis assumes (issue 32):
failures only during useful work, the lost work re-done without failing; no δ/τ + τ/(2μ) in the simulator.

Known values: Young (1974): at τ = √(2δμ) the first-order waste is √(2δ/μ), 12.9 % at δ = 300 s, μ = 10 h (the
card's worked example); at δ = 60 s, τ = 600 s, μ = 1 h it is 60/600 + 600/7200 = 0.1833 (by hand). Mutation (the
process): a checkpoint that is written but never restored (each failure loses all the work since the start)
refutes the card's two-cost formula.
"""

from __future__ import annotations

import math

import pytest

from tests.utils.judging import card_claim
from verify.judge import Evidence, judge
from verify.measure.sim import first_order
from verify.reading.claims import Claim

KNOWN = {(math.sqrt(2 * 300 * 36000), 300.0, 36000.0): math.sqrt(2 * 300 / 36000), (600.0, 60.0, 3600.0): 0.18333}


@pytest.fixture(scope="module")
def claim() -> Claim:
    return card_claim("checkpoint-interval-young-daly", "two-costs")


@pytest.mark.parametrize(("tau", "delta", "mu"), list(KNOWN))
def test_overhead_is_youngs(tau: float, delta: float, mu: float) -> None:
    assert first_order.run(tau=tau, delta=delta, mu=mu).overhead == pytest.approx(KNOWN[(tau, delta, mu)], abs=1 / 200)


def test_the_simulation_confirms_the_card(claim: Claim, fresh: None) -> None:
    verdict = judge(claim, Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "simulated"), verdict["reason_en"]


def test_a_checkpoint_never_restored_refutes_it(claim: Claim, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = first_order.run
    monkeypatch.setattr(first_order, "run", lambda **kw: plain(**kw, restore_from_checkpoint=False))
    assert judge(claim, Evidence([]))["verdict"] == "refuted"
