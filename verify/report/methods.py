"""How each confirmed verdict of a JSON report was reached: the counts by method against a stored earlier
report's, and the formula claims still confirmed only by calculation (issue 32, "Every ✓ is a proof").

    python -m verify.report.methods                         # counts by method of verify/results/latest.json
    python -m verify.report.methods --write                 # the same as a table in verify/README.md
    python -m verify.report.methods --write --before=REF    # first store REF's counts as the "before" column

A ✓ reads the same for "measured on Gloo ranks" and for "our own copy of the formula agrees"; this table
keeps the second kind visible until every formula claim has an independent check. A *formula claim* is a
`calculated` confirmation whose assertion calls a vocabulary quantity at its general symbols
(``verify.judge.method.is_formula_claim``); worked numbers are ``arithmetic`` and definitions ``definition``
(``verify.judge.method``). The "before" column is the counts of an earlier bundled report, stored in
``verify/results/methods_before.json`` with the git ref it was read from. Pure Python: it reads only the
report's documented fields (verify/README.md, "JSON report") and the vocabulary's methods.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from verify.judge.method import PROVED, is_formula_claim
from verify.known.vocabulary import QUANTITIES
from verify.reading.asserts import parse

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "verify" / "results" / "latest.json"
BEFORE = ROOT / "verify" / "results" / "methods_before.json"
README = ROOT / "verify" / "README.md"
BEGIN = "<!-- methods:begin (python -m verify.report.methods --write) -->"
END = "<!-- methods:end -->"

__all__ = ["is_formula_claim"]


def confirmed_by_method(report: dict[str, Any]) -> Counter[str]:
    """Confirmed claims per method (``measured``, ``counted``, ``simulated``, ``construction``, ``calculated``,
    ``arithmetic``, ``definition``)."""
    return Counter(c.get("method") or "none" for c in report["claims"] if c["verdict"] == "confirmed")


def calculated_formula_claims(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(card, claim id, assertion) of each formula claim confirmed by calculation alone."""
    return [(c["card"], c["claim_id"], c["asserts"]) for c in report["claims"]
            if c["verdict"] == "confirmed" and c.get("method") == "calculated" and is_formula_claim(c["asserts"])]


def _on_proved(asserts: str) -> bool:
    methods = {QUANTITIES[a.quantity].method for a in parse(asserts).atoms.values()} - {"definition"}
    return bool(methods) and methods <= PROVED


def arithmetic_split(report: dict[str, Any]) -> tuple[int, int]:
    """(on a proved formula, on a calculated one) of the confirmed ``arithmetic`` claims: worked numbers count as a
    proof only when each formula they instantiate is measured, counted or simulated."""
    rows = [c for c in report["claims"] if c["verdict"] == "confirmed" and c.get("method") == "arithmetic"]
    proved = sum(_on_proved(c["asserts"]) for c in rows)
    return proved, len(rows) - proved


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """What the "before" column keeps of a report."""
    return {"confirmed_by_method": dict(confirmed_by_method(report)),
            "formula_claims_calculated": len(calculated_formula_claims(report))}


def markdown(report: dict[str, Any], before: dict[str, Any] | None = None) -> str:
    """The counts table (before → now), then the formula claims confirmed by calculation alone."""
    counts = confirmed_by_method(report)
    was = Counter((before or {}).get("confirmed_by_method", {}))
    formulas = calculated_formula_claims(report)
    proved, unproved = arithmetic_split(report)
    ref = (before or {}).get("ref", "—")
    lines = [f"| method | confirmed before ({ref}) | confirmed now |", "|---|---|---|"]
    lines += [f"| {method} | {was.get(method, 0)} | {counts.get(method, 0)} |"
              for method in sorted(set(counts) | set(was), key=lambda m: (-counts.get(m, 0), m))]
    lines += [f"| total | {sum(was.values())} | {sum(counts.values())} |", "",
              f"Formula claims confirmed by calculation alone: {len(formulas)} "
              f"(before: {(before or {}).get('formula_claims_calculated', '—')}; of "
              f"{counts.get('calculated', 0)} `calculated` confirmations). Worked numbers (`arithmetic`): "
              f"{proved} instantiate only proved formulas, {unproved} a formula still calculated.", "",
              "| card | claim | assertion |", "|---|---|---|"]
    lines += [f"| {card} | `{claim}` | `{asserts[:100].replace('|', '∣')}` |" for card, claim, asserts in formulas]
    return "\n".join(lines) + "\n"


def with_table(readme: str, table: str) -> str:
    """The README with the text between the markers replaced by the table."""
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[:start] + "\n" + table + readme[end:]


def stored_before() -> dict[str, Any] | None:
    return json.loads(BEFORE.read_text(encoding="utf-8")) if BEFORE.exists() else None


def main(argv: list[str]) -> int:
    write = "--write" in argv
    refs = [a.split("=", 1)[1] for a in argv if a.startswith("--before=")]
    paths = [a for a in argv if not a.startswith("--")]
    if refs:
        old = subprocess.run(["git", "show", f"{refs[0]}:verify/results/latest.json"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        BEFORE.write_text(json.dumps({"ref": refs[0], **summary(json.loads(old))}, indent=1) + "\n", encoding="utf-8")
    report = json.loads(Path(paths[0] if paths else REPORT).read_text(encoding="utf-8"))
    table = markdown(report, stored_before())
    if write:
        README.write_text(with_table(README.read_text(encoding="utf-8"), table), encoding="utf-8")
    else:
        sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
