"""Pipeline schedules executed op by op: GPipe, 1F1B and interleaved 1F1B on p devices, m micro-batches.

    python -c "from verify.measure.sim.pipeline import simulate; print(simulate('1f1b', p=4, m=8).makespan)"

The model is cut into p·v stages; device d runs stages d, d + p, ... (v = 1 unless interleaved). Each
device runs its own list of ops in order: ("F", s, i) is micro-batch i's forward through stage s,
("B", s, i) its backward. F(s, i) waits for F(s−1, i); B(s, i) waits for B(s+1, i) (the last stage's B
waits for its own F). An op starts when its device is free and its input has arrived (no transfer
time) and lasts t_f/v or t_b/v. A micro-batch's activations are held on a device from the start of
each of its forwards there to the end of the matching backward.
"""

from __future__ import annotations

from dataclasses import dataclass

Op = tuple[str, int, int]  # (kind, stage, micro-batch)


@dataclass(frozen=True)
class PipelineRun:
    makespan: float
    busy: list[float]  # compute time per device
    peak_in_flight: list[int]  # per device: forwards started whose backward has not finished
    timeline: list[list[tuple[Op, float, float]]]  # per device: (op, start, end)

    @property
    def bubble_fraction(self) -> float:
        """Idle share of all device-time: 1 − Σ busy / (p · makespan)."""
        return 1 - sum(self.busy) / (len(self.busy) * self.makespan)

    @property
    def bubble_over_ideal(self) -> float:
        """Idle device-time over busy device-time."""
        return (len(self.busy) * self.makespan - sum(self.busy)) / sum(self.busy)


def gpipe_order(p: int, m: int, device: int, v: int = 1) -> list[Op]:
    """All forwards, then all backwards."""
    return [("F", device, i) for i in range(m)] + [("B", device, i) for i in range(m)]


def one_f_one_b_order(p: int, m: int, device: int, v: int = 1) -> list[Op]:
    """Warm-up of min(p − device − 1, m) forwards, then alternate one forward / one backward, then drain."""
    return _interleave(
        [("F", device, i) for i in range(m)], [("B", device, i) for i in range(m)], min(p - device - 1, m)
    )


def interleaved_order(p: int, m: int, device: int, v: int = 2) -> list[Op]:
    """Megatron's interleaved 1F1B: micro-batches in groups of p, each group through the device's v stages
    in turn (backwards in reverse stage order); warm-up (p − device − 1)·2 + (v − 1)·p forwards."""
    if m % p:
        raise ValueError(f"interleaving needs m ({m}) to be a multiple of p ({p})")
    fwd: list[Op] = []
    bwd: list[Op] = []
    for g in range(m // p):
        for k in range(v):
            fwd += [("F", k * p + device, g * p + i) for i in range(p)]
        for k in reversed(range(v)):
            bwd += [("B", k * p + device, g * p + i) for i in range(p)]
    return _interleave(fwd, bwd, min((p - device - 1) * 2 + (v - 1) * p, m * v))


def _interleave(fwd: list[Op], bwd: list[Op], warm: int) -> list[Op]:
    ops = fwd[:warm]
    for f, b in zip(fwd[warm:], bwd, strict=False):
        ops += [f, b]
    return ops + bwd[len(fwd) - warm :]


ORDERS = {"gpipe": gpipe_order, "1f1b": one_f_one_b_order, "interleaved": interleaved_order}


def simulate(schedule: str, *, p: int, m: int, t_f: float = 1.0, t_b: float = 2.0, v: int = 1) -> PipelineRun:
    """Run the schedule to completion; raises if it deadlocks."""
    if schedule == "interleaved" and v < 2:
        raise ValueError("the interleaved schedule needs v >= 2 stages per device")
    stages = p * v
    orders = [ORDERS[schedule](p, m, d, v) for d in range(p)]
    done: dict[Op, float] = {}  # op -> end time
    pos, free = [0] * p, [0.0] * p
    timeline: list[list[tuple[Op, float, float]]] = [[] for _ in range(p)]
    while any(pos[d] < len(orders[d]) for d in range(p)):
        progressed = False
        for d in range(p):
            if pos[d] == len(orders[d]):
                continue
            op = orders[d][pos[d]]
            kind, s, i = op
            if kind == "F":
                dep: Op | None = ("F", s - 1, i) if s > 0 else None
            else:
                dep = ("B", s + 1, i) if s < stages - 1 else ("F", s, i)
            if dep is not None and dep not in done:
                continue
            start = max(free[d], done[dep] if dep is not None else 0.0)
            end = start + (t_f if kind == "F" else t_b) / v
            done[op] = free[d] = end
            timeline[d].append((op, start, end))
            pos[d] += 1
            progressed = True
        if not progressed:
            raise RuntimeError(f"schedule {schedule!r} deadlocks at positions {pos}")
    peaks = []
    for d in range(p):
        held = peak = 0
        for (kind, _s, _i), _start, _end in timeline[d]:
            held += 1 if kind == "F" else -1
            peak = max(peak, held)
        peaks.append(peak)
    busy = [sum(e - b for _op, b, e in timeline[d]) for d in range(p)]
    return PipelineRun(makespan=max(free), busy=busy, peak_in_flight=peaks, timeline=timeline)
