"""The sweep: in every rank, run each variant a few steps and measure its memory and communication.

    python -m verify --world-sizes 2,4 --params 1000000

One launch per world size runs every variant in turn (reference ddp, zero1, zero2, zero3 and PyTorch's
implementations). Per variant: 2 warm-up steps (DDP rebuilds its buckets in the second), timed steps, one
step under the communication meter and the socket counters, one under the peak-memory meter. Returns a
plain dict per rank; ``verify.report.runs`` merges ranks and adds the ledger's predictions.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist

from verify.measure import progress
from verify.measure.meters import wire
from verify.measure.meters.comm import CommMeter
from verify.measure.meters.memory import peak_meter_for, retained_meter_for, saved_activation_bytes, storage_bytes
from verify.measure.model import layer_specs
from verify.measure.stages import REFERENCE_STAGES, StageConfig
from verify.measure.stages.collectives import NativeCollectives, RingCollectives
from verify.measure.stages.torch_impls import TORCH_IMPLS, TorchImpl

WARMUP_STEPS = 2
RING_PEAK_PASSES = 2
# PyTorch's variants that all-gather parameters during forward/backward: their peak is sampled over several passes
# (FSDP2 without resharding gathers in forward and keeps the layers through backward: judged like ZeRO-3)
GATHERING = frozenset({"torch-fsdp2-reshard", "torch-fsdp2-no-reshard"})


@dataclass(frozen=True)
class SweepOptions:
    dims: list[int]
    dtype: torch.dtype = torch.bfloat16
    batch_per_rank: int = 8
    timed_steps: int = 2
    variants: tuple[str, ...] = (*REFERENCE_STAGES, *TORCH_IMPLS)
    device: str = "cpu"
    peak_samples: int = 8  # profiled passes where the peak varies with scheduling (``peak_passes``)
    ring: bool = True  # one more step of the reference stages on send/recv ring collectives (ring bytes)
    keep_master: bool = False  # return rank 0's gathered fp32 master weights of the reference stages
    extra: dict[str, Any] = field(default_factory=dict)


def _build(variant: str, cfg: StageConfig) -> Any:
    if variant in REFERENCE_STAGES:
        return REFERENCE_STAGES[variant](cfg)
    return TorchImpl(variant, cfg)


def run_variant(variant: str, opts: SweepOptions) -> dict[str, Any]:
    """One variant's measurements in this rank. The reference stages' bf16 matrix products run on ATen's own
    kernels, not oneDNN's: on a CPU with AVX512-BF16, oneDNN packs a bf16 GEMM's operands into scratch of up to
    ~0.9 of the layer's weight (65,728 B for the weight gradient of a 189 x 189 layer, against 0 with AVX2
    kernels or with oneDNN off; docs/test-durations.md, "Tenth session"), so the same ZeRO-3 step peaked 3.7 %
    above its one-layer bound on one CPU and within it on another. The peak judged is the algorithm's own,
    the same on every CPU; a second gathered layer still exceeds the bound (tests/verify/test_mutations.py)."""
    if variant not in REFERENCE_STAGES:
        return _run_variant(variant, opts)
    was = torch._C._get_mkldnn_enabled()  # what torch.backends.mkldnn.enabled reads and sets (``mkldnn.flags``
    torch._C._set_mkldnn_enabled(False)   # would also set TF32, which warns on a CPU build)
    try:
        return _run_variant(variant, opts)
    finally:
        torch._C._set_mkldnn_enabled(was)


def _run_variant(variant: str, opts: SweepOptions) -> dict[str, Any]:
    cfg = StageConfig(dims=opts.dims, dtype=opts.dtype, batch_per_rank=opts.batch_per_rank,
                      device=opts.device)
    built: list[Any] = []

    def build_and_warm_up() -> None:
        built.append(_build(variant, cfg))
        for _ in range(WARMUP_STEPS):
            built[0].train_step()

    # what building and warming up left allocated: the visible state tensors plus anything a library keeps
    # out of sight (DDP's reducer buckets with gradient_as_bucket_view=False)
    retained = retained_meter_for(torch.device(opts.device).type)(build_and_warm_up)
    st = built[0]
    times = []
    for _ in range(opts.timed_steps):  # median of barrier-to-barrier steps: robust to a noisy 2-core box
        dist.barrier()
        t0 = time.perf_counter()
        st.train_step()
        dist.barrier()
        times.append(time.perf_counter() - t0)
    step_time = statistics.median(times) if times else 0.0

    sent_before = wire.sent_bytes()
    with CommMeter() as meter:
        st.train_step()
    dist.barrier()
    sent_after = wire.sent_bytes()

    peak_meter = peak_meter_for(torch.device(opts.device).type)
    ring = _ring_step(st, peak_meter) if opts.ring and variant in REFERENCE_STAGES else None

    seen: set[int] = set()
    state = st.state_tensors()
    mem = {f"{k}_bytes": storage_bytes(state[k], seen) for k in ("params", "grads", "optim")}
    persistent = sum(mem.values())
    # Peak over forward + backward (where ZeRO-3 and FSDP2 gather). Gloo's worker thread frees a collective's
    # temporaries whenever it next runs, so the peak varies with scheduling: where it is judged, sample it and
    # judge the worst pass (``peak_passes``).
    peaks = []
    for _ in range(peak_passes(variant, opts)):
        peaks.append(peak_meter(st.forward_backward))
        st.optimizer_step()
        st.step_index += 1
    steps_done = st.step_index

    out: dict[str, Any] = {
        "variant": variant,
        "impl": "reference" if variant in REFERENCE_STAGES else variant,
        "stage": st.name,
        "rank": dist.get_rank(),
        "steps": steps_done,
        "step_time_s": step_time,
        "param_bytes": mem["params_bytes"], "grad_bytes": mem["grads_bytes"],
        "optim_bytes": mem["optim_bytes"],
        "persistent_bytes": persistent,
        "retained_bytes": retained,  # allocated by build + warm-up and still held (visible or not)
        "peak_transient_bytes": max(peaks),  # observed (includes Gloo's late releases)
        "peak_transient_bytes_floor": min(peaks),  # best-scheduled sample: what the algorithm needs
        "peak_bytes": persistent + max(peaks),
        "peak_bytes_floor": persistent + min(peaks),
        "comm_payload_bytes_by_phase": dict(meter.payload_bytes),
        "comm_payload_bytes": meter.by_kind(),
        "comm_payload_elements": meter.by_kind(elements=True),
        "comm_calls": dict(meter.calls),
        "wire_bytes_sent": None if sent_before is None or sent_after is None else sent_after - sent_before,
        "peak_transient_bytes_samples": peaks,
        "ring": ring,
    }
    if isinstance(st, TorchImpl):
        out["optim_param_numel"] = st.param_numel_local()
    if opts.keep_master and variant in REFERENCE_STAGES:
        master = st.full_master()
        if dist.get_rank() == 0:
            out["master"] = master
    del st
    return out


def peak_passes(variant: str, opts: SweepOptions) -> int:
    """Profiled forward/backward passes on the native collectives: ``peak_samples`` for PyTorch's gathering
    implementations (their peak varies with scheduling), else one. The reference stages' peak is judged on the
    ring pass (``_ring_step``: no backend thread holds a tensor; without it, ``--collectives native``, it is
    unverifiable), so their native pass is only shown."""
    return opts.peak_samples if variant in GATHERING else 1


def _ring_step(st: Any, peak_meter: Any) -> dict[str, Any]:
    """One step on ring collectives: the bytes this rank handed to ``isend``, its sockets' bytes, and the
    forward/backward peak (deterministic: no backend thread holds a tensor), and the ring's own temporaries
    (the peak of one reduce-scatter of the largest flat buffer, alone)."""
    ring = RingCollectives()
    st.coll = ring
    dist.barrier()
    before = wire.sent_bytes()
    activations = 0
    peaks = []
    try:
        peaks.append(peak_meter(st.forward_backward))
        st.optimizer_step()
        st.step_index += 1
        dist.barrier()
        after = wire.sent_bytes()
        sent, sends = ring.sent_bytes, ring.sends  # one step's traffic
        for _ in range(RING_PEAK_PASSES - 1):  # deterministic, but judged on the worst pass all the same
            peaks.append(peak_meter(st.forward_backward))
            st.optimizer_step()
            st.step_index += 1
        activations = saved_activation_bytes(st.forward_backward, exclude=st.params)
        st.optimizer_step()
        st.step_index += 1
    finally:
        st.coll = NativeCollectives()
    largest = -(-max(st.padded) // st.world) * st.world  # rounded up to N, as the ZeRO stages pad
    full = torch.zeros(largest, dtype=st.cfg.dtype, device=st.cfg.device)
    shard = torch.empty(largest // st.world, dtype=st.cfg.dtype, device=st.cfg.device)
    probe = RingCollectives()
    temporaries = peak_meter(lambda: probe.reduce_scatter(shard, full))
    return {"sent_bytes": sent, "sends": sends,
            "wire_bytes": None if before is None or after is None else after - before,
            "peak_transient_bytes": max(peaks), "peak_transient_bytes_samples": peaks,
            "saved_activation_bytes": activations, "largest_layer_bytes": largest * full.element_size(),
            "reduce_scatter_temporary_bytes": temporaries}


def sweep_rank(opts: SweepOptions) -> list[dict[str, Any]]:
    """Run every variant in this rank (inside an initialised process group)."""
    out = []
    for v in opts.variants:
        out.append(run_variant(v, opts))
        progress.note(f"N={dist.get_world_size()} {v}")
    return out


def sweep_and_probe_rank(opts: SweepOptions,
                         sweep: Callable[[SweepOptions], list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """The sweep (``sweep``, default ``sweep_rank``), then the Gloo probes in the same ranks and process group:
    the starter deck's (``dist_probe``) and, at the sizes the LLM cards ask for, theirs (``llm_probe``). One
    launch per N instead of three: no second fork, torch set-up or rendezvous."""
    from verify.measure.experiments import dist_probe, llm_probe

    n = dist.get_world_size()
    runs = (sweep or sweep_rank)(opts)
    result = dist_probe.probe_rank(n)
    llm = llm_probe.probe_rank(n) if n in llm_probe.WORLD_SIZES else None
    progress.note(f"N={n} probe")
    return {"runs": runs, "probe": result, "llm_probe": llm}


def layer_numels(dims: list[int]) -> list[int]:
    return [s.numel for s in layer_specs(dims)]
