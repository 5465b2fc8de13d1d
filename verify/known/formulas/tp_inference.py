"""Tensor-parallel inference: the all-reduces every generated token pays.

    python -c "from verify.known.formulas.tp_inference import *; print(decode_send_bytes(layers=80, b=1, h=8192, t=8))"

Megatron-style TP (Shoeybi et al. 2019) all-reduces the b·s·h activations twice per layer in forward (after
attention's output projection and after the MLP). In decoding s = 1: per token and layer, 2 all-reduces of b·h
elements; with a ring each sends 2(t−1)/t of its payload. 16-bit activations: 2 bytes per element.
"""

from __future__ import annotations


def decode_allreduces(*, layers: int) -> int:
    """All-reduces per generated token: 2 per layer."""
    return 2 * layers


def decode_send_bytes(*, layers: int, b: int, h: int, t: int, elem_bytes: int = 2) -> float:
    """Bytes one rank sends per decoding step: 2L all-reduces × 2(t−1)/t × b·h × 2 bytes = 8L·b·h(t−1)/t."""
    return decode_allreduces(layers=layers) * 2 * (t - 1) / t * b * h * elem_bytes


def decode_comm_seconds(*, layers: int, b: int, h: int, t: int, alpha: float, beta: float) -> float:
    """α-β time per token: each all-reduce takes 2(t−1)α + its bytes/β."""
    per = 2 * (t - 1) * alpha
    return decode_allreduces(layers=layers) * per + decode_send_bytes(layers=layers, b=b, h=h, t=t) / beta
