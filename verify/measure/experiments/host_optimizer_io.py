"""What the host optimizer of ZeRO-Offload / ZeRO-Infinity reads and writes per step, counted on a real step.

    python -c "from verify.measure.experiments.host_optimizer_io import cpu_adam_traffic as c; print(c())"
    python -c "from verify.measure.experiments.host_optimizer_io import nvme_swap_bytes as n; print(n())"

``cpu_adam_traffic``: the host keeps a 16-bit gradient buffer, fp32 master weights and ``torch.optim.Adam``'s
moments between steps. One steady-state host step (the gradient cast up, Adam, the result cast to 16 bits into
the consumed gradient buffer) runs under a dispatch mode that records which of those kept storages an op reads
and which it writes; each is counted once per direction, as a fused CPU Adam kernel (DeepSpeed's) touches it
once and keeps its temporaries in registers. Scalar step counters are per tensor, not per parameter, and left
out. Nothing of "master, m, v read and written + gradient + parameter" is in the count: it is whatever the
step touched.

``nvme_swap_bytes``: ZeRO-Infinity keeps the optimizer state (fp32 master, m, v) on NVMe. Each step the
swapper reads it into memory with ``torch.load`` from a file, Adam steps, and ``torch.save`` writes it back; the
bytes read and written are the tensor records of those files (the zip's ``data/`` entries), step counters
again left out.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from functools import cache
from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

# ops whose first argument is written without being read
_WRITE_ONLY = frozenset({torch.ops.aten.copy_.default, torch.ops.aten.zero_.default, torch.ops.aten.fill_.Scalar})


class _KeptStorageTraffic(TorchDispatchMode):
    """Of the given storages (data pointer → bytes), those some op reads and those some op writes."""

    def __init__(self, kept: dict[int, int]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.kept = kept
        self.read: set[int] = set()
        self.written: set[int] = set()

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        schema = func._schema.arguments
        for i, arg in enumerate(args):
            if not isinstance(arg, torch.Tensor):
                continue
            ptr = arg.untyped_storage().data_ptr()
            if ptr not in self.kept:
                continue
            info = schema[i].alias_info if i < len(schema) else None
            if info is not None and info.is_write:
                self.written.add(ptr)
            if not (i == 0 and func in _WRITE_ONLY):
                self.read.add(ptr)
        for arg in kwargs.values():  # out= tensors are written only
            if isinstance(arg, torch.Tensor) and arg.untyped_storage().data_ptr() in self.kept:
                self.written.add(arg.untyped_storage().data_ptr())
        return func(*args, **kwargs)

    def bytes(self, ptrs: set[int]) -> int:
        return sum(self.kept[p] for p in ptrs)


def _host_state(width: int, layers: int) -> tuple[list[torch.Tensor], list[nn.Parameter]]:
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(width, width) for _ in range(layers)]).to(torch.bfloat16)
    host_grad = [torch.randn_like(p) for p in model.parameters()]  # 16-bit gradients, arrived over PCIe
    master = [nn.Parameter(p.detach().float().clone()) for p in model.parameters()]
    return host_grad, master


def _per_param_state(opt: torch.optim.Optimizer) -> list[torch.Tensor]:
    return [t for s in opt.state.values() for t in s.values() if isinstance(t, torch.Tensor) and t.dim() > 0]


def _host_step(opt: torch.optim.Optimizer, master: list[nn.Parameter], host_grad: list[torch.Tensor]) -> None:
    for m, buf in zip(master, host_grad, strict=True):
        m.grad = buf.float()
    opt.step()
    for m, buf in zip(master, host_grad, strict=True):
        m.grad = None
        buf.copy_(m.detach())  # the updated 16-bit parameter, into the consumed gradient buffer


@cache
def cpu_adam_traffic(width: int = 128, layers: int = 2) -> dict[str, Any]:
    """{"psi", "read", "written"}: bytes of the host's kept tensors one Adam step reads and writes."""
    host_grad, master = _host_state(width, layers)
    opt = torch.optim.Adam(master, lr=1e-3, foreach=False)
    _host_step(opt, master, host_grad)  # the moments exist from the first step on: meter a steady-state one
    kept = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
            for t in (*host_grad, *master, *_per_param_state(opt))}
    meter = _KeptStorageTraffic(kept)
    with meter:
        _host_step(opt, master, host_grad)
    return {"psi": sum(m.numel() for m in master), "read": meter.bytes(meter.read),
            "written": meter.bytes(meter.written)}


def _tensor_bytes(path: str) -> int:
    """The bytes of the tensor records of a ``torch.save`` file (its zip's ``data/`` entries; pickle and
    byte-order records left out)."""
    with zipfile.ZipFile(path) as archive:
        return sum(i.file_size for i in archive.infolist() if "/data/" in i.filename)


def _swapped_state(opt: torch.optim.Optimizer, master: list[nn.Parameter]) -> dict[str, Any]:
    return {"master": [m.detach() for m in master], "state": [
        {k: v for k, v in s.items() if isinstance(v, torch.Tensor) and v.dim() > 0} for s in opt.state.values()]}


@cache
def nvme_swap_bytes(width: int = 128, layers: int = 2) -> dict[str, Any]:
    """{"psi", "read", "written"}: tensor bytes the swapper loads from and saves to its file in one step."""
    host_grad, master = _host_state(width, layers)
    opt = torch.optim.Adam(master, lr=1e-3, foreach=False)
    _host_step(opt, master, host_grad)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "optimizer_state.pt")
        torch.save(_swapped_state(opt, master), path)  # on "NVMe" between steps
        loaded = torch.load(path, weights_only=True)  # swap in
        read = _tensor_bytes(path)
        with torch.no_grad():
            for m, kept in zip(master, loaded["master"], strict=True):
                m.copy_(kept)
        for s, kept in zip(opt.state.values(), loaded["state"], strict=True):
            s.update(kept)
        _host_step(opt, master, host_grad)
        swapped = _swapped_state(opt, master)
        torch.save(swapped, path)  # swap out
        written = _tensor_bytes(path)
    return {"psi": sum(m.numel() for m in master), "read": read, "written": written}
