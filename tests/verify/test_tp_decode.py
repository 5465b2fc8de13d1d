"""A tensor-parallel decoding step run on t simulated ranks (issue 32): its all-reduces counted, the bytes its ring
all-reduces send and their α-β time simulated step by step, no 8Lbh(t − 1)/t in the count.

Known values: Shoeybi et al. (2019, "Megatron-LM", §3): two all-reduces of the b·s·h activations per layer in
forward (s = 1 when decoding); Patarasuk and Yuan (2009): a ring all-reduce sends 2(t − 1)/t of the payload per
rank in 2(t − 1) steps. At L = 2, b = 2, h = 32, t = 2: 4 all-reduces, 512 bytes, 280 s at α = 3, β = 2; at L = 3,
b = 1, t = 4: 6 all-reduces, 576 bytes. Mutation (the process): an all-reduce where every rank sends its whole
tensor to every other sends (t − 1)·b·h per call, and the cards' bytes and time are refuted.
"""

from __future__ import annotations

import pytest

from tests.utils.judging import card_claim, fresh_caches
from verify.judge import Evidence, judge
from verify.measure.experiments import tp_decode
from verify.measure.sim import ring

CLAIMS = ("per-token-bytes", "per-token-time")


fresh_step = fresh_caches(tp_decode.tp_decode_step)


def test_the_step_is_megatrons_over_a_ring(fresh_step: None) -> None:
    small, wide = tp_decode.tp_decode_step(2, 2, 32, 2), tp_decode.tp_decode_step(3, 1, 32, 4)
    assert small["matches_unsharded"] and wide["matches_unsharded"]
    assert (small["allreduces"], small["sent_bytes"], wide["allreduces"], wide["sent_bytes"]) == (4, 512, 6, 576)
    from verify.measure.sim.timing import lockstep_time

    assert lockstep_time(small["step_messages"], 3, 2, small["element_size"]) == 280


def test_the_step_confirms_the_cards(fresh_step: None) -> None:
    for claim in CLAIMS:
        verdict = judge(card_claim("tp-inference-communication", claim), Evidence([]))
        assert (verdict["verdict"], verdict["method"]) == ("confirmed", "simulated"), (claim, verdict["reason_en"])


def _direct_allreduce(data: list[list[float]]) -> ring.RingRun:
    """Every rank sends its whole tensor to every other rank in one step, and each adds what it receives."""
    n, m = len(data), len(data[0])
    total = [sum(col) for col in zip(*data, strict=True)]
    return ring.RingRun(result=[list(total) for _ in range(n)], sent=[(n - 1) * m] * n,
                        sent_by_phase={"reduce_scatter": [(n - 1) * m] * n, "all_gather": [0] * n},
                        steps={"reduce_scatter": 1, "all_gather": 0},
                        step_messages={"reduce_scatter": [m], "all_gather": []})


def test_a_direct_exchange_refutes_the_bytes_and_time(fresh_step: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ring, "ring_allreduce", _direct_allreduce)
    assert tp_decode.tp_decode_step(3, 1, 32, 4)["matches_unsharded"]  # the same sums, another exchange
    for claim in CLAIMS:
        assert judge(card_claim("tp-inference-communication", claim), Evidence([]))["verdict"] == "refuted", claim
