"""One verdict per claim, in one pass: stale → parse → drift → symbolic → measured.

    python -m verify   # every claim of every card

1. **stale**: a quoted text no longer occurs in the card.
2. **parse**: an ``asserts`` that does not parse is an ``error``.
3. **drift**: a number or formula in the quoted text that the assertion does not state is a ``mismatch``
   (``verify.judge.drift``; never counted as confirmed).
4. **symbolic**: the ledger's verdict (``verify.judge.symbolic``).
5. **measured**: every configuration of the evidence (``verify.judge.measured``). A measurement that
   disagrees with the ledger refutes; a meter this run lacks makes the claim ``unverifiable``; a confirmed
   formula that a measured configuration breaks is refuted there. A claim read under a stated ``reading``
   is at best ``conditional``, naming the reading.

``unverifiable: why`` claims and qualitative claims (no number quoted) are ``unverifiable``. What was worked
out ahead (``verify.judge.prepared``) is read from, and what is computed here recorded into, the one
``Prepared`` object the caller passes.
"""

from __future__ import annotations

import copy
from typing import Any

from verify.judge.drift import drift
from verify.judge.measured import measured
from verify.judge.method import method_of
from verify.judge.prepared import Prepared
from verify.judge.symbolic import Outcome, symbolic
from verify.judge.verdict import Counterexample, Verdict
from verify.reading.asserts import AssertError, Parsed, parse
from verify.reading.claims import Claim, stale_parts


def judge(claim: Claim, evidence: Any, prepared: Prepared | None = None) -> dict[str, Any]:
    """The claim's JSON-ready verdict (``evidence``: a ``verify.judge.evidence.Evidence``, or what stands in
    for one while judging ahead)."""
    v = _verdict(claim, evidence, Prepared() if prepared is None else prepared)
    return {"card": claim.card, "claim_id": claim.claim_id, "section": claim.section, "text_zh": claim.text_zh,
            "text_en": claim.text_en, "reading": claim.reading, **v.to_dict()}


def _plain(verdict: str, en: str, zh: str, **kw: Any) -> Verdict:
    return Verdict(verdict, kw.pop("predicted", None), kw.pop("measured", None), en, zh, **kw)


def _verdict(claim: Claim, evidence: Any, prepared: Prepared) -> Verdict:
    stale = stale_parts(claim)
    if stale:
        return _plain("stale", f"quoted text no longer in the card: {stale[0]!r} (quote the card's current "
                               f"words, '...' for omissions)", f"引用的原文已不在卡片中：{stale[0]!r}",
                      asserts=claim.asserts)
    if not claim.asserts:
        if claim.unverifiable:
            return _plain("unverifiable", f"Not judged: {claim.unverifiable}", f"无法验证：{claim.unverifiable}")
        return _plain("unverifiable", "Qualitative statement: nothing to measure", "定性描述：没有可测量的数值")
    try:
        parsed = parse(claim.asserts)
    except AssertError as e:
        return _plain("error", f"asserts: {e}", f"asserts 无法解析：{e}", asserts=claim.asserts)
    key = (claim.text_zh, claim.text_en, claim.asserts)
    if key not in prepared.drift:
        prepared.drift[key] = drift(*key)
    unmatched = list(prepared.drift[key])
    if unmatched:
        return _plain("mismatch", f"the text states {', '.join(unmatched)} but asserts {claim.asserts!r} does not",
                      f"原文写 {'、'.join(unmatched)}，与断言 {claim.asserts!r} 不符",
                      asserts=claim.asserts, predicted=claim.asserts, measured=unmatched)
    try:
        return _judged(claim, parsed, evidence, prepared)
    except Exception as e:  # a judge failure is reported as the verdict, never a silent confirmation
        return _plain("error", f"judging {claim.asserts!r} failed: {type(e).__name__}: {e}",
                      f"判定出错：{type(e).__name__}: {e}", asserts=claim.asserts)


def _judged(claim: Claim, parsed: Parsed, evidence: Any, prepared: Prepared) -> Verdict:
    """Steps 4 and 5: the ledger's verdict, then every measured configuration."""
    if parsed.source not in prepared.symbolic:
        prepared.symbolic[parsed.source] = symbolic(parsed)
    sym = prepared.symbolic[parsed.source]
    if parsed.source not in prepared.measured:
        prepared.measured[parsed.source] = measured(parsed, evidence)
    rows, bad = copy.deepcopy(prepared.measured[parsed.source])
    out = _decide(sym, rows, bad)
    if claim.reading and out.verdict == "confirmed":
        out = Outcome("conditional", f"under the reading: {claim.reading}")
    elif claim.reading and out.verdict == "conditional":
        out = Outcome(out.verdict, f"{out.condition}; under the reading: {claim.reading}", out.counterexamples)
    return _as_verdict(claim, out, rows, method_of(parsed, rows), "" if sym is None else sym.verdict, bad)


def _failing(row: dict[str, Any], prefix: str, with_op: bool) -> Counterexample:
    """A measured configuration where the assertion fails, as the report words it."""
    broken = [s for s in row["relations"] if not s["holds"]]
    text = f"{row['config']}: {prefix}" + "; ".join(
        f"{s['value']}, claimed {s['op'] + ' ' if with_op else ''}{s['claimed']}" for s in broken)
    first = broken[0]
    return Counterexample(row["config"], first["value"], (first["op"] + " " if with_op and first["op"] != "==" else "")
                          + first["claimed"], text)


def _decide(sym: Outcome | None, rows: list[dict[str, Any]], bad: list[str]) -> Outcome:
    judged = [r for r in rows if "relations" in r]
    failing = [r for r in judged if not r["holds"]]
    if bad:
        text = "measurement disagrees with the ledger: " + "; ".join(bad)
        return Outcome("refuted", counterexamples=[Counterexample("", "", "", text)])
    if rows and not judged and any(r.get("unavailable") for r in rows):
        # a meter this run lacks (ss, the ring step, the asked backend): never a verdict from the ledger alone
        reasons = "; ".join(dict.fromkeys(str(r.get("skipped", "")) for r in rows if r.get("unavailable")))
        return Outcome("unverifiable", f"not measured on this run: {reasons}")
    if sym is None:
        if not judged:
            return Outcome("unverifiable", "nothing measured this quantity in this run")
        if failing:
            return Outcome("refuted", counterexamples=[_failing(failing[0], "", with_op=True)])
        return Outcome("confirmed", notes=["held at every measured configuration (measured only, no formula)"])
    if sym.verdict == "confirmed" and failing:
        return Outcome("refuted", counterexamples=[_failing(failing[0], "measured ", with_op=False)])
    return Outcome(sym.verdict, sym.condition, list(sym.counterexamples), list(sym.notes))


_WORDS = {"confirmed": ("holds for every admissible value of the ledger", "按公式对所有取值成立")}


def _relation(r: dict[str, Any]) -> str:
    within = f", {r['within']}" if "within" in r else ""  # a tolerance the run found, stated with its meaning
    return f"{r['value']} (claimed {r['op']} {r['claimed']}{within})"


def _as_verdict(claim: Claim, out: Outcome, rows: list[dict[str, Any]], method: str, sym_verdict: str,
                bad: list[str]) -> Verdict:
    measured_en = "; ".join(f"{row['config']}: " + ", ".join(_relation(r) for r in row["relations"])
                            for row in rows if "relations" in row)
    cex = out.counterexample
    words = {**_WORDS, "conditional": (f"holds {out.condition}", f"仅在条件下成立：{out.condition}"),
             "refuted": (f"fails: {cex}", f"不成立：{cex}")}
    en, zh = words.get(out.verdict, (out.condition, out.condition))
    if sym_verdict == "":
        en = ("measured only: " + en) if out.verdict != "unverifiable" else out.condition
        zh = ("仅实测：" + zh) if out.verdict != "unverifiable" else "本次运行没有测量该量"
    if measured_en:
        en, zh = f"{en}. Measured: {measured_en}", f"{zh}。实测：{measured_en}"
    return Verdict(out.verdict, claim.asserts, measured_en or None, f"{claim.asserts}: {en}",
                   f"{claim.asserts}：{zh}", condition=out.condition, asserts=claim.asserts, evaluated=rows,
                   counterexample=cex, counterexamples=out.counterexamples, reading=claim.reading,
                   extra={"method": method, "symbolic": sym_verdict, "disagreements": bad})


def reset_caches() -> None:
    """Forget every cached parse, ledger formula and verdict (tests that mutate a formula call this)."""
    from verify.judge import drift as drift_module
    from verify.judge import symbolic as symbolic_module
    from verify.known.vocabulary import ledger_formula
    from verify.reading.asserts import _parse

    for cache in (ledger_formula, _parse, symbolic_module._symbolic, drift_module._drift):
        cache.cache_clear()

