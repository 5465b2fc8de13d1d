"""Megatron-LM's 18 / 20 bytes a parameter counted on a step run the way Megatron runs it (issue 32): a contiguous
gradient buffer with ``main_grad`` views, fp32 main parameters and ``main_param.grad = main_grad.float()``; the
storages alive at the step, no 2 + 4 + 12 in the count.

Known values (Megatron-LM's distributed-optimizer documentation, non-distributed column): bf16 parameters with fp32
gradient accumulation 18 bytes a parameter, fp16 parameters and gradients 20 (the fp32 main gradient is a copy).
Mutation (the process): an optimizer that copies the main gradient even when the buffer is fp32 keeps 22 bytes
with bf16, and the card's 18 is refuted.
"""

from __future__ import annotations

import pytest
import torch

from tests.utils.judging import card_claim, fresh_caches
from verify.judge import Evidence, judge
from verify.measure.experiments import megatron_optimizer as mo

CLAIM = ("mixed-precision-memory", "megatron-18-bytes")


fresh_state = fresh_caches(mo.megatron_state)


def test_the_counts_are_megatrons(fresh_state: None) -> None:
    for recipe, per_param in (("bf16", 18), ("fp16", 20)):
        run = mo.megatron_state(recipe)
        assert sum(run["bytes"].values()) == per_param * run["psi"], (recipe, run)


def test_the_counts_confirm_the_card(fresh_state: None) -> None:
    verdict = judge(card_claim(*CLAIM), Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "measured"), verdict["reason_en"]


def test_a_copied_fp32_main_grad_refutes_18(fresh_state: None, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = torch.Tensor.float

    def always_copies(self: torch.Tensor, *args: object) -> torch.Tensor:
        out: torch.Tensor = plain(self)
        return out.clone() if self.dtype == torch.float32 else out

    monkeypatch.setattr(torch.Tensor, "float", always_copies)
    assert judge(card_claim(*CLAIM), Evidence([]))["verdict"] == "refuted"
