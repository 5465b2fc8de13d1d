"""How verdicts read to people: bilingual labels and compact predicted / measured values."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from app.render.markdown import render_markdown
from app.render.marks import MARKED, Mark, finish_html, locate, place
from app.verification.numbers import human, unit_of
from app.verification.refutation import refutation
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
QUOTIENT = re.compile(r"\)\s*/\s*[A-Za-z_]")  # one quantity over another: a ratio, whatever they count
# how a confirmed claim's value was obtained, the word its mark carries (Obsidian: "✓ measured")
METHOD_WORDS = {"measured": ("实测", "measured"), "simulated": ("模拟", "simulated"),
                "calculated": ("计算", "calculated"), "construction": ("按构造", "by construction")}
HOLDS_AS_READ = ("按此理解成立", "holds as read")


def _get(v: Any, name: str) -> Any:
    if isinstance(v, Mapping):
        return v.get(name, v.get("claim_id") if name == "claim_key" else None)
    return getattr(v, name, None)


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
    return (any(h in first for h in RATIO_HINTS) or bool(QUOTIENT.search(first))
            or unit_of(str(_get(v, "asserts") or "")) == "ratio")


def _unit(v: Any) -> str:
    return unit_of(str(_get(v, "asserts") or _get(v, "predicted") or ""))


def per_config(v: Any, psi: float | None = None, limit: int = 4, word: bool = False) -> str:
    """The measured value at each configuration (the last ``limit``), first relation only, in the quantity's
    unit (``word``: with the unit's English word, "680 elements"): ``N = 2: 1.6×, N = 4: 2.29×``."""
    evaluated = _first_relations(v)
    if not evaluated:
        measured = _get(v, "measured")
        return "" if isinstance(measured, str) else format_value(measured)
    ratio, unit = _is_ratio(v), _unit(v)
    parts = [f"{_config_label(cfg)}: {human(str(rel.get('value', '')), unit, psi, ratio, word)}"
             for cfg, rel in evaluated if _config_label(cfg)]
    return ", ".join(parts[:4][-limit:])


def counterexample(v: Any, lang: str = "en", psi: float | None = None) -> str:
    """The refutation in plain words (``16Ψ, not 14Ψ: the 2Ψ of gradients is missing``), at a
    representative configuration, never a degenerate one (app.verification.refutation)."""
    return refutation(v, lang, psi)


_ZH_CONDITION = (("only as", "仅当"), ("only when", "仅当"), ("under the reading:", "按此理解："))


def condition_text(v: Any, lang: str) -> str:
    """The verdict's condition in ``lang``, each part once (a sweep can report ``only as L → ∞`` per relation)."""
    cond = "; ".join(dict.fromkeys(str(_get(v, "condition") or "").split("; ")))
    if lang == "zh":
        for en, zh in _ZH_CONDITION:
            cond = cond.replace(en, zh)
    return cond


def claim_note(v: Any, lang: str, psi: float | None = None) -> str:
    """What the mark next to a quote says, short: the correction (refuted: "16Ψ, not 14Ψ"), the facts the
    claim holds under with the value at the largest measured configuration (conditional: "only as N → ∞;
    N = 4: 2.29×"; a reading of the wording only: "holds as read", the reading in the claims list), the
    disagreement (mismatch), how it was obtained (confirmed: "measured"; the page shows a quiet ✓)."""
    from app.verification.learnable import fact_conditions  # learnable builds on this module

    kind = verdict_kind({"verdict": _get(v, "verdict")})
    zh = lang == "zh"
    if kind == "refuted":
        return counterexample(v, lang, psi)
    if kind == "conditional":
        facts = [condition_text({"condition": c}, lang) for c in fact_conditions(v)]
        if not facts:
            return HOLDS_AS_READ[0 if zh else 1]
        values = per_config(v, psi, limit=1, word=not zh)
        return ("；" if zh else "; ").join([*facts, *([values] if values else [])])
    if kind in ("mismatch", "contradiction"):
        return str(_get(v, f"reason_{lang}") or _get(v, "reason_en") or "")[:200]
    words = METHOD_WORDS.get(str(_get(v, "method") or ""))
    return words[0 if zh else 1] if words else ""


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
        # how a ✓ was obtained and where it ran; a ✗ or ≈ says its correction or condition instead
        shown = method_text(method, _get(v, "evaluated"), lang) if kind == "confirmed" else ""
        out.append(Mark(cid, kind, quote, claim_note(v, lang, psi), f"#claim-{cid}" if link else "", method, shown))
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


def _shown_relation(v: Any) -> tuple[str, Mapping[str, Any]] | None:
    """(configuration, relation) a claims line states: the first that fails, else the last configuration's
    first relation (the largest measured)."""
    rows = [r for r in (_get(v, "evaluated") or []) if isinstance(r, Mapping) and r.get("relations")]
    failing = [(str(r.get("config", "")), x) for r in rows for x in r["relations"] if x.get("holds") is False]
    if failing:
        return failing[0]
    return (str(rows[-1].get("config", "")), rows[-1]["relations"][0]) if rows else None


CLAIMED_WORDS = ("声称", "claimed")


def claim_line(v: Any, lang: str, psi: float | None) -> dict[str, str]:
    """One compact claims-section line at one configuration, each number labelled: ``claimed`` (what the
    text says there), ``measured`` (what the run found there), ``at`` (the configuration), ``how`` (measured,
    simulated, calculated, by construction), ``note`` (the mark's words)."""
    kind = verdict_kind({"verdict": _get(v, "verdict")})
    zh = lang == "zh"
    words = METHOD_WORDS.get(str(_get(v, "method") or ""), METHOD_WORDS["measured"])
    out = {"kind": kind, "claimed": "", "measured": "", "at": "", "how": words[0 if zh else 1],
           "claimed_word": CLAIMED_WORDS[0 if zh else 1], "note": claim_note(v, lang, psi)}
    shown = _shown_relation(v)
    if shown is not None:
        config, rel = shown
        unit, ratio = _unit(v), _is_ratio(v)
        op = str(rel.get("op", "=="))
        out["claimed"] = ("" if op == "==" else f"{op} ") + human(str(rel.get("claimed", "")), unit, psi, ratio)
        out["measured"] = human(str(rel.get("value", "")), unit, psi, ratio, not zh)
        out["at"] = _config_label(config)
    return out


def statement_coverage(source_text: str) -> tuple[int, int]:
    """(judged, found) quantitative statements of a card file's text
    (``verify.judge.statements.coverage.page_summary``: sympy and pint, never torch; cached by the text)."""
    from verify.judge.statements.coverage import page_summary

    try:
        cov = page_summary(source_text)
    except Exception:  # a card the claims reader cannot read is shown without the figure
        return 0, 0
    return int(cov["checked"]), int(cov["found"])


def warm_card_judges() -> None:
    """Import the statement judges (sympy, pint: about 2 s) at start-up, off the request path: the first card
    page served counts its statements with them and took 3 s on a 1,000-card deck while they loaded."""
    statement_coverage("")


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
