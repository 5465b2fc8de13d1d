"""ZeRO-2 (P_os+g): shard optimizer states and gradients; parameters stay unsharded.

    python -m verify --world-sizes 2,4

Per rank: 2Ψ_pad (bf16 unsharded parameters) + 2Ψ_pad/N (gradient shards) + 12Ψ_pad/N (optimizer-state
shard). In backward, as soon as a layer's unsharded gradient exists it is reduce-scattered into the
layer's gradient shard and freed (a transient of one layer). The step runs Adam on the shard and
all-gathers the updated parameters. Communication: reduce-scatter Ψ_pad + all-gather Ψ_pad, as ZeRO-1.
"""

from __future__ import annotations

import torch

from verify.measure.adam import FlatAdam
from verify.measure.meters.comm import phase
from verify.measure.stages.base import RefStage, StageConfig


class Zero2Stage(RefStage):
    name = "zero2"

    def __init__(self, cfg: StageConfig) -> None:
        super().__init__(cfg)
        masters = self.init_padded()
        self.opts = [FlatAdam(self.shard_of(m, i).clone(), cfg.adam) for i, m in enumerate(masters)]
        self.params = [m.to(cfg.dtype).requires_grad_() for m in masters]  # unsharded, padded
        self.grad_shards = [torch.zeros(n, dtype=cfg.dtype, device=cfg.device) for n in self.shard_len]
        for i, p in enumerate(self.params):
            p.register_post_accumulate_grad_hook(lambda p, i=i: self._reduce_scatter(p, i))

    def _reduce_scatter(self, p: torch.Tensor, layer: int) -> None:
        assert p.grad is not None
        self.coll.reduce_scatter(self.grad_shards[layer], p.grad)
        p.grad = None  # free the unsharded gradient right away

    def optimizer_step(self) -> None:
        with phase("step"), torch.no_grad():
            for p, opt, g in zip(self.params, self.opts, self.grad_shards, strict=True):
                opt.step(g.float().div_(self.world))
                self.coll.all_gather(p.detach(), opt.master.to(self.cfg.dtype))
                g.zero_()

    def state_tensors(self) -> dict[str, list[torch.Tensor]]:
        return {"params": list(self.params), "grads": list(self.grad_shards),
                "optim": [t for o in self.opts for t in o.tensors()]}

    def full_master(self) -> list[torch.Tensor]:
        return self.gather_shards([o.master for o in self.opts])
