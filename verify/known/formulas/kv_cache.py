"""KV cache bytes: 2 (K and V) · layers · KV heads · head dim · bytes per element, per token.

python -c "from verify.known.formulas.kv_cache import *; \
print(bytes_per_token(layers=80, kv_heads=8, head_dim=128, elem=2))"

Multi-head attention keeps a KV head per query head (g = a); grouped-query attention shares one KV head
among a/g query heads; multi-query attention keeps one (g = 1). Per sequence: × tokens; per batch: × b.
Sources: Shazeer (2019) for MQA; Ainslie et al. (2023) for GQA; Pope et al. (2022) for the inference costs.
"""

from __future__ import annotations

from typing import Any


def kv_heads(*, attn: str, a: Any, g: Any) -> Any:
    """KV heads per layer: a (MHA), g (GQA), 1 (MQA)."""
    return {"mha": a, "gqa": g, "mqa": 1}[attn]


def bytes_per_token(*, layers: Any, kv_heads: Any, head_dim: Any, elem: Any) -> Any:
    """2 · L · g · d · e."""
    return 2 * layers * kv_heads * head_dim * elem


def cache_bytes(*, layers: Any, kv_heads: Any, head_dim: Any, elem: Any, tokens: Any, batch: Any) -> Any:
    """The whole cache of ``batch`` sequences of ``tokens`` tokens."""
    return bytes_per_token(layers=layers, kv_heads=kv_heads, head_dim=head_dim, elem=elem) * tokens * batch
