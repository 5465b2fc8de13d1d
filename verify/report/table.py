"""The verdict tables of ``verify/README.md``, regenerated from a real run's JSON report.

    OMP_NUM_THREADS=1 python -m verify --json out.json && python -m verify.report.table out.json

Per card: verdict counts; then every claim that is not confirmed with its derived condition or
counterexample; then the zh/en contradictions. Pure Python (no torch).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

COLUMNS = ("confirmed", "conditional", "refuted", "unverifiable", "mismatch", "stale", "error")


def _cell(text: str, width: int = 160) -> str:
    flat = " ".join(str(text).split()).replace("|", "\\|")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def markdown(report: dict[str, Any]) -> str:
    claims: list[dict[str, Any]] = report["claims"]
    env = report["environment"]
    total = Counter(c["verdict"] for c in claims)
    used = [v for v in COLUMNS if total[v]]
    lines = [f"{len(claims)} claims: " + ", ".join(f"{total[v]} {v}" for v in used)
             + f"; {len(report.get('contradictions', []))} zh/en contradictions (backend {env['backend']}, "
             f"N = {', '.join(map(str, env['world_sizes']))}, Ψ = {env['psi']:,}, torch {env['torch']}, "
             f"sweep {env['sweep_wall_s']:.0f} s).", "",
             "| card | " + " | ".join(used) + " | claims |", "|---|" + "---|" * (len(used) + 1)]
    for card in sorted({c["card"] for c in claims}):
        mine = Counter(c["verdict"] for c in claims if c["card"] == card)
        lines.append(f"| {card} | " + " | ".join(str(mine[v]) for v in used) + f" | {sum(mine.values())} |")
    lines += ["", "Every verdict that is not `confirmed`:", "", "| card | claim | verdict | method | "
              "derived condition / counterexample / why |", "|---|---|---|---|---|"]
    for c in sorted(claims, key=lambda c: (c["card"], c["verdict"], c["claim_id"])):
        if c["verdict"] == "confirmed":
            continue
        why = c.get("condition") or ""
        if c.get("counterexample"):
            why = f"{why} ({c['counterexample']})" if why else c["counterexample"]
        if c["verdict"] in ("unverifiable", "mismatch", "stale", "error"):
            why = why or c["reason_en"]
        lines.append(f"| {c['card']} | `{c['claim_id']}` | {c['verdict']} | {c.get('method', '')} | {_cell(why)} |")
    if report.get("contradictions"):
        lines += ["", "zh/en contradictions (`contradictions` in the JSON):", "", "| card | about | zh | en |",
                  "|---|---|---|---|"]
        for x in report["contradictions"]:
            lines.append(f"| {x['card']} | `{x['quantity']}` | {x['zh']['verdict']}: {_cell(x['zh']['text_zh'], 60)} "
                         f"| {x['en']['verdict']}: {_cell(x['en']['text_en'], 60)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m verify.report.table REPORT.json", file=sys.stderr)
        return 2
    print(markdown(json.loads(Path(args[0]).read_text(encoding="utf-8"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
