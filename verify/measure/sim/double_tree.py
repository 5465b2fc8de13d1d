"""NCCL's double binary tree all-reduce executed round by round on N simulated ranks.

    python -c "from verify.measure.sim.double_tree import double_tree_allreduce as d; print(d([[1.0, 2.0]] * 8))"

The trees are NCCL's (``src/graph/trees.cc``, NCCL ≥ 2.4, after Sanders, Speck and Träff 2009): the first is a
binary tree over the ranks in in-order numbering (rank 0 the root, with a single child: the highest power of two
below N; a rank whose lowest set bit is b has children r − b/2 and, when it exists, r + b/2 or the nearest in
range below it); the second is its mirror (r → N − 1 − r) for even N, or the first shifted by one rank for odd
N, so that a rank inner in one tree is a leaf in the other. Each tree carries half of the message: a reduce
to its root (a rank sends its partial sum up in the round after all its children have), then a broadcast down
(a rank sends the result to each child in the round after it got it). Both trees run at once. Counts the
rounds and the elements each rank sends, and checks the sums; no step count or volume formula is in it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DoubleTreeRun:
    result: list[list[float]]
    rounds: int  # reduce + broadcast rounds of the deeper tree (the trees run concurrently)
    sent: list[int]  # elements each rank sent, both trees and both phases
    parents: tuple[list[int], list[int]]  # each rank's parent in tree 0 and tree 1 (−1: the root)


def binary_tree_parents(n: int) -> list[int]:
    """Each rank's parent in NCCL's in-order binary tree over ranks 0..n−1 (−1 for the root, rank 0)."""
    parents = [-1] * n
    for r in range(1, n):
        low = r & -r  # the lowest set bit
        up = (r ^ low) | (low << 1)
        parents[r] = up if up < n else r ^ low
    return parents


def second_tree_parents(n: int) -> list[int]:
    """The second tree: the first mirrored (even n) or shifted by one rank (odd n)."""
    first = binary_tree_parents(n)
    if n % 2 == 0:
        return [-1 if first[n - 1 - r] == -1 else n - 1 - first[n - 1 - r] for r in range(n)]
    return [-1 if first[(r - 1) % n] == -1 else (first[(r - 1) % n] + 1) % n for r in range(n)]


def _height(parents: list[int]) -> list[int]:
    """Each rank's height: 0 for a leaf, else 1 + its highest child's (the round its partial sum is complete)."""
    n = len(parents)
    height = [0] * n
    for r in sorted(range(n), key=lambda x: -_depth(parents, x)):
        if parents[r] >= 0:
            height[parents[r]] = max(height[parents[r]], height[r] + 1)
    return height


def _depth(parents: list[int], r: int) -> int:
    d = 0
    while parents[r] >= 0:
        r, d = parents[r], d + 1
    return d


def _tree(parents: list[int], part: list[list[float]], sent: list[int]) -> tuple[list[list[float]], int]:
    """Reduce ``part`` (rank → its slice) over the tree, then broadcast the sum; the rounds both phases took."""
    n = len(parents)
    height = _height(parents)
    partial = [list(p) for p in part]
    top = max(height)
    for rnd in range(top):  # reduce: a rank of height h sends in round h, its partial sum complete by then
        for r in range(n):
            if parents[r] >= 0 and height[r] == rnd:
                up = parents[r]
                partial[up] = [a + b for a, b in zip(partial[up], partial[r], strict=True)]
                sent[r] += len(partial[r])
    root = parents.index(-1)
    have = {root: partial[root]}
    depth = [_depth(parents, r) for r in range(n)]
    for rnd in range(max(depth)):  # broadcast: a rank at depth d gets the sum in round d + 1
        for r in range(n):
            if depth[r] == rnd + 1:
                have[r] = list(have[parents[r]])
                sent[parents[r]] += len(have[r])
    return [have[r] for r in range(n)], top + max(depth)


def double_tree_allreduce(data: list[list[float]], mirrored: bool = True) -> DoubleTreeRun:
    """All-reduce ``data[r]`` over NCCL's two trees, the first half of the message on tree 0, the rest on tree 1.
    ``mirrored=False`` runs both halves on the first tree (a single binary tree: the mutation tests use it)."""
    n, m = len(data), len(data[0])
    trees = (binary_tree_parents(n), second_tree_parents(n) if mirrored else binary_tree_parents(n))
    half = (m + 1) // 2
    sent = [0] * n
    low, low_rounds = _tree(trees[0], [row[:half] for row in data], sent)
    high, high_rounds = _tree(trees[1], [row[half:] for row in data], sent)
    return DoubleTreeRun([a + b for a, b in zip(low, high, strict=True)], max(low_rounds, high_rounds), sent, trees)
