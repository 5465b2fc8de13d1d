"""Every claim of the starter deck gets its verdict from a real run (Gloo ranks, profiler, simulators).

    OMP_NUM_THREADS=1 python -m pytest tests/verify/test_starter_checks.py -q

One verdict assertion per claim. The probes run once per process (cached), ~5 s on 2 cores.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.utils.starter import CARDS, STARTER
from verify.checks import Evidence, run_check
from verify.claims import Claim, read_cards

# Claims true only under a condition the check states (a figure this machine cannot reproduce).
CONDITIONAL = {"pcie_bandwidth", "transformer_activation_formula"}
# Checks that are arithmetic only (no GPU, PCIe or NVMe here, or a card's worked example).
CALCULATED = {
    "collective_cost_model",
    "megatron_bytes_per_param",
    "mixed_precision_7b_example",
    "eight_bit_optimizer_bytes",
    "transformer_activation_formula",
    "offload_pcie_time",
    "pcie_bandwidth",
    "offload_breakeven",
    "cpu_adam_traffic",
    "infinity_nvme_traffic",
    "tp_comm_example",
}
SIMULATED: set[str] = set()

ALL_CLAIMS = [c for c in read_cards(CARDS) if c.card in STARTER]
CLAIMS = [c for c in ALL_CLAIMS if c.check]  # legacy checks; converted claims: test_claim_asserts.py
EVIDENCE = Evidence(runs=[])  # the starter checks run their own probes; the ZeRO sweep is not needed


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c.card}:{c.claim_id}")
def test_claim_verdict(claim: Claim) -> None:
    v = run_check(claim.check, EVIDENCE)
    expected = "conditional" if claim.check in CONDITIONAL else "confirmed"
    assert v.verdict == expected, f"{claim.check}: {v.verdict}: {v.reason_en}"


@pytest.mark.slow
@pytest.mark.parametrize("check_id", sorted({c.check for c in CLAIMS}))
def test_method_is_stated(check_id: str) -> None:
    v = run_check(check_id, EVIDENCE)
    method = "calculated" if check_id in CALCULATED else "simulated" if check_id in SIMULATED else "measured"
    assert v.extra["method"] == method
    assert (v.judged == "arithmetic") == (method == "calculated")
    if method == "calculated":
        assert v.reason_en.startswith("Calculated, not measured")


def test_every_card_has_claims() -> None:
    assert {c.card for c in ALL_CLAIMS} == set(STARTER)


def test_gloo_wire_claim_refutes_a_ring_reduce_scatter(monkeypatch: pytest.MonkeyPatch) -> None:
    # If Gloo's reduce-scatter sent only the ring's (N−1)/N·M, the claim "it sends 2(N−1)/N·M" is refuted.
    from verify.asserts import parse
    from verify.checks import starter_common
    from verify.experiments.sizes import WIRE_ELEMENTS
    from verify.judge import judge_parsed

    def fake_probe(n: int) -> dict[str, Any]:
        sent = int((n - 1) / n * WIRE_ELEMENTS * 4)
        return {"wire_by_rank": [{"reduce_scatter": sent} for _ in range(n)]}

    monkeypatch.setattr(starter_common, "probe", fake_probe)
    j = judge_parsed(parse("gloo_wire_send(reduce_scatter) == 2*(N-1)/N*M"), EVIDENCE)
    assert j.verdict == "refuted" and "disagrees with the ledger" in j.counterexample
