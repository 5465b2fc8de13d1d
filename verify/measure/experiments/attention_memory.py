"""Extra memory of attention on CPU: the naive kernel materialises s × s, PyTorch's fused kernel does not.

    python -c "from verify.measure.experiments.attention_memory import extra_bytes; print(extra_bytes(1024))"

Peak bytes allocated above the inputs while one head (batch 1, fp32, d = 64) computes softmax(QKᵀ/√d)V,
from the profiler's allocation events (``verify.measure.meters.memory.cpu_peak_bytes``): the naive kernel as
three explicit ops, and ``F.scaled_dot_product_attention`` (PyTorch's flash-attention CPU kernel).
"""

from __future__ import annotations

import math
from functools import cache

import torch
from torch.nn import functional as F

from verify.measure.meters.memory import cpu_peak_bytes

HEAD_DIM = 64


@cache
def extra_bytes(s: int, d: int = HEAD_DIM) -> dict[str, int]:
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 1, s, d) for _ in range(3))

    def naive() -> torch.Tensor:
        return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d), dim=-1) @ v

    def fused() -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v)

    naive(), fused()  # warm-up
    return {"naive": cpu_peak_bytes(naive), "fused": cpu_peak_bytes(fused)}
