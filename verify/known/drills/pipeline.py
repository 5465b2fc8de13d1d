"""Drills on pipeline parallelism: the bubble.

    python -c "from verify.known.drills import *; k = 'bubble-fraction'; print(answer(k, new_params(k)))"
"""

from __future__ import annotations

from verify.known.drills.records import Drill, Worked
from verify.known.formulas import pipeline


def _bubble_pct(p: int, m: int) -> float:
    return 100 * pipeline.bubble_fraction(p=p, m=m)


def _bubble_worked(p: int, m: int) -> Worked:
    return Worked("B", r"100\cdot\frac{p-1}{m+p-1}", {"p": p, "m": m})


DRILLS = (
    Drill("bubble-fraction", "pipeline-parallelism", {"p": (2, 4, 8), "m": (4, 8, 16, 32)}, _bubble_pct, "%",
          "GPipe or 1F1B, p = {p} stages, m = {m} micro-batches: bubble as a percentage of the step?",
          "GPipe 或 1F1B，p = {p} 个 stage，m = {m} 个 micro-batch：气泡占一步时间的百分之几？",
          worked=_bubble_worked),
)
