"""One verdict per claim, from what the claim says: stale text, text/assertion drift, then its ``asserts``.

    python -m verify   # every claim of every card

Order: quoted text no longer in the card → ``stale``; an ``asserts`` that does not parse → ``error``;
a number or formula in the quoted text that the assertion does not state → ``mismatch`` (never counted
as confirmed); then the verdict of ``verify.judge.core``. ``unverifiable: why`` claims and qualitative claims
(no number quoted) are ``unverifiable``. No check function holds a claim's number: every verdict comes from here.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import sympy as sp

from verify.judge.core import Judgement, judge_parsed, ledger_expr
from verify.judge.verdict import Verdict
from verify.known.vocabulary import UNITS
from verify.reading.asserts import AssertError, Parsed, parse
from verify.reading.claims import Claim, stale_parts
from verify.reading.textnums import Stated, Statement, is_notation, matches, statements

QUANTITATIVE = ("multiplier", "percent", "size", "psi", "bytes", "formula", "number", "sci")


def quoted_statements(claim: Claim) -> list[Statement]:
    """The quantitative statements in the claim's quoted texts (zh and en)."""
    return [st for text in (claim.text_zh, claim.text_en) for st in statements(text)
            if st.kind in QUANTITATIVE and not is_notation(st)]


def stated_values(parsed: Parsed) -> list[sp.Expr]:
    """What the quoted text may state, each number paired with its own term of the assertion: the assertion's
    literal sub-expressions and the ledger's value of each whole relation side that is a plain number (a worked
    example's result), each also in the vocabulary's units. A quantity inside a larger side pairs with nothing
    on its own: in ``(bpp(megatron_bf16) == 18) & (bpp(megatron_fp16) - bpp(mixed_adam) == 4)`` the text may say
    18 and 4 (and 20 if asserted), never 16, mixed Adam's ledger value that only enters the difference."""
    values = parsed.literal_values()
    sides = [x for rel in parsed.relations for x in (rel.lhs, rel.rhs)]
    for side in sides:
        led = ledger_expr(parsed, side)
        if led is not None and led.is_number:
            values.append(led)
    scaled = [v / u for v in values if v.is_number and v != 0 for u in UNITS.values()]
    return values + scaled


DRIFT_AHEAD: dict[tuple[str, str, str], tuple[str, ...]] = {}  # (zh, en, asserts) -> drift, judged ahead


def drift(claim: Claim, parsed: Parsed) -> list[str]:
    """Statements of the quoted text that the assertion does not make (each as written)."""
    key = (claim.text_zh, claim.text_en, parsed.source)
    return list(DRIFT_AHEAD[key] if key in DRIFT_AHEAD else _drift(*key))


@lru_cache(maxsize=4096)
def _drift(text_zh: str, text_en: str, source: str) -> tuple[str, ...]:
    """Cached by the texts and the assertion: a pure function of them (pre-computed while the sweep runs)."""
    values = Stated(stated_values(parse(source)))
    return tuple(st.text for t in (text_zh, text_en) for st in statements(t)
                 if st.kind in QUANTITATIVE and not is_notation(st) and not matches(st, values))


def _verdict(verdict: str, en: str, zh: str, **kw: Any) -> Verdict:
    return Verdict(verdict, kw.pop("predicted", None), kw.pop("measured", None), en, zh, judged="asserts", **kw)


def _from_judgement(claim: Claim, j: Judgement) -> Verdict:
    per_config = []
    for row in j.evaluated:
        if "relations" in row:
            per_config.append(f"{row['config']}: " + ", ".join(f"{r['value']} (claimed {r['op']} {r['claimed']})"
                                                                 for r in row["relations"]))
    measured_en = "; ".join(per_config)
    words = {"confirmed": ("holds for every admissible value of the ledger", "按公式对所有取值成立"),
             "conditional": (f"holds {j.condition}", f"仅在条件下成立：{j.condition}"),
             "refuted": (f"fails: {j.counterexample}", f"不成立：{j.counterexample}")}
    en, zh = words.get(j.verdict, (j.condition, j.condition))
    if j.symbolic == "":
        en = ("measured only: " + en) if j.verdict != "unverifiable" else j.condition
        zh = ("仅实测：" + zh) if j.verdict != "unverifiable" else "本次运行没有测量该量"
    if measured_en:
        en, zh = f"{en}. Measured: {measured_en}", f"{zh}。实测：{measured_en}"
    return _verdict(j.verdict, f"{claim.asserts}: {en}", f"{claim.asserts}：{zh}",
                    predicted=claim.asserts, measured=measured_en or None, condition=j.condition,
                    asserts=claim.asserts, evaluated=j.evaluated, counterexample=j.counterexample,
                    reading=claim.reading, extra={"method": j.method, "symbolic": j.symbolic,
                                                  "disagreements": j.disagreements})


def judge_claim(claim: Claim, evidence: Any) -> Verdict:
    stale = stale_parts(claim)
    if stale:
        return _verdict("stale", f"quoted text no longer in the card: {stale[0]!r} (quote the card's current "
                                 f"words, '...' for omissions)", f"引用的原文已不在卡片中：{stale[0]!r}",
                        asserts=claim.asserts)
    if claim.asserts:
        try:
            parsed = parse(claim.asserts)
        except AssertError as e:
            return _verdict("error", f"asserts: {e}", f"asserts 无法解析：{e}", asserts=claim.asserts)
        unmatched = drift(claim, parsed)
        if unmatched:
            return _verdict("mismatch", f"the text states {', '.join(unmatched)} but asserts {claim.asserts!r} does "
                                        f"not", f"原文写 {'、'.join(unmatched)}，与断言 {claim.asserts!r} 不符",
                            asserts=claim.asserts, predicted=claim.asserts, measured=unmatched)
        try:
            return _from_judgement(claim, judge_parsed(parsed, evidence, claim.reading))
        except Exception as e:  # a judge failure is reported as the verdict, never a silent confirmation
            return _verdict("error", f"judging {claim.asserts!r} failed: {type(e).__name__}: {e}",
                            f"判定出错：{type(e).__name__}: {e}", asserts=claim.asserts)
    if claim.unverifiable:
        return _verdict("unverifiable", f"Not judged: {claim.unverifiable}", f"无法验证：{claim.unverifiable}")
    return _verdict("unverifiable", "Qualitative statement: nothing to measure", "定性描述：没有可测量的数值")


def subjects(parsed: Parsed) -> set[str]:
    """What an assertion is about: each relation's left side if it is one quantity, else its first quantity
    (``comm_volume(zero3) / comm_volume(ddp) == 3/2`` is about ZeRO-3's volume, not DDP's)."""
    out = set()
    for rel in parsed.relations:
        if rel.lhs in parsed.atoms:
            out.add(parsed.atoms[rel.lhs].label())
            continue
        first = next((a for sym, a in parsed.atoms.items() if sym in sp.sympify(rel.lhs).free_symbols), None)
        if first is not None:
            out.add(first.label())
    return out


def contradictions(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """zh-only and en-only claims of one card section about a common quantity whose verdicts differ.

    One row per pair, both verdicts side by side (the seed card's zh "14Ψ" against its en "16Ψ")."""
    atoms: dict[int, set[str]] = {}
    for i, r in enumerate(rows):
        if r.get("asserts") and bool(r.get("text_zh")) != bool(r.get("text_en")):
            try:
                atoms[i] = subjects(parse(r["asserts"]))
            except AssertError:
                continue
    out = []
    for i, zh in ((i, rows[i]) for i in atoms if rows[i].get("text_zh")):
        for j, en in ((j, rows[j]) for j in atoms if rows[j].get("text_en")):
            common = atoms[i] & atoms[j]
            if (zh["card"], zh["section"]) == (en["card"], en["section"]) and common \
                    and zh["verdict"] != en["verdict"]:
                out.append({"card": zh["card"], "section": zh["section"], "quantity": ", ".join(sorted(common)),
                            "zh": {k: zh[k] for k in ("claim_id", "text_zh", "asserts", "verdict")},
                            "en": {k: en[k] for k in ("claim_id", "text_en", "asserts", "verdict")}})
    return out
