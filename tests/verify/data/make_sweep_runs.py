"""Regenerate ``sweep_runs.json``, the stored sweep the fast verify tests judge (mutations, backends, claims).

    OMP_NUM_THREADS=1 .venv/bin/python tests/verify/data/make_sweep_runs.py

A real run of this code: reference + PyTorch implementations, Gloo, N = 2 and 4, the tests' model
(``tests/verify/conftest.py``'s SWEEP_PARAMS); only the environment and the runs are kept (the tests judge
the claims themselves). Run it again whenever what a run records changes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

OUT = Path(__file__).with_name("sweep_runs.json")


def main() -> None:
    from tests.verify.conftest import CARDS, SWEEP_PARAMS
    from verify.cli import run_verify

    report = run_verify(world_sizes=(2, 4), params=SWEEP_PARAMS, cards=CARDS, timeout_s=900)
    OUT.write_text(json.dumps({"environment": report["environment"], "runs": report["runs"]}, indent=1,
                              sort_keys=True) + "\n")
    print(f"{OUT}: {len(report['runs'])} runs, Ψ = {report['environment']['psi']:,}")


if __name__ == "__main__":
    main()
