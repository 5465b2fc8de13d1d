"""A verdict on one claim, as data: what was judged, the values evaluated, the counterexample and the condition.

    python -m verify          # one verdict per claim of every card

Verdicts: ``confirmed`` / ``refuted`` / ``conditional`` (true under a derived condition or a stated reading) /
``unverifiable`` (nothing measures it, or why not) / ``mismatch`` (the quoted text states a number its
assertion does not) / ``stale`` (the quoted text left the card) / ``error`` (the assertion does not parse, or
judging it failed). The page, the quiz, the exports and the CLI render from these fields, never from the
sentences in ``reason_en`` / ``reason_zh``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

VERDICTS = ("confirmed", "refuted", "conditional", "unverifiable", "mismatch", "stale", "error")
# what the annotation-free judges say of a statement no claim annotates (verify.judge.statements)
STATEMENT_VERDICTS = ("confirmed", "refuted", "conditional", "contradiction", "consistent", "claimed", "unchecked",
                      "unverifiable")


@dataclass(frozen=True)
class Counterexample:
    """Where a relation fails and what it evaluates to there: ``at`` a point ("N = 2"), a configuration
    ("N=2", "CPU b=16") or "" (for every value); ``value`` found, ``claimed`` (with its relation when not
    ``==``, e.g. "<= 4"). ``text`` is how the report words it (several failing relations, or a note such as a
    measurement that disagrees with the ledger)."""

    at: str
    value: str
    claimed: str
    text: str = ""

    def __str__(self) -> str:
        if self.text:
            return self.text
        where = f"{self.at}: " if self.at else ""
        return f"{where}{self.value}, claimed {self.claimed}"


@dataclass
class Verdict:
    verdict: str
    predicted: Any
    measured: Any
    reason_en: str
    reason_zh: str
    condition: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    asserts: str = ""  # the claim's assertion
    evaluated: list[dict[str, Any]] = field(default_factory=list)  # per measured configuration
    counterexample: str = ""  # the counterexamples as the report words them, "; "-joined
    counterexamples: list[Counterexample] = field(default_factory=list)
    reading: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}; expected one of {VERDICTS}")

    @property
    def method(self) -> str:
        """How the numbers were obtained: measured (ranks, profiler, sockets), simulated, calculated,
        construction, or none (nothing was evaluated)."""
        return str(self.extra.get("method", "none"))

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "method": self.method}
