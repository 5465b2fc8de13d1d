"""What every reference stage shares: configuration, padding to a multiple of N, batches, the master gather.

    python -m verify --world-sizes 2,4

Run inside an initialised process group (``verify.launch``). Vocabulary in ``verify/__init__.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

from verify.adam import AdamConfig
from verify.model import init_layers, layer_specs, local_batch, mse


@dataclass(frozen=True)
class StageConfig:
    dims: list[int]
    dtype: torch.dtype = torch.bfloat16  # parameters and gradients
    batch_per_rank: int = 8
    seed: int = 0
    adam: AdamConfig = field(default_factory=AdamConfig)
    device: str = "cpu"


class RefStage:
    """Base of the four reference stages."""

    name = "base"
    pad_to_world = True  # ZeRO stages round every flat buffer up to a multiple of N

    def __init__(self, cfg: StageConfig) -> None:
        self.cfg = cfg
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()
        self.specs = layer_specs(cfg.dims)
        self.step_index = 0
        n = self.world if self.pad_to_world else 1
        self.padded = [math.ceil(s.numel / n) * n for s in self.specs]  # elements per flat buffer
        self.shard_len = [p // self.world for p in self.padded]  # elements per shard

    # ------------------------------------------------------------ helpers
    def init_padded(self) -> list[torch.Tensor]:
        """fp32 unsharded flat buffers with zero padding (identical on every rank)."""
        out = []
        for flat, size in zip(init_layers(self.cfg.dims, self.cfg.seed), self.padded, strict=True):
            out.append(torch.nn.functional.pad(flat, (0, size - flat.numel())).to(self.cfg.device))
        return out

    def shard_of(self, full: torch.Tensor, layer: int) -> torch.Tensor:
        """This rank's slice of a padded unsharded buffer (a view)."""
        n = self.shard_len[layer]
        return full[self.rank * n: (self.rank + 1) * n]

    def batch(self) -> tuple[torch.Tensor, torch.Tensor]:
        x, y = local_batch(self.step_index, self.cfg.dims, self.cfg.batch_per_rank, self.rank, self.world)
        return x.to(self.cfg.device, self.cfg.dtype), y.to(self.cfg.device)

    def loss(self, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return mse(out, y)

    def gather_shards(self, shards: list[torch.Tensor]) -> list[torch.Tensor]:
        """All-gather fp32 shards into unpadded per-layer tensors (outside the measured step)."""
        out = []
        for layer, sh in enumerate(shards):
            full = torch.empty(self.padded[layer], dtype=sh.dtype, device=sh.device)
            dist.all_gather_single(full, sh.contiguous())
            out.append(full[: self.specs[layer].numel].clone())
        return out

    # ------------------------------------------------------------ interface
    def train_step(self) -> None:
        raise NotImplementedError

    def state_tensors(self) -> dict[str, list[torch.Tensor]]:
        raise NotImplementedError

    def full_master(self) -> list[torch.Tensor]:
        raise NotImplementedError
