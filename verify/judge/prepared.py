"""What a verdict needs that can be worked out before the runs are in, handed to the judge as one object.

    python -m verify   # forked children fill one each while the ranks run (verify.judge.ahead); the parent
                       # merges them and passes the result to every ``verify.judge.judge`` call

Per claim text and assertion: the drift (sympy's LaTeX parser, the slowest part of judging); per assertion:
the ledger's symbolic verdict, and the measured side wherever it reads no run (simulators, single-process
experiments). The judge reads an entry when it is there and records what it computes, so a child's work is
the parent's: the same pure functions on the same inputs, computed earlier.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verify.judge.symbolic import Outcome

Rows = tuple[list[dict[str, Any]], list[str]]  # measured rows per configuration, disagreements with the ledger


@dataclass
class Prepared:
    drift: dict[tuple[str, str, str], tuple[str, ...]] = field(default_factory=dict)  # (zh, en, asserts) -> drift
    symbolic: dict[str, Outcome | None] = field(default_factory=dict)  # asserts -> the ledger's verdict
    measured: dict[str, Rows] = field(default_factory=dict)  # asserts -> rows that read no run

    def update(self, other: Prepared) -> None:
        self.drift.update(other.drift)
        self.symbolic.update(other.symbolic)
        self.measured.update(other.measured)
