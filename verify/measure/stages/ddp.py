"""DDP baseline: every rank holds the unsharded parameters, gradients and optimizer states.

    python -m verify --world-sizes 2,4

Per rank: 2Ψ bytes of bf16 parameters + 2Ψ of gradients + 12Ψ of fp32 master, m, v = 16Ψ.
Communication: one all-reduce of the gradient bucket in backward (payload Ψ, ring 2(N−1)/N·Ψ).
Flat buffers are not padded: nothing is sharded.

Gradients live in one flat bucket and each layer's ``.grad`` is a view into it, as PyTorch's
``DistributedDataParallel(gradient_as_bucket_view=True)`` does, so autograd accumulates straight into the
bucket and no hidden copy exists. PyTorch caps buckets at 25 MB and all-reduces each one as soon as it is
full, overlapping backward; this model's ~2 MB of gradients fit in one bucket, reduced when the last
layer's gradient (the first layer's) has arrived.
"""

from __future__ import annotations

import torch

from verify.measure.adam import FlatAdam
from verify.measure.meters.comm import phase
from verify.measure.stages.base import RefStage, StageConfig


class DDPStage(RefStage):
    name = "ddp"
    pad_to_world = False

    def __init__(self, cfg: StageConfig) -> None:
        super().__init__(cfg)
        masters = self.init_padded()
        self.opts = [FlatAdam(m, cfg.adam) for m in masters]  # unsharded fp32 master, m, v
        self.params = [m.to(cfg.dtype, copy=True).requires_grad_() for m in masters]  # unsharded parameters
        self.bucket = torch.zeros(sum(self.padded), dtype=cfg.dtype, device=cfg.device)  # all gradients, 1D
        for p, grad_view in zip(self.params, self.bucket.split(self.padded), strict=True):
            p.grad = grad_view  # autograd accumulates in place into the bucket
            p.register_post_accumulate_grad_hook(self._on_grad_ready)
        self._waiting = len(self.params)

    def _on_grad_ready(self, p: torch.Tensor) -> None:
        self._waiting -= 1
        if self._waiting == 0:  # every layer's gradient is in the bucket
            self.coll.all_reduce(self.bucket)  # sum over ranks; Adam sees grad / N
            self._waiting = len(self.params)

    def optimizer_step(self) -> None:
        with phase("step"), torch.no_grad():
            for p, opt in zip(self.params, self.opts, strict=True):
                assert p.grad is not None
                opt.step(p.grad.float().div_(self.world))
                p.copy_(opt.master)
        self.bucket.zero_()  # keep the buffer: gradients are persistent in DDP

    def state_tensors(self) -> dict[str, list[torch.Tensor]]:
        grads = [p.grad for p in self.params if p.grad is not None]  # views of the bucket
        return {"params": list(self.params), "grads": grads,
                "optim": [t for o in self.opts for t in o.tensors()]}

    def full_master(self) -> list[torch.Tensor]:
        return [o.master.clone() for o in self.opts]
