"""ZeRO-3 (P_os+g+p): shard parameters too; gather each layer just before it is used and free it after.

    python -m verify --world-sizes 2,4

Per rank: 2Ψ_pad/N (sharded parameters) + 2Ψ_pad/N (gradient shards) + 12Ψ_pad/N (optimizer-state shard)
= 16Ψ_pad/N. ``GatheredLinear`` all-gathers a layer's unsharded parameter before its forward, frees it
after; all-gathers it again before its backward, computes the unsharded gradient, reduce-scatters it
into the gradient shard and frees both. Communication: all-gather Ψ_pad (forward) + all-gather Ψ_pad
(backward) + reduce-scatter Ψ_pad: ring 3(N−1)/N·Ψ, 1.5× DDP's 2(N−1)/N·Ψ.
Transient memory: one layer's unsharded parameter and gradient (plus the backend's temporaries) and the
activations, never the whole model.
"""

from __future__ import annotations

from typing import Any

import torch

from verify.measure.adam import FlatAdam
from verify.measure.meters.comm import phase
from verify.measure.model import LayerSpec, linear_backward, linear_forward
from verify.measure.stages.base import RefStage, StageConfig, wait_until_released
from verify.measure.stages.collectives import Collectives


def all_gather_layer(shard: torch.Tensor, world: int, coll: Collectives) -> torch.Tensor:
    full = torch.empty(shard.numel() * world, dtype=shard.dtype, device=shard.device)  # unsharded, padded
    coll.all_gather(full, shard.detach())
    if coll.mode == "native":
        wait_until_released(full)
    return full


class GatheredLinear(torch.autograd.Function):
    """One layer on a sharded parameter: gather → compute → free, in forward and again in backward."""

    @staticmethod
    def forward(ctx: Any, shard: torch.Tensor, x: torch.Tensor, spec: LayerSpec,
                world: int, coll: Collectives) -> torch.Tensor:
        with phase("forward"):
            full = all_gather_layer(shard, world, coll)
        y = linear_forward(full, x, spec)
        del full  # freed right after the layer's forward
        ctx.save_for_backward(shard, x, y)
        ctx.spec, ctx.world, ctx.coll = spec, world, coll
        return y

    @staticmethod
    def backward(ctx: Any, gy: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        shard, x, y = ctx.saved_tensors
        with phase("backward"):
            full = all_gather_layer(shard, ctx.world, ctx.coll)
            gfull, gx = linear_backward(full, x, y, gy, ctx.spec, ctx.needs_input_grad[1])
            del full
            grad_shard = torch.empty_like(shard)
            ctx.coll.reduce_scatter(grad_shard, gfull)  # sum over ranks of this rank's slice
            if ctx.coll.mode == "native":
                wait_until_released(grad_shard)  # the work holds its output and its clone of gfull
            del gfull
        return grad_shard, gx, None, None, None


class Zero3Stage(RefStage):
    name = "zero3"

    def __init__(self, cfg: StageConfig) -> None:
        super().__init__(cfg)
        masters = self.init_padded()
        self.opts = [FlatAdam(self.shard_of(m, i).clone(), cfg.adam) for i, m in enumerate(masters)]
        # sharded parameters: the only copy of the weights a rank keeps between steps
        self.params = [o.master.to(cfg.dtype, copy=True).requires_grad_() for o in self.opts]

    def forward_backward(self) -> None:
        x, y = self.batch()
        h = x
        for p, s in zip(self.params, self.specs, strict=True):
            h = GatheredLinear.apply(p, h, s, self.world, self.coll)  # type: ignore[no-untyped-call]
        loss = self.loss(h, y)
        loss.backward()  # gradient shards accumulate into p.grad

    def optimizer_step(self) -> None:
        with phase("step"), torch.no_grad():
            for p, opt in zip(self.params, self.opts, strict=True):
                assert p.grad is not None
                opt.step(p.grad.float().div_(self.world))
                p.copy_(opt.master)
                p.grad.zero_()

    def state_tensors(self) -> dict[str, list[torch.Tensor]]:
        return {"params": list(self.params), "grads": [p.grad for p in self.params if p.grad is not None],
                "optim": [t for o in self.opts for t in o.tensors()]}

    def full_master(self) -> list[torch.Tensor]:
        return self.gather_shards([o.master for o in self.opts])
