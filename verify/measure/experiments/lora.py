"""A real LoRA-adapted linear layer and a real NF4-style 4-bit store: trainable parameters and stored bytes.

    python -c "from verify.measure.experiments.lora import measure; print(measure(8, 64, 96))"

The adapter wraps a frozen ``nn.Linear(d_in, d_out)`` with A (r × d_in) and B (d_out × r), B zero so the
adapted layer starts equal to the base; trainable = parameters with requires_grad after freezing. The
4-bit store packs two 4-bit codes per byte with an fp32 absmax per block of 64 weights (and, with double
quantization, 8-bit block absmaxes with an fp32 scale per 256 blocks): bytes of the real tensors kept.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import torch
from torch import nn


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int, alpha: float = 16.0) -> None:
        super().__init__()
        self.base = base.requires_grad_(False)
        self.A = nn.Parameter(torch.randn(r, base.in_features) / r)
        self.B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scale = alpha / r

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.base(x) + (x @ self.A.T @ self.B.T) * self.scale
        return out


@cache
def measure(r: int, d_in: int, d_out: int) -> dict[str, Any]:
    torch.manual_seed(0)
    base = nn.Linear(d_in, d_out, bias=False)
    layer = LoRALinear(base, r)
    x = torch.randn(4, d_in)
    same = bool(torch.equal(layer(x), base(x)))  # B = 0: the adapter starts as the identity change
    layer(x).sum().backward()
    return {"trainable": sum(p.numel() for p in layer.parameters() if p.requires_grad),
            "frozen": sum(p.numel() for p in layer.parameters() if not p.requires_grad),
            "base_grad_is_none": base.weight.grad is None, "starts_equal": same}


@cache
def nf4_store(numel: int = 64 * 256 * 4, block: int = 64, block2: int = 256) -> dict[str, int]:
    """Bytes of a 4-bit blockwise store of ``numel`` weights, with and without double quantization."""
    torch.manual_seed(0)
    w = torch.randn(numel)
    blocks = w.view(-1, block)
    absmax = blocks.abs().amax(dim=1)  # fp32, one per block
    codes = torch.clamp(torch.round(blocks / absmax[:, None] * 7), -8, 7).to(torch.int8) + 8  # 16 levels
    packed = (codes[:, 0::2] * 16 + codes[:, 1::2]).to(torch.uint8)  # two 4-bit codes per byte
    groups = absmax.view(-1, block2)
    c2 = groups.abs().amax(dim=1)  # fp32, one per 256 blocks
    absmax8 = torch.round(groups / c2[:, None] * 255).to(torch.uint8)
    return {"numel": numel, "plain": packed.nbytes + absmax.nbytes,
            "double": packed.nbytes + absmax8.nbytes + c2.nbytes}
