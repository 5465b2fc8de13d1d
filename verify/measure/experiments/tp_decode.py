"""One decoding step of a Megatron tensor-parallel decoder on t simulated ranks, its all-reduces run step by step.

    python -c "from verify.measure.experiments.tp_decode import tp_decode_step as s; print(s(2, 2, 32, 2))"

Each layer is attention over a KV cache with its heads split over the ranks (QKV column-parallel, the output
projection row-parallel) and an MLP with fc1 column-parallel and fc2 row-parallel (Shoeybi et al. 2019). A
row-parallel matmul leaves every rank a partial sum of the b × h output; the ranks' partial sums, cast to the
16-bit activations a serving stack sends, run through the ring all-reduce of ``verify.measure.sim.ring``, which
counts the elements each rank sends and keeps each step's largest message. Whatever all-reduces the layers
call, of whatever size, is what is counted; the step's output is checked against the same decoder unsharded
(a sharding that computes something else is no TP decode step).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

import torch

from verify.measure.sim import ring

TP_DECODE_CASES = ((2, 2, 32, 2), (3, 1, 32, 4))  # (L, b, h, t)
_HEADS, _CACHED = 4, 3  # attention heads; tokens already in the KV cache


def _layer_weights(h: int, gen: torch.Generator) -> dict[str, torch.Tensor]:
    def w(rows: int, cols: int) -> torch.Tensor:
        return torch.randn(rows, cols, generator=gen) / math.sqrt(cols)
    return {"q": w(h, h), "k": w(h, h), "v": w(h, h), "o": w(h, h), "fc1": w(4 * h, h), "fc2": w(h, 4 * h)}


def _attention(x: torch.Tensor, wts: dict[str, torch.Tensor], cache_kv: tuple[torch.Tensor, torch.Tensor],
               heads: slice) -> torch.Tensor:
    """Attention of the new token over the cache, for the heads in ``heads``; the output projection's columns of
    those heads: a partial sum of the b × h output (all of it when ``heads`` is every head)."""
    b, h = x.shape
    dh = h // _HEADS
    cols = slice(heads.start * dh, heads.stop * dh)
    q, k, v = (x @ wts[n][cols].T for n in ("q", "k", "v"))  # (b, heads·dh)
    n = heads.stop - heads.start
    q, k, v = (t.view(b, n, 1, dh) for t in (q, k, v))
    keys = torch.cat([cache_kv[0][:, heads], k], dim=2)
    vals = torch.cat([cache_kv[1][:, heads], v], dim=2)
    att = torch.softmax(q @ keys.transpose(-1, -2) / math.sqrt(dh), dim=-1) @ vals  # (b, n, 1, dh)
    return att.reshape(b, n * dh) @ wts["o"][:, cols].T


def _mlp(x: torch.Tensor, wts: dict[str, torch.Tensor], rows: slice) -> torch.Tensor:
    return torch.nn.functional.gelu(x @ wts["fc1"][rows].T) @ wts["fc2"][:, rows].T


def _forward(x: torch.Tensor, layers: list[Any], t: int, reduce: Callable[[list[torch.Tensor]], torch.Tensor]
             ) -> torch.Tensor:
    """The decoder's step on t ranks: each row-parallel output's partial sums go through ``reduce``."""
    h = x.shape[1]
    for wts, cache_kv in layers:
        heads = [slice(r * _HEADS // t, (r + 1) * _HEADS // t) for r in range(t)]
        x = x + reduce([_attention(x, wts, cache_kv, hs) for hs in heads])
        rows = [slice(r * 4 * h // t, (r + 1) * 4 * h // t) for r in range(t)]
        x = x + reduce([_mlp(x, wts, rs) for rs in rows])
    return x


@cache
def tp_decode_step(layers: int, b: int, h: int, t: int) -> dict[str, Any]:
    """{"allreduces", "sent_bytes" (rank 0's, max over ranks per call), "step_messages" (elements),
    "element_size", "matches_unsharded"} of one decoding step of an L-layer decoder on t ranks."""
    gen = torch.Generator().manual_seed(0)
    model = [(_layer_weights(h, gen), (torch.randn(b, _HEADS, _CACHED, h // _HEADS, generator=gen),
                                       torch.randn(b, _HEADS, _CACHED, h // _HEADS, generator=gen)))
             for _ in range(layers)]
    x = torch.randn(b, h, generator=gen)
    calls: list[Any] = []
    wire = torch.bfloat16  # 16-bit activations on the wire

    def ring_reduce(partials: list[torch.Tensor]) -> torch.Tensor:
        sent = [p.to(wire) for p in partials]
        run = ring.ring_allreduce([s.flatten().tolist() for s in sent])
        calls.append((run, sent[0].element_size()))
        return torch.tensor(run.result[0], dtype=wire).view_as(partials[0]).float()

    sharded = _forward(x, model, t, ring_reduce)
    whole = _forward(x, model, 1, lambda partials: partials[0])
    return {
        "allreduces": len(calls),
        "sent_bytes": sum(max(run.sent) * size for run, size in calls),
        "step_messages": [m for run, _ in calls for ph in ("reduce_scatter", "all_gather")
                          for m in run.step_messages[ph]],
        "element_size": {size for _, size in calls}.pop() if calls else 0,
        "matches_unsharded": bool(torch.allclose(sharded, whole, rtol=0.05, atol=0.05)),
    }
