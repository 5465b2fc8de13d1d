"""``proofdeck --help`` and every subcommand's ``--help``: start time against a bare ``python -c pass``.

    PYTHONPATH=$PWD python bench/cli_start.py [--starts 7]

Each command's starts alternate with bare-interpreter starts (harness/startup.py); a row per
command: its median, the bare median measured beside it, the ratio; then the median and the worst
ratio over all commands. The suite's bound is 10× (tests/cli/test_help_start.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.startup import help_commands, measure  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=7, help="measured starts per command (and as many bare)")
    a = parser.parse_args()
    rows = [measure(args, a.starts) for args in help_commands()]
    width = max(len(" ".join(r.args)) for r in rows) + len("proofdeck ")
    print(f"{'command':<{width}}  {'median':>8}  {'bare':>7}  ratio")
    for r in rows:
        print(f"{'proofdeck ' + ' '.join(r.args):<{width}}  {r.median_s * 1000:6.0f} ms  {r.bare_s * 1000:4.0f} ms"
              f"  {r.ratio:5.1f}x")
    ratios = [r.ratio for r in rows]
    print(f"{len(rows)} commands, {a.starts} starts each: ratio median {statistics.median(ratios):.1f}x, "
          f"worst {max(ratios):.1f}x (bound 10x)")


if __name__ == "__main__":
    main()
