"""Megatron-LM's mixed-precision training state, counted on a real step run the way Megatron runs it.

    python -c "from verify.measure.experiments.megatron_optimizer import megatron_state as m; print(m('bf16'))"

As in Megatron-LM core (``DistributedDataParallel`` and ``Float16OptimizerWithFloat16Params``): the model's
parameters are 16-bit; each has a ``main_grad`` view into one contiguous gradient buffer, fp32 when gradients are
accumulated in fp32 (the bf16 recipe) and the parameters' dtype otherwise (fp16); a backward hook adds each
gradient into its ``main_grad`` and drops ``.grad``. The optimizer keeps fp32 main parameters and gives each
``main_param.grad = model_param.main_grad.float()`` (the same tensor when the buffer is fp32, a new fp32 copy
when it is fp16), then Adam steps. The distinct storages alive at the step are counted, over the parameters.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import torch
from torch import nn

from verify.measure.meters.memory import storage_bytes

_DTYPES = {"bf16": (torch.bfloat16, torch.float32), "fp16": (torch.float16, torch.float16)}  # (param, grad buffer)


@cache
def megatron_state(recipe: str, width: int = 128, layers: int = 2) -> dict[str, Any]:
    """{"psi", "bytes": {param, grad, master, adam_m_v}} at the optimizer step of the ``recipe`` (bf16 / fp16)."""
    param_dtype, grad_dtype = _DTYPES[recipe]
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(width, width) for _ in range(layers)]).to(param_dtype)
    params = list(model.parameters())
    buffer = torch.zeros(sum(p.numel() for p in params), dtype=grad_dtype)
    offset = 0
    for p in params:
        p.main_grad = buffer[offset:offset + p.numel()].view_as(p)  # type: ignore[attr-defined]
        offset += p.numel()

        def accumulate(grad: torch.Tensor, p: nn.Parameter = p) -> torch.Tensor:
            p.main_grad.add_(grad)  # type: ignore[attr-defined]
            return torch.zeros_like(grad)  # Megatron drops .grad once it is in main_grad
        p.register_hook(accumulate)
    main = [p.detach().float().clone().requires_grad_() for p in params]
    opt = torch.optim.Adam(main, lr=1e-3, foreach=False)
    model(torch.randn(8, width, dtype=param_dtype)).float().square().mean().backward()
    for p in params:
        p.grad = None
    for m, p in zip(main, params, strict=True):
        m.grad = p.main_grad.float()  # type: ignore[attr-defined]
    opt.step()
    seen: set[int] = set()
    state = [t for s in opt.state.values() for k, t in s.items() if k != "step"]
    counted = {"param": storage_bytes(params, seen),
               "grad": storage_bytes([buffer, *(m.grad for m in main)], seen),
               "master": storage_bytes(main, seen), "adam_m_v": storage_bytes(state, seen)}
    return {"psi": sum(p.numel() for p in params), "bytes": counted}
