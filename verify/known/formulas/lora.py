"""LoRA and QLoRA: trainable parameters r(d + k) per adapted d × k weight; stored bytes of a 4-bit base.

    python -c "from verify.known.formulas.lora import *; print(trainable(r=8, d_in=4096, d_out=4096))"

LoRA (Hu et al. 2021) freezes W (d_out × d_in) and trains B (d_out × r) and A (r × d_in): r(d_in + d_out)
parameters. QLoRA (Dettmers et al. 2023) stores the frozen base in NF4: 4 bits per weight, an absmax per
block of 64 (fp32: 32/64 = 0.5 bits per weight), with double quantization an 8-bit absmax per block plus
an fp32 constant per 256 blocks: 8/64 + 32/(64·256) = 0.127 bits per weight.
"""

from __future__ import annotations

from typing import Any


def trainable(*, r: Any, d_in: Any, d_out: Any) -> Any:
    return r * (d_in + d_out)


def nf4_bits_per_param(*, block: Any = 64, double_quant: bool = False, block2: Any = 256) -> Any:
    """4 bits + quantization constants per weight."""
    if double_quant:
        return 4 + 8 / block + 32 / (block * block2)
    return 4 + 32 / block
