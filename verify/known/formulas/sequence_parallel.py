"""Context (sequence) parallelism: ring attention and DeepSpeed-Ulysses, per rank and attention layer.

    python -c "from verify.known.formulas.sequence_parallel import *; \
        print(ring_attention_send(b=1, s=8192, h=4096, n=8))"

Sources: Liu, Zaharia & Abbeel, "Ring Attention with Blockwise Transformers" (2023); Jacobs et al.,
"DeepSpeed Ulysses" (2023). The sequence of length s is split into N chunks. Ring attention: N − 1 steps, each
passing a K and a V block of b·(s/N)·h elements to the next rank while computing on the current one.
Ulysses: all-to-alls re-shard Q, K, V from sequence to heads and the output back (4 per layer).
``verify.measure.experiments.ring_attention`` runs both on Gloo ranks.
"""

from __future__ import annotations


def ring_attention_steps(*, n: int) -> int:
    """Communication steps of one ring-attention forward: N − 1."""
    return n - 1


def ring_attention_send(*, b: int, s: int, h: int, n: int) -> float:
    """Elements one rank sends in one forward: (N − 1) steps × (K + V) blocks of b·(s/N)·h = 2(N−1)bsh/N."""
    return 2 * (n - 1) * b * s * h / n


def ulysses_send(*, b: int, s: int, h: int, n: int) -> float:
    """Elements one rank sends in one forward: 4 all-to-alls of its b·(s/N)·h shard, (N−1)/N of it leaving:
    4bsh(N−1)/N²."""
    return 4 * b * s * h * (n - 1) / n**2
