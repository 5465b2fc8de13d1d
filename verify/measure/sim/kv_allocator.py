"""KV-cache allocators run request by request: contiguous reservation of L_max slots vs fixed-size blocks.

    python -c "from verify.measure.sim.kv_allocator import run; print(run(block=16, l_max=1024))"

Requests with lengths uniform on 1..L_max (seeded) arrive and decode one token per step in a continuous batch of
``slots`` sequences; a finished sequence frees its memory and the next request takes its place. The paged
allocator hands out blocks of ``block`` token slots from a free list when a sequence's last block is full (as
vLLM does); the contiguous one reserves L_max slots at admission. At each sequence's end the allocator's slots
for it are compared with its tokens. A static batch of the same requests runs until its longest member ends.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class AllocRun:
    paged_waste_mean: float  # unused slots of a sequence's blocks at its end, mean over sequences
    paged_waste_max: int
    paged_waste_fraction: float  # unused / allocated slots, summed over sequences at their end
    contiguous_waste_fraction: float
    peak_blocks_in_use: int
    blocks_leaked: int  # blocks still allocated after every request finished (must be 0)


class PagedAllocator:
    def __init__(self, total_blocks: int, block: int) -> None:
        self.block = block
        self.free = list(range(total_blocks))
        self.tables: dict[int, list[int]] = {}
        self.lengths: dict[int, int] = {}

    def append(self, seq: int) -> None:
        """One more token for ``seq``: a new block only when its last one is full."""
        n = self.lengths.get(seq, 0)
        if n % self.block == 0:
            if not self.free:
                raise MemoryError("out of KV blocks")
            self.tables.setdefault(seq, []).append(self.free.pop())
        self.lengths[seq] = n + 1

    def slots(self, seq: int) -> int:
        return len(self.tables.get(seq, [])) * self.block

    def release(self, seq: int) -> None:
        self.free.extend(self.tables.pop(seq, []))
        self.lengths.pop(seq, None)


@lru_cache(maxsize=32)
def run(*, block: int, l_max: int, requests: int | None = None, slots: int = 32, seed: int = 0) -> AllocRun:
    """``requests`` defaults to 2,000, fewer for long sequences (about 600,000 decode steps in all)."""
    rng = random.Random(seed)
    requests = requests or min(2000, max(300, 600_000 // l_max))
    lengths = [rng.randint(1, l_max) for _ in range(requests)]
    total_blocks = slots * (-(-l_max // block))
    alloc = PagedAllocator(total_blocks, block)
    pending = list(enumerate(lengths))[::-1]
    active: dict[int, int] = {}
    waste: list[int] = []
    allocated = used = 0
    peak = 0
    while pending or active:
        while pending and len(active) < slots:
            seq, n = pending.pop()
            active[seq] = n
        for seq in list(active):
            alloc.append(seq)
            if alloc.lengths[seq] == active[seq]:
                got = alloc.slots(seq)
                waste.append(got - active[seq])
                allocated += got
                used += active[seq]
                alloc.release(seq)
                del active[seq]
        peak = max(peak, total_blocks - len(alloc.free))
    more = [rng.randint(1, l_max) for _ in range(20_000)]  # reservation waste depends on lengths only
    contiguous = 1 - sum(more) / (len(more) * l_max)
    return AllocRun(sum(waste) / len(waste), max(waste), 1 - used / allocated, contiguous, peak,
                    total_blocks - len(alloc.free))


@lru_cache(maxsize=32)
def static_utilization(*, batch: int, l_max: int = 4096, batches: int = 4000, seed: int = 1) -> float:
    """Busy slot-steps over all slot-steps when each batch runs until its longest request ends."""
    rng = random.Random(seed)
    busy = total = 0
    for _ in range(batches):
        ls = [rng.randint(1, l_max) for _ in range(batch)]
        busy += sum(ls)
        total += batch * max(ls)
    return busy / total
