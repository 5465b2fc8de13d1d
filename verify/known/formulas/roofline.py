"""Arithmetic intensity and the roofline: prefill is compute-bound, decode is memory-bound.

    python -c "from verify.known.formulas.roofline import *; print(linear_intensity(tokens=1, h=4096, elem=2))"

A linear layer of x tokens and an h × h weight does 2xh² FLOPs and moves e(xh + h² + xh) bytes (input,
weight, output): intensity 2xh²/(e(2xh + h²)), about 2x/e (x FLOP/byte in bf16) when x ≪ h (decode: x = b),
tending to h/e as x → ∞ (prefill: x = bs). Attainable FLOP/s = min(peak, intensity × memory bandwidth); the
ridge point is peak / bandwidth. Decoding one token reads every weight once: at least e·Ψ / bandwidth
seconds. Source: Williams, Waterman, Patterson, "Roofline" (CACM 2009); Pope et al. (2022).
"""

from __future__ import annotations

from typing import Any


def linear_flops(*, tokens: Any, h: Any) -> Any:
    return 2 * tokens * h**2


def linear_bytes(*, tokens: Any, h: Any, elem: Any) -> Any:
    """Input (tokens·h), weight (h²) and output (tokens·h) elements, e bytes each."""
    return elem * (2 * tokens * h + h**2)


def linear_intensity(*, tokens: Any, h: Any, elem: Any) -> Any:
    return linear_flops(tokens=tokens, h=h) / linear_bytes(tokens=tokens, h=h, elem=elem)


def ridge_intensity(*, peak_flops: Any, mem_bandwidth: Any) -> Any:
    """FLOP per byte at which a kernel stops being memory-bound."""
    return peak_flops / mem_bandwidth


def attainable_flops(*, intensity: Any, peak_flops: Any, mem_bandwidth: Any) -> Any:
    return min(peak_flops, intensity * mem_bandwidth)


def decode_token_seconds(*, params: Any, elem: Any, mem_bandwidth: Any) -> Any:
    """Lower bound on one decoding step at small batch: every weight read once from memory."""
    return elem * params / mem_bandwidth
