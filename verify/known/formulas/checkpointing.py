"""Activation checkpointing with ``torch.utils.checkpoint.checkpoint_sequential``: memory and recomputation.

    python -c "from verify.known.formulas.checkpointing import peak_units; print(peak_units(layers=16, segments=4))"

Source: Chen et al., "Training Deep Nets with Sublinear Memory Cost" (2016) for the √L schedule;
PyTorch's ``checkpoint_sequential`` docstring ("all segments except the last" are checkpointed).
A "unit" is one layer's saved activation; boundaries (segment inputs) are one unit each. Numbers or sympy
symbols alike (the divisibility of L by k is checked on numbers).
"""

from __future__ import annotations

import math
from typing import Any

from verify.known.formulas.symbolic import exact_quotient, is_int


def _check(layers: Any, segments: Any) -> None:
    if is_int(layers, segments) and (segments < 1 or layers < 1 or layers % segments):
        raise ValueError(f"segments ({segments}) must divide layers ({layers})")


def peak_units(*, layers: Any, segments: Any) -> Any:
    """Saved activations at the peak: L without checkpointing; (k−1) segment inputs + L/k layers with k."""
    if not segments:
        return float(layers)
    _check(layers, segments)
    return (segments - 1) + layers / segments


def optimal_segments(*, layers: int) -> int:
    """The k minimising (k−1) + L/k among divisors of L (√L when L is a perfect square)."""
    divisors = [k for k in range(1, layers + 1) if layers % k == 0]
    return min(divisors, key=lambda k: (peak_units(layers=layers, segments=k), k))


def layer_forwards(*, layers: Any, segments: Any) -> Any:
    """Layer forwards per step: L, plus the recomputed first k−1 segments, 2L − L/k."""
    if not segments:
        return layers
    _check(layers, segments)
    return 2 * layers - exact_quotient(layers, segments)


def compute_overhead(*, layers: Any, segments: Any, backward_over_forward: Any = 2.0) -> Any:
    """Extra compute as a fraction of forward + backward: the recomputed share of the layers, (2L − L/k − L)/L
    = 1 − 1/k, over 1 + r (r = backward/forward): (1 − 1/k) / (1 + r)."""
    if not segments:
        return 0.0
    _check(layers, segments)
    return (1 - 1 / segments) / (1 + backward_over_forward)


def sqrt_limit_overhead(*, backward_over_forward: float = 2.0) -> float:
    """One full extra forward: 1 / (1 + r), 1/3 for r = 2."""
    return 1 / (1 + backward_over_forward)


def sqrt_peak(*, layers: int) -> float:
    """2√L − 1 units at k = √L."""
    return 2 * math.sqrt(layers) - 1
