"""PyTorch's own implementations of the same stages, run on the same MLP and data for the cross-check.

    python -m verify --world-sizes 2,4       # runs these next to the reference stages

- ``torch-ddp``: ``DistributedDataParallel(gradient_as_bucket_view=True)`` (stage ddp)
- ``torch-ddp-default``: ``DistributedDataParallel()`` with PyTorch's default ``gradient_as_bucket_view=False``:
  each ``.grad`` is its own tensor and the reducer keeps a separate bucket it copies gradients into
- ``torch-zero-redundancy``: DDP + ``ZeroRedundancyOptimizer(Adam)`` (stage zero1)
- ``torch-fsdp2-no-reshard``: ``fully_shard(reshard_after_forward=False)`` per layer (stage zero2)
- ``torch-fsdp2-reshard``: ``fully_shard(reshard_after_forward=True)`` per layer (stage zero3)

The usual PyTorch mixed-precision recipe: fp32 parameters (they are the master weights), bf16 compute
(autocast for DDP; ``MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=bf16)`` for FSDP2), fp32 Adam
m and v plus one 4-byte ``step`` tensor per parameter tensor. So the memory splits differently from the
paper's 2 + 2 + 12 (parameters 4, gradients 4, optimizer 8 + step), DDP all-reduces fp32 gradients, and
ZeroRedundancyOptimizer keeps DDP's all-reduce then broadcasts each parameter from its owner.
"""

from __future__ import annotations

import warnings

import torch
import torch.distributed as dist

with warnings.catch_warnings():
    # torch.distributed.optim's functional optimizers still use torch.jit.script / torch.jit.interface,
    # deprecated in torch 2.13; the warning is about PyTorch's code, not ours.
    warnings.filterwarnings("ignore", message=r".*torch\.jit\.\w+.* is deprecated",
                            category=DeprecationWarning)
    from torch.distributed.optim import ZeroRedundancyOptimizer

from verify.measure.meters.comm import phase
from verify.measure.model import MLP, local_batch, mse
from verify.measure.stages.base import StageConfig

TORCH_IMPLS = {  # impl name -> stage it implements
    "torch-ddp": "ddp",
    "torch-ddp-default": "ddp",
    "torch-zero-redundancy": "zero1",
    "torch-fsdp2-no-reshard": "zero2",
    "torch-fsdp2-reshard": "zero3",
}


class TorchImpl:
    """One PyTorch implementation behind the reference stages' interface."""

    def __init__(self, impl: str, cfg: StageConfig) -> None:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
        from torch.nn.parallel import DistributedDataParallel

        self.impl, self.name, self.cfg = impl, TORCH_IMPLS[impl], cfg
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.step_index = 0
        model = MLP(cfg.dims, cfg.seed).to(cfg.device)
        lr = cfg.adam.lr
        self.autocast = impl in ("torch-ddp", "torch-ddp-default", "torch-zero-redundancy")
        self.module: torch.nn.Module
        self.optim: torch.optim.Optimizer
        if self.autocast:
            if impl == "torch-ddp-default":
                self.module = DistributedDataParallel(model)  # PyTorch's default: a bucket copy of the grads
            else:
                self.module = DistributedDataParallel(model, gradient_as_bucket_view=True)
            if impl in ("torch-ddp", "torch-ddp-default"):
                self.optim = torch.optim.Adam(self.module.parameters(), lr=lr)
            else:
                self.optim = ZeroRedundancyOptimizer(self.module.parameters(),
                                                     optimizer_class=torch.optim.Adam, lr=lr)
        else:
            policy = MixedPrecisionPolicy(param_dtype=cfg.dtype, reduce_dtype=cfg.dtype)
            reshard = impl == "torch-fsdp2-reshard"
            for layer in model.layers:
                fully_shard(layer, mp_policy=policy, reshard_after_forward=reshard)
            fully_shard(model, mp_policy=policy, reshard_after_forward=reshard)
            self.module = model
            self.optim = torch.optim.Adam(model.parameters(), lr=lr)

    def train_step(self) -> None:
        self.forward_backward()
        self.optimizer_step()
        self.step_index += 1

    def forward_backward(self) -> None:
        x, y = local_batch(self.step_index, self.cfg.dims, self.cfg.batch_per_rank, self.rank, self.world)
        x, y = x.to(self.cfg.device), y.to(self.cfg.device)
        device_type = torch.device(self.cfg.device).type
        with phase("forward"), torch.autocast(device_type, dtype=self.cfg.dtype, enabled=self.autocast):
            loss = mse(self.module(x), y)
        with phase("backward"):
            loss.backward()

    def optimizer_step(self) -> None:
        with phase("step"):
            self.optim.step()
            self.optim.zero_grad(set_to_none=False)  # keep gradient buffers: they are persistent

    def _local_optim(self) -> torch.optim.Optimizer:
        return getattr(self.optim, "optim", self.optim)  # ZeroRedundancyOptimizer wraps a local Adam

    def state_tensors(self) -> dict[str, list[torch.Tensor]]:
        params: list[torch.Tensor] = list(self.module.parameters())
        optim = [t for st in self._local_optim().state.values() for t in st.values()
                 if isinstance(t, torch.Tensor)]
        return {"params": params, "grads": [p.grad for p in params if p.grad is not None], "optim": optim}

    def param_numel_local(self) -> int:
        """Elements this rank keeps optimizer state for (uneven for ZeroRedundancyOptimizer)."""
        return sum(p.numel() for g in self._local_optim().param_groups for p in g["params"])
