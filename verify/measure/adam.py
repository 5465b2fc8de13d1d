"""Adam on flat fp32 buffers (master weights, m, v), and the single-process reference every stage must match.

    python -c "from verify.measure.adam import single_process_reference as r; print(r([32, 9, 10], steps=2)[0][:3])"

PyTorch's Adam on bf16 parameters keeps bf16 m and v on CPU (small updates vanish), so the stages keep
explicit fp32 master weights and fp32 m, v: K = 12 bytes of optimizer state per parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from verify.measure.model import LinearFn, init_layers, layer_specs, local_batch, mse


@dataclass(frozen=True)
class AdamConfig:
    lr: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8


class FlatAdam:
    """Adam over one fp32 master buffer (a whole layer or an optimizer-state shard)."""

    def __init__(self, master: torch.Tensor, cfg: AdamConfig = AdamConfig()) -> None:
        self.master = master  # fp32, 1D
        self.m = torch.zeros_like(master)  # fp32, 1D
        self.v = torch.zeros_like(master)  # fp32, 1D
        self.cfg = cfg
        self.step_count = 0  # python int: no tensor, K stays 12

    def step(self, grad: torch.Tensor) -> None:
        """One Adam update from a gradient of the same length (any float dtype; used in fp32)."""
        c = self.cfg
        self.step_count += 1
        g = grad.float()
        self.m.mul_(c.beta1).add_(g, alpha=1 - c.beta1)
        self.v.mul_(c.beta2).addcmul_(g, g, value=1 - c.beta2)
        bc1 = 1 - c.beta1 ** self.step_count
        bc2 = 1 - c.beta2 ** self.step_count
        denom = (self.v / bc2).sqrt_().add_(c.eps)
        self.master.addcdiv_(self.m, denom, value=-c.lr / bc1)

    def tensors(self) -> list[torch.Tensor]:
        return [self.master, self.m, self.v]


def single_process_reference(dims: list[int], *, steps: int, world: int = 2, batch_per_rank: int = 8,
                             dtype: torch.dtype = torch.float32, seed: int = 0) -> list[torch.Tensor]:
    """Plain Adam on one process over the full batch (all ranks' rows); returns fp32 master per layer."""
    specs = layer_specs(dims)
    masters = init_layers(dims, seed)
    opts = [FlatAdam(m) for m in masters]
    for step in range(steps):
        params = [m.detach().to(dtype, copy=True).requires_grad_() for m in masters]
        xs, ys = zip(*(local_batch(step, dims, batch_per_rank, r, world) for r in range(world)), strict=True)
        h = torch.cat(xs).to(dtype)
        for p, s in zip(params, specs, strict=True):
            h = LinearFn.apply(p, h, s)  # type: ignore[no-untyped-call]
        mse(h, torch.cat(ys)).backward()
        for p, opt in zip(params, opts, strict=True):
            assert p.grad is not None
            opt.step(p.grad)
    return masters
