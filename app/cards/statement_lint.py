"""What ``proofdeck sync`` says about the statements of a card that no claim annotates: refuted numbers and
zh/en contradictions, found by verify's annotation-free judges (``verify.judge.statements``).

    proofdeck sync            # lists them and goes on
    proofdeck sync --strict   # fails on the first card that has one, naming it; nothing is stored

A note is one line: ``✗ FILE: zh derivation: 126/312 ≈ 45%: 126/312 = 40.4 %, not 45%`` or
``⇄ FILE: summary: zh 75% / en 50%``. Cached by the card's text (the judges read TeX with sympy).
"""

from __future__ import annotations

from verify.reading.cardfile import CardFileError


def statement_notes(text: str, path: str) -> list[str]:
    """One line per refuted or contradictory statement of the card file's text."""
    from verify.judge.statements.card import judge_text

    found = judge_text(text, path)
    out = [f"✗ {path}: {v.lang} {v.section}: {v.text}: {v.detail}" for v in found.verdicts if v.verdict == "refuted"]
    out += [f"⇄ {path}: {c['section']}: zh {c['zh']['statement']} / en {c['en']['statement']}"
            + (f" (the {c['supported']} text is the one the other judges support)" if c["supported"] else "")
            for c in found.contradictions]
    return out


def strict_errors(text: str, path: str) -> list[CardFileError]:
    """The notes of :func:`statement_notes` as errors (``proofdeck sync --strict``)."""
    return [CardFileError(path, note.split(": ", 1)[1], hint="fix the number, or run `proofdeck verify` to see "
                                                              "what the judges found")
            for note in statement_notes(text, path)]
