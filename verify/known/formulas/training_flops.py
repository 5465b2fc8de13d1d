"""Training FLOPs: 2 per weight and token forward, 4 backward (6N·D), 8N·D with full recomputation.

    python -c "from verify.known.formulas.training_flops import *; print(total_train_flops(params=175e9, tokens=300e9))"

A matmul of a (tokens × n) input with an n × n' weight costs 2·tokens·n·n' FLOPs (a multiply and an add);
backward computes the input gradient and the weight gradient, two matmuls of the same size: 2× forward.
Attention adds QKᵀ and AV, 2·s²·h each per sequence and layer (the full s × s matrix: kernels without
causal block skipping compute the masked half too). Full activation recomputation runs the forward once
more: 4× forward = 8N per token. Sources: Kaplan et al. (2020) §2.1; Narayanan et al. (SC'21) appendix;
Chowdhery et al. (PaLM, 2022) appendix B for the MFU definition.
"""

from __future__ import annotations

from typing import Any

from verify.known.formulas.transformer_params import matmul_params


def forward_flops(*, h: Any, layers: Any, vocab: Any, s: Any, b: Any) -> Any:
    """2·(12Lh² + Vh)·bs for the matmuls + 4·L·b·s²·h for QKᵀ and AV."""
    return 2 * matmul_params(h=h, layers=layers, vocab=vocab) * b * s + 4 * layers * b * s**2 * h


def train_flops(*, h: Any, layers: Any, vocab: Any, s: Any, b: Any, recompute: bool = False) -> Any:
    """Forward + backward (2× forward) = 3× forward; with full recomputation one more forward: 4×."""
    return (4 if recompute else 3) * forward_flops(h=h, layers=layers, vocab=vocab, s=s, b=b)


def total_train_flops(*, params: Any, tokens: Any, recompute: bool = False) -> Any:
    """The rule of thumb C ≈ 6·N·D (8·N·D with full recomputation), attention ignored."""
    return (8 if recompute else 6) * params * tokens


def train_days(*, params: Any, tokens: Any, gpus: Any, peak_flops: Any, mfu: Any) -> Any:
    """Wall-clock days of 6ND FLOPs on ``gpus`` devices at ``mfu`` × their peak."""
    return total_train_flops(params=params, tokens=tokens) / (gpus * peak_flops * mfu) / 86400
