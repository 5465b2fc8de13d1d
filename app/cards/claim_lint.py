"""What ``proofdeck sync`` says about a card's claims: errors that stop the sync, notes it lists.

    proofdeck sync   # "error FILE: claim ID: what (how to fix)"; mismatch / stale claims listed

Errors (nothing is stored): an ``asserts`` that does not parse, names an unknown quantity or symbol, or a
claim with neither ``asserts`` nor ``unverifiable`` that quotes a number. Notes: a claim whose quoted
text states a number its ``asserts`` does not (``mismatch``) or that no longer occurs in the card
(``stale``); ``proofdeck verify`` gives them those verdicts.
"""

from __future__ import annotations

from app.cards.errors import CardFileError


def lint_claims(text: str, path: str, *, with_notes: bool = True) -> tuple[list[CardFileError], list[str]]:
    """(errors, notes) for the claims of one card file (its front matter already validated).

    The notes (mismatch, stale) parse every formula the claims quote with sympy's LaTeX parser, about
    0.1 s a claim: ``with_notes=False`` (server start-up) finds the errors only."""
    from verify.asserts import AssertError, parse
    from verify.claim_judge import drift, quoted_statements
    from verify.claims import CardFormatError, parse_claims, stale_parts

    try:
        claims = parse_claims(text, path)
    except CardFormatError as exc:
        return [CardFileError(path, str(exc).removeprefix(f"{path}: "))], []
    errors, notes = [], []
    for c in claims:
        where = f"claim {c.claim_id}"
        if c.asserts:
            try:
                parsed = parse(c.asserts)
            except AssertError as exc:
                errors.append(CardFileError(path, f"{where}: asserts {c.asserts!r}: {exc}",
                                            hint="fix the expression, then sync again"))
                continue
            unmatched = drift(c, parsed) if with_notes else []
            if unmatched:
                notes.append(f"mismatch {path}: {where}: the text states {', '.join(unmatched)}, asserts "
                             f"{c.asserts!r} does not")
        elif not c.unverifiable and not c.check:
            quoted = [st.text for st in quoted_statements(c)]
            if quoted:
                errors.append(CardFileError(path, f"{where}: quotes {', '.join(quoted)} but has no asserts",
                                            hint="add asserts: '<quantity(...)> == <value>' or "
                                                 "unverifiable: <why nothing can judge it>"))
        for gone in stale_parts(c) if with_notes and (c.asserts or not c.check) else []:
            notes.append(f"stale {path}: {where}: quoted text no longer in the card: {gone[:80]!r}")
    return errors, notes
