"""Time the whole default verify sweep next to a bare torch.distributed all-reduce loop of the same size.

    OMP_NUM_THREADS=1 python bench/verify_sweep.py [--world-sizes 2,4] [--params 1000000] [--repeats 3]

Measured in the same run, alternating, ``--repeats`` times each (medians quoted, this machine is noisy):
- sweep: ``run_verify`` as ``python -m verify`` runs it: every card's claims judged, every reference stage
  (native step + ring step) and PyTorch's implementations, one fork launch per N;
- baseline: the same launcher starts N ranks that all-reduce a Ψ-element bf16 tensor as many times as the
  sweep runs steps in total (variants × steps each), so the ratio is what measuring and judging cost over
  moving the same bytes the same number of times.
Also prints each stage's step time, our reference next to PyTorch's (ratio > 1: ours is slower).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch
import torch.distributed as dist

from verify.cli import parse_world_sizes, run_verify
from verify.launch import launch
from verify.model import layer_dims, layer_specs

PAIRS = {"ddp": "torch-ddp", "zero1": "torch-zero-redundancy", "zero2": "torch-fsdp2-no-reshard",
         "zero3": "torch-fsdp2-reshard"}


def _allreduce_loop(numel: int, iterations: int) -> float:
    t = torch.ones(numel, dtype=torch.bfloat16)
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(iterations):
        dist.all_reduce(t)
    dist.barrier()
    return time.perf_counter() - t0


def baseline(sizes: tuple[int, ...], numel: int, iterations: int) -> float:
    """Wall seconds of a launch per N running the bare all-reduce loop (launch included, as in the sweep)."""
    t0 = time.perf_counter()
    for n in sizes:
        launch(_allreduce_loop, n, args=(numel, iterations), timeout_s=600)
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--world-sizes", default="2,4")
    p.add_argument("--params", type=int, default=1_000_000)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    sizes = parse_world_sizes(a.world_sizes)
    psi = sum(s.numel for s in layer_specs(layer_dims(a.params)))
    sweeps, bases, report = [], [], {}
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        report = run_verify(world_sizes=sizes, params=a.params)
        sweeps.append(time.perf_counter() - t0)
        steps = max(r.get("steps") or 0 for r in report["runs"]) or 8
        iterations = len({(r["impl"], r["stage"]) for r in report["runs"]}) * steps
        bases.append(baseline(sizes, psi, iterations))
    env = report["environment"]
    sweep_s, base_s = statistics.median(sweeps), statistics.median(bases)
    print(f"sweep: Ψ = {env['psi']:,}, N ∈ {list(sizes)}, {len(report['runs'])} runs, {len(report['claims'])} claims")
    print(f"  sweep wall     median {sweep_s:6.1f} s   (runs: {', '.join(f'{x:.1f}' for x in sweeps)})")
    print(f"  all-reduce loop median {base_s:5.1f} s   (runs: {', '.join(f'{x:.1f}' for x in bases)}; "
          f"{iterations} × all_reduce of {psi:,} bf16 per N)")
    print(f"  ratio sweep / all-reduce loop: {sweep_s / base_s:.1f}×   aim: sweep ≤ 60 s")
    step = {(r["impl"], r["stage"], r["world_size"]): r["step_time_s"] for r in report["runs"]}
    print(f"{'N':>2} {'stage':<6} {'reference ms':>13} {'pytorch ms':>11} {'ratio':>6}  pytorch impl")
    for n in sizes:
        for stage, impl in PAIRS.items():
            ours, theirs = step[("reference", stage, n)], step[(impl, stage, n)]
            print(f"{n:>2} {stage:<6} {ours * 1e3:>13.1f} {theirs * 1e3:>11.1f} {ours / theirs:>6.2f}  {impl}")


if __name__ == "__main__":
    main()
