"""How each confirmed verdict of a JSON report was reached: the counts by method, and the formula claims
confirmed only by calculation (issue 32, "Every ✓ is a proof").

    python -m verify.report.methods                         # counts by method of verify/results/latest.json
    python -m verify.report.methods --write                 # the same as a table in verify/README.md

A ✓ reads the same for "measured on Gloo ranks" and for "our own copy of the formula agrees"; this table
keeps the second kind visible until every formula claim has an independent check. A *formula claim* is a
`calculated` confirmation whose assertion calls a vocabulary quantity at its general symbols (a call
without a number among its arguments, e.g. ``young_interval() == sqrt(2*delta*mu)``); the other
`calculated` confirmations instantiate a formula at numbers (worked arithmetic). Pure Python: it reads
only the report's documented fields (verify/README.md, "JSON report").
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "verify" / "results" / "latest.json"
README = ROOT / "verify" / "README.md"
BEGIN = "<!-- methods:begin (python -m verify.report.methods --write) -->"
END = "<!-- methods:end -->"
# a vocabulary call: a lower-case name, then its argument list without nested parentheses
_CALL = re.compile(r"\b([a-z][a-z0-9_]*)\(([^()]*)\)")
# sympy's own functions in an assertion are not vocabulary quantities
_NOT_VOCABULARY = frozenset({"sqrt", "log", "exp", "ceiling", "floor", "diff", "approx", "limit", "Min", "Max"})


def is_formula_claim(asserts: str) -> bool:
    """True when the assertion evaluates some vocabulary quantity at its general symbols (no number among
    the call's arguments): the claim is about the formula, not about one worked instance of it."""
    for name, args in _CALL.findall(asserts):
        if name in _NOT_VOCABULARY:
            continue
        if not re.search(r"\d", args):
            return True
    return False


def confirmed_by_method(report: dict[str, Any]) -> Counter[str]:
    """Confirmed claims per method (``measured``, ``simulated``, ``construction``, ``calculated``)."""
    return Counter(c.get("method") or "none" for c in report["claims"] if c["verdict"] == "confirmed")


def calculated_formula_claims(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(card, claim id, assertion) of each formula claim confirmed by calculation alone."""
    return [(c["card"], c["claim_id"], c["asserts"]) for c in report["claims"]
            if c["verdict"] == "confirmed" and c.get("method") == "calculated" and is_formula_claim(c["asserts"])]


def markdown(report: dict[str, Any]) -> str:
    """The counts table, then the formula claims confirmed by calculation alone."""
    counts = confirmed_by_method(report)
    formulas = calculated_formula_claims(report)
    lines = ["| method | confirmed |", "|---|---|"]
    lines += [f"| {method} | {n} |" for method, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    lines += [f"| total | {sum(counts.values())} |", "",
              f"Formula claims confirmed by calculation alone: {len(formulas)} "
              f"(of {counts.get('calculated', 0)} `calculated` confirmations; the rest are worked numbers).", "",
              "| card | claim | assertion |", "|---|---|---|"]
    lines += [f"| {card} | `{claim}` | `{asserts[:100].replace('|', '∣')}` |" for card, claim, asserts in formulas]
    return "\n".join(lines) + "\n"


def with_table(readme: str, table: str) -> str:
    """The README with the text between the markers replaced by the table."""
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[:start] + "\n" + table + readme[end:]


def main(argv: list[str]) -> int:
    write = "--write" in argv
    paths = [a for a in argv if not a.startswith("--")]
    report = json.loads(Path(paths[0] if paths else REPORT).read_text(encoding="utf-8"))
    table = markdown(report)
    if write:
        README.write_text(with_table(README.read_text(encoding="utf-8"), table), encoding="utf-8")
    else:
        sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
