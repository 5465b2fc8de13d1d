"""The MTBF of a job on N nodes judged by simulation (issue 32): N independent failure processes run failure by
failure; the time between job stops is measured, no μ/N in it.

Known values: Young (1974) and Daly (2006) take the system MTBF of N independent components of MTBF μ as μ/N
(the minimum of N exponential lifetimes is exponential with N times the rate): 1,000 nodes of 10,000 h stop a
job every 10 h (the card's example), 64 nodes of 10 h every 562.5 s (36,000 s / 64). Mutation (the process): nodes
that fail together (one shared clock) stop the job every μ, and the card's μ/N is refuted.
"""

from __future__ import annotations

import pytest

from tests.utils.judging import card_claim
from verify.judge import Evidence, judge
from verify.measure.sim import cluster_failures
from verify.reading.claims import Claim

KNOWN = {(1000, 10000.0): 10.0, (64, 36000.0): 562.5, (8, 3600.0): 450.0}  # μ/N by hand


@pytest.fixture(scope="module")
def claim() -> Claim:
    return card_claim("checkpoint-interval-young-daly", "cluster-mtbf")


@pytest.mark.parametrize(("nodes", "mtbf"), list(KNOWN))
def test_mean_time_between_stops_is_youngs(nodes: int, mtbf: float) -> None:
    got = cluster_failures.run(nodes=nodes, node_mtbf=mtbf).mean_time_between_stops
    assert got == pytest.approx(KNOWN[(nodes, mtbf)], rel=0.02)


def test_the_simulation_confirms_the_card(claim: Claim, fresh: None) -> None:
    verdict = judge(claim, Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "simulated"), verdict["reason_en"]
    assert "seeded estimate from 20,000 stops" in verdict["reason_en"]


def test_nodes_failing_together_refute_it(claim: Claim, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = cluster_failures.run
    monkeypatch.setattr(cluster_failures, "run", lambda **kw: plain(**kw, shared_clock=True))
    assert judge(claim, Evidence([]))["verdict"] == "refuted"
