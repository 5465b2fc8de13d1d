"""How verdicts read to people: bilingual labels and compact predicted / measured values."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from app.render.markdown import render_markdown
from app.render.marks import MARKED, Mark, finish_html, locate, place
from verify.report.method_words import SIGNS as METHOD_SIGNS
from verify.report.method_words import method_text

# verdict -> (zh, en, sign)
VERDICT_LABELS = {"confirmed": ("已证实", "confirmed", "✓"), "refuted": ("被推翻", "refuted", "✗"),
                  "conditional": ("有条件成立", "conditional", "≈"), "unverifiable": ("无法验证", "unverifiable", "?"),
                  # the quoted text states a number its asserts does not / the quoted text left the card
                  "mismatch": ("原文与断言不符", "text and assertion disagree", "≠"),
                  "stale": ("原文已改动", "quoted text no longer in the card", "⌛"),
                  "error": ("无法判定", "could not be judged", "!"),
                  "contradiction": ("中英文不一致", "zh and en disagree", "⇄")}


# how a verdict's numbers were obtained -> zh label
METHOD_LABELS = {"measured": "实测", "simulated": "模拟", "calculated": "计算（非实测）",
                 "construction": "由代码构造决定（非独立实测）", "counted": "计数（运行代码所得）",
                 "definition": "定义（非证明）", "arithmetic": "算术（代入公式）", "none": "无数值"}


def verdict_kind(v: Mapping[str, Any]) -> str:
    kind = str(v.get("verdict", ""))
    return kind if kind in VERDICT_LABELS else "unverifiable"


def format_value(value: Any) -> str:
    """A predicted / measured value for people: ``1.5``, ``ratio 1.5, bytes 3.5e+09``."""
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {format_value(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(format_value(v) for v in value)
    return "" if value is None else str(value)


def verdict_view(row: Any) -> dict[str, Any]:
    """A stored verdict (``ClaimVerdict``) as the card page shows it."""
    kind = verdict_kind({"verdict": row.verdict})
    zh, en, sign = VERDICT_LABELS[kind]
    if kind == "confirmed":  # a definition (≝) or worked arithmetic (=) is no ✓ proof
        sign = METHOD_SIGNS.get(row.method, sign)
    return {"kind": kind, "zh": zh, "en": en, "sign": sign, "method": row.method,
            "method_zh": METHOD_LABELS.get(row.method, ""),
            "predicted": format_value(row.predicted), "measured": format_value(row.measured),
            "condition": row.condition, "reason_zh": row.reason_zh, "reason_en": row.reason_en}


# ------------------------------------------------------------------ human units and marks in the text

RATIO_HINTS = ("reduction(", " / ", ")/", "ratio")


def _get(v: Any, name: str) -> Any:
    if isinstance(v, Mapping):
        return v.get(name, v.get("claim_id") if name == "claim_key" else None)
    return getattr(v, name, None)


def sym_human(expr: str) -> str:
    """A sympy expression as people write it: ``2*Psi*(N - 1)/N`` → ``2Ψ(N − 1)/N``."""
    out = expr.replace("Psi", "Ψ").replace("oo", "∞")
    out = re.sub(r"(\d)\*(?=[ΨA-Za-z(])", r"\1", out)
    out = out.replace("Ψ*(", "Ψ(").replace(" - ", " − ").replace("*", "·")
    return out


def number_human(text: str, psi: float | None = None, ratio: bool = False) -> str:
    """A measured number for people: bytes as multiples of Ψ (``15,875,472`` → ``16Ψ`` when Ψ = 992,217),
    ratios with ``×`` and 3 significant digits, large counts with SI prefixes."""
    try:
        x = float(text.replace(",", ""))
    except ValueError:
        return text
    if ratio:
        return f"{x:.3g}×"
    if psi and abs(x) >= psi / 4:
        k = x / psi
        if abs(k - round(k * 4) / 4) < 0.01:
            k = round(k * 4) / 4
            return "Ψ" if k == 1 else f"{k:g}Ψ"
    if abs(x) >= 1e9:
        return f"{x / 1e9:.3g} GB" if x >= 1e9 else f"{x:.3g}"
    return f"{x:.4g}"


def _first_relations(v: Any) -> list[tuple[str, dict[str, Any]]]:
    """(configuration, its first relation) for each configuration the assertion was evaluated at."""
    rows = _get(v, "evaluated") or []
    return [(str(r.get("config", "")), r["relations"][0]) for r in rows
            if isinstance(r, Mapping) and r.get("relations")]


def _config_label(config: str) -> str:
    """A configuration as people write it: its ``name=value`` parts, spaced (``Gloo N=2`` → ``N = 2``)."""
    return " ".join(part.replace("=", " = ") for part in config.split() if "=" in part)


def _is_ratio(v: Any) -> bool:
    first = re.split(r"==|<=|>=|<|>", str(_get(v, "predicted") or "").lstrip("("), maxsplit=1)[0]
    return any(h in first for h in RATIO_HINTS)


def per_config(v: Any, psi: float | None = None) -> str:
    """The measured value at each configuration, first relation only: ``N = 2: 1.6×, N = 4: 2.29×``."""
    evaluated = _first_relations(v)
    if not evaluated:
        measured = _get(v, "measured")
        return "" if isinstance(measured, str) else format_value(measured)
    ratio = _is_ratio(v)
    parts = [f"{_config_label(cfg)}: {number_human(str(rel.get('value', '')), psi, ratio)}"
             for cfg, rel in evaluated if _config_label(cfg)]
    return ", ".join(parts[:4])


def counterexample(v: Any, lang: str = "en") -> str:
    """The refutation the judge derived (``16Ψ, not 14Ψ``), from the verdict's first counterexample."""
    found = [c for c in (_get(v, "counterexamples") or []) if isinstance(c, Mapping)]
    if not found:
        return ""
    c = found[0]
    if not c.get("value"):  # a note, e.g. a measurement that disagrees with the ledger
        return sym_human(str(c.get("text", "")).split("; ")[0])
    at = str(c.get("at", ""))
    where = f"{sym_human(at)}: " if at and at != "for every value" else ""
    value, claimed = sym_human(str(c["value"])), sym_human(str(c.get("claimed", "")))
    return f"{where}应为 {value}，不是 {claimed}" if lang == "zh" else f"{where}{value}, not {claimed}"


_ZH_CONDITION = (("only as", "仅当"), ("only when", "仅当"), ("under the reading:", "按此理解："))


def condition_text(v: Any, lang: str) -> str:
    """The verdict's condition in ``lang``, each part once (a sweep can report ``only as L → ∞`` per relation)."""
    cond = "; ".join(dict.fromkeys(str(_get(v, "condition") or "").split("; ")))
    if lang == "zh":
        for en, zh in _ZH_CONDITION:
            cond = cond.replace(en, zh)
    return cond


def claim_note(v: Any, lang: str, psi: float | None = None) -> str:
    """What the mark next to a quote says: the correction (refuted), the condition with the value at each
    measured configuration (conditional), the disagreement (mismatch); "" when confirmed."""
    kind = verdict_kind({"verdict": _get(v, "verdict")})
    values = per_config(v, psi)
    if kind == "refuted":
        ce = counterexample(v, lang)
        head = ("不成立" if lang == "zh" else "wrong") + (f"：{ce}" if lang == "zh" and ce else f": {ce}" if ce else "")
        tail = ("；实测 " if lang == "zh" else "; measured ") + values if values else ""
        return head + tail
    if kind == "conditional":
        cond = condition_text(v, lang)
        return cond + (("；" if lang == "zh" else "; ") + values if values else "")
    if kind in ("mismatch", "contradiction"):
        return str(_get(v, f"reason_{lang}") or _get(v, "reason_en") or "")[:200]
    return ""


def marks_for(verdicts: Sequence[Any], lang: str, psi: float | None = None, link: bool = True) -> list[Mark]:
    """The marks one language's text gets: one per claim that quotes it and has a marked verdict."""
    out = []
    for v in verdicts:
        kind = verdict_kind({"verdict": _get(v, "verdict")})
        quote = str(_get(v, f"text_{lang}") or "")
        if kind not in MARKED or not quote:
            continue
        cid = str(_get(v, "claim_key") or "")
        method = str(_get(v, "method") or "")
        out.append(Mark(cid, kind, quote, claim_note(v, lang, psi), f"#claim-{cid}" if link else "", method,
                        method_text(method, _get(v, "evaluated"), lang)))
    return out


def counts(verdicts: Sequence[Any]) -> dict[str, int]:
    """How many verdicts of each kind (confirmed, conditional, refuted, mismatch, stale, …)."""
    out: dict[str, int] = {}
    for v in verdicts:
        kind = verdict_kind({"verdict": _get(v, "verdict")})
        out[kind] = out.get(kind, 0) + 1
    return out


def marked_html(text: str, marks: Sequence[Mark], used: set[str] | None = None) -> str:
    """``text`` rendered by ``render_markdown`` with the marks of the quotes it contains; a claim already
    in ``used`` (marked earlier in the card) is not marked again, and the ones marked here are added."""
    todo = [m for m in marks if m.claim_id not in (used or set()) and locate(text, m.quote)]
    if used is not None:
        used.update(m.claim_id for m in todo)
    if not todo:
        return render_markdown(text)
    return finish_html(render_markdown(place(text, todo)), todo)


def run_psi(run: Any) -> float | None:
    env = (_get(run, "environment") or {}) if run is not None else {}
    psi = env.get("psi") if isinstance(env, Mapping) else None
    return float(psi) if isinstance(psi, int | float) and psi > 0 else None


def mark_card(card: Any, verdicts: Sequence[Any], psi: float | None) -> None:
    """Re-render a ``CardDetail``'s sections and follow-ups (in place) with the verdict marks."""
    for lang in ("zh", "en"):
        marks = marks_for(verdicts, lang, psi)
        if not marks:
            continue
        used: set[str] = set()
        for part in [*card.sections, *[fu.question for fu in card.follow_ups],
                     *[fu.answer for fu in card.follow_ups]]:
            text = getattr(part.text, lang)
            if text and lang in part.html:
                part.html[lang] = marked_html(text, marks, used)


def claim_line(v: Any, lang: str, psi: float | None) -> dict[str, str]:
    """One compact claims-section line: claimed vs measured in human units."""
    kind = verdict_kind({"verdict": _get(v, "verdict")})
    evaluated = _first_relations(v)
    claimed = number_human(str(evaluated[0][1].get("claimed", "")), psi, _is_ratio(v)) if evaluated else ""
    return {"kind": kind, "claimed": claimed, "measured": per_config(v, psi), "note": claim_note(v, lang, psi)}


def statement_coverage(source_text: str) -> tuple[int, int]:
    """(judged, found) quantitative statements of a card file's text
    (``verify.judge.statements.coverage.page_summary``: sympy and pint, never torch; cached by the text)."""
    from verify.judge.statements.coverage import page_summary

    try:
        cov = page_summary(source_text)
    except Exception:  # a card the claims reader cannot read is shown without the figure
        return 0, 0
    return int(cov["checked"]), int(cov["found"])


def card_overview(source_text: str, verdicts: Sequence[Any]) -> dict[str, Any]:
    """The line on top of a card page: statements checked of found, verdict counts, the refuted claims."""
    checked, found = statement_coverage(source_text)
    return {"checked": checked, "found": found, "counts": counts(verdicts),
            "refuted": [(str(_get(v, "claim_key")), _short(str(_get(v, "text_zh") or _get(v, "text_en") or "")))
                        for v in verdicts if verdict_kind({"verdict": _get(v, "verdict")}) == "refuted"]}


def _short(text: str, limit: int = 18) -> str:
    text = " ".join(text.replace("$", "").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def psi_of(verdicts: Sequence[Any]) -> float | None:
    """The Ψ an export's verdict dicts carry (``load_verdicts`` adds it), else None."""
    for v in verdicts:
        psi = _get(v, "psi")
        if isinstance(psi, int | float) and psi > 0:
            return float(psi)
    return None


def verdicts_in(verdicts: Sequence[Any], texts: Mapping[str, str]) -> list[Any]:
    """The verdicts whose quoted words occur in ``texts`` (lang → Markdown): what a note's Extra shows."""
    return [v for v in verdicts
            if any(_get(v, f"text_{lang}") and locate(text, str(_get(v, f"text_{lang}")))
                   for lang, text in texts.items() if text)]
