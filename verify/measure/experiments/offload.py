"""A ZeRO-Offload step run for real on this CPU, with "GPU" and "CPU" as two separate memory pools.

    python -c "from verify.measure.experiments.offload import offload_step; print(offload_step())"

Following Ren et al. (2021) §3: the device pool keeps the 16-bit parameters and computes forward and
backward; each 16-bit gradient is copied to a host buffer and freed on the device; the host runs Adam
on fp32 master weights, m and v, casts the result to 16 bits into the gradient buffer it has just
consumed and copies it back. A dispatch mode records every copy between the pools, so the bytes that
would cross PCIe are counted, not assumed.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

from verify.measure.meters.memory import storage_bytes


class _CrossPoolCopies(TorchDispatchMode):
    """Bytes written by ``copy_`` from one pool into the other (destination bytes)."""

    def __init__(self, device_ptrs: set[int], host_ptrs: set[int]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.device_ptrs, self.host_ptrs = device_ptrs, host_ptrs
        self.down = self.up = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        if func is torch.ops.aten.copy_.default:
            dst, src = args[0], args[1]
            d, s = dst.untyped_storage().data_ptr(), src.untyped_storage().data_ptr()
            nbytes = dst.numel() * dst.element_size()
            if s in self.device_ptrs and d in self.host_ptrs:
                self.down += nbytes
            elif s in self.host_ptrs and d in self.device_ptrs:
                self.up += nbytes
        return func(*args, **(kwargs or {}))


def _ptrs(tensors: list[torch.Tensor]) -> set[int]:
    return {t.untyped_storage().data_ptr() for t in tensors}


def offload_step(width: int = 256, layers: int = 4, lr: float = 1e-3) -> dict[str, Any]:
    """One offloaded mixed-precision Adam step; bytes per pool afterwards and bytes copied each way."""
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(width, width) for _ in range(layers)]).to(torch.bfloat16)  # "GPU"
    params = list(model.parameters())
    host_grad = [torch.empty_like(p) for p in params]  # "CPU": 16-bit gradient buffers
    master = [p.detach().float().clone() for p in params]  # "CPU": fp32 master, m, v
    opt = torch.optim.Adam(master, lr=lr, foreach=False)

    model(torch.randn(8, width, dtype=torch.bfloat16)).float().square().mean().backward()
    grads = [p.grad for p in params if p.grad is not None]
    meter = _CrossPoolCopies(_ptrs([*params, *grads]), _ptrs(host_grad))
    with meter:
        for p, buf in zip(params, host_grad, strict=True):
            if p.grad is not None:
                buf.copy_(p.grad)  # device → host
            p.grad = None  # the device frees its gradient
    for m, buf in zip(master, host_grad, strict=True):
        m.grad = buf.float()
    opt.step()  # CPU Adam
    for m, buf in zip(master, host_grad, strict=True):
        m.grad = None
        buf.copy_(m.detach())  # fp32 → 16 bits on the host, reusing the consumed gradient buffer
    with meter:
        for p, buf in zip(params, host_grad, strict=True):
            p.data.copy_(buf)  # host → device
    state = [t for s in opt.state.values() for k, t in s.items() if k != "step"]
    psi = sum(p.numel() for p in params)
    return {
        "psi": psi,
        "device_bytes": storage_bytes([*params, *(p.grad for p in params)]),
        "host_bytes": {
            "grads": storage_bytes(host_grad),
            "master": storage_bytes(master),
            "adam_m_v": storage_bytes(state),
        },
        "copied_down": meter.down,
        "copied_up": meter.up,
        "device_matches_master": all(
            torch.equal(p.detach(), m.detach().to(p.dtype)) for p, m in zip(params, master, strict=True)
        ),
    }
