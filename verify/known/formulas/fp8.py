"""8-bit floats (Micikevicius et al. 2022, "FP8 Formats for Deep Learning"): E4M3 and E5M2.

    python -c "from verify.known.formulas.fp8 import *; print(limits(fmt='fp8_e4m3'))"

E5M2 follows IEEE 754 (infinities and NaNs in the all-ones exponent): max (2 − 2⁻²)·2¹⁵ = 57344.
E4M3 ("fn": finite, no infinities) gives the all-ones exponent to normal numbers and keeps only
S.1111.111 for NaN: max 1.75 · 2⁸ = 448 (IEEE-style it would be 1.875 · 2⁷ = 240). Round-to-nearest
makes a relative error of at most half an ulp: 2^-(m+1) for a normal number with m mantissa bits.
"""

from __future__ import annotations

from dataclasses import dataclass

FP8 = {"fp8_e4m3": (4, 3, True), "fp8_e5m2": (5, 2, False)}  # exponent bits, mantissa bits, finite-only


@dataclass(frozen=True)
class Limits:
    max: float
    smallest_normal: float
    smallest_subnormal: float
    eps: float


def limits(*, fmt: str) -> Limits:
    e_bits, m_bits, finite_only = FP8[fmt]
    bias = 2 ** (e_bits - 1) - 1
    if finite_only:  # the top exponent holds normal numbers; only mantissa all-ones is NaN
        largest = (2 - 2.0 ** (1 - m_bits)) * 2.0 ** (2**e_bits - 1 - bias)
    else:
        largest = (2 - 2.0**-m_bits) * 2.0**bias
    return Limits(max=largest, smallest_normal=2.0 ** (1 - bias), smallest_subnormal=2.0 ** (1 - bias - m_bits),
                  eps=2.0**-m_bits)


def max_rel_rounding_error(*, fmt: str) -> float:
    """Half an ulp relative to a normal value: 2^-(m+1)."""
    return limits(fmt=fmt).eps / 2
