"""Mixed precision: bytes per parameter of model state, number formats, activation bytes per layer.

    python -c "from verify.known.formulas.mixed_precision import *; print(state_bytes_per_param())"

Sources: Micikevicius et al., "Mixed Precision Training" (ICLR 2018) for fp32 master weights and loss
scaling; Rajbhandari et al., ZeRO (SC'20) §3.1 for 2+2+12 = 16 bytes; Megatron-LM's distributed
optimizer documentation for the 18 / 20 byte variants; Korthikanti et al., "Reducing Activation
Recomputation in Large Transformer Models" (2022) §4 for sbh(34 + 5as/h); IEEE 754 and the bfloat16
definition for the format limits.
"""

from __future__ import annotations

from dataclasses import dataclass

# (exponent bits, explicit mantissa bits) of the floating-point formats.
FORMATS = {"fp32": (8, 23), "fp16": (5, 10), "bf16": (8, 7)}


@dataclass(frozen=True)
class FormatLimits:
    max: float
    smallest_normal: float
    smallest_subnormal: float
    eps: float


def format_limits(*, fmt: str) -> FormatLimits:
    """Largest finite value, smallest normal / subnormal and machine epsilon from the bit layout."""
    e_bits, m_bits = FORMATS[fmt]
    bias = 2 ** (e_bits - 1) - 1
    emax = bias  # largest unbiased exponent of a finite number
    return FormatLimits(
        max=(2 - 2.0**-m_bits) * 2.0**emax,
        smallest_normal=2.0 ** (1 - bias),
        smallest_subnormal=2.0 ** (1 - bias - m_bits),
        eps=2.0**-m_bits,
    )


def flush_to_zero_bound(*, fmt: str) -> float:
    """Magnitudes at or below half the smallest subnormal round to zero (round-to-nearest-even)."""
    return format_limits(fmt=fmt).smallest_subnormal / 2


def state_bytes_per_param(
    *, param: int = 2, grad: int = 2, master: int = 4, m: int = 4, v: int = 4, main_grad: int = 0
) -> dict[str, int]:
    """Model-state bytes per parameter, by part (``m_v``: Adam's two moments; ``optimizer``: master + m + v);
    defaults are mixed-precision Adam (2+2+4+4+4 = 16)."""
    parts = {"param": param, "grad": grad, "master": master, "m": m, "v": v, "main_grad": main_grad}
    return {**parts, "m_v": m + v, "optimizer": master + m + v, "total": sum(parts.values())}


def fp32_adam_bytes_per_param() -> dict[str, int]:
    """Plain fp32 Adam: the parameter is its own master (no copy), 4+4+4+4 = 16."""
    return state_bytes_per_param(param=4, grad=4, master=0)


def megatron_bytes_per_param(*, param_dtype: str, grad_dtype: str) -> int:
    """Megatron-LM's count: 16-bit parameters keep an fp32 master and an fp32 main gradient.

    fp16 params + fp16 grads: 2 + 2 + 4 (fp32 main grad) + 12 = 20; bf16/fp16 params + fp32 grads:
    2 + 4 + 12 = 18; fp32 params + fp32 grads: 4 + 4 + 8 = 16.
    """
    if param_dtype == "fp32":
        return 4 + 4 + 8
    if grad_dtype == "fp32":
        return 2 + 4 + 12
    return 2 + 2 + 4 + 12


def model_state_bytes(*, psi: float, bytes_per_param: int | None = None) -> float:
    """Ψ parameters × bytes per parameter (mixed-precision Adam's total, 16, unless given)."""
    return psi * (state_bytes_per_param()["total"] if bytes_per_param is None else bytes_per_param)


def transformer_layer_activation_bytes(
    *, s: int, b: int, h: int, a: int, t: int = 1, selective: bool = False
) -> float:
    """Bytes one transformer layer saves for backward, 16-bit activations (Korthikanti et al. §4).

    No parallelism, no recomputation: sbh(34 + 5as/h). Selective recomputation of the attention core
    drops the 5as/h term. ``t`` > 1 is tensor parallelism without sequence parallelism:
    sbh(10 + 24/t + 5as/(ht)).
    """
    sbh = s * b * h
    attn = 0 if selective else 5 * a * s / h
    if t == 1:
        return sbh * (34 + attn)
    return sbh * (10 + 24 / t + attn / t)
