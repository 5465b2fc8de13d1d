"""The roofline intensity of a bf16 linear counted at the claim's own sizes (issue 32): FlopCounterMode's FLOPs
over the bytes of the input, weight and output tensors, on the meta device where the shape is too large to
multiply here (4,096 tokens at h = 4,096, 10⁹ tokens), no 2xh²/(e(2xh + h²)) in the count.

Known values: Williams et al. (2009, "Roofline"): intensity = FLOPs / bytes moved; an h × h linear on x tokens does
2xh² FLOPs and moves e(2xh + h²) bytes, 4096/3 ≈ 1365 at x = h = 4096 in bf16, and on real and meta tensors alike.
Mutation (the process): a linear that writes its output in fp32 moves more bytes, and the card's 1365 is refuted.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch.nn import functional

from tests.utils.judging import card_claim, fresh_caches
from verify.judge import Evidence, judge
from verify.measure.experiments import decoder

fresh_linear = fresh_caches(decoder.linear_intensity)


def test_real_and_meta_tensors_count_alike(fresh_linear: None) -> None:
    small = decoder.linear_intensity(24, 64)  # real CPU tensors
    assert small == {"flops": 2 * 24 * 64**2, "bytes": 2 * (2 * 24 * 64 + 64**2)}
    big = decoder.linear_intensity(4096, 4096)  # the meta device
    assert big == {"flops": 2 * 4096**3, "bytes": 2 * 3 * 4096**2}


def test_the_counts_confirm_the_1365_claim(fresh_linear: None) -> None:
    verdict = judge(card_claim("prefill-decode-roofline", "prefill-1365"), Evidence([]))
    assert (verdict["verdict"], verdict["method"]) == ("confirmed", "measured"), verdict["reason_en"]
    assert all(r.get("holds") for r in verdict["evaluated"]) and verdict["evaluated"]


def test_an_fp32_output_refutes_it(fresh_linear: None, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = functional.linear

    def fp32_out(x: torch.Tensor, w: torch.Tensor, *args: Any) -> torch.Tensor:
        out: torch.Tensor = plain(x, w, *args)
        return out.float()

    monkeypatch.setattr(functional, "linear", fp32_out)
    assert judge(card_claim("prefill-decode-roofline", "prefill-1365"), Evidence([]))["verdict"] == "refuted"
