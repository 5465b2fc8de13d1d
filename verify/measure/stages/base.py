"""What every reference stage shares: configuration, padding to a multiple of N, batches, the master gather.

    python -m verify --world-sizes 2,4

Run inside an initialised process group (``verify.measure.launch``). Vocabulary in ``verify/__init__.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

from verify.measure.adam import AdamConfig
from verify.measure.meters.comm import phase
from verify.measure.model import LinearFn, init_layers, layer_specs, local_batch, mse
from verify.measure.stages.collectives import Collectives, collectives_for


@dataclass(frozen=True)
class StageConfig:
    dims: list[int]
    dtype: torch.dtype = torch.bfloat16  # parameters and gradients
    batch_per_rank: int = 8
    seed: int = 0
    adam: AdamConfig = field(default_factory=AdamConfig)
    device: str = "cpu"
    collectives: str = "native"  # "native": the backend's; "ring": send/recv ring (verify.measure.stages.collectives)


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
        self.coll: Collectives = collectives_for(cfg.collectives)
        self.params: list[torch.Tensor] = []  # one flat buffer per layer: unsharded, or sharded (ZeRO-3)
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
        self.forward_backward()
        self.optimizer_step()
        self.step_index += 1

    def forward_backward(self) -> None:
        """Forward and backward on unsharded parameters ``self.params`` (DDP, ZeRO-1, ZeRO-2); gradient
        hooks registered by the stage run the collectives that belong in backward. ZeRO-3 overrides this."""
        x, y = self.batch()
        with phase("forward"):
            h = x
            for p, s in zip(self.params, self.specs, strict=True):
                h = LinearFn.apply(p, h, s)  # type: ignore[no-untyped-call]
            loss = self.loss(h, y)
        with phase("backward"):
            loss.backward()

    def optimizer_step(self) -> None:
        """The step phase: remaining gradient collectives, Adam, parameter all-gather."""
        raise NotImplementedError

    def state_tensors(self) -> dict[str, list[torch.Tensor]]:
        raise NotImplementedError

    def full_master(self) -> list[torch.Tensor]:
        raise NotImplementedError


def wait_until_released(t: torch.Tensor, timeout_s: float = 1.0) -> None:
    """Spin until the backend has dropped its references to ``t`` (Gloo only).

    Gloo's worker thread keeps a finished collective (its tensors and its full-size temporary) alive a
    moment after ``wait()`` returns, until the thread next runs. On an oversubscribed CPU that is several
    layers later, which would make "freed right after" untrue and the peak depend on scheduling. A fresh
    tensor held once by us shows a storage use count of 2 (ours + the probe's storage object).
    """
    if dist.get_backend() != "gloo":
        return
    import time

    deadline = time.monotonic() + timeout_s
    cdata = t.untyped_storage()._cdata
    while torch._C._storage_Use_Count(cdata) > 2 and time.monotonic() < deadline:
        time.sleep(5e-5)  # block (not spin) so the worker thread gets the core
