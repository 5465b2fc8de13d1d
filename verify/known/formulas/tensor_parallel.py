"""Megatron-style tensor parallelism: collectives and weight shards per transformer layer.

    python -c "from verify.known.formulas.tensor_parallel import *; print(allreduces_per_layer())"

Source: Shoeybi et al., "Megatron-LM" (2019) §3: the MLP's first matrix split by columns and the second
by rows, attention split by heads with the output projection by rows; the f operator (identity forward,
all-reduce backward) at each block's entry and g (all-reduce forward, identity backward) at its exit.
"""

from __future__ import annotations

from verify.known.formulas.collectives import ring_send

BLOCKS_PER_LAYER = 2  # attention, MLP


def allreduces_per_layer() -> dict[str, int]:
    """One g per block in forward, one f per block in backward."""
    return {"forward": BLOCKS_PER_LAYER, "backward": BLOCKS_PER_LAYER}


def allreduce_elements(*, b: int, s: int, h: int) -> int:
    """Every f and g all-reduces an activation (or its gradient) of b·s·h elements."""
    return b * s * h


def matmul_weights(*, h: int, ffn: int | None = None) -> dict[str, int]:
    """Weight elements of one layer: attention QKV 3h² + output h², MLP 2·h·ffn (ffn = 4h: 8h²)."""
    f = 4 * h if ffn is None else ffn
    return {"attention": 4 * h * h, "mlp": 2 * h * f, "total": 4 * h * h + 2 * h * f}


def weights_per_rank(*, h: int, t: int, ffn: int | None = None) -> float:
    """12h²/t with ffn = 4h: every matmul weight is split t ways."""
    return matmul_weights(h=h, ffn=ffn)["total"] / t


def send_per_layer_step(*, b: int, s: int, h: int, t: int, bytes_per_element: int = 2) -> dict[str, float]:
    """Bytes per all-reduce payload, per rank per all-reduce (ring) and per rank per layer per step."""
    payload = allreduce_elements(b=b, s=s, h=h) * bytes_per_element
    per_ar = ring_send(op="all_reduce", n=t, m=payload)
    count = sum(allreduces_per_layer().values())
    return {"payload_bytes": payload, "sent_per_allreduce": per_ar, "sent_per_layer_step": count * per_ar}
