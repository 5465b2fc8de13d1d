"""KV-cache memory under contiguous reservation and paging (vLLM's PagedAttention), and static batching.

    python -c "from verify.known.formulas.kv_paging import paged_waste_tokens; print(paged_waste_tokens(block=16))"

Source: Kwon et al., "Efficient Memory Management for Large Language Model Serving with PagedAttention"
(SOSP 2023); Yu et al., "Orca" (OSDI 2022) for iteration-level (continuous) batching. Sequence lengths are
uniform on 1..L_max (L_max a multiple of the block size); ``verify.measure.sim.kv_allocator`` runs the allocators.
"""

from __future__ import annotations


def paged_waste_tokens(*, block: int) -> float:
    """Unused slots in a sequence's last block, on average: (B − 1)/2 (lengths uniform modulo B)."""
    return (block - 1) / 2


def paged_waste_max(*, block: int) -> int:
    """At most B − 1 slots of a sequence are unused (only its last block is partly filled)."""
    return block - 1


def contiguous_waste_fraction(*, l_max: int) -> float:
    """Reserving L_max slots per sequence: 1 − E[l]/L_max = (L_max − 1)/(2 L_max) for l uniform on 1..L_max."""
    return (l_max - 1) / (2 * l_max)


def paged_waste_fraction(*, block: int, l_max: int) -> float:
    """Unused share of the allocated slots with paging: ((B − 1)/2) / ((L_max + 1)/2 + (B − 1)/2) = (B−1)/(L_max+B)."""
    return (block - 1) / (l_max + block)


def static_batch_utilization(*, batch: int) -> float:
    """Static batching runs a batch until its longest request ends: busy slot-steps = E[mean l]/E[max l]
    = (b + 1)/(2b) for lengths uniform on (0, L_max] as L_max → ∞."""
    return (batch + 1) / (2 * batch)
