"""Context parallelism on Gloo ranks: ring attention and DeepSpeed-Ulysses against full attention (fp64).

    python -c "from verify.measure.experiments.llm_probe import probe; print(probe(4)['ring_attention'])"

Every rank holds s/N positions of Q, K, V. Ring attention passes K and V blocks around the ring with
``verify.measure.stages.collectives.RingCollectives``' neighbour exchange (which counts the bytes it hands to ``isend``)
and accumulates with an online softmax (running max and sum). Ulysses re-shards Q, K, V from positions to heads
with an all-to-all (``verify.measure.experiments.all_to_all.Exchange``, counted the same way), attends over the whole
sequence for its heads, and re-shards the output back. Both outputs are compared with softmax(QKᵀ/√d)V.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.distributed as dist

from verify.measure.experiments.all_to_all import Exchange
from verify.measure.stages.collectives import RingCollectives

RING_SHAPE = {"b": 2, "s": 16, "heads": 4, "d_head": 4}  # h = heads·d_head = 16


def _full(n: int) -> tuple[torch.Tensor, ...]:
    sh = RING_SHAPE
    torch.manual_seed(0)
    q, k, v = (torch.randn(sh["b"], sh["s"], sh["heads"], sh["d_head"], dtype=torch.float64) for _ in range(3))
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(sh["d_head"])
    out = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(-1), v)
    return q, k, v, out


def ring_attention(n: int) -> dict[str, Any]:
    rank, sh = dist.get_rank(), RING_SHAPE
    q, k, v, ref = (t.chunk(n, dim=1)[rank].contiguous() for t in _full(n))
    ring = RingCollectives()
    m = torch.full((sh["b"], sh["heads"], q.shape[1]), -math.inf, dtype=torch.float64)
    lsum = torch.zeros_like(m)
    acc = torch.zeros_like(q)
    for step in range(n):
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(sh["d_head"])
        new_m = torch.maximum(m, scores.amax(-1))
        scale = torch.exp(m - new_m)
        w = torch.exp(scores - new_m[..., None])
        lsum = lsum * scale + w.sum(-1)
        acc = acc * scale.permute(0, 2, 1)[..., None] + torch.einsum("bhqk,bkhd->bqhd", w, v)
        m = new_m
        if step < n - 1:  # pass K and V to the right, receive the left neighbour's
            k_in, v_in = torch.empty_like(k), torch.empty_like(v)
            ring._exchange(k, k_in)
            ring._exchange(v, v_in)
            k, v = k_in, v_in
    out = acc / lsum.permute(0, 2, 1)[..., None]
    return {"shape": sh, "sent_elements": ring.sent_bytes // 8, "sends": ring.sends,
            "steps": ring.sends // 2, "max_abs_diff": float((out - ref).abs().max())}


def ulysses(n: int) -> dict[str, Any]:
    rank, sh = dist.get_rank(), RING_SHAPE
    if sh["heads"] % n:
        raise ValueError(f"Ulysses needs heads ({sh['heads']}) divisible by N ({n})")
    q, k, v, ref = (t.chunk(n, dim=1)[rank].contiguous() for t in _full(n))
    ex = Exchange()
    rows = [q.shape[0]] * n

    def to_heads(t: torch.Tensor) -> torch.Tensor:  # (b, s/N, H, d) → (b, s, H/N, d)
        parts = ex([c.contiguous() for c in t.chunk(n, dim=2)], rows, "all_to_all")
        return torch.cat(parts, dim=1)

    qh, kh, vh = to_heads(q), to_heads(k), to_heads(v)
    scores = torch.einsum("bqhd,bkhd->bhqk", qh, kh) / math.sqrt(sh["d_head"])
    oh = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(-1), vh)
    back = ex([c.contiguous() for c in oh.chunk(n, dim=1)], rows, "all_to_all")  # (b, s/N, H/N, d) from each
    out = torch.cat(back, dim=2)
    return {"sent_elements": ex.sent_elements, "calls": sum(ex.calls.values()),
            "max_abs_diff": float((out - ref).abs().max())}
