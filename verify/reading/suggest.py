"""Propose ``asserts`` for a card's quantitative statements (an imported bank card has no claims yet).

    proofdeck claims suggest cards/some-card.md [--write]
    proofdeck claims suggest cards/ --write        # every card of a folder, in one process

Each sentence of the sections and follow-up answers (after LaTeX repair, i.e. as ``proofdeck import``
wrote it) is read for its statements (``verify.reading.textnums``) and the words around them: a stage (DDP,
ZeRO-1/2/3), what is measured (memory / communication / all-reduce / bubble) and a relation to DDP
("same as DDP"). A statement that maps onto the vocabulary becomes a proposed claim quoting that sentence
(id ``proposed-…``: the author checks the assertion, keeps or deletes it); the rest are listed as
unchecked. A formula the word rules do not place is matched against every quantity of the vocabulary: a
quantity whose ledger formula equals it (``12h^2/t`` → ``tp_weights_per_rank()``, ``(k-1) + L/k`` →
``checkpoint_peak_units()``) is proposed, the first in vocabulary order when several agree. Nothing is
judged here: ``proofdeck verify`` judges what the author accepts.

A proposal quotes the words around its statement only (:func:`quote`: the sentence, cut at the clause
boundaries nearest the statements before and after it), so that the quote states what its assertion states
and nothing else; ``proofdeck claims suggest`` writes only the proposals whose quote and assertion agree as
the next ``proofdeck sync`` reads them (``verify.judge.drift``: that check lives above this layer and is
passed in, see :func:`suggest_card`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sympy as sp
import yaml

from verify.known.vocabulary import SYMBOLS
from verify.reading import ledger_match
from verify.reading.cardfile import CardText, read_text, split
from verify.reading.pairing import SECTIONS
from verify.reading.textnums import Statement, is_notation, statements

_STAGE = re.compile(r"ZeRO-?([123])|阶段\s*([123])|stage\s*([123])|\b(DDP|baseline|standard data parallel\w*)|"
                    r"(数据并行|原 DP|普通数据并行)", re.I)
_MEMORY = re.compile(r"memory|bytes|显存|字节|内存", re.I)
_COMM = re.compile(r"communicat|volume|traffic|通信", re.I)
_SAME_AS_DDP = re.compile(r"(same|identical|no (additional|extra)|zero (additional|extra)).{0,60}(DDP|data paral)|"
                          r"与(原 ?DP|DDP)相同", re.I)
_ALLREDUCE = re.compile(r"all-?reduce", re.I)
_BUBBLE = re.compile(r"bubble|气泡", re.I)
_SENTENCE = re.compile(r"(?<=[。；;])|(?<=\.)\s+(?=[A-Z①②③])")
_OPTIM = re.compile(r"optimi[sz]er|优化器", re.I)
_MORE = re.compile(r"^\s*(more|higher|extra|增加|多)", re.I)
_ARROW = re.compile(r"^\s*(→|\\to|->)")
_PRODUCT = re.compile(r"\s*[\d(（$\\]|\s*10\^")  # after "N×": a factor follows, "2 × 70×10^9"
_OPERATOR = re.compile(r"\s*[/*·^×]")  # after a plain "2Ψ": it is a term of what follows
_BEYOND = re.compile(r"ZeRO\+\+|ZeRO-Infinity|MiCS", re.I)  # stages the vocabulary does not know
_TEX_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_CUT = re.compile(r"[，,；;：:（(）)、]|\s[-–—]\s")  # clause boundaries a quote may be cut at
_EDGE = " \t，,；;：:、→=≈~-–—"  # what a cut quote does not start or end with


@dataclass(frozen=True)
class Proposal:
    lang: str
    sentence: str  # the whole sentence (context)
    statement: str
    asserts: str
    quote: str = ""  # what the claim quotes: the statement's clause of the sentence ("" = the sentence)
    section: str = "derivation"  # the claims' section name: summary | insights | … | follow_ups

    @property
    def quoted(self) -> str:
        return self.quote or self.sentence


def _stage(sentence: str, before: int) -> str | None:
    """The stage named last before position ``before`` (else the first one named)."""
    found = [(m.start(), m) for m in _STAGE.finditer(sentence)]
    pick = [m for pos, m in found if pos < before] or [m for _, m in found]
    if not pick:
        return None
    m = pick[-1]
    digit = m.group(1) or m.group(2) or m.group(3)
    return f"zero{digit}" if digit else "ddp"


def _expr(value: sp.Expr) -> str:
    return str(sp.sstr(value)).replace(" ", "")


def _span(sentence: str, st: Statement) -> tuple[int, int]:
    """Where ``st`` stands in ``sentence``: its whole ``$…$`` for TeX (the parts of one formula share it)."""
    if sentence.startswith("$", st.start):
        tex = _TEX_SPAN.match(sentence, st.start)
        if tex:
            return tex.start(), tex.end()
    return st.start, st.start + len(st.text)


def quote(sentence: str, st: Statement, found: list[Statement] | None = None) -> str:
    """The part of ``sentence`` a claim on ``st`` quotes: up to the statements before and after it (other
    numbers its assertion does not state), cut at the clause boundary (，, ; : ( …) farthest from ``st`` on
    each side that has such a neighbour, never inside a ``$…$``; the whole sentence when ``st`` is alone."""
    found = statements(sentence) if found is None else found
    start, end = _span(sentence, st)
    spans = {_span(sentence, other) for other in found} - {(start, end)}
    left = max((b for a, b in spans if b <= start), default=None)
    right = min((a for a, b in spans if a >= end), default=None)
    tex = [m.span() for m in _TEX_SPAN.finditer(sentence)]

    def outside(i: int) -> bool:
        return not any(a <= i < b for a, b in tex)

    lo, hi = 0, len(sentence)
    if left is not None:
        cuts = [m.end() for m in _CUT.finditer(sentence, left, start) if outside(m.start())]
        lo = cuts[0] if cuts else left
    if right is not None:
        cuts = [m.start() for m in _CUT.finditer(sentence, end, right) if outside(m.start())]
        hi = cuts[-1] if cuts else right
    piece = sentence[lo:hi]
    if lo:
        piece = piece.lstrip(_EDGE)
    if hi < len(sentence):
        piece = piece.rstrip(_EDGE)
    return piece.strip()


def propose_sentence(lang: str, sentence: str, context: str | None = None, section: str = "derivation",
                     found: list[Statement] | None = None) -> list[Proposal]:
    """Proposals for one sentence; ``context`` is the stage an earlier sentence of the paragraph named;
    ``found``: the sentence's statements, when the caller has read them already."""
    out: list[Proposal] = []
    psi, n = SYMBOLS["Psi"], SYMBOLS["N"]
    same_as_ddp = bool(_SAME_AS_DDP.search(sentence))
    found = statements(sentence) if found is None else found
    for st in found:
        if st.value is None:
            continue
        stage = _stage(sentence, st.start)
        if stage in (None, "ddp") and context and (stage is None or same_as_ddp):
            stage = context  # "identical volume to standard DDP (2Ψ)" is about the paragraph's stage
        after = sentence[st.start + len(st.text):]
        if stage and stage != "ddp" and st.value.free_symbols == {psi} and _ARROW.match(after.lstrip("$）)")):
            stage = "ddp"  # "12Ψ → 12Ψ/N": the value before sharding
        asserts = _assertion(st, sentence, stage, psi, n, after)
        if asserts:
            out.append(Proposal(lang, sentence.strip(), st.text, asserts, quote(sentence, st, found), section))
    if not out and same_as_ddp and _COMM.search(sentence):
        stage = _stage(sentence, len(sentence))
        stage = context if stage in (None, "ddp") else stage
        if stage and stage != "ddp":
            out.append(Proposal(lang, sentence.strip(), "same as DDP", f"comm_volume({stage}) == comm_volume(ddp)",
                                section=section))
    return out


def _by_ledger(value: sp.Expr) -> str | None:
    """``q(args) == value`` for the first quantity whose ledger formula equals the statement's formula."""
    label = ledger_match.quantity_of(value)
    return f"{label} == {_expr(value)}" if label else None


def _assertion(st: Statement, sentence: str, stage: str | None, psi: sp.Symbol, n: sp.Symbol,
               after: str = "") -> str | None:
    got = _by_word(st, sentence, stage, psi, n, after)
    if got is None and st.kind == "formula" and st.value is not None and not is_notation(st):
        return _by_ledger(st.value)
    return got


def _by_word(st: Statement, sentence: str, stage: str | None, psi: sp.Symbol, n: sp.Symbol,
             after: str = "") -> str | None:
    value = st.value
    assert value is not None
    free = value.free_symbols
    if _BUBBLE.search(sentence) and free and free <= {SYMBOLS["p"], SYMBOLS["m"], SYMBOLS["v"]}:
        return f"bubble_fraction(onef1b) == {_expr(value)}"
    if _ALLREDUCE.search(sentence) and free and SYMBOLS["M"] in free and free <= {n, SYMBOLS["M"]}:
        return f"ring_send(all_reduce) == {_expr(value)}"
    if stage is None or _BEYOND.search(sentence):
        return None
    if st.kind == "multiplier" and _PRODUCT.match(after) or st.kind == "psi" and _OPERATOR.match(after):
        return None  # "2 × 70×10^9": a product of numbers, not a ratio; "2Ψ/8": a term of a larger expression
    if st.kind == "multiplier" or st.kind == "percent":
        if st.kind == "percent" and not _MORE.match(after):
            return None  # "90% communication-bound" is not "90% more"
        before = sentence[max(0, st.start - 30):st.start]
        if _COMM.search(sentence) and stage != "ddp" and not _MEMORY.search(before):
            ratio = value if st.kind == "multiplier" else 1 + value / 100
            return f"comm_volume({stage}) / comm_volume(ddp) == {_expr(ratio)}"
        if _MEMORY.search(sentence) and stage != "ddp" and st.kind == "multiplier":
            return f"reduction(ddp, {stage}) == {_expr(value)}"
        return None
    if free and free <= {psi, n} and psi in free:
        if _COMM.search(sentence) and not _MEMORY.search(sentence):
            return f"comm_volume({stage}) == {_expr(value)}"
        if _OPTIM.search(sentence) and not re.search(r"total|总|memory becomes|Memory:", sentence, re.I):
            return f"optim_bytes({stage}) == {_expr(value)}"
        if _MEMORY.search(sentence):
            return f"model_state_bytes({stage}) == {_expr(value)}"
    return None


COUNTED = ("formula", "multiplier", "percent", "size", "psi", "bytes")


def paragraphs(card: CardText) -> list[tuple[str, str, str]]:
    """(lang, section, line) for every line of the card's prose: each ``## zh`` / ``## en`` block of the body
    under its ``# Section`` heading, then the follow-ups (their answers, and their questions: a bank
    card's follow-up holds its answer after 答： / Answer: in the question)."""
    out: list[tuple[str, str, str]] = []
    lang, section = None, "derivation"
    for line in card.body.splitlines():
        head = re.fullmatch(r"##\s+(zh|en)\s*", line)
        if head:
            lang = head.group(1)
        elif line.startswith("# "):
            lang, section = None, SECTIONS.get(line[2:].strip().lower(), "derivation")
        elif lang:
            out.append((lang, section, line))
    for fu in card.meta.get("follow_ups") or []:
        if not isinstance(fu, dict):
            continue
        for part in ("question", "answer"):
            value = fu.get(part) or {}
            for lg in ("zh", "en"):
                text = str(value.get(lg) or "") if isinstance(value, dict) else ""
                out += [(lg, "follow_ups", line) for line in text.split("\n") if line.strip()]
    return out


def texts(card: CardText) -> dict[str, str]:
    """The card's prose per language (:func:`paragraphs`, joined)."""
    out: dict[str, list[str]] = {"zh": [], "en": []}
    for lang, _section, line in paragraphs(card):
        out[lang].append(line)
    return {lg: "\n".join(lines) for lg, lines in out.items()}


def propose_card(card: CardText) -> tuple[list[Proposal], list[str]]:
    """(proposals, unchecked statements) for one card."""
    proposals: list[Proposal] = []
    unchecked: list[str] = []
    for lang, section, paragraph in paragraphs(card):
        context: str | None = None
        for sentence in _SENTENCE.split(paragraph):
            if not sentence.strip():
                continue
            read = statements(sentence)
            found = propose_sentence(lang, sentence, context, section, read)
            proposals += found
            covered = {p.statement for p in found}
            unchecked += [f"{lang}: {st.text}" for st in read
                          if st.kind in COUNTED and not is_notation(st) and st.text not in covered]
            named = _stage(sentence, len(sentence))
            context = named if named and named != "ddp" else context
    return _unique(proposals), unchecked


def suggest(path: str | Path) -> tuple[list[Proposal], list[str]]:
    """(proposals, unchecked statements) for one card file."""
    return propose_card(split(read_text(path), str(path)))


def _unique(props: list[Proposal]) -> list[Proposal]:
    seen: set[tuple[str, str]] = set()
    out = []
    for p in props:
        if (p.lang, p.asserts) not in seen:
            seen.add((p.lang, p.asserts))
            out.append(p)
    return out


def card_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[str]]:
    """Card files named directly, plus every ``*.md`` of named folders but README.md (sorted), in order;
    and one line for each path that is neither."""
    found: list[Path] = []
    missing: list[str] = []
    for path in map(Path, paths):
        if path.is_dir():
            inside = sorted(p for p in path.glob("*.md") if p.is_file() and p.name.lower() != "readme.md")
            found += inside
            if not inside:
                missing.append(f"{path}: folder has no card files (*.md)")
        elif path.is_file():
            found.append(path)
        else:
            missing.append(f"{path}: no such card file or folder")
    return list(dict.fromkeys(found)), missing


Agrees = Callable[[Proposal, CardText], str]  # "" when the proposal may be written, else why not


@dataclass
class CardSuggestions:
    """What :func:`suggest_card` found for one card file."""

    path: Path
    proposed: list[Proposal] = field(default_factory=list)  # agreeing, new: what --write appends
    dropped: list[tuple[Proposal, str]] = field(default_factory=list)  # (proposal, why it is not written)
    known: int = 0  # proposals the card's claims already hold (same quote and asserts)
    unchecked: list[str] = field(default_factory=list)
    written: int = 0


def suggest_card(path: str | Path, agrees: Agrees | None = None, *, write_back: bool = False) -> CardSuggestions:
    """Proposals for the card file at ``path``, read once: each is checked by ``agrees`` (its quote against
    its assertion, as the next sync checks them; None keeps them all) and against the card's claims (one
    with the same quote and asserts is not proposed again); ``write_back`` appends the kept ones."""
    path = Path(path)
    text = read_text(path)
    card = split(text, str(path))
    props, unchecked = propose_card(card)
    out = CardSuggestions(path, unchecked=unchecked)
    held = {(str(c.get("asserts") or ""), _squash(str((c.get("text") or {}).get(lg) or "")))
            for c in card.meta.get("claims") or [] if isinstance(c, dict) for lg in ("zh", "en")}
    for p in props:
        if (p.asserts, _squash(p.quoted)) in held:
            out.known += 1
            continue
        why = agrees(p, card) if agrees is not None else ""
        if why:
            out.dropped.append((p, why))
        else:
            out.proposed.append(p)
    if write_back and out.proposed:
        out.written = write(path, out.proposed, card)
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def as_claims(props: list[Proposal], existing: set[str]) -> list[dict[str, Any]]:
    claims, i = [], 1
    for p in props:
        while f"proposed-{i}" in existing:
            i += 1
        claims.append({"id": f"proposed-{i}", "section": p.section, "text": {p.lang: p.quoted},
                       "asserts": p.asserts})
        existing.add(f"proposed-{i}")
    return claims


def write(path: str | Path, props: list[Proposal], card: CardText | None = None) -> int:
    """Append the proposals to the card's ``claims:`` (front matter rewritten with PyYAML); returns how many.
    ``card``: the file as already read (else it is read here)."""
    path = Path(path)
    card = card if card is not None else split(read_text(path), str(path))
    data = dict(card.meta)
    claims = list(data.get("claims") or [])
    new = as_claims(props, {str(c.get("id")) for c in claims if isinstance(c, dict)})
    data["claims"] = claims + new
    head = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=120)
    tmp = path.with_name(f".{path.name}.suggest.tmp")
    tmp.write_text("---\n" + head + "---\n" + card.body, encoding="utf-8", newline="\n")
    tmp.replace(path)  # a reader (or a sync) never sees half a card
    return len(new)
