"""Many two-rank Gloo launches of a trivial function at once: how often does a launch fail to join?

    OMP_NUM_THREADS=1 .venv/bin/python scripts/stress_launches.py [--procs 6] [--launches 80] [--root DIR]

Starts ``--procs`` processes, each making ``--launches`` launches one after the other, and prints the failed
launches per process and in all. ``--root`` picks the checkout whose ``verify/`` is used (another commit's
worktree, to compare). It reproduces the ninth session's flake: without the barrier after
``init_process_group`` (verify/measure/launch.py: ``join_group``) a few per cent of launches fail with "Gloo
connectFullMesh failed ... Connection closed by peer".
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
import torch.distributed as dist
from verify.measure.launch import launch

def rank() -> int:
    return dist.get_rank()

failed = 0
for _ in range(int(sys.argv[2])):
    try:
        assert launch(rank, 2, timeout_s=60) == [0, 1]
    except Exception as e:
        failed += 1
        print("failed:", str(e).splitlines()[-1][:160], file=sys.stderr)
print(failed)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--procs", type=int, default=6)
    ap.add_argument("--launches", type=int, default=80, help="launches per process")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    a = ap.parse_args()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(a.root.resolve()), str(a.launches)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
             for _ in range(a.procs)]
    counts = []
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            print(f"a stress process exited with {p.returncode}", file=sys.stderr)
            return 1
        counts.append(int(out.split()[-1]))
    total = a.procs * a.launches
    print(f"{a.root}: {sum(counts)} of {total} launches failed ({100 * sum(counts) / total:.1f} %), "
          f"per process {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
