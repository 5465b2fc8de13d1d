"""FlashAttention's IO argument, run: Algorithm 0 (standard) and Algorithm 1 (tiled) counting HBM transfers.

    python -c "from verify.measure.sim.flash_attention import run; print(run(n=256, d=16, sram=1024))"

Both algorithms compute softmax(QKᵀ)V on real fp64 tensors; every element moved between "HBM" (the
full tensors) and "SRAM" (the blocks held in the loop) is counted as it is read or written. The outputs
must equal the reference (a wrong tiling would not), and the counts are what the formulas in
``verify.known.formulas.flash_attention`` must predict. Dao et al. 2022, Algorithms 0 and 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass
class Run:
    standard_accesses: int
    flash_accesses: int
    max_abs_error: float  # of the tiled output against the reference
    sram_peak_elements: int  # largest working set the tiled loop held at once


def _standard(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, int]:
    n, d = q.shape
    io = 2 * n * d  # read Q, K
    s = q @ k.T
    io += n * n  # write S
    io += n * n  # read S
    p = torch.softmax(s, dim=-1)
    io += n * n  # write P
    io += n * n + n * d  # read P, V
    o = p @ v
    io += n * d  # write O
    return o, io


def _flash(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sram: int) -> tuple[torch.Tensor, int, int]:
    n, d = q.shape
    bc = math.ceil(sram / (4 * d))
    br = min(bc, d)
    o, ell = torch.zeros(n, d, dtype=q.dtype), torch.zeros(n, dtype=q.dtype)
    m = torch.full((n,), -math.inf, dtype=q.dtype)
    io = n * d + 2 * n  # initialise O, ℓ, m in HBM
    peak = 0
    for j in range(0, n, bc):
        kj, vj = k[j:j + bc], v[j:j + bc]
        io += kj.numel() + vj.numel()
        for i in range(0, n, br):
            qi, oi, li, mi = q[i:i + br], o[i:i + br], ell[i:i + br], m[i:i + br]
            io += qi.numel() + oi.numel() + li.numel() + mi.numel()
            sij = qi @ kj.T
            peak = max(peak, kj.numel() + vj.numel() + qi.numel() + oi.numel() + sij.numel())
            mij = sij.max(dim=1).values
            pij = torch.exp(sij - mij[:, None])
            lij = pij.sum(dim=1)
            m_new = torch.maximum(mi, mij)
            l_new = torch.exp(mi - m_new) * li + torch.exp(mij - m_new) * lij
            o[i:i + br] = ((li * torch.exp(mi - m_new))[:, None] * oi + torch.exp(mij - m_new)[:, None] * (pij @ vj)) \
                / l_new[:, None]
            ell[i:i + br], m[i:i + br] = l_new, m_new
            io += br * d + 2 * br  # write O_i, ℓ_i, m_i
    return o, io, peak


def run(*, n: int, d: int, sram: int) -> Run:
    torch.manual_seed(0)
    q, k, v = (torch.randn(n, d, dtype=torch.float64) for _ in range(3))
    ref, std_io = _standard(q, k, v)
    out, flash_io, peak = _flash(q, k, v, sram)
    return Run(std_io, flash_io, float((out - ref).abs().max()), peak)
