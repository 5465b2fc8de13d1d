"""Time the whole default verify sweep, as a user runs it, next to a bare torch.distributed all-reduce loop.

    OMP_NUM_THREADS=1 python bench/verify_sweep.py [--world-sizes 2,4] [--params 1000000] [--repeats 3]
        [--compare-ref main]     # also time the sweep of another git ref, in the same rounds

Each round, in fresh processes (nothing cached from an earlier round), one after the other:
- sweep: ``python -m verify --json FILE`` (interpreter start, imports, every card's claims judged, every
  reference stage with its ring step, PyTorch's implementations and the Gloo probe, one launch per N);
- ref (with ``--compare-ref``): the same command on the code of that git ref (``git archive``), so a change is
  measured against its own baseline on the same loaded machine;
- baseline: a process that imports torch and, through the same launcher, starts N ranks that all-reduce a
  Ψ-element bf16 tensor as many times as the sweep runs steps in total (variants × steps each).
Medians over the rounds are printed (this machine is shared and noisy), then where the sweep's wall time went
(``environment.timings_s`` of its report, medians) and each stage's step time, ours next to PyTorch's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PAIRS = {"ddp": "torch-ddp", "zero1": "torch-zero-redundancy", "zero2": "torch-fsdp2-no-reshard",
         "zero3": "torch-fsdp2-reshard"}


def _allreduce_loop(numel: int, iterations: int) -> float:
    import torch
    import torch.distributed as dist

    t = torch.ones(numel, dtype=torch.bfloat16)
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(iterations):
        dist.all_reduce(t)
    dist.barrier()
    return time.perf_counter() - t0


def run_baseline(sizes: tuple[int, ...], numel: int, iterations: int) -> None:
    """In its own process: import torch, then one launch per N of the bare all-reduce loop."""
    from verify.measure.launch import launch

    for n in sizes:
        launch(_allreduce_loop, n, args=(numel, iterations), timeout_s=600)


def _env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1", "VERIFY_QUIET": "1"}


def time_sweep(code: Path, args: list[str]) -> tuple[float, dict[str, Any]]:
    """Wall seconds of ``python -m verify`` run from ``code`` (its verify/ and cards/), and its report."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        env = {**_env(), "PYTHONPATH": str(code)}
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "verify", *args, "--cards", str(code / "cards"), "--json", str(out)],
                       cwd=code, env=env, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        return wall, json.loads(out.read_text())


def time_baseline(sizes: str, numel: int, iterations: int) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--baseline", sizes, str(numel), str(iterations)], env=_env(),
                   check=True)
    return time.perf_counter() - t0


def checkout(ref: str, into: Path) -> Path:
    """The tracked files of ``ref`` (of the repository in the working directory) in a folder (``git archive``)."""
    archive = subprocess.run(["git", "archive", ref], check=True, capture_output=True).stdout  # the repo of the cwd
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _fmt(xs: list[float]) -> str:
    return f"median {statistics.median(xs):6.1f} s   (runs: {', '.join(f'{x:.1f}' for x in xs)})"


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--baseline":
        from verify.cli import parse_world_sizes

        run_baseline(parse_world_sizes(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
        return
    p = argparse.ArgumentParser()
    p.add_argument("--world-sizes", default="2,4")
    p.add_argument("--params", type=int, default=1_000_000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--compare-ref", default=None, help="a git ref whose sweep is timed in the same rounds")
    a = p.parse_args()
    from verify.measure.model import layer_dims, layer_specs

    psi = sum(s.numel for s in layer_specs(layer_dims(a.params)))
    args = ["--world-sizes", a.world_sizes, "--params", str(a.params)]
    sweeps: list[float] = []
    refs: list[float] = []
    bases: list[float] = []
    reports: list[dict[str, Any]] = []
    iterations = 0
    with tempfile.TemporaryDirectory() as tmp:
        ref_code = checkout(a.compare_ref, Path(tmp)) if a.compare_ref else None
        for _ in range(a.repeats):
            wall, report = time_sweep(ROOT, args)
            sweeps.append(wall)
            reports.append(report)
            if ref_code is not None:
                refs.append(time_sweep(ref_code, args)[0])
            steps = max(r.get("steps") or 0 for r in report["runs"]) or 8
            iterations = len({(r["impl"], r["stage"]) for r in report["runs"]}) * steps
            bases.append(time_baseline(a.world_sizes, psi, iterations))
    report = reports[-1]
    env = report["environment"]
    base_s = statistics.median(bases)
    print(f"sweep: Ψ = {env['psi']:,}, N ∈ {env['world_sizes']}, {len(report['runs'])} runs, "
          f"{len(report['claims'])} claims, {a.repeats} rounds, fresh processes")
    print(f"  sweep (this code)   {_fmt(sweeps)}")
    if refs:
        print(f"  sweep ({a.compare_ref:<11}) {_fmt(refs)}")
    print(f"  all-reduce loop     {_fmt(bases)}   ({iterations} × all_reduce of {psi:,} bf16 per N)")
    print(f"  ratio sweep / all-reduce loop: {statistics.median(sweeps) / base_s:.1f}×"
          + (f"   {a.compare_ref} / all-reduce loop: {statistics.median(refs) / base_s:.1f}×"
             f"   this code / {a.compare_ref}: {statistics.median(sweeps) / statistics.median(refs):.2f}×"
             if refs else "") + "   aim: sweep ≤ 60 s")
    phases = [r["environment"].get("timings_s", {}) for r in reports]
    if phases and phases[0]:
        print("where the sweep's wall went (medians; the judged-ahead children run during the launches):")
        for k in phases[0]:
            print(f"  {k:<40} {statistics.median(ph.get(k, 0.0) for ph in phases):6.1f} s")
        inside = [w - r["environment"]["sweep_wall_s"] for w, r in zip(sweeps, reports, strict=True)]
        print(f"  {'start-up (interpreter, imports, cards)':<40} {statistics.median(inside):6.1f} s")
    step = {(r["impl"], r["stage"], r["world_size"]): r["step_time_s"] for r in report["runs"]}
    print(f"{'N':>2} {'stage':<6} {'reference ms':>13} {'pytorch ms':>11} {'ratio':>6}  pytorch impl")
    for n in env["world_sizes"]:
        for stage, impl in PAIRS.items():
            ours, theirs = step[("reference", stage, n)], step[(impl, stage, n)]
            print(f"{n:>2} {stage:<6} {ours * 1e3:>13.1f} {theirs * 1e3:>11.1f} {ours / theirs:>6.2f}  {impl}")


if __name__ == "__main__":
    main()
