"""Weight-only int8 / int4 quantization of real tensors: stored bytes and the round-to-nearest error.

    python -c "from verify.measure.experiments.quantization import measure; print(measure(8, 128))"

Symmetric absmax per group of G weights, one fp16 scale per group; int4 codes packed two per byte. The
error is measured on the dequantized tensor: max |w − ŵ| over the group's absmax, and the RMS error over
Δ/√12 (Δ = absmax / qmax), the value rounding errors spread uniformly over a step would give.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import torch

ROWS, COLS = 256, 1024


@cache
def measure(bits: int, group: int) -> dict[str, Any]:
    torch.manual_seed(0)
    w = torch.randn(ROWS, COLS) * 0.02
    g = w.view(-1, group)
    qmax = 2 ** (bits - 1) - 1
    scale = (g.abs().amax(dim=1) / qmax).to(torch.float16)
    q = torch.clamp(torch.round(g / scale.float()[:, None]), -qmax, qmax).to(torch.int8)
    stored = q if bits == 8 else ((q[:, 0::2] + 8) * 16 + (q[:, 1::2] + 8)).to(torch.uint8)
    deq = q.float() * scale.float()[:, None]
    err = (deq - g).abs()
    absmax = scale.float() * qmax  # the group's absmax as stored (fp16 scale)
    rms_ratio = float(((deq - g) ** 2).mean().sqrt() / (scale.float() / math.sqrt(12)).pow(2).mean().sqrt())
    return {
        "numel": w.numel(), "bytes": stored.nbytes + scale.nbytes, "fp16_bytes": w.numel() * 2,
        "max_err_over_absmax": float((err / absmax[:, None]).max()), "rms_over_uniform": rms_ratio,
    }
