"""A ring all-reduce executed step by step on N simulated ranks, counting every element sent.

    python -c "from verify.measure.sim.ring import ring_allreduce; print(ring_allreduce([[1,2],[3,4]]).sent)"

Rank r sends only to rank r+1 (mod N). Reduce-scatter: in step t rank r sends its partial sum of chunk
(r − t) mod N, which r+1 adds in; after N−1 steps rank r owns the full sum of chunk (r + 1) mod N.
All-gather: in step t rank r forwards chunk (r + 1 − t) mod N, which r+1 stores. All sends of a step
read the state before the step (the ranks run in lockstep). Each step's largest message is kept, so a cost
model can time the schedule step by step (``verify.measure.sim.timing``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RingRun:
    result: list[list[float]]  # every rank's tensor afterwards
    sent: list[int]  # elements each rank sent
    sent_by_phase: dict[str, list[int]]
    steps: dict[str, int]  # steps per phase
    step_messages: dict[str, list[int]]  # per phase, the largest message (elements) any rank sent in each step


def _chunks(m: int, n: int) -> list[range]:
    size = -(-m // n)
    return [range(min(i * size, m), min((i + 1) * size, m)) for i in range(n)]


def ring_allreduce(data: list[list[float]]) -> RingRun:
    """Run a ring all-reduce over ``data[r]`` (rank r's tensor, all the same length)."""
    n, m = len(data), len(data[0])
    if any(len(d) != m for d in data):
        raise ValueError("every rank's tensor must have the same length")
    buf = [list(map(float, d)) for d in data]
    chunks = _chunks(m, n)
    sent = {"reduce_scatter": [0] * n, "all_gather": [0] * n}
    steps = {"reduce_scatter": 0, "all_gather": 0}
    step_messages: dict[str, list[int]] = {"reduce_scatter": [], "all_gather": []}
    for phase in ("reduce_scatter", "all_gather"):
        for t in range(n - 1):
            msgs: list[tuple[int, int, list[float]]] = []
            for r in range(n):
                c = (r - t) % n if phase == "reduce_scatter" else (r + 1 - t) % n
                msgs.append(((r + 1) % n, c, [buf[r][i] for i in chunks[c]]))
                sent[phase][r] += len(chunks[c])
            for dst, c, values in msgs:
                for i, val in zip(chunks[c], values, strict=True):
                    buf[dst][i] = buf[dst][i] + val if phase == "reduce_scatter" else val
            steps[phase] += 1
            step_messages[phase].append(max(len(values) for _, _, values in msgs))
    total = [a + b for a, b in zip(sent["reduce_scatter"], sent["all_gather"], strict=True)]
    return RingRun(result=buf, sent=total, sent_by_phase=sent, steps=steps, step_messages=step_messages)
