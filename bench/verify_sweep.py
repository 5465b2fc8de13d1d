"""Time the verify sweep: wall time, and each stage's step time, our reference next to PyTorch's.

    OMP_NUM_THREADS=1 python bench/verify_sweep.py [--world-sizes 2,4] [--params 1000000] [--timed-steps 5]

Pairs: ddp ↔ DistributedDataParallel, zero1 ↔ ZeroRedundancyOptimizer, zero2 ↔ FSDP2
(reshard_after_forward=False), zero3 ↔ FSDP2 (reshard_after_forward=True). Ratio = reference / PyTorch
(> 1: ours is slower). CPU, Gloo, one fork launch per N; the aim is the whole sweep under 30 s here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verify.cli import run_verify

PAIRS = {"ddp": "torch-ddp", "zero1": "torch-zero-redundancy", "zero2": "torch-fsdp2-no-reshard",
         "zero3": "torch-fsdp2-reshard"}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--world-sizes", default="2,4")
    p.add_argument("--params", type=int, default=1_000_000)
    p.add_argument("--timed-steps", type=int, default=5)
    a = p.parse_args()
    sizes = tuple(int(s) for s in a.world_sizes.split(","))
    t0 = time.perf_counter()
    report = run_verify(world_sizes=sizes, params=a.params, timed_steps=a.timed_steps)
    wall = time.perf_counter() - t0
    env = report["environment"]
    print(f"sweep: Ψ = {env['psi']:,}, N ∈ {list(sizes)}, {len(report['runs'])} runs, "
          f"{len(report['claims'])} claims; wall {wall:.1f} s (ranks {env['sweep_wall_s']:.1f} s)")
    step = {(r["impl"], r["stage"], r["world_size"]): r["step_time_s"] for r in report["runs"]}
    print(f"{'N':>2} {'stage':<6} {'reference ms':>13} {'pytorch ms':>11} {'ratio':>6}  pytorch impl")
    for n in sizes:
        for stage, impl in PAIRS.items():
            ours, theirs = step[("reference", stage, n)], step[(impl, stage, n)]
            print(f"{n:>2} {stage:<6} {ours * 1e3:>13.1f} {theirs * 1e3:>11.1f} {ours / theirs:>6.2f}"
                  f"  {impl}")


if __name__ == "__main__":
    main()
