"""Gradient accumulation on a real model: one batch of k·b against k micro-batches of b, and DDP's no_sync.

    python -c "from verify.measure.experiments.grad_accumulation import equivalence; print(equivalence(4))"

``equivalence(k)``: an fp64 MLP; the gradient of the mean loss over 8k samples against the sum of k micro-batch
gradients with each loss divided by k (and without), and a token-level loss over sequences of unequal length
averaged per micro-batch. ``ddp_no_sync(k)`` (on Gloo ranks): gradient all-reduce calls per optimizer step with
and without ``DistributedDataParallel.no_sync`` for the first k − 1 micro-batches, counted by the comm meter.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import torch
from torch import nn

MICRO_BATCH = 8


def _mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 4)).double()


def _grads(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.grad.reshape(-1) for p in model.parameters() if p.grad is not None])


@cache
def equivalence(k: int) -> dict[str, Any]:
    model = _mlp()
    torch.manual_seed(1)
    x = torch.randn(k * MICRO_BATCH, 16, dtype=torch.float64)
    y = torch.randn(k * MICRO_BATCH, 4, dtype=torch.float64)
    loss_fn = nn.MSELoss()
    model.zero_grad()
    loss_fn(model(x), y).backward()
    full = _grads(model).clone()
    out: dict[str, Any] = {"k": k}
    for name, div in (("scaled", k), ("unscaled", 1)):
        model.zero_grad()
        for xs, ys in zip(x.chunk(k), y.chunk(k), strict=True):
            (loss_fn(model(xs), ys) / div).backward()
        acc = _grads(model)
        out[name] = {"max_abs_diff": float((acc - full).abs().max()), "norm_ratio": float(acc.norm() / full.norm())}
    # token-level loss: micro-batch i has 2 + 6i tokens per sample; per-micro-batch means vs the global token mean
    lengths = [2 + 6 * i for i in range(k)]
    toks = [torch.randn(MICRO_BATCH * n, 16, dtype=torch.float64) for n in lengths]
    tgts = [torch.randn(MICRO_BATCH * n, 4, dtype=torch.float64) for n in lengths]
    model.zero_grad()
    sum_loss = sum(((model(a) - b) ** 2).sum() for a, b in zip(toks, tgts, strict=True))
    (sum_loss / sum(t.numel() for t in tgts)).backward()
    token_mean = _grads(model).clone()
    model.zero_grad()
    for a, b in zip(toks, tgts, strict=True):
        (((model(a) - b) ** 2).mean() / k).backward()
    per_micro = _grads(model)
    out["token_mean_rel_error"] = float((per_micro - token_mean).norm() / token_mean.norm())
    return out


def ddp_no_sync(k: int) -> dict[str, Any]:
    """On each Gloo rank: all-reduce calls per step of k micro-batches, with and without no_sync."""
    from verify.measure.experiments.calllog import CallLog

    out: dict[str, Any] = {"k": k}
    for mode in ("no_sync", "every_micro_step"):
        model = nn.parallel.DistributedDataParallel(_mlp())
        torch.manual_seed(2)
        xs = [torch.randn(MICRO_BATCH, 16, dtype=torch.float64) for _ in range(k)]
        model(xs[0]).square().mean().backward()  # warm-up step (bucket rebuild), not counted
        model.zero_grad()
        with CallLog() as log:
            for i, xb in enumerate(xs):
                if mode == "no_sync" and i < k - 1:
                    with model.no_sync():
                        (model(xb).square().mean() / k).backward()
                else:
                    (model(xb).square().mean() / k).backward()
        out[mode] = {"all_reduce_calls": log.count("all_reduce"),
                     "grad": [float(v) for v in _grads(model.module)[:4]]}
    return out
