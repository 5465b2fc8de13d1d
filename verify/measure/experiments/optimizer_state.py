"""Optimizer state bytes per parameter, measured after one real step of PyTorch's optimizers.

    python -c "from verify.measure.experiments.optimizer_state import state_bytes; print(state_bytes(64))"

One fp32 h × h weight (no bias); the state's distinct storages after ``step()``, with the per-tensor
``step`` counters reported apart (a scalar per parameter tensor, not per parameter).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import torch

from verify.measure.meters.memory import storage_bytes

OPTIMIZERS = {
    "sgd_momentum": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
    "adam": lambda ps: torch.optim.Adam(ps),
    "adamw": lambda ps: torch.optim.AdamW(ps),
    "adafactor": lambda ps: torch.optim.Adafactor(ps),
}


@cache
def state_bytes(h: int) -> dict[str, dict[str, Any]]:
    out = {}
    for name, make in OPTIMIZERS.items():
        torch.manual_seed(0)
        w = torch.nn.Parameter(torch.randn(h, h))
        opt = make([w])  # type: ignore[no-untyped-call]
        (w**2).sum().backward()
        opt.step()
        state = [t for s in opt.state.values() for key, t in s.items() if key != "step" and torch.is_tensor(t)]
        steps = [t for s in opt.state.values() for key, t in s.items() if key == "step" and torch.is_tensor(t)]
        out[name] = {"state": storage_bytes(state, set()), "step_counters": storage_bytes(steps, set()),
                     "params": w.numel()}
    return out
