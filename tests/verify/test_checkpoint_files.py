"""Checkpoint bytes counted from real torch.save files (issue 32): 12Ψ resumable, 14Ψ with 16-bit weights, 2Ψ
weights only, no bytes-per-parameter formula in the count.

Known values: Rajbhandari et al. (2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
§3.1): mixed-precision Adam keeps an fp32 copy of the weights and the momentum and variance in fp32, K = 12 bytes
per parameter, beside 2-byte fp16/bf16 weights. Mutation (the process): an optimizer that keeps one moment
(SGD with momentum) writes 8Ψ, and the card's 12Ψ claim is refuted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch

from tests.utils.judging import caches_cleared, card_claim
from verify.judge import Evidence, judge
from verify.measure.experiments import checkpoint_files
from verify.reading.claims import Claim

RAJBHANDARI = {"resumable": 4 + 4 + 4, "with_weights16": 4 + 4 + 4 + 2, "weights16": 2}  # bytes per parameter


@pytest.fixture(scope="module")
def claim() -> Claim:
    return card_claim("sharded-checkpointing", "per-param-bytes")


@pytest.fixture
def fresh_files(fresh: None) -> Iterator[None]:
    with caches_cleared(checkpoint_files.checkpoint_file_bytes):
        yield


def test_file_bytes_per_parameter_are_zeros(fresh_files: None) -> None:
    got = checkpoint_files.checkpoint_file_bytes()
    for kind, per_param in RAJBHANDARI.items():
        assert 0 <= got[kind] - per_param * got["params"] <= 2048, kind


def test_the_files_confirm_the_card(claim: Claim, fresh_files: None) -> None:
    verdict = judge(claim, Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "counted"), verdict["reason_en"]


def test_an_optimizer_with_one_moment_refutes_it(claim: Claim, fresh_files: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def momentum_sgd(params: Any, lr: float) -> torch.optim.Optimizer:
        return torch.optim.SGD(params, lr=lr, momentum=0.9)

    monkeypatch.setattr(torch.optim, "Adam", momentum_sgd)
    got = checkpoint_files.checkpoint_file_bytes()
    assert got["resumable"] - 8 * got["params"] <= 2048
    assert judge(claim, Evidence([]))["verdict"] == "refuted"
