"""Ring vs tree all-reduce under the α-β model (latency α per step, bandwidth β bytes/s).

    python -c "from verify.known.formulas.tree_allreduce import *; print(crossover_bytes(n=64, alpha=5e-6, beta=25e9))"

Sources: Thakur, Rabenseifner & Gropp (IJHPCA 2005); Sanders, Speck & Träff, "Two-tree algorithms for full
bandwidth broadcast, reduction and scan" (Parallel Computing 2009), which NCCL's double binary tree follows
(NCCL 2.4). Ring: 2(N−1) steps, 2(N−1)/N·M bytes per rank. Binomial tree (reduce to a root, then broadcast),
unpipelined: 2⌈log₂N⌉ rounds of the whole message. Double binary tree, pipelined: each rank sends 2M in all
(M/2 up + M down in the tree where it is inner, M/2 up where it is a leaf), ≈ 2⌈log₂N⌉ latency terms.
``verify.measure.sim.tree`` runs the binomial tree step by step.
"""

from __future__ import annotations

import math


def binomial_tree_rounds(*, n: int) -> int:
    """Reduce then broadcast over a binomial tree: 2⌈log₂N⌉ rounds."""
    return 2 * math.ceil(math.log2(n)) if n > 1 else 0


def binomial_tree_time(*, n: int, m_bytes: float, alpha: float, beta: float) -> float:
    """Unpipelined: every round moves the whole message, 2⌈log₂N⌉(α + M/β)."""
    return binomial_tree_rounds(n=n) * (alpha + m_bytes / beta)


def double_tree_time(*, n: int, m_bytes: float, alpha: float, beta: float) -> float:
    """Pipelined double binary tree (the NCCL model): 2⌈log₂N⌉α + 2M/β."""
    return binomial_tree_rounds(n=n) * alpha + 2 * m_bytes / beta


def ring_time(*, n: int, m_bytes: float, alpha: float, beta: float) -> float:
    """Ring: 2(N−1)α + 2(N−1)/N·M/β."""
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * m_bytes / beta


def crossover_bytes(*, n: int, alpha: float, beta: float) -> float:
    """Message size where ring and double tree take equal time: M* = N·α·β·((N − 1) − ⌈log₂N⌉);
    below it the tree is faster (latency), above it the ring (bandwidth)."""
    return n * alpha * beta * ((n - 1) - binomial_tree_rounds(n=n) / 2)
