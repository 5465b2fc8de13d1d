"""Per-rank memory: persistent model-state bytes (distinct storages) and peak bytes of a step.

    python -m verify --world-sizes 2   # the sweep calls storage_bytes and peak_meter_for per run

Persistent bytes are the sum of distinct ``untyped_storage()`` sizes (deduplicated by data pointer), so
a view into a bucket or a flat buffer is counted once; DTensors count their local shard. Peak on CPU
comes from the profiler's allocation events summed in time order (Gloo's temporaries included), counting
only blocks allocated inside the measured call (``window_sizes``); on CUDA from
``torch.cuda.max_memory_allocated``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator

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


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _cpu_memory_events(fn: Callable[[], object]) -> list[tuple[int, int, int]]:
    """(time, signed bytes, address) of every allocation and free this thread's profiler saw while ``fn`` ran,
    in time order.

    The allocation events of the profiler's event tree carry the block's address (the flat event list's
    ``[memory]`` events do not). The autograd profiler is driven directly: ``torch.profiler.profile.start``
    asks ``hasattr(torch, "_inductor")``, which imports the compiler (~6 s of CPU in every fresh rank), and
    nothing here is post-processed into function events.
    """
    from torch._C._profiler import _ExtraFields_Allocation
    from torch.autograd.profiler import profile

    prof = profile(use_cpu=True, profile_memory=True, use_kineto=True)
    with _stderr_silenced():  # kineto prints a "USDT ... profiler_start/stop" line per call
        prof.__enter__()
    try:
        fn()
    finally:
        with _stderr_silenced():
            prof.__exit__(None, None, None)
    assert prof.kineto_results is not None
    out: list[tuple[int, int, int]] = []
    stack = list(prof.kineto_results.experimental_event_tree())
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        fields = node.extra_fields
        if isinstance(fields, _ExtraFields_Allocation):
            out.append((node.start_time_ns, int(fields.alloc_size), int(fields.ptr)))
    return sorted(out)


def window_sizes(events: Iterable[tuple[int, int, int]]) -> Iterator[int]:
    """The signed sizes of the allocations made in the window and of their frees, in time order; a free of
    a block allocated before the window is dropped.

    Such a free is either real (a tensor from an earlier step released now) or a phantom: the CPU
    allocator's profiling table keeps the size of a block allocated while profiling was on and freed on a
    thread that was not profiled (Gloo's), and when malloc hands that address to an unprofiled allocation
    which this thread then frees, the profiler reports a free of the old size. Either way it would lower the
    running sum by bytes the window never allocated, so the peak read would depend on when another thread
    ran (one launch in 24 beside ``stress-ng --cpu 4``: ZeRO-3's peak 4,292 B low). What is counted is what
    the window itself needs on top of what it found.
    """
    live: dict[int, int] = {}
    for _, size, ptr in events:
        if size > 0:
            live[ptr] = size
            yield size
        elif ptr in live:
            yield -live.pop(ptr)


def cpu_peak_bytes(fn: Callable[[], object]) -> int:
    """Largest sum of CPU bytes allocated while ``fn`` runs and not yet freed (profiler events): the
    transient memory ``fn`` needs on top of what existed when it started."""
    running = peak = 0
    for size in window_sizes(_cpu_memory_events(fn)):
        running += size
        peak = max(peak, running)
    return peak


def cpu_retained_bytes(fn: Callable[[], object]) -> int:
    """CPU bytes allocated while ``fn`` runs and still allocated when it returns (allocations − their frees):
    with the storages we can see subtracted, what a library keeps hidden (DDP's reducer buckets)."""
    return sum(window_sizes(_cpu_memory_events(fn)))


def cuda_peak_bytes(fn: Callable[[], object]) -> int:
    """Same on CUDA: ``max_memory_allocated`` above the allocated bytes at the start."""
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - start


def cuda_retained_bytes(fn: Callable[[], object]) -> int:
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.memory_allocated() - start


def retained_meter_for(device: str) -> Callable[[Callable[[], object]], int]:
    return cuda_retained_bytes if device.startswith("cuda") else cpu_retained_bytes


def peak_meter_for(device: str) -> Callable[[Callable[[], object]], int]:
    """The peak meter for a device type: "cuda" → max_memory_allocated, "cpu" → profiler events."""
    if device.startswith("cuda"):
        return cuda_peak_bytes
    if device == "cpu":
        return cpu_peak_bytes
    raise ValueError(f"no peak-memory meter for device {device!r}")


def saved_activation_bytes(fn: Callable[[], object], exclude: Iterable[torch.Tensor] = ()) -> int:
    """Bytes of the distinct storages autograd saves for backward while ``fn`` runs (its forward), less
    those of ``exclude`` (the parameters or shards a layer saves): the activations, observed by
    ``torch.autograd.graph.saved_tensors_hooks``, not computed from the layer widths."""
    skip = {_local(t).untyped_storage().data_ptr() for t in exclude}
    seen: set[int] = set()
    total = 0

    def pack(t: torch.Tensor) -> torch.Tensor:
        nonlocal total
        st = t.untyped_storage()
        if st.data_ptr() not in skip and st.data_ptr() not in seen:
            seen.add(st.data_ptr())
            total += st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return total
