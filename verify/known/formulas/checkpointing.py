"""Activation checkpointing with ``torch.utils.checkpoint.checkpoint_sequential``: memory and recomputation.

    python -c "from verify.known.formulas.checkpointing import peak_units; print(peak_units(layers=16, segments=4))"

Source: Chen et al., "Training Deep Nets with Sublinear Memory Cost" (2016) for the √L schedule;
PyTorch's ``checkpoint_sequential`` docstring ("all segments except the last" are checkpointed).
A "unit" is one layer's saved activation; boundaries (segment inputs) are one unit each.
"""

from __future__ import annotations

import math


def _check(layers: int, segments: int) -> None:
    if segments < 1 or layers < 1 or layers % segments:
        raise ValueError(f"segments ({segments}) must divide layers ({layers})")


def peak_units(*, layers: int, segments: int | None) -> float:
    """Saved activations at the peak: L without checkpointing; (k−1) segment inputs + L/k layers with k."""
    if not segments:
        return float(layers)
    _check(layers, segments)
    return (segments - 1) + layers / segments


def optimal_segments(*, layers: int) -> int:
    """The k minimising (k−1) + L/k among divisors of L (√L when L is a perfect square)."""
    divisors = [k for k in range(1, layers + 1) if layers % k == 0]
    return min(divisors, key=lambda k: (peak_units(layers=layers, segments=k), k))


def layer_forwards(*, layers: int, segments: int | None) -> int:
    """Layer forwards per step: L, plus the recomputed first k−1 segments, 2L − L/k."""
    if not segments:
        return layers
    _check(layers, segments)
    return 2 * layers - layers // segments


def compute_overhead(*, layers: int, segments: int | None, backward_over_forward: float = 2.0) -> float:
    """Extra compute as a fraction of forward + backward: (1 − 1/k) / (1 + r), r = backward/forward."""
    extra = layer_forwards(layers=layers, segments=segments) - layers
    return extra / (layers * (1 + backward_over_forward))


def sqrt_limit_overhead(*, backward_over_forward: float = 2.0) -> float:
    """One full extra forward: 1 / (1 + r), 1/3 for r = 2."""
    return 1 / (1 + backward_over_forward)


def sqrt_peak(*, layers: int) -> float:
    """2√L − 1 units at k = √L."""
    return 2 * math.sqrt(layers) - 1
