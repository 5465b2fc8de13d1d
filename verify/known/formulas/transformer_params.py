"""Parameters of a GPT-style decoder: 12h² + 13h per layer, plus embeddings.

    python -c "from verify.known.formulas.transformer_params import *; print(layer_params(h=768))"

A layer (pre- or post-LayerNorm, biases on): QKV 3h² + 3h, output projection h² + h, MLP 4h² + 4h and
4h² + h, two LayerNorms 2h each = 12h² + 13h. The model adds token embeddings Vh (the LM head tied to
them), learned positions (ctx)·h and a final LayerNorm 2h (GPT-2: 124,439,808 at h = 768, L = 12,
V = 50,257, ctx = 1,024). A LLaMA-style layer has no biases, RMSNorm (h each) and a SwiGLU MLP of width f:
4h² + 3hf + 2h. Sources: Radford et al. (GPT-2); Narayanan et al. (SC'21) appendix; Touvron et al. (LLaMA).
"""

from __future__ import annotations

from typing import Any


def layer_params(*, h: Any) -> Any:
    """One GPT layer: 12h² + 13h."""
    return 12 * h**2 + 13 * h


def layer_part_params(*, h: Any, part: str) -> Any:
    """One part of a GPT layer (biases included unless the part is a weight matrix set)."""
    parts = {"qkv": 3 * h**2 + 3 * h, "attn_out": h**2 + h, "mlp_up": 4 * h**2 + 4 * h, "mlp_down": 4 * h**2 + h,
             "norms": 4 * h, "attn_weights": 4 * h**2, "mlp_weights": 8 * h**2}
    return parts[part]


def matmul_params(*, h: Any, layers: Any, vocab: Any) -> Any:
    """Weights that take part in matrix multiplies: 12h² per layer and the (tied) LM head Vh."""
    return 12 * layers * h**2 + vocab * h


def decoder_params(*, h: Any, layers: Any, vocab: Any, ctx: Any) -> Any:
    """L(12h² + 13h) + Vh (tied embedding / LM head) + (ctx)·h (learned positions) + 2h (final LayerNorm)."""
    return layers * layer_params(h=h) + vocab * h + ctx * h + 2 * h


def llama_layer_params(*, h: Any, f: Any) -> Any:
    """A LLaMA layer: q, k, v, o (4h²), SwiGLU gate, up and down (3hf), two RMSNorms (2h); no biases."""
    return 4 * h**2 + 3 * h * f + 2 * h


def llama_params(*, h: Any, f: Any, layers: Any, vocab: Any) -> Any:
    """L layers + untied embedding and LM head (2Vh) + the final RMSNorm (h)."""
    return layers * llama_layer_params(h=h, f=f) + 2 * vocab * h + h
