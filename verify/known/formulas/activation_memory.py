"""Activation bytes of one transformer layer (Korthikanti et al. 2022, §4): sbh(34 + 5as/h).

    python -c "from verify.known.formulas.activation_memory import *; print(layer_bytes(s=2048, b=1, h=4096, a=32))"

16-bit activations, 1-byte dropout masks, no parallelism. Attention block 11sbh + 5as²b (the s × s
softmax output 2as²b, its dropout mask as²b, the dropped-out matrix 2as²b), MLP 19sbh, two LayerNorm
inputs 4sbh. Selective recomputation recomputes the attention core and keeps 34sbh; full recomputation
keeps only the layer's input, 2sbh. LayerNorm's mean and rstd (2·2sb values) are not in the count.
"""

from __future__ import annotations

from typing import Any

from verify.known.formulas.mixed_precision import transformer_layer_activation_bytes


def layer_bytes(*, s: Any, b: Any, h: Any, a: Any) -> Any:
    """Everything one layer saves for backward: sbh(34 + 5as/h)."""
    return transformer_layer_activation_bytes(s=s, b=b, h=h, a=a)


def attention_core_bytes(*, s: Any, b: Any, a: Any) -> Any:
    """The s × s tensors: softmax output 2as²b + dropout mask as²b + dropout output 2as²b = 5as²b."""
    return 5 * a * s**2 * b


def recompute_bytes(*, s: Any, b: Any, h: Any, a: Any, mode: str) -> Any:
    """Bytes kept per layer: none (everything), selective (34sbh), full (the 16-bit input, 2sbh)."""
    if mode == "none":
        return layer_bytes(s=s, b=b, h=h, a=a)
    if mode == "selective":
        return transformer_layer_activation_bytes(s=s, b=b, h=h, a=a, selective=True)
    if mode == "full":
        return 2 * s * b * h
    raise ValueError(f"unknown recomputation mode {mode!r} (none, selective, full)")
