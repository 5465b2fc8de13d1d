"""Pipeline schedules executed op by op: GPipe and 1F1B on p stages with m micro-batches.

    python -c "from verify.sim.pipeline import simulate; print(simulate('1f1b', p=4, m=8).makespan)"

Each stage runs its own list of ops in order: ("F", i) is micro-batch i's forward, ("B", i) its
backward. F(s, i) waits for F(s−1, i); B(s, i) waits for B(s+1, i) (the last stage's B waits for its own
F). An op starts when its stage is free and its input has arrived (no transfer time). A micro-batch's
activations are held on a stage from the start of its F to the end of its B.
"""

from __future__ import annotations

from dataclasses import dataclass

Op = tuple[str, int]


@dataclass(frozen=True)
class PipelineRun:
    makespan: float
    busy: list[float]  # compute time per stage
    peak_in_flight: list[int]  # per stage
    timeline: list[list[tuple[Op, float, float]]]  # per stage: (op, start, end)

    @property
    def bubble_fraction(self) -> float:
        """Idle share of all stage-time: 1 − Σ busy / (p · makespan)."""
        return 1 - sum(self.busy) / (len(self.busy) * self.makespan)


def gpipe_order(p: int, m: int, stage: int) -> list[Op]:
    """All forwards, then all backwards."""
    return [("F", i) for i in range(m)] + [("B", i) for i in range(m)]


def one_f_one_b_order(p: int, m: int, stage: int) -> list[Op]:
    """Warm-up of min(p − stage − 1, m) forwards, then alternate one forward / one backward, then drain."""
    warm = min(p - stage - 1, m)
    ops: list[Op] = [("F", i) for i in range(warm)]
    for i in range(m - warm):
        ops += [("F", warm + i), ("B", i)]
    ops += [("B", i) for i in range(m - warm, m)]
    return ops


ORDERS = {"gpipe": gpipe_order, "1f1b": one_f_one_b_order}


def simulate(schedule: str, *, p: int, m: int, t_f: float = 1.0, t_b: float = 2.0) -> PipelineRun:
    """Run the schedule to completion; raises if it deadlocks."""
    orders = [ORDERS[schedule](p, m, s) for s in range(p)]
    done: dict[tuple[str, int, int], float] = {}  # (kind, stage, micro-batch) -> end time
    pos, free = [0] * p, [0.0] * p
    timeline: list[list[tuple[Op, float, float]]] = [[] for _ in range(p)]
    while any(pos[s] < len(orders[s]) for s in range(p)):
        progressed = False
        for s in range(p):
            if pos[s] == len(orders[s]):
                continue
            kind, i = orders[s][pos[s]]
            if kind == "F":
                dep = ("F", s - 1, i) if s > 0 else None
            else:
                dep = ("B", s + 1, i) if s < p - 1 else ("F", s, i)
            if dep is not None and dep not in done:
                continue
            start = max(free[s], done[dep] if dep is not None else 0.0)
            end = start + (t_f if kind == "F" else t_b)
            done[(kind, s, i)] = end
            free[s] = end
            timeline[s].append(((kind, i), start, end))
            pos[s] += 1
            progressed = True
        if not progressed:
            raise RuntimeError(f"schedule {schedule!r} deadlocks at positions {pos}")
    peaks = []
    for s in range(p):
        held = peak = 0
        for (kind, _i), _start, _end in timeline[s]:
            held += 1 if kind == "F" else -1
            peak = max(peak, held)
        peaks.append(peak)
    busy = [sum(e - b for _op, b, e in timeline[s]) for s in range(p)]
    return PipelineRun(makespan=max(free), busy=busy, peak_in_flight=peaks, timeline=timeline)
