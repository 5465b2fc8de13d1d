"""Training FLOPs counted on a model that is only weight matmuls: the case the 6ΨD rule of thumb describes.

    python -c "from verify.measure.experiments.matmul_flops import train_flops; print(train_flops())"

A stack of bias-free ``nn.Linear`` layers (no attention, no embedding lookup: what 6ΨD leaves out) runs forward
and backward on D tokens under ``FlopCounterMode``; the input needs its gradient, as a transformer's embedding
output does. With full recomputation the stack is checkpointed (early stop off: the whole forward runs again).
The counts are what torch ran; no 6 or 8 is in them.
"""

from __future__ import annotations

from functools import cache

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, set_checkpoint_early_stop
from torch.utils.flop_counter import FlopCounterMode

MATMUL_WIDTH, MATMUL_LAYERS, MATMUL_TOKENS = 32, 3, 24


def _counted(step: object) -> int:
    with FlopCounterMode(display=False) as counter:
        step()  # type: ignore[operator]
    return int(counter.get_total_flops())


@cache
def train_flops(width: int = MATMUL_WIDTH, layers: int = MATMUL_LAYERS, tokens: int = MATMUL_TOKENS) -> dict[str, int]:
    """{"params": Ψ, "tokens": D, "none": FLOPs of forward + backward, "full": the same with full recomputation}."""
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(width, width, bias=False) for _ in range(layers)])
    x = torch.randn(tokens, width, requires_grad=True)
    out = {"params": sum(p.numel() for p in model.parameters()), "tokens": tokens,
           "none": _counted(lambda: model(x).sum().backward())}
    with set_checkpoint_early_stop(False):
        out["full"] = _counted(lambda: checkpoint(model, x, use_reentrant=False).sum().backward())
    return out
