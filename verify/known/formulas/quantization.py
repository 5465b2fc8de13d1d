"""Weight-only integer quantization: stored bits per weight and the round-to-nearest error bound.

    python -c "from verify.known.formulas.quantization import *; print(bits_per_param(bits=4, group=128))"

Symmetric absmax quantization of a group of G weights to b-bit integers: scale Δ = absmax / (2^(b−1) − 1),
one fp16 scale per group: b + 16/G bits per weight. Round-to-nearest errs by at most Δ/2 per weight
(absmax/254 for int8, absmax/14 for int4); for errors spread uniformly over (−Δ/2, Δ/2) the RMS error is
Δ/√12. Source: Dettmers et al. (LLM.int8(), 2022); Frantar et al. (GPTQ, 2023) for group-wise int4.
"""

from __future__ import annotations

from typing import Any


def qmax(*, bits: Any) -> Any:
    return 2 ** (bits - 1) - 1


def bits_per_param(*, bits: Any, group: Any, scale_bits: Any = 16) -> Any:
    return bits + scale_bits / group


def max_error_over_absmax(*, bits: Any) -> Any:
    """Largest |w − dequant(quant(w))| over the group's absmax: 1 / (2·qmax)."""
    return 1 / (2 * qmax(bits=bits))


def step_ratio(*, bits_low: Any, bits_high: Any) -> Any:
    """How much coarser the low-bit grid is: qmax(high) / qmax(low) (int8 vs int4: 127/7)."""
    return qmax(bits=bits_high) / qmax(bits=bits_low)
