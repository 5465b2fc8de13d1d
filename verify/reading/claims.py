"""Read the ``claims:`` list from card files (Markdown with YAML front matter).

    python -c "from verify.reading.claims import read_cards; print(len(read_cards('cards')))"

The file is read by ``verify.reading.cardfile`` (the reader the app uses too). Each claim has a stable kebab-case
``id`` (unique within its card), ``text: {zh, en}`` (the card's own wording, quoted: it must occur in the
card, "..." standing for omitted words; "" where that language's text does not make the claim),
``section``, and what is judged: ``asserts`` (a sympy expression over ``verify.known.vocabulary``, e.g.
``model_state_bytes(zero3) == 16*Psi/N``), optionally ``reading`` (the reading of ambiguous wording the
assertion takes: the verdict is then at best conditional) — or, for a statement nothing can judge,
``unverifiable: <why>``. A claim with neither is qualitative and must quote no number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from verify.reading.cardfile import CardFileError, CardText, read_text, split

SECTIONS = ("summary", "insights", "derivation", "tradeoffs", "pitfalls", "follow_ups")
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Claim:
    card: str
    claim_id: str
    text_zh: str
    text_en: str
    section: str
    asserts: str = ""
    reading: str = ""
    unverifiable: str = ""
    corpus: str = ""  # the card's sections and follow-ups, whitespace removed (for the stale check)


def parse_claims(text: str, source: str = "<card>") -> list[Claim]:
    return list(_parse_claims(text, source))


@lru_cache(maxsize=256)
def _parse_claims(text: str, source: str) -> tuple[Claim, ...]:
    """Cached by the card's text: a sweep, the judge and the tests read the same cards many times (Claims are
    frozen, so callers share them safely)."""
    return _claims(split(text, source), source)


def card_claims(card: CardText, source: str = "<card>") -> list[Claim]:
    """:func:`parse_claims` of a card already split (``verify.reading.cardfile.split``): its front matter is not
    parsed again (the statement judges split a card once, for its texts and its claims)."""
    return list(_claims(card, source))


def _claims(card: CardText, source: str) -> tuple[Claim, ...]:
    data = card.meta
    slug = data.get("slug")
    if not isinstance(slug, str) or not slug:
        raise CardFileError(source, "missing slug", line=2, hint="add 'slug: kebab-case-name' to the front matter")
    claims, seen = [], set()
    card_corpus = corpus(card)  # one per card, shared by its claims
    for i, c in enumerate(data.get("claims") or []):
        where = f"claim #{i}"
        if not isinstance(c, dict):
            raise CardFileError(source, f"{where} is not a mapping")
        cid, text_ = c.get("id"), c.get("text") or {}
        if not isinstance(cid, str) or not _ID.match(cid):
            raise CardFileError(source, f"{where}: id {cid!r} is not kebab-case")
        if cid in seen:
            raise CardFileError(source, f"{where}: duplicate id {cid!r}")
        seen.add(cid)
        section = c.get("section") or ""  # optional, as in the app's card schema
        if section and section not in SECTIONS:
            raise CardFileError(source, f"{where} ({cid}): section {section!r} not in {SECTIONS}")
        zh, en = str(text_.get("zh") or ""), str(text_.get("en") or "")
        if not zh and not en:
            raise CardFileError(source, f"{where} ({cid}): text has neither zh nor en")
        extra = sorted(set(c) - {"id", "text", "section", "asserts", "reading", "unverifiable"})
        if extra:
            raise CardFileError(source, f"{where} ({cid}): unknown field(s) {extra} (claims take id, text, section, "
                                  f"asserts, reading, unverifiable)")
        fields = {k: c.get(k) for k in ("asserts", "reading", "unverifiable")}
        for k, val in fields.items():
            if val is not None and not isinstance(val, str):
                raise CardFileError(source, f"{where} ({cid}): {k} must be a string (quote it in YAML)")
        claims.append(Claim(slug, cid, zh, en, section, str(fields["asserts"] or "").strip(),
                            str(fields["reading"] or "").strip(), str(fields["unverifiable"] or "").strip(),
                            card_corpus))
    return tuple(claims)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def corpus(card: CardText) -> str:
    """The card's words a claim may quote: the body after the front matter and every follow-up."""
    parts = [card.body]
    for fu in card.meta.get("follow_ups") or []:
        if isinstance(fu, dict):
            for part in ("question", "answer"):
                value = fu.get(part) or {}
                if isinstance(value, dict):
                    parts += [str(value.get("zh") or ""), str(value.get("en") or "")]
    return _squash("\n".join(parts))


def stale_parts(claim: Claim) -> list[str]:
    """The quoted texts of ``claim`` that no longer occur in its card ("..." / "…" match any words)."""
    out = []
    for quoted in (claim.text_zh, claim.text_en):
        pieces = [_squash(p) for p in re.split(r"\.\.\.|…", quoted)]
        pos, ok = 0, True
        for piece in pieces:
            if not piece:
                continue
            found = claim.corpus.find(piece, pos)
            if found < 0:
                ok = False
                break
            pos = found + len(piece)
        if quoted and not ok:
            out.append(quoted)
    return out


def read_cards(folder: str | Path) -> list[Claim]:
    """Every claim of every ``*.md`` card in ``folder`` (sorted by file name)."""
    out: list[Claim] = []
    for path in sorted(Path(folder).glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        out.extend(parse_claims(read_text(path), str(path)))
    return out
