"""A tiny MLP on flat per-layer buffers, deterministic data, and its layer math with a manual backward.

    python -c "from verify.measure.model import layer_dims; print(layer_dims(1_000_000))"

Every stage (and the single-process reference) runs the same ``LinearFn``, so their local gradients are
identical and only the collectives differ. Parameters of layer l live in one flat buffer: the weight
(out × in, row-major) then the bias (out), then zero padding up to a multiple of N in the ZeRO stages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

D_IN, D_OUT, HIDDEN_LAYERS = 32, 10, 8


@dataclass(frozen=True)
class LayerSpec:
    d_in: int
    d_out: int
    last: bool

    @property
    def numel(self) -> int:  # elements of weight + bias, unpadded
        return self.d_out * self.d_in + self.d_out


def layer_dims(params: int) -> list[int]:
    """Widths [32, h × 9, 10] (8 hidden h×h layers), ~``params`` parameters; h ≡ 1 (mod 4) so buffers pad.

    Layer 0 has 33·h elements (odd), the hidden layers h(h+1) (2 mod 4): Ψ is not a multiple of 2 or 4.
    """
    h = 5
    while _count([D_IN] + [h + 4] * (HIDDEN_LAYERS + 1) + [D_OUT]) <= params:
        h += 4
    return [D_IN] + [h] * (HIDDEN_LAYERS + 1) + [D_OUT]


def _count(dims: list[int]) -> int:
    return sum(s.numel for s in layer_specs(dims))


def layer_specs(dims: list[int]) -> list[LayerSpec]:
    return [LayerSpec(dims[i], dims[i + 1], i == len(dims) - 2) for i in range(len(dims) - 1)]


def init_layers(dims: list[int], seed: int = 0) -> list[torch.Tensor]:
    """Unpadded fp32 flat buffers, one per layer (deterministic: same on every rank)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for s in layer_specs(dims):
        w = torch.randn(s.d_out, s.d_in, generator=g) / s.d_in ** 0.5
        b = torch.zeros(s.d_out)
        out.append(torch.cat([w.flatten(), b]))  # 1D, numel elements
    return out


def global_batch(step: int, dims: list[int], batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The full batch of step ``step``: rank r takes rows [r·B/N, (r+1)·B/N)."""
    g = torch.Generator().manual_seed(1000 + step)
    x = torch.randn(batch, dims[0], generator=g)
    y = torch.randn(batch, dims[-1], generator=g)
    return x, y


def local_batch(step: int, dims: list[int], batch_per_rank: int, rank: int, world: int
                ) -> tuple[torch.Tensor, torch.Tensor]:
    x, y = global_batch(step, dims, batch_per_rank * world)
    rows = slice(rank * batch_per_rank, (rank + 1) * batch_per_rank)
    return x[rows], y[rows]


def _views(flat: torch.Tensor, s: LayerSpec) -> tuple[torch.Tensor, torch.Tensor]:
    w = flat[: s.d_out * s.d_in].view(s.d_out, s.d_in)
    b = flat[s.d_out * s.d_in: s.numel]
    return w, b


def linear_forward(flat: torch.Tensor, x: torch.Tensor, s: LayerSpec) -> torch.Tensor:
    w, b = _views(flat, s)
    y = torch.nn.functional.linear(x, w, b)
    return y if s.last else torch.relu(y)


def linear_backward(flat: torch.Tensor, x: torch.Tensor, y: torch.Tensor, gy: torch.Tensor, s: LayerSpec,
                    need_gx: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Gradient of the unsharded parameter (same shape as ``flat``, zero padding) and of the input."""
    w, _ = _views(flat, s)
    gpre = gy if s.last else gy * (y > 0)
    gflat = torch.zeros_like(flat)  # 1D, padded like flat
    gw, gb = _views(gflat, s)
    torch.mm(gpre.t(), x, out=gw)
    torch.sum(gpre, 0, out=gb)
    return gflat, (gpre @ w if need_gx else None)


class LinearFn(torch.autograd.Function):
    """y = relu(x Wᵀ + b) (no relu on the last layer) on an unsharded flat parameter."""

    @staticmethod
    def forward(ctx: Any, flat: torch.Tensor, x: torch.Tensor, spec: LayerSpec) -> torch.Tensor:
        y = linear_forward(flat, x, spec)
        ctx.save_for_backward(flat, x, y)
        ctx.spec = spec
        return y

    @staticmethod
    def backward(ctx: Any, gy: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        flat, x, y = ctx.saved_tensors
        gflat, gx = linear_backward(flat, x, y, gy, ctx.spec, ctx.needs_input_grad[1])
        return gflat, gx, None


def mse(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return (out.float() - y).pow(2).mean()


class MLP(torch.nn.Module):
    """The same network as ``torch.nn`` layers, for PyTorch's own DDP / ZeroRedundancyOptimizer / FSDP2."""

    def __init__(self, dims: list[int], seed: int = 0) -> None:
        super().__init__()
        layers: list[torch.nn.Module] = []
        for s, flat in zip(layer_specs(dims), init_layers(dims, seed), strict=True):
            lin = torch.nn.Linear(s.d_in, s.d_out)
            with torch.no_grad():
                w, b = _views(flat, s)
                lin.weight.copy_(w)
                lin.bias.copy_(b)
            layers.append(lin)
        self.layers = torch.nn.ModuleList(layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, lin in enumerate(self.layers):
            x = lin(x)
            if i < len(self.layers) - 1:
                x = torch.relu(x)
        return x
