"""One GPU's share of a model under 3D parallelism, counted on real tensors: t-way tensor, p-way pipeline and
ZeRO-1 over d data-parallel replicas.

    python -c "from verify.measure.experiments.sharding_3d import rank_share; print(rank_share(2048, 2, 2, 2))"

A stack of Ψ/h² bias-free ``Linear(h, h)`` layers (h = 16) is cut into p contiguous pipeline stages; each weight
of a stage is split into t shards along its rows (``torch.chunk``, Megatron's column-parallel split). Rank
(tensor 0, stage 0) keeps its shards in bf16 with a bf16 gradient each; its fp32 master weights and Adam's m and v
are split again over the d replicas (ZeRO-1: the flattened shard in d pieces, piece 0 kept). The parameters and
the bytes of every tensor the rank holds are counted; no Ψ/(tp) is in it.
"""

from __future__ import annotations

from functools import cache

import torch

SHARD_WIDTH = 16


@cache
def rank_share(psi: int, t: int, p: int, d: int) -> dict[str, int] | None:
    """{"params": parameters rank 0 holds, "state_bytes": its weights, gradients and optimizer bytes}; None when
    Ψ is no whole number of layers that split evenly."""
    layers, rest = divmod(psi, SHARD_WIDTH**2)
    if rest or layers % p or SHARD_WIDTH % t:
        return None
    torch.manual_seed(0)
    weights = [torch.randn(SHARD_WIDTH, SHARD_WIDTH) for _ in range(layers)]
    stage = weights[: layers // p]  # pipeline stage 0
    shards = [torch.chunk(w, t, dim=0)[0].to(torch.bfloat16).contiguous() for w in stage]  # tensor rank 0
    grads = [torch.zeros_like(s) for s in shards]
    flat = torch.cat([s.float().flatten() for s in shards])
    if flat.numel() % d:
        return None
    master = torch.chunk(flat, d)[0].clone()  # ZeRO-1: this replica's piece of the fp32 state
    m, v = torch.zeros_like(master), torch.zeros_like(master)
    held = [*shards, *grads, master, m, v]
    return {"params": sum(s.numel() for s in shards), "state_bytes": sum(x.untyped_storage().nbytes() for x in held)}
