"""Count every collective's payload bytes by kind and phase, including those issued from C++.

    python -m verify --world-sizes 2   # the sweep wraps each measured step in CommMeter

A ``TorchDispatchMode`` sees every call to ``torch.ops.c10d.*``: ours, PyTorch's DDP reducer (C++),
ZeroRedundancyOptimizer's broadcasts and FSDP2's all-gathers and reduce-scatters. Monkeypatching
``torch.distributed`` would miss the C++ ones. Payload = the unsharded size a collective works on
(all_reduce: its tensors; reduce_scatter: its input; all_gather: its output; broadcast: its tensors).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

_PHASE: ContextVar[str] = ContextVar("verify_phase", default="other")

# c10d op name (without overload) -> (kind, which argument holds the payload)
_OPS: dict[str, tuple[str, int]] = {
    "allreduce_": ("all_reduce", 0),
    "allreduce_coalesced_": ("all_reduce", 0),
    "broadcast_": ("broadcast", 0),
    "_allgather_base_": ("all_gather", 0),
    "allgather_": ("all_gather", 0),
    "allgather_into_tensor_coalesced_": ("all_gather", 0),
    "_reduce_scatter_base_": ("reduce_scatter", 1),
    "reduce_scatter_": ("reduce_scatter", 1),
    "reduce_scatter_tensor_coalesced_": ("reduce_scatter", 1),
}


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Label the collectives issued inside (forward, backward, step)."""
    token = _PHASE.set(name)
    try:
        yield
    finally:
        _PHASE.reset(token)


def _tensors(x: Any) -> list[torch.Tensor]:
    """The tensors of a collective's payload argument (one tensor, or a list of them, nested)."""
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, list | tuple):
        return [t for item in x for t in _tensors(item)]
    return []


class CommMeter(TorchDispatchMode):
    """Sums payload bytes and elements per "kind/phase" key and counts calls while active (elements as well as
    bytes: a library may communicate in another dtype than it stores, e.g. FSDP2's bf16 all-gathers of fp32
    parameters)."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.payload_bytes: Counter[str] = Counter()
        self.payload_elements: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.group_sizes: set[int] = set()

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        if func.namespace == "c10d":
            name = func.__name__.split(".")[0]
            kind, arg = _OPS.get(name, (name, -1))
            key = f"{kind}/{_PHASE.get()}"
            self.calls[key] += 1
            if arg >= 0:
                payload = _tensors(args[arg])
                self.payload_bytes[key] += sum(t.numel() * t.element_size() for t in payload)
                self.payload_elements[key] += sum(t.numel() for t in payload)
            for a in args:
                if isinstance(a, torch.ScriptObject):
                    with contextlib.suppress(Exception):
                        self.group_sizes.add(torch.distributed.ProcessGroup.unbox(a).size())
        return func(*args, **(kwargs or {}))

    def by_kind(self, elements: bool = False) -> dict[str, int]:
        """Payload bytes (or elements) per collective kind, phases summed."""
        out: Counter[str] = Counter()
        for key, b in (self.payload_elements if elements else self.payload_bytes).items():
            out[key.split("/")[0]] += b
        return dict(out)


def warm_up() -> None:
    """Pay the dispatch-mode import cost (~1 s) once in the parent, before forking ranks."""
    with CommMeter():
        torch.zeros(1).add_(1)
