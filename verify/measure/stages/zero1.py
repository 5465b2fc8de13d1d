"""ZeRO-1 (P_os): shard the optimizer states; parameters and gradients stay unsharded on every rank.

    python -m verify --world-sizes 2,4

Per rank: 2Ψ_pad (bf16 unsharded parameters) + 2Ψ_pad (unsharded gradients) + 12Ψ_pad/N (optimizer-state
shard: fp32 master, m, v). Communication in the step: reduce-scatter each layer's gradient (payload Ψ_pad)
so rank r holds its reduced gradient shard, Adam on the optimizer-state shard, then all-gather the updated
sharded parameters back into the unsharded buffer (payload Ψ_pad). Ideal ring: (N−1)/N·Ψ + (N−1)/N·Ψ, the
same as DDP's all-reduce.
"""

from __future__ import annotations

import torch

from verify.measure.adam import FlatAdam
from verify.measure.meters.comm import phase
from verify.measure.stages.base import RefStage, StageConfig


class Zero1Stage(RefStage):
    name = "zero1"

    def __init__(self, cfg: StageConfig) -> None:
        super().__init__(cfg)
        masters = self.init_padded()
        # optimizer-state shard: this rank's slice of master, plus m and v of the same length
        self.opts = [FlatAdam(self.shard_of(m, i).clone(), cfg.adam) for i, m in enumerate(masters)]
        self.params = [m.to(cfg.dtype).requires_grad_() for m in masters]  # unsharded, padded

    def optimizer_step(self) -> None:
        with phase("step"), torch.no_grad():
            for i, (p, opt) in enumerate(zip(self.params, self.opts, strict=True)):
                grad = p.grad  # unsharded, padded
                assert grad is not None
                grad_shard = torch.empty(self.shard_len[i], dtype=grad.dtype, device=grad.device)
                self.coll.reduce_scatter(grad_shard, grad)  # sum over ranks of this rank's slice
                opt.step(grad_shard.float().div_(self.world))
                self.coll.all_gather(p.detach(), opt.master.to(self.cfg.dtype))
                grad.zero_()

    def state_tensors(self) -> dict[str, list[torch.Tensor]]:
        return {"params": list(self.params), "grads": [p.grad for p in self.params if p.grad is not None],
                "optim": [t for o in self.opts for t in o.tensors()]}

    def full_master(self) -> list[torch.Tensor]:
        return self.gather_shards([o.master for o in self.opts])
