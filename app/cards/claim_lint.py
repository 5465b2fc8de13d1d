"""What ``proofdeck sync`` says about a card's claims: errors that stop the sync, notes it lists.

    proofdeck sync   # "error FILE: claim ID: what (how to fix)"; mismatch / stale claims listed

Errors (nothing is stored): an ``asserts`` that does not parse, names an unknown quantity or symbol, or a
claim with neither ``asserts`` nor ``unverifiable`` that quotes a number. Notes: a claim whose quoted
text states a number its ``asserts`` does not (``mismatch``) or that no longer occurs in the card
(``stale``); ``proofdeck verify`` gives them those verdicts.
"""

from __future__ import annotations

from functools import lru_cache

from verify.reading.cardfile import CardFileError

# (path, message, line, hint) of one error; notes are plain strings
_Found = tuple[tuple[tuple[str, str, int | None, str], ...], tuple[str, ...]]


def lint_claims(text: str, path: str, *, with_notes: bool = True) -> tuple[list[CardFileError], list[str]]:
    """(errors, notes) for the claims of one card file (its front matter already validated).

    Parsing the claims' ``asserts`` with sympy costs ~20 ms a claim (~4 s for the bundled deck's 417 on a
    quiet machine), the notes (mismatch, stale) ~0.1 s a claim more: ``with_notes=False`` (server
    start-up) finds the errors only. The outcome depends on the text alone (and the vocabulary, fixed for
    a process), so a process lints each text once: a re-sync of an unchanged deck, or the next sync of
    the same deck into another database, costs no parse."""
    errors, notes = _lint_once(text, path, with_notes)
    return [CardFileError(p, m, line=n, hint=h) for p, m, n, h in errors], list(notes)


@lru_cache(maxsize=1024)  # a bank of ~856 cards re-synced stays cached; ~20 KB a card
def _lint_once(text: str, path: str, with_notes: bool) -> _Found:
    errors, notes = _lint(text, path, with_notes)
    return tuple((e.path, e.message, e.line, e.hint) for e in errors), tuple(notes)


def _lint(text: str, path: str, with_notes: bool) -> tuple[list[CardFileError], list[str]]:
    from verify.judge.drift import drift, quoted_statements
    from verify.reading.asserts import AssertError, parse
    from verify.reading.claims import parse_claims, stale_parts

    try:
        claims = parse_claims(text, path)
    except CardFileError as exc:
        return [exc], []
    errors, notes = [], []
    for c in claims:
        where = f"claim {c.claim_id}"
        if c.asserts:
            try:
                parse(c.asserts)
            except AssertError as exc:
                errors.append(CardFileError(path, f"{where}: asserts {c.asserts!r}: {exc}",
                                            hint="fix the expression, then sync again"))
                continue
            unmatched = drift(c.text_zh, c.text_en, c.asserts) if with_notes else ()
            if unmatched:
                notes.append(f"mismatch {path}: {where}: the text states {', '.join(unmatched)}, asserts "
                             f"{c.asserts!r} does not")
        elif not c.unverifiable:
            quoted = [st.text for st in quoted_statements(c)]
            if quoted:
                errors.append(CardFileError(path, f"{where}: quotes {', '.join(quoted)} but has no asserts",
                                            hint="add asserts: '<quantity(...)> == <value>' or "
                                                 "unverifiable: <why nothing can judge it>"))
        for gone in stale_parts(c) if with_notes else []:
            notes.append(f"stale {path}: {where}: quoted text no longer in the card: {gone[:80]!r}")
    return errors, notes
