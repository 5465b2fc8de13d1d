"""Ring vs tree all-reduce under the α-β model (latency α per step, bandwidth β bytes/s).

    python -c "from verify.known.formulas.tree_allreduce import *; print(crossover_bytes(n=64, alpha=5e-6, beta=25e9))"

Sources: Thakur, Rabenseifner & Gropp (IJHPCA 2005); Sanders, Speck & Träff, "Two-tree algorithms for full
bandwidth broadcast, reduction and scan" (Parallel Computing 2009), which NCCL's double binary tree follows
(NCCL 2.4). Ring: 2(N−1) steps, 2(N−1)/N·M bytes per rank (``collectives.ring_time``). Binomial tree (reduce
to a root, then broadcast), unpipelined: 2⌈log₂N⌉ rounds of the whole message. Double binary tree, pipelined:
each rank sends 2M in all (M/2 up + M down in the tree where it is inner, M/2 up where it is a leaf),
≈ 2⌈log₂N⌉ latency terms. ``verify.measure.sim.tree`` runs the binomial tree step by step. Numbers or sympy
symbols alike.
"""

from __future__ import annotations

from typing import Any

from verify.known.formulas.symbolic import ceil_log2


def binomial_tree_rounds(*, n: Any) -> Any:
    """Reduce then broadcast over a binomial tree: 2⌈log₂N⌉ rounds."""
    return 2 * ceil_log2(n)


def binomial_tree_max_send(*, n: Any, m: Any) -> Any:
    """Most elements one rank sends, unpipelined: the root forwards the whole message in each of the broadcast's
    ⌈log₂N⌉ rounds, ⌈log₂N⌉·M."""
    return ceil_log2(n) * m


def binomial_tree_time(*, n: Any, m_bytes: Any, alpha: Any, beta: Any) -> Any:
    """Unpipelined: every round moves the whole message, 2⌈log₂N⌉(α + M/β)."""
    return binomial_tree_rounds(n=n) * (alpha + m_bytes / beta)


def double_tree_time(*, n: Any, m_bytes: Any, alpha: Any, beta: Any) -> Any:
    """Pipelined double binary tree (the NCCL model): 2⌈log₂N⌉α + 2M/β."""
    return binomial_tree_rounds(n=n) * alpha + 2 * m_bytes / beta


def crossover_bytes(*, n: Any, alpha: Any, beta: Any) -> Any:
    """Message size where ring and double tree take equal time: M* = N·α·β·((N − 1) − ⌈log₂N⌉);
    below it the tree is faster (latency), above it the ring (bandwidth)."""
    return n * alpha * beta * ((n - 1) - ceil_log2(n))
