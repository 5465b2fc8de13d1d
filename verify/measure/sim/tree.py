"""A binomial-tree all-reduce (reduce to rank 0, then broadcast) executed round by round on N simulated ranks.

    python -c "from verify.measure.sim.tree import tree_allreduce; print(tree_allreduce([[1.0], [2.0], [3.0]]).rounds)"

Reduce: in round j (j = 0, 1, …) every rank r with r mod 2^(j+1) = 2^j sends its partial sum to r − 2^j.
Broadcast: the same pairs in reverse order, the lower rank sending the result. Every round moves the whole
message. Counts rounds and the elements each rank sends, and keeps each round's largest message (reduce rounds,
then broadcast rounds) so a cost model can time the schedule (``verify.measure.sim.timing``); checks the sums.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TreeRun:
    result: list[list[float]]
    rounds: int
    sent: list[int]  # elements each rank sent
    round_messages: dict[str, list[int]]  # "reduce" / "broadcast": the largest message (elements) of each round


def tree_allreduce(data: list[list[float]]) -> TreeRun:
    n = len(data)
    vals = [list(row) for row in data]
    sent = [0] * n
    rounds = 0
    span = 1
    spans = []
    messages: dict[str, list[int]] = {"reduce": [], "broadcast": []}
    while span < n:
        spans.append(span)
        largest = 0
        for r in range(n):
            if r % (2 * span) == span:
                dst = r - span
                vals[dst] = [a + b for a, b in zip(vals[dst], vals[r], strict=True)]
                sent[r] += len(vals[r])
                largest = max(largest, len(vals[r]))
        rounds += 1
        span *= 2
        messages["reduce"].append(largest)
    for span in reversed(spans):
        largest = 0
        for r in range(n):
            if r % (2 * span) == span:
                vals[r] = list(vals[r - span])
                sent[r - span] += len(vals[r])
                largest = max(largest, len(vals[r]))
        rounds += 1
        messages["broadcast"].append(largest)
    return TreeRun(vals, rounds, sent, messages)
