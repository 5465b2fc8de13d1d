"""Per-rank memory: persistent model-state bytes (distinct storages) and peak bytes of a step.

    python -m verify --world-sizes 2   # the sweep calls storage_bytes and peak_meter_for per run

Persistent bytes are the sum of distinct ``untyped_storage()`` sizes (deduplicated by data pointer), so
a view into a bucket or a flat buffer is counted once; DTensors count their local shard. Peak on CPU
comes from the profiler's allocation events summed in time order (Gloo's temporaries included); on
CUDA from ``torch.cuda.max_memory_allocated``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch


def _local(t: torch.Tensor) -> torch.Tensor:
    to_local = getattr(t, "to_local", None)
    return to_local() if callable(to_local) else t


def storage_bytes(tensors: Iterable[torch.Tensor | None], seen: set[int] | None = None) -> int:
    """Bytes of the distinct storages behind ``tensors`` (``seen`` shares the dedupe across calls)."""
    seen = set() if seen is None else seen
    total = 0
    for t in tensors:
        if t is None:
            continue
        st = _local(t).untyped_storage()
        if st.data_ptr() in seen:
            continue
        seen.add(st.data_ptr())
        total += st.nbytes()
    return total


def cpu_peak_bytes(fn: Callable[[], object]) -> int:
    """Largest increase of allocated CPU bytes above the start while ``fn`` runs (profiler events)."""
    from torch._C._profiler import _EventType
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    allocs: list[tuple[int, int]] = []
    stack = list(prof.profiler.kineto_results.experimental_event_tree())  # type: ignore[union-attr]
    while stack:
        node = stack.pop()
        if node.tag == _EventType.Allocation:
            allocs.append((node.start_time_ns, node.extra_fields.alloc_size))
        stack.extend(node.children)
    running = peak = 0
    for _, size in sorted(allocs):
        running += size
        peak = max(peak, running)
    return peak


def cuda_peak_bytes(fn: Callable[[], object]) -> int:
    """Same on CUDA: ``max_memory_allocated`` above the allocated bytes at the start."""
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - start


def peak_meter_for(device: str) -> Callable[[Callable[[], object]], int]:
    """The peak meter for a device type: "cuda" → max_memory_allocated, "cpu" → profiler events."""
    if device.startswith("cuda"):
        return cuda_peak_bytes
    if device == "cpu":
        return cpu_peak_bytes
    raise ValueError(f"no peak-memory meter for device {device!r}")
