"""Compare two verify reports claim by claim, field by field (a refactor must leave them equal).

    python scripts/compare_reports.py OLD.json NEW.json [--ignore FIELD,...]

Claims are matched by (card, claim_id); for each, every field present in both is compared (``--ignore``
names fields a change removed or renamed on purpose). Contradictions are compared as whole lists. Prints
each difference and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _claims(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(c["card"], c["claim_id"]): c for c in report["claims"]}


def differences(old: dict[str, Any], new: dict[str, Any], ignore: set[str]) -> list[str]:
    out = []
    a, b = _claims(old), _claims(new)
    for key in sorted(a.keys() - b.keys()):
        out.append(f"{key[0]}/{key[1]}: only in the old report")
    for key in sorted(b.keys() - a.keys()):
        out.append(f"{key[0]}/{key[1]}: only in the new report")
    for key in sorted(a.keys() & b.keys()):
        for field in sorted((a[key].keys() | b[key].keys()) - ignore):
            if a[key].get(field) != b[key].get(field):
                out.append(f"{key[0]}/{key[1]}: {field}: {a[key].get(field)!r} → {b[key].get(field)!r}")
    if "contradictions" not in ignore and old.get("contradictions") != new.get("contradictions"):
        before, after = len(old.get("contradictions", [])), len(new.get("contradictions", []))
        out.append(f"contradictions differ: {before} → {after}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--ignore", default="", help="comma-separated claim fields not compared")
    args = p.parse_args(argv)
    old, new = (json.loads(Path(x).read_text(encoding="utf-8")) for x in (args.old, args.new))
    diffs = differences(old, new, {f for f in args.ignore.split(",") if f})
    for d in diffs:
        print(d)
    print(f"{len(old['claims'])} → {len(new['claims'])} claims, {len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
