"""DDP baseline: every rank holds the unsharded parameters, gradients and optimizer states.

    python -m verify --world-sizes 2,4

Per rank: 2Ψ bytes of bf16 parameters + 2Ψ of gradients + 12Ψ of fp32 master, m, v = 16Ψ.
Communication: one all-reduce of each layer's gradient in backward (payload Ψ, ring 2(N−1)/N·Ψ).
Flat buffers are not padded: nothing is sharded.
"""

from __future__ import annotations

import torch
import torch.distributed as dist

from verify.adam import FlatAdam
from verify.meters.comm import phase
from verify.model import LinearFn
from verify.stages.base import RefStage, StageConfig


class DDPStage(RefStage):
    name = "ddp"
    pad_to_world = False

    def __init__(self, cfg: StageConfig) -> None:
        super().__init__(cfg)
        masters = self.init_padded()
        self.opts = [FlatAdam(m, cfg.adam) for m in masters]  # unsharded fp32 master, m, v
        self.params = [m.to(cfg.dtype, copy=True).requires_grad_() for m in masters]  # unsharded parameters
        for p in self.params:
            # All-reduce each layer's gradient as soon as backward has produced it (one bucket per layer).
            p.register_post_accumulate_grad_hook(self._all_reduce)

    def _all_reduce(self, p: torch.Tensor) -> None:
        assert p.grad is not None
        dist.all_reduce(p.grad)  # sum over ranks; Adam sees grad / N

    def train_step(self) -> None:
        x, y = self.batch()
        with phase("forward"):
            h = x
            for p, s in zip(self.params, self.specs, strict=True):
                h = LinearFn.apply(p, h, s)
            loss = self.loss(h, y)
        with phase("backward"):
            loss.backward()
        with phase("step"), torch.no_grad():
            for p, opt in zip(self.params, self.opts, strict=True):
                assert p.grad is not None
                opt.step(p.grad.float().div_(self.world))
                p.copy_(opt.master)
                p.grad.zero_()  # keep the buffer: gradients are persistent in DDP
        self.step_index += 1

    def state_tensors(self) -> dict[str, list[torch.Tensor]]:
        grads = [p.grad for p in self.params if p.grad is not None]
        return {"params": list(self.params), "grads": grads,
                "optim": [t for o in self.opts for t in o.tensors()]}

    def full_master(self) -> list[torch.Tensor]:
        return [o.master.clone() for o in self.opts]
