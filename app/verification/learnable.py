"""Which verdicts a learner can learn from, and what a misconception drill's back says.

A refuted number comes with its correction, and a condition that is a fact of the system ("only as N → ∞",
"only when N = 4") is worth remembering. A verdict that is conditional only because the sweep had to read
the card's wording one way ("under the reading: …", zh "按此理解：…") says nothing about the system: it
makes no drill, and a drill whose verdict has both shows only the facts. Each condition is listed once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.verification.present import claim_note, condition_text, per_config, verdict_kind

READING = "under the reading:"


def _get(v: Any, name: str) -> Any:  # a report claim (dict) or a stored verdict row
    return v.get(name) if isinstance(v, Mapping) else getattr(v, name, None)


def condition_segments(condition: str) -> list[str]:
    """``"only as L → ∞; only as L → ∞; under the reading: a; b"`` → ``["only as L → ∞", "under the reading: a; b"]``
    (a reading runs on over "; " until the next "only …")."""
    segments: list[str] = []
    for part in condition.split("; "):
        if segments and segments[-1].startswith(READING) and not part.startswith("only "):
            segments[-1] += "; " + part
        elif part.strip():
            segments.append(part)
    return list(dict.fromkeys(segments))


def fact_conditions(v: Any) -> list[str]:
    """The verdict's conditions that are facts of the system (not a reading of the card's wording)."""
    return [s for s in condition_segments(str(_get(v, "condition") or "")) if not s.startswith(READING)]


def reading_only(v: Any) -> bool:
    """The verdict's condition is a reading of the wording and nothing else."""
    segments = condition_segments(str(_get(v, "condition") or ""))
    return bool(segments) and all(s.startswith(READING) for s in segments)


def drill_kind(v: Any) -> str:
    """``"refuted"`` / ``"conditional"`` when the verdict makes a misconception drill, ``""`` when not."""
    kind = verdict_kind({"verdict": _get(v, "verdict")})
    if kind == "refuted" or (kind == "conditional" and not reading_only(v)):
        return kind
    return ""


def drill_note(v: Any, lang: str, psi: float | None = None) -> str:
    """The back of the drill without its "错：" / "False: " lead: the correction with the measured values,
    or the facts the claim holds under with the value at each measured configuration."""
    values = per_config(v, psi)
    sep = "；" if lang == "zh" else "; "
    if drill_kind(v) != "conditional":  # the mark's correction, then what each run measured
        measured = (("实测 " if lang == "zh" else "measured ") + values) if values else ""
        return sep.join(part for part in (claim_note(v, lang, psi), measured) if part)
    facts = sep.join(condition_text({"condition": c}, lang) for c in fact_conditions(v))
    return sep.join(part for part in (facts, values) if part)
