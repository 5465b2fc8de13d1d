"""What the host optimizer reads and writes per step, counted on a real Adam step (issue 32): the kept host
tensors its ops touch (CPU Adam's memory traffic) and the tensor records of the swap files (ZeRO-Infinity's NVMe
traffic), no 28 or 24Ψ in the count.

Known values: Ren et al. (2021, "ZeRO-Offload", §4.1, CPU Adam): per parameter the step reads and writes the fp32
master weight, momentum and variance (3 × 4 bytes each way), reads the 16-bit gradient and writes the 16-bit
parameter: 28 bytes. Rajbhandari et al. (2021, "ZeRO-Infinity", §5): with the optimizer state on NVMe a step reads
its 12Ψ in and writes 12Ψ back. Mutation (the process): a host optimizer with one moment (momentum SGD) touches
4 bytes a parameter less each way and swaps 8Ψ, and the cards' 28 and 24Ψ are refuted.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from tests.utils.judging import card_claim, fresh_caches
from verify.judge import Evidence, judge
from verify.measure.experiments import host_optimizer_io as io

CLAIMS = (("zero-offload-infinity", "cpu-adam-reads"), ("zero-offload-infinity", "infinity-nvme-optimizer-traffic"),
          ("zero-sharding", "followup-nvme-120gb"))


fresh_step = fresh_caches(io.cpu_adam_traffic, io.nvme_swap_bytes)


def test_the_counts_are_rens_and_infinitys(fresh_step: None) -> None:
    adam, swap = io.cpu_adam_traffic(), io.nvme_swap_bytes()
    psi = adam["psi"]
    assert (adam["read"], adam["written"]) == (14 * psi, 14 * psi)  # master, m, v + 16-bit gradient / parameter
    assert (swap["psi"], swap["read"], swap["written"]) == (psi, 12 * psi, 12 * psi)


def test_the_counts_confirm_the_cards(fresh_step: None) -> None:
    for card, claim in CLAIMS:
        verdict = judge(card_claim(card, claim), Evidence([]))
        assert (verdict["verdict"], verdict["method"]) == ("confirmed", "counted"), (claim, verdict["reason_en"])


def test_a_one_moment_host_optimizer_refutes_28_and_24_psi(fresh_step: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def momentum_sgd(params: Any, lr: float, foreach: bool) -> torch.optim.Optimizer:
        return torch.optim.SGD(params, lr=lr, momentum=0.9, foreach=foreach)

    monkeypatch.setattr(torch.optim, "Adam", momentum_sgd)
    adam = io.cpu_adam_traffic()
    assert adam["read"] + adam["written"] == 20 * adam["psi"]
    for card, claim in CLAIMS:
        assert judge(card_claim(card, claim), Evidence([]))["verdict"] == "refuted", claim
