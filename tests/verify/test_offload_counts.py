"""ZeRO-Offload's memory split and PCIe volume counted on a real offloaded step (issue 32): the storages of the
"GPU" and "CPU" pools and every copy between them, no 2Ψ / 14Ψ / 4Ψ in the count.

Known values: Ren et al. (2021, "ZeRO-Offload: Democratizing Billion-Scale Model Training", §3): the GPU keeps
the 16-bit parameters (2Ψ), the CPU the 16-bit gradients and fp32 master weights, momentum and variance
(2Ψ + 12Ψ); each step moves 2Ψ of gradients down and 2Ψ of parameters up. Mutation (the process): a host optimizer
with one moment keeps 8Ψ, not 12Ψ, and the card's 12Ψ claim is refuted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch

from tests.utils.judging import caches_cleared, card_claim
from verify.judge import Evidence, judge
from verify.known.vocabulary import offload


@pytest.fixture
def fresh_step(fresh: None) -> Iterator[None]:
    with caches_cleared(offload._offload_run):
        yield


def test_pools_and_copies_are_rens(fresh_step: None) -> None:
    run = offload._offload_run()
    psi = run["psi"]
    assert run["device_bytes"] == 2 * psi and sum(run["host_bytes"].values()) == 14 * psi
    assert (run["copied_down"], run["copied_up"]) == (2 * psi, 2 * psi)


def test_the_counts_confirm_the_cards(fresh_step: None) -> None:
    for claim in ("offload-pcie-volume", "offload-cpu-optimizer-12psi"):
        verdict = judge(card_claim("zero-offload-infinity", claim), Evidence([]))
        assert (verdict["verdict"], verdict["method"]) == ("confirmed", "counted"), verdict["reason_en"]


def test_a_one_moment_host_optimizer_refutes_12_psi(fresh_step: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def momentum_sgd(params: Any, lr: float, foreach: bool) -> torch.optim.Optimizer:
        return torch.optim.SGD(params, lr=lr, momentum=0.9, foreach=foreach)

    monkeypatch.setattr(torch.optim, "Adam", momentum_sgd)
    claim = card_claim("zero-offload-infinity", "offload-cpu-optimizer-12psi")
    assert judge(claim, Evidence([]))["verdict"] == "refuted"
