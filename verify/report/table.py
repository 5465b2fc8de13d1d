"""The verdicts of a JSON report, as the tables of ``verify/README.md`` and as a terminal summary.

    OMP_NUM_THREADS=1 python -m verify --json out.json && python -m verify.report.table out.json
    python -m verify.report.table --terminal out.json      # what `proofdeck verify` ends with

Markdown (:func:`markdown`): per card the verdict counts, every claim that is not confirmed with its derived
condition or counterexample, the zh/en contradictions. Terminal (:func:`summary`): the same facts in a
given width (80 columns by default), short enough to read: the counts, one line per card, then each
refuted (or mismatched, stale, errored) claim with its correction and the other language's claim it
contradicts; filters list every claim, or one card's, or one verdict's. Ids are printed whole and text
wraps at spaces (CJK text between characters, counted two columns each). Pure Python (no torch); it reads
only the report's documented fields (verify/README.md, "JSON report").
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from verify.report.method_words import WORDS, method_text

COLUMNS = ("confirmed", "conditional", "refuted", "unverifiable", "mismatch", "stale", "error")
VERDICTS = COLUMNS
SYMBOLS = {"confirmed": "✓", "conditional": "≈", "refuted": "✗", "unverifiable": "?", "mismatch": "≠",
           "stale": "⌀", "error": "!"}
# listed by default: what a card gets wrong, or what could not be judged
PROBLEMS = ("refuted", "mismatch", "stale", "error")
NBSP = "\u00a0"


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


def cells(text: str) -> int:
    """Columns ``text`` takes on a terminal: wide (CJK) characters two, combining marks none."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _split(word: str, width: int) -> list[str]:
    """A word wider than ``width`` in pieces: after a hyphen where one fits, else between characters."""
    pieces, cur = [], ""
    for ch in word:
        if cur and cells(cur + ch) > width:
            cut = cur.rfind("-") + 1
            if 0 < cut < len(cur):
                pieces.append(cur[:cut])
                cur = cur[cut:]
            else:
                pieces.append(cur)
                cur = ""
        cur += ch
    return [*pieces, cur] if cur else pieces


def wrap(text: str, width: int, indent: str = "", first: str | None = None) -> list[str]:
    """``text`` (whitespace flattened) in lines of at most ``width`` columns, broken at spaces (never at a
    no-break space); ``first`` prefixes the first line (default: ``indent``), ``indent`` the others."""
    lead = indent if first is None else first
    lines: list[str] = []
    cur = ""
    for word in re.split(r"[ \t\n\r\f\v]+", str(text)):
        if not word:
            continue
        avail = max(width - cells(lead if not lines else indent), 8)
        if cur and cells(cur) + 1 + cells(word) <= avail:
            cur += " " + word
            continue
        if cur:
            lines.append(cur)
            cur = ""
        avail = max(width - cells(lead if not lines else indent), 8)
        pieces = _split(word, avail) if cells(word) > avail else [word]
        for piece in pieces[:-1]:
            lines.append(piece)
        cur = pieces[-1]
    if cur or not lines:
        lines.append(cur)
    return [(lead if i == 0 else indent) + line.replace(NBSP, " ") for i, line in enumerate(lines)]


def _text(claim: dict[str, Any], lang: str | None = None) -> str:
    """What the claim quotes: in ``lang``, else its English, else its Chinese."""
    if lang:
        return str(claim.get(f"text_{lang}") or "")
    return str(claim.get("text_en") or claim.get("text_zh") or "")


def correction(claim: dict[str, Any]) -> str:
    """Why a claim is not confirmed, shortest first: the counterexample or the derived condition, else the
    reason (which carries the assertion and the measurements)."""
    if claim["verdict"] == "confirmed":
        return ""
    return str(claim.get("counterexample") or claim.get("condition") or claim.get("reason_en") or "")


def _partners(report: dict[str, Any]) -> dict[tuple[str, str], list[tuple[str, dict[str, Any]]]]:
    """(card, claim id) → the claims of the other language that contradict it, as (lang, side)."""
    out: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {}
    for x in report.get("contradictions", []):
        if "claim_id" not in x["zh"] or "claim_id" not in x["en"]:
            continue  # a contradiction between statements no claim annotates (listed with the statements)
        for lang, other in (("zh", "en"), ("en", "zh")):
            out.setdefault((x["card"], x[lang]["claim_id"]), []).append((other, x[other]))
    return out


def _counts_line(counts: Counter[str], total: int, what: str) -> str:
    parts = [NBSP.join((str(counts[v]), SYMBOLS[v], v)) for v in VERDICTS if counts[v]]
    return f"{total} claims{what}: " + " · ".join(parts)


def _card_rows(claims: Sequence[dict[str, Any]], width: int) -> list[str]:
    """One line per card: ``zero-sharding   33 ✓  10 ≈   8 ✗``, the columns aligned (a zero left blank);
    a slug too long for the row stands on its own line, its counts under it."""
    per_card: dict[str, Counter[str]] = {}
    for c in claims:
        per_card.setdefault(c["card"], Counter())[c["verdict"]] += 1
    used = [v for v in VERDICTS if any(n[v] for n in per_card.values())]
    digits = max((len(str(n[v])) for n in per_card.values() for v in used), default=1)
    cellw = digits + 2
    counts_w = len(used) * cellw + 2 * (len(used) - 1)
    name_w = max((cells(card) for card in per_card), default=0)
    name_w = min(name_w, width - counts_w - 2)
    rows = []
    for card, n in sorted(per_card.items()):
        row = "  ".join(f"{n[v]:>{digits}} {SYMBOLS[v]}" if n[v] else " " * cellw for v in used).rstrip()
        if cells(card) <= name_w:
            rows.append(card + " " * (name_w - cells(card)) + "  " + row)
        else:
            rows += wrap(card, width)
            rows.append(" " * (width - counts_w) + row)
    return rows


def _entry(claim: dict[str, Any], partners: list[tuple[str, dict[str, Any]]], width: int) -> list[str]:
    """One claim: its verdict, card, id and section; what it says; the correction; the claims of the other
    language that contradict it (by id: ``--card`` shows their text)."""
    head = f"{SYMBOLS.get(claim['verdict'], '·')} {claim['card']} · {claim['claim_id']}"
    if claim.get("section") and cells(head) + 3 + cells(claim["section"]) <= width:
        head += f" · {claim['section']}"  # where it fits: the card and the id come first
    lines = wrap(head, width, indent="    ", first="")
    lines += wrap(_text(claim), width, indent="    ")
    if claim["verdict"] == "confirmed" and claim.get("method"):  # how a ✓ was obtained, where it ran
        lines += wrap(method_text(claim["method"], claim.get("evaluated")), width, indent="      ", first="    ")
    if correction(claim):
        lines += wrap(correction(claim), width, indent="      ", first="  → ")
    for lang, side in partners:
        lines += wrap(f"the {lang} claim {side['claim_id']} is {side['verdict']}", width, indent="      ",
                      first="  ≠ ")
    return lines


STATEMENT_ORDER = ("confirmed", "consistent", "claimed", "refuted", "contradiction", "conditional", "unchecked")


def statement_lines(report: dict[str, Any], width: int, cards: set[str], every: bool) -> list[str]:
    """Every statement: how many were found and judged, by verdict, then each one an annotation-free judge
    refuted or found contradictory (every judged one with ``every``) with its card, section, language, judge and
    reason (those a claim judges are listed with their claim)."""
    rows = [r for r in report.get("statements", []) if not cards or r["card"] in cards]
    if not rows:
        return []
    counts = Counter(r["verdict"] for r in rows)
    judged = sum(n for v, n in counts.items() if v != "unchecked")
    by = ", ".join(f"{counts[v]:,} {v}" for v in STATEMENT_ORDER if counts[v])
    out = ["", *wrap(f"statements (every number and formula): {len(rows):,} found, {judged:,} "
                     f"judged ({100 * judged / len(rows):.0f} %): {by}", width)]
    for r in rows:
        if r["judge"] == "claim" and not every:
            continue  # the claim that judges it is listed above
        if r["verdict"] in ("refuted", "contradiction") or (every and r["verdict"] != "unchecked"):
            out += wrap(f"{r['card']} · {r['section']} {r['lang']} ({r['verdict']}, {r['judge']}): {r['text']} — "
                        f"{r['detail']}", width, indent="      ", first="  ")
    return out


def summary(report: dict[str, Any], *, width: int = 80, every: bool = False, cards: Iterable[str] = (),
            verdicts: Iterable[str] = ()) -> list[str]:
    """The terminal summary (see the module docstring), as lines of at most ``width`` columns.

    ``cards`` / ``verdicts`` keep only those cards' / verdicts' claims and list them all; ``every`` lists
    every claim kept; by default only the refuted (and mismatched, stale, errored) ones are listed."""
    cards, verdicts = set(cards), set(verdicts)
    claims = [c for c in report.get("claims", [])
              if (not cards or c["card"] in cards) and (not verdicts or c["verdict"] in verdicts)]
    counts = Counter(c["verdict"] for c in claims)
    n_cards = len({c["card"] for c in claims})
    lines = wrap(_counts_line(counts, len(claims), f", {n_cards} card{'s' if n_cards != 1 else ''}"), width)
    env = report.get("environment", {})
    if env:
        where = [f"{env.get('backend', '?')} on {env.get('device', '?')}"]
        if env.get("world_sizes"):
            where.append("N = " + ", ".join(map(str, env["world_sizes"])))
        if env.get("psi"):
            where.append(f"Ψ = {env['psi']:,}")
        if env.get("torch"):
            where.append(f"torch {env['torch']}")
        if env.get("sweep_wall_s") is not None:
            where.append(f"sweep {env['sweep_wall_s']:.0f} s")
        lines += wrap(", ".join(where), width)
    by_method = Counter(c.get("method") or "none" for c in claims if c["verdict"] == "confirmed")
    if by_method:
        lines += wrap("confirmed by: " + " · ".join(f"{n} {WORDS.get(m, (m,))[0]}" for m, n in by_method.most_common()),
                      width)
    lines += ["", *_card_rows(claims, width)]
    listed = [c for c in claims if every or cards or verdicts or c["verdict"] in PROBLEMS]
    partners = _partners(report)
    shown: set[tuple[str, str]] = set()
    order = {v: i for i, v in enumerate(VERDICTS)}
    if listed:
        lines.append("")
    for c in sorted(listed, key=lambda c: (c["card"], order.get(c["verdict"], len(order)), c["claim_id"])):
        key = (c["card"], c["claim_id"])
        lines += _entry(c, partners.get(key, []), width)
        shown |= {key, *((c["card"], side["claim_id"]) for _, side in partners.get(key, []))}
    rest = [x for x in report.get("contradictions", []) if (not cards or x["card"] in cards) and not verdicts
            and "claim_id" in x["zh"] and "claim_id" in x["en"]  # the statements' own are listed below
            and (x["card"], x["zh"]["claim_id"]) not in shown and (x["card"], x["en"]["claim_id"]) not in shown]
    if rest and (every or cards or not verdicts):
        lines += ["", "zh and en say different things:"]
        for x in rest:
            lines += wrap(f"{x['card']} · {x['quantity']}", width, indent="    ", first="  ")
            for lang in ("zh", "en"):
                side = x[lang]
                lines += wrap(f"{lang} {side['claim_id']} ({side['verdict']}): {side.get(f'text_{lang}') or ''}",
                              width, indent="        ", first="    ")
    lines += statement_lines(report, width, cards, every or bool(cards))
    if not (every or cards or verdicts):
        hint = "more: --all (every claim), --card SLUG, --verdict VERDICT (e.g. conditional)"
        lines += ["", *wrap(hint, width)]
    return lines


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    terminal = "--terminal" in args
    args = [a for a in args if a != "--terminal"]
    if len(args) != 1:
        print("usage: python -m verify.report.table [--terminal] REPORT.json", file=sys.stderr)
        return 2
    report = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    if terminal:
        import shutil

        print("\n".join(summary(report, width=shutil.get_terminal_size((80, 24)).columns)))
    else:
        print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
