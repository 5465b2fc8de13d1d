"""The ledger: per-rank model-state memory and per-step communication of DDP and ZeRO-1/2/3, as formulas.

    python -c "from verify.known.ledger import model_state_bytes as m; print(m(stage='zero3', psi=7.5e9, n=64))"

Pure Python (no torch): the web app imports this module for its computed drills, and the checks in
``verify.judge.deck`` compare these numbers with what the meters measure on real ranks.

Source: Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
SC'20, section 5 (memory, Figure 1) and section 7 (communication). Mixed-precision Adam keeps, per
parameter, a 2-byte (bf16/fp16) parameter, a 2-byte gradient and K = 12 bytes of optimizer state
(fp32 master weight + Adam m + Adam v, 4 bytes each).

Words (see ``verify/__init__.py``): an *unsharded* buffer holds all Ψ elements on every rank; a *shard*
holds 1/N of it. Real shards round every flat buffer up to a multiple of N, so the functions take
``psi_pad`` (Ψ_pad = Σ_i ceil(n_i / N)·N over the flat buffers) next to ``psi``; a sharded stage's
unsharded buffers are padded too (the all-gather lands in them in place). With ``psi_pad=None`` the
formulas are the paper's (Ψ_pad = Ψ). Sizes are in bytes, volumes in elements unless the name says bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal

from verify.known.formulas import collectives
from verify.known.formulas.mixed_precision import state_bytes_per_param

Stage = Literal["ddp", "zero1", "zero2", "zero3"]
STAGES: tuple[Stage, ...] = ("ddp", "zero1", "zero2", "zero3")

BYTES_PER_ELEMENT = {"bf16": 2, "fp16": 2, "fp32": 4}
ADAM_MIXED_PRECISION_K = state_bytes_per_param()["optimizer"]  # fp32 master (4) + m (4) + v (4) bytes per parameter


def _check(stage: str, n: int) -> None:
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; expected one of {STAGES}")
    if n < 1:
        raise ValueError(f"world size must be >= 1, got {n}")


def padded_numel(*, sizes: Iterable[int], n: int) -> int:
    """Ψ_pad = Σ ceil(n_i / N)·N: the elements of the flat buffers once each is rounded up to N."""
    return sum(math.ceil(s / n) * n for s in sizes)


def _pad(psi: float, psi_pad: float | None) -> float:
    return psi if psi_pad is None else psi_pad


def param_bytes(*, stage: Stage, psi: float, n: int, psi_pad: float | None = None,
                bytes_per_element: int = 2) -> float:
    """Per-rank parameter bytes: 2Ψ replicated (DDP: unpadded; ZeRO-1/2: 2Ψ_pad), ZeRO-3 2Ψ_pad/N."""
    _check(stage, n)
    if stage == "ddp":
        return bytes_per_element * psi
    if stage == "zero3":
        return bytes_per_element * _pad(psi, psi_pad) / n
    return bytes_per_element * _pad(psi, psi_pad)


def grad_bytes(*, stage: Stage, psi: float, n: int, psi_pad: float | None = None,
               bytes_per_element: int = 2) -> float:
    """Per-rank gradient bytes: 2Ψ (DDP), 2Ψ_pad (ZeRO-1), 2Ψ_pad/N (ZeRO-2/3, gradient shard)."""
    _check(stage, n)
    if stage == "ddp":
        return bytes_per_element * psi
    if stage == "zero1":
        return bytes_per_element * _pad(psi, psi_pad)
    return bytes_per_element * _pad(psi, psi_pad) / n


def optim_bytes(*, stage: Stage, psi: float, n: int, psi_pad: float | None = None,
                k: int = ADAM_MIXED_PRECISION_K) -> float:
    """Per-rank optimizer-state bytes: KΨ (DDP), KΨ_pad/N for every ZeRO stage (optimizer-state shard)."""
    _check(stage, n)
    if stage == "ddp":
        return k * psi
    return k * _pad(psi, psi_pad) / n


def model_state_bytes(*, stage: Stage, psi: float, n: int, psi_pad: float | None = None,
                      bytes_per_element: int = 2, k: int = ADAM_MIXED_PRECISION_K) -> float:
    """Parameters + gradients + optimizer states per rank (ZeRO paper, Figure 1)."""
    return (param_bytes(stage=stage, psi=psi, n=n, psi_pad=psi_pad, bytes_per_element=bytes_per_element)
            + grad_bytes(stage=stage, psi=psi, n=n, psi_pad=psi_pad, bytes_per_element=bytes_per_element)
            + optim_bytes(stage=stage, psi=psi, n=n, psi_pad=psi_pad, k=k))


def memory_limit_bytes(*, stage: Stage, psi: float, bytes_per_element: int = 2,
                       k: int = ADAM_MIXED_PRECISION_K) -> float:
    """The N → ∞ limit of ``model_state_bytes``: what the sharded terms leave behind."""
    _check(stage, 1)
    b = bytes_per_element
    return {"ddp": (2 * b + k) * psi, "zero1": 2 * b * psi, "zero2": b * psi, "zero3": 0.0}[stage]


# ---------------------------------------------------------------- communication
# Payload: the elements one collective carries, counted as the size of the unsharded buffer it works on
# (all_reduce: the tensor; reduce_scatter: its input; all_gather: its output).

def comm_payload_elements(*, stage: Stage, psi: float, n: int,
                          psi_pad: float | None = None) -> dict[str, float]:
    """Elements per step by collective and phase, e.g. {"all_reduce/backward": Ψ} for DDP.

    ZeRO-1/2 reduce-scatter the gradients and all-gather the updated parameters; ZeRO-3 all-gathers the
    parameters before each layer's forward, again before its backward, and reduce-scatters its gradients.
    """
    _check(stage, n)
    p = _pad(psi, psi_pad)
    if stage == "ddp":
        return {"all_reduce/backward": psi}
    if stage == "zero1":
        return {"reduce_scatter/step": p, "all_gather/step": p}
    if stage == "zero2":
        return {"reduce_scatter/backward": p, "all_gather/step": p}
    return {"all_gather/forward": p, "all_gather/backward": p, "reduce_scatter/backward": p}


def comm_payload_bytes(*, stage: Stage, psi: float, n: int, psi_pad: float | None = None,
                       bytes_per_element: int = 2) -> dict[str, float]:
    """``comm_payload_elements`` in bytes."""
    return {k: v * bytes_per_element
            for k, v in comm_payload_elements(stage=stage, psi=psi, n=n, psi_pad=psi_pad).items()}


def collective_payload_elements(*, stage: Stage, collective: str, psi: Any, n: Any) -> Any:
    """Elements a stage's collectives of one kind carry per step, over its phases (0 if it never calls it)."""
    return sum(elems for key, elems in comm_payload_elements(stage=stage, psi=psi, n=n).items()
               if key.split("/")[0] == collective)


def collective_calls(*, stage: Stage, collective: str, phase: str, layers: Any) -> Any:
    """Calls of one collective in one phase of a step: ZeRO-3 gathers each layer's parameters before its forward
    and again before its backward and reduce-scatters each layer's gradients, ZeRO-2 reduce-scatters each
    layer's gradients as backward produces them; every other collective of the stage runs once (0 if it has
    none)."""
    per_layer = {("zero3", "all_gather", "forward"), ("zero3", "all_gather", "backward"),
                 ("zero3", "reduce_scatter", "backward"), ("zero2", "reduce_scatter", "backward")}
    if (stage, collective, phase) in per_layer:
        return layers
    return 1 if f"{collective}/{phase}" in comm_payload_elements(stage=stage, psi=1, n=1) else 0


def ring_volume_elements(*, stage: Stage, psi: float, n: int, psi_pad: float | None = None) -> float:
    """Elements each rank sends per step with ideal ring collectives (bandwidth term only).

    A ring all-reduce sends 2(N−1)/N·Ψ per rank, a reduce-scatter or an all-gather (N−1)/N·Ψ
    (``formulas.collectives.ring_send``). So DDP, ZeRO-1 and ZeRO-2 send 2(N−1)/N·Ψ and ZeRO-3 3(N−1)/N·Ψ
    (section 7 of the paper; "2Ψ" and "3Ψ" are the N → ∞ limits).
    """
    total = 0.0
    for key, elems in comm_payload_elements(stage=stage, psi=psi, n=n, psi_pad=psi_pad).items():
        total += collectives.ring_send(op=key.split("/")[0], n=n, m=elems)
    return total


def ring_volume_bytes(*, stage: Stage, psi: float, n: int, psi_pad: float | None = None,
                      bytes_per_element: int = 2) -> float:
    """``ring_volume_elements`` in bytes."""
    return ring_volume_elements(stage=stage, psi=psi, n=n, psi_pad=psi_pad) * bytes_per_element


def ring_volume_limit_elements(*, stage: Stage, psi: float) -> float:
    """The N → ∞ limit the paper quotes: 2Ψ for DDP/ZeRO-1/ZeRO-2, 3Ψ for ZeRO-3."""
    _check(stage, 1)
    return 3 * psi if stage == "zero3" else 2 * psi


def gloo_wire_bytes(*, stage: Stage, psi: float, n: int, psi_pad: float | None = None,
                    bytes_per_element: int = 2) -> float:
    """Bytes each rank sends per step on Gloo, whose reduce-scatter is a full all-reduce (2(N−1)/N).

    A model of the backend, not of the algorithm (``formulas.collectives.gloo_send``): all_gather and all_reduce
    as a ring, reduce_scatter priced as an all_reduce. The wire meter checks it against per-socket counters.
    """
    total = 0.0
    for key, elems in comm_payload_elements(stage=stage, psi=psi, n=n, psi_pad=psi_pad).items():
        total += collectives.gloo_send(op=key.split("/")[0], n=n, m=elems) * bytes_per_element
    return total


def comm_time_seconds(*, volume_bytes: float, bandwidth_bits_per_s: float) -> float:
    """Seconds to send ``volume_bytes`` at a link rate (bandwidth term only, no latency or overlap)."""
    return volume_bytes * 8 / bandwidth_bits_per_s


# ---------------------------------------------------------------- transient memory (ZeRO-3)

def activation_bytes(*, batch: int, dims: list[int], bytes_per_element: int = 2) -> float:
    """Saved layer inputs and outputs of an MLP with widths ``dims``, and as much again for gradients."""
    return 2 * sum(batch * (dims[i] + dims[i + 1]) * bytes_per_element for i in range(len(dims) - 1))


def zero3_transient_bound_bytes(*, max_layer_numel_pad: int, n: int, activation_bytes: float,
                                bytes_per_element: int = 2, backend_temporaries: int = 2,
                                temporaries_bytes: float | None = None) -> float:
    """Bytes above the persistent 16Ψ_pad/N that ZeRO-3 may hold during forward/backward.

    One layer at a time: its unsharded parameter (forward) or its unsharded gradient (backward, the
    parameter is freed first), its 1/N gradient shard, plus the collective's temporaries: measured
    ``temporaries_bytes`` (the sweep profiles one reduce-scatter of the largest layer alone), or else
    ``backend_temporaries`` full-layer buffers (Gloo: its reduce-scatter clones the whole input, and its
    worker thread may release the previous layer's clone only after the next one exists). Never the
    whole model; a second gathered layer exceeds it whenever the activations' allowance is under a layer.
    """
    layer = bytes_per_element * max_layer_numel_pad
    temporaries = backend_temporaries * layer if temporaries_bytes is None else temporaries_bytes
    return activation_bytes + layer * (1 + 1 / n) + temporaries
