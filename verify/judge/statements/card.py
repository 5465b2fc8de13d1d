"""Every statement of one card judged without annotation: claim, arithmetic, fact, formula, then parity.

    python -c "from verify.judge.statements.card import judge_card; from verify.reading.cardfile import read_card; \
print(judge_card(read_card('cards/fp8-formats.md')).counts())"

Per statement, in order: a hand-written claim that quotes it judges it (its verdict, when the run has one;
no automatic ✗ then); else the card's own arithmetic (a relation), a fact the code produces (a number of a
number format), a known formula. Then zh and en are compared unit by unit (``parity``): a disagreement is a
``contradiction`` naming both sides and the side the other judges support; an agreement makes an otherwise
unjudged statement ``consistent``. The rest is ``unchecked``, with the reason. A pure function of the card's
text and the claims' verdicts (no torch): ``proofdeck sync``, ``proofdeck import`` and ``python -m verify``
share it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from verify.judge.statements import arithmetic, consistency, definitions, facts, formulas, instances, parity
from verify.judge.statements.findings import Finding
from verify.reading.cardfile import CardText, split
from verify.reading.claims import Claim, card_claims, parse_claims
from verify.reading.pairing import card_pairs
from verify.reading.statements import Statement, pair_statements

JUDGES = (arithmetic.check, facts.check, formulas.check)
JUDGED = ("confirmed", "refuted", "contradiction", "consistent", "claimed")


@dataclass(frozen=True)
class StatementVerdict:
    card: str
    key: str  # section:unit:lang:n
    section: str
    lang: str
    text: str  # the statement as written
    sentence: str  # where it stands (what a mark highlights)
    verdict: str  # confirmed | refuted | contradiction | consistent | claimed | unchecked
    judge: str  # claim | arithmetic | fact | formula | parity | ""
    detail: str
    found: str = ""
    other: str = ""  # the other language's statement (contradiction), or the quantity a formula is
    claim_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CardStatements:
    card: str
    verdicts: list[StatementVerdict] = field(default_factory=list)
    contradictions: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return dict(Counter(v.verdict for v in self.verdicts))

    @property
    def judged(self) -> int:
        return sum(v.verdict in JUDGED for v in self.verdicts)

    def problems(self) -> list[StatementVerdict]:
        return [v for v in self.verdicts if v.verdict in ("refuted", "contradiction")]


_SPACE = re.compile(r"\s+")
_ELLIPSIS = re.compile(r"\.\.\.|…")


@lru_cache(maxsize=65536)
def _squash(text: str) -> str:
    """``text`` without whitespace (cached: every statement of a unit asks for the unit's text)."""
    return _SPACE.sub("", text)


@lru_cache(maxsize=8192)
def _pieces(quote: str) -> tuple[str, ...]:
    """A claim's quote cut at its "..." / "…", squashed, empty pieces left out (cached: asked once a statement)."""
    return tuple(q for p in _ELLIPSIS.split(quote) if (q := _squash(p)))


def _quoting(st: Statement, claims: list[Claim]) -> Claim | None:
    """The hand-written claim whose quote (in the statement's language) contains the statement."""
    words = _squash(st.value_side.text)
    unit = _squash(st.unit.text)
    for c in claims:
        pieces = _pieces(c.text_zh if st.unit.lang == "zh" else c.text_en)
        if pieces and any(words and words in p for p in pieces) and all(p in unit for p in pieces):
            return c
    return None


def _own(st: Statement, claims: list[Claim], verdicts: dict[str, str]) -> tuple[Finding | None, str]:
    claim = _quoting(st, claims)
    if claim is not None and (claim.asserts or claim.unverifiable):
        got = verdicts.get(claim.claim_id, "claimed")
        return Finding(got, "claim", f"judged by the claim {claim.claim_id}"), claim.claim_id
    findings = [f for judge in JUDGES if (f := judge(st)) is not None and f.verdict != "unchecked"]
    refuted = [f for f in findings if f.verdict == "refuted"]  # "2^-24 ≈ 5.96×10^-8" holds, but is no fp32 epsilon
    best = refuted or findings
    return (best[0] if best else None), ""


def _states(st: Statement, value: str) -> bool:
    """The statement's unit also states ``value`` (the judge's correction) as a number or formula."""
    from verify.reading.statements import unit_statements

    return any(other.value_side.text.replace(" ", "") == value.replace(" ", "") or
               str(other.value_side.value) == value for other in unit_statements(st.unit) if other is not st)


def _reason(st: Statement) -> str:
    if st.right is not None:
        return "a relation with symbols that holds only for some values, or a definition"
    if st.value_side.formula:
        return "a formula that is no quantity of the vocabulary, and no other language to compare it with"
    return "a number with no equation, known fact or formula around it, and no counterpart in the other language"


def _verdict(slug: str, st: Statement, found: Finding | None, claim_id: str, **kw: str) -> StatementVerdict:
    base = {"card": slug, "key": st.key, "section": st.unit.section, "lang": st.unit.lang, "text": st.text,
            "sentence": st.sentence, "claim_id": claim_id}
    if found is None:
        return StatementVerdict(**base, verdict=kw.get("verdict", "unchecked"), judge=kw.get("judge", ""),
                                detail=kw.get("detail", _reason(st)), other=kw.get("other", ""))
    return StatementVerdict(**base, verdict=found.verdict, judge=found.judge, detail=found.detail, found=found.found,
                            other=found.other)


def judge_card(card: CardText, claim_verdicts: dict[str, str] | None = None, text: str = "") -> CardStatements:
    """Every statement of ``card`` judged (``claim_verdicts``: claim id → verdict, from a run)."""
    slug = str(card.meta.get("slug") or "")
    return _judge(card, parse_claims(text, slug) if text else [], claim_verdicts)


def _judge(card: CardText, claims: list[Claim], claim_verdicts: dict[str, str] | None) -> CardStatements:
    """:func:`judge_card` with the card's claims read."""
    slug = str(card.meta.get("slug") or "")
    verdicts = claim_verdicts or {}
    out = CardStatements(slug)
    pairs = [(pair, *pair_statements(pair)) for pair in card_pairs(card)]
    own = {id(st): _own(st, claims, verdicts) for _p, zh, en in pairs for st in (*zh, *en)}
    for lang in ("zh", "en"):  # a name the card defines twice, differently: the formula it is, as a statement
        units = [u for p, _zh, _en in pairs if (u := p.zh if lang == "zh" else p.en) is not None]
        for st, finding in (*definitions.check_units(units), *instances.check_units(units)):
            _p, zh, en = next(t for t in pairs if st.unit in (t[0].zh, t[0].en))
            (zh if lang == "zh" else en).append(st)
            own[id(st)] = (finding, "")

    def confirmed(st: Statement) -> bool:
        return (f := own[id(st)][0]) is not None and f.verdict == "confirmed"

    for lang in ("zh", "en"):  # the card against itself, one language at a time
        written = [st for _p, zh, en in pairs for st in (zh if lang == "zh" else en)]
        for flag in consistency.check_card(written, confirmed):
            found, claim_id = own[id(flag.statement)]
            if not claim_id and (found is None or found.verdict != "refuted"):
                own[id(flag.statement)] = (flag.finding, "")
    for pair, zh, en in pairs:
        matched, contra = parity.compare(zh, en) if zh and en else ([], [])
        agree = {id(s) for a, b in matched for s in (a, b)}
        against: dict[int, Statement] = {}
        for a, b in contra:
            if own[id(a)][1] and own[id(b)][1]:
                continue  # both sides quoted by hand-written claims: those judge them, more deeply than parity
            against[id(a)], against[id(b)] = b, a
            fa, fb = own[id(a)][0], own[id(b)][0]
            support = ("zh" if fa and fa.verdict == "confirmed" or fb and fb.verdict == "refuted" else
                       "en" if fb and fb.verdict == "confirmed" or fa and fa.verdict == "refuted" else "")
            out.contradictions.append({"card": slug, "section": pair.section, "judge": "parity",
                                       "quantity": f"{a.text} / {b.text}", "supported": support,
                                       "zh": {"text_zh": a.sentence, "statement": a.text,
                                              "verdict": fa.verdict if fa else "unchecked"},
                                       "en": {"text_en": b.sentence, "statement": b.text,
                                              "verdict": fb.verdict if fb else "unchecked"}})
        for st in (*zh, *en):
            found, claim_id = own[id(st)]
            if found is not None and found.verdict == "refuted" and st.unit.section == "pitfalls" and found.found \
                    and _states(st, found.found):
                found = Finding("confirmed", found.judge, f"the pitfall's wrong value, corrected in the same place: "
                                f"{found.detail}", found.found)  # "taking E4M3's max as 240: it is 448"
            if found is not None and found.verdict in ("confirmed", "refuted", "contradiction") or claim_id:
                out.verdicts.append(_verdict(slug, st, found, claim_id))
            elif id(st) in against:
                other = against[id(st)]
                out.verdicts.append(_verdict(slug, st, None, "", verdict="contradiction", judge="parity",
                                             detail=f"the {other.unit.lang} text says {other.text}", other=other.text))
            elif id(st) in agree:
                out.verdicts.append(_verdict(slug, st, None, "", verdict="consistent", judge="parity",
                                             detail="zh and en state the same value"))
            else:
                out.verdicts.append(_verdict(slug, st, found, ""))
    return out


@lru_cache(maxsize=2048)
def judge_text(text: str, source: str = "<card>", claim_verdicts: tuple[tuple[str, str], ...] = ()) -> CardStatements:
    """:func:`judge_card` of a card file's text, cached by the text (sync, import and the page ask again). The front
    matter is parsed once, for the card and its claims alike."""
    card = split(text, source)
    slug = str(card.meta.get("slug") or "")
    return _judge(card, card_claims(card, slug) if text else [], dict(claim_verdicts))
