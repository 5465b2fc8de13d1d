"""Sharded checkpoints: bytes on disk and the time to write them.

    python -c "from verify.known.formulas.sharded_checkpoint import checkpoint_bytes; print(checkpoint_bytes(psi=70e9))"

A training checkpoint holds what is needed to resume: the fp32 master weights and Adam's m and v (12 bytes
per parameter), plus the 16-bit weights if they are saved too (2 more). With ``torch.distributed.checkpoint``
every rank writes its own shard in parallel, so the write time is the per-rank bytes over each rank's share of
the storage bandwidth. ``verify.measure.experiments.dcp_checkpoint`` saves a real FSDP2-sharded model with DCP.
"""

from __future__ import annotations

from verify.known.formulas.mixed_precision import state_bytes_per_param

_STATE = state_bytes_per_param()
RESUMABLE_BYTES_PER_PARAM = _STATE["optimizer"]  # fp32 master weights + Adam m + v: 12
# bytes per parameter of each kind of checkpoint: resumable, resumable with the 16-bit weights, the weights alone
BYTES_PER_PARAM = {"resumable": RESUMABLE_BYTES_PER_PARAM,
                   "with_weights16": RESUMABLE_BYTES_PER_PARAM + _STATE["param"], "weights16": _STATE["param"]}


def checkpoint_bytes(*, psi: float, bytes_per_param: int = RESUMABLE_BYTES_PER_PARAM) -> float:
    """Bytes of a resumable checkpoint: 12Ψ (fp32 weights + Adam m + v); 14Ψ with 16-bit weights as well."""
    return bytes_per_param * psi


def shard_bytes(*, psi: float, n: int, bytes_per_param: int = RESUMABLE_BYTES_PER_PARAM) -> float:
    """Bytes one rank writes when the state is sharded evenly over N ranks: 12Ψ/N."""
    return checkpoint_bytes(psi=psi, bytes_per_param=bytes_per_param) / n


def write_seconds(*, psi: float, n: int, bandwidth: float,
                  bytes_per_param: int = RESUMABLE_BYTES_PER_PARAM) -> float:
    """Every rank writes its shard at ``bandwidth`` bytes/s in parallel: 12Ψ/(N·W)."""
    return shard_bytes(psi=psi, n=n, bytes_per_param=bytes_per_param) / bandwidth
