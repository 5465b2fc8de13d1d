"""Repeat ZeRO-3's ring-pass peak with the "keep two gathered layers" mutation: is the reading ever low?

    OMP_NUM_THREADS=1 .venv/bin/python scripts/stress_zero3_peak.py [--launches 24] [--root DIR]
    stress-ng --cpu 4 &   # beside it, to load the machine as a busy CI run does

Each launch runs the two-rank sweep of tests/verify/test_mutations.py (``layer_dims(40_000)``, ZeRO-3 only)
with ``zero3.all_gather_layer`` keeping the previous gathered layer alive, and prints the ring pass's peak
samples next to the ring bound; the claim ``peak_over_bound(zero3) <= 1`` must be refuted by every launch.
``--root`` picks the checkout whose ``verify/`` is used (another commit's worktree, to compare). Before the
meter dropped frees of blocks the window did not allocate (verify/measure/meters/memory.py: ``window_sizes``), a
launch now and then read 4,292 or 8,580 B low and, once in a CI run, under the bound.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from verify.measure.launch import launch
from verify.measure.model import layer_dims
from verify.report.runs import build_runs
from verify.measure.stages import zero3
from verify.measure.sweep import SweepOptions, sweep_rank

kept = []
gather = zero3.all_gather_layer

def keep_previous(shard, world, coll):
    full = gather(shard, world, coll)
    kept[:] = [*kept[-1:], full]
    return full

zero3.all_gather_layer = keep_previous
dims = layer_dims(40_000)
opts = SweepOptions(dims=dims, variants=("zero3",), timed_steps=0, peak_samples=1)
for i in range(int(sys.argv[2])):
    ranks = launch(sweep_rank, 2, args=(opts,), timeout_s=120)
    run = build_runs({2: ranks}, dims, opts.batch_per_rank)[0]
    samples = [r[0]["ring"]["peak_transient_bytes_samples"] for r in ranks]
    bound = run["predicted"]["zero3_ring_bound_bytes"]
    print(i, run["measured"]["ring_peak_transient_bytes"], int(bound), str(samples).replace(" ", ""), flush=True)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--launches", type=int, default=24)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    a = ap.parse_args()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(a.root.resolve()), str(a.launches)],
                          capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        print(f"the launches exited with {proc.returncode}:\n{proc.stderr[-3000:]}", file=sys.stderr)
        return 1
    rows = [line.split(maxsplit=3) for line in proc.stdout.splitlines()]
    peaks = [int(r[1]) for r in rows]
    bound = int(rows[0][2])
    for r in rows:
        print(f"launch {r[0]:>3}: peak {int(r[1]):>7,} B  bound {int(r[2]):>7,} B  samples per rank {r[3]}")
    low = [p for p in peaks if p != max(peaks)]
    samples = [int(x) for r in rows for x in r[3].strip("[]").replace("[", "").replace("]", "").split(",")]
    missed = sum(p <= bound for p in peaks)
    print(f"{a.root}: {len(peaks)} launches, peak min {min(peaks):,} / max {max(peaks):,} B, "
          f"{len(low)} below the highest; {sum(x < max(peaks) for x in samples)} of {len(samples)} pass samples "
          f"below it; {missed} within the bound {bound:,} B (refutation missed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
