"""Per-rank memory: persistent model-state bytes (distinct storages) and peak bytes of a step.

    python -m verify --world-sizes 2   # the sweep calls storage_bytes and peak_meter_for per run

Persistent bytes are the sum of distinct ``untyped_storage()`` sizes (deduplicated by data pointer), so
a view into a bucket or a flat buffer is counted once; DTensors count their local shard. Peak on CPU
comes from the profiler's allocation events summed in time order (Gloo's temporaries included); on
CUDA from ``torch.cuda.max_memory_allocated``.
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


def _cpu_memory_events(fn: Callable[[], object]) -> list[tuple[int, int]]:
    """(time, signed bytes) of every allocation and free while ``fn`` runs, in time order (profiler events).

    Every allocation and free is a "[memory]" event with a timestamp and a signed size in the
    profiler's flat event list (the event tree drops frees that happen outside an operator). The
    autograd profiler is driven directly: ``torch.profiler.profile.start`` asks ``hasattr(torch, "_inductor")``,
    which imports the compiler (~6 s of CPU in every fresh rank), and nothing here is post-processed into
    function events.
    """
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
    return sorted((e.start_ns(), int(e.nbytes()))  # type: ignore[attr-defined]  # missing from the stub
                  for e in prof.kineto_results.events()
                  if e.name() == "[memory]")


def cpu_peak_bytes(fn: Callable[[], object]) -> int:
    """Largest increase of allocated CPU bytes above the start while ``fn`` runs (profiler events)."""
    running = peak = 0
    for _, size in _cpu_memory_events(fn):
        running += size
        peak = max(peak, running)
    return peak


def cpu_retained_bytes(fn: Callable[[], object]) -> int:
    """CPU bytes allocated while ``fn`` runs and still allocated when it returns (allocations − frees):
    with the storages we can see subtracted, what a library keeps hidden (DDP's reducer buckets)."""
    return sum(size for _, size in _cpu_memory_events(fn))


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
