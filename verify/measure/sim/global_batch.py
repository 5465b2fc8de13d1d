"""Data-parallel training with gradient accumulation, run micro-batch by micro-batch: which samples' gradients
reach each optimizer step.

    python -c "from verify.measure.sim.global_batch import run; print(run(b=4, k=8, d=2).samples_per_step)"

Each of d ranks reads its own shard of a stream of sample ids (rank r takes every d-th, as
``DistributedSampler`` does), in micro-batches of b. A micro-batch's backward adds its samples to the rank's
gradient buffer; after k micro-batches the ranks all-reduce their buffers (the union: every rank then holds
the same gradient) and step the optimizer, which records the samples it was given and clears the buffers
(``zero_grad``). The number of distinct samples per step is counted; no product of b, k and d is in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class BatchRun:
    samples_per_step: int  # distinct samples whose gradient reached each optimizer step (the same every step)
    steps: int
    steps_agree: bool  # every rank stepped on the same gradient


@cache
def run(*, b: int, k: int, d: int, steps: int = 3, accumulate: bool = True, all_reduce: bool = True) -> BatchRun:
    """``steps`` optimizer steps. ``accumulate=False`` clears a rank's buffer after every micro-batch and
    ``all_reduce=False`` steps each rank on its own buffer (the mutation tests break the process so)."""
    stream = iter(range(10**12))
    shards: list[list[int]] = [[] for _ in range(d)]
    buffers: list[set[int]] = [set() for _ in range(d)]
    taken: list[set[int]] = []
    agree = True
    micro = 0
    while len(taken) < steps:
        for rank in range(d):  # each rank draws b samples of its shard for this micro-batch
            while len(shards[rank]) < b:
                sample = next(stream)
                shards[sample % d].append(sample)
            batch, shards[rank] = shards[rank][:b], shards[rank][b:]
            if not accumulate:
                buffers[rank].clear()
            buffers[rank].update(batch)  # backward: the micro-batch's gradient added to the buffer
        micro += 1
        if micro % k:
            continue
        if all_reduce:
            union = set().union(*buffers)
            buffers = [set(union) for _ in range(d)]
        agree = agree and all(buf == buffers[0] for buf in buffers)
        taken.append(set(buffers[0]))  # the optimizer steps on rank 0's gradient
        buffers = [set() for _ in range(d)]  # zero_grad
    sizes = {len(t) for t in taken}
    return BatchRun(samples_per_step=sizes.pop() if len(sizes) == 1 else -1, steps=len(taken), steps_agree=agree)
