"""Propose ``asserts`` for a card's quantitative statements (an imported bank card has no claims yet).

    proofdeck claims suggest cards/some-card.md [--write]

Each sentence of the sections and follow-up answers (after LaTeX repair, i.e. as ``proofdeck import``
wrote it) is read for its statements (``verify.reading.textnums``) and the words around them: a stage (DDP,
ZeRO-1/2/3), what is measured (memory / communication / all-reduce / bubble) and a relation to DDP
("same as DDP"). A statement that maps onto the vocabulary becomes a proposed claim quoting that sentence
(id ``proposed-…``: the author checks the assertion, keeps or deletes it); the rest are listed as
unchecked. A formula the word rules do not place is matched against every quantity of the vocabulary: a
quantity whose ledger formula equals it (``12h^2/t`` → ``tp_weights_per_rank()``, ``(k-1) + L/k`` →
``checkpoint_peak_units()``) is proposed, the first in vocabulary order when several agree. Nothing is
judged here: ``proofdeck verify`` judges what the author accepts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import sympy as sp
import yaml

from verify.known.vocabulary import ARG_VALUES, QUANTITIES, SYMBOLS
from verify.reading.cardfile import CardText, read_card
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


@dataclass(frozen=True)
class Proposal:
    lang: str
    sentence: str
    statement: str
    asserts: str


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


def propose_sentence(lang: str, sentence: str, context: str | None = None) -> list[Proposal]:
    """Proposals for one sentence; ``context`` is the stage an earlier sentence of the paragraph named."""
    out: list[Proposal] = []
    psi, n = SYMBOLS["Psi"], SYMBOLS["N"]
    same_as_ddp = bool(_SAME_AS_DDP.search(sentence))
    for st in statements(sentence):
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
            out.append(Proposal(lang, sentence.strip(), st.text, asserts))
    if not out and same_as_ddp and _COMM.search(sentence):
        stage = _stage(sentence, len(sentence))
        stage = context if stage in (None, "ddp") else stage
        if stage and stage != "ddp":
            out.append(Proposal(lang, sentence.strip(), "same as DDP", f"comm_volume({stage}) == comm_volume(ddp)"))
    return out


@lru_cache(maxsize=1)
def _ledgers() -> list[tuple[str, sp.Expr]]:
    """Every quantity with arguments and its ledger formula, in vocabulary order."""
    import itertools

    out = []
    for q in QUANTITIES.values():
        for args in itertools.product(*(ARG_VALUES[kind] for kind in q.params)):
            try:
                formula = q.ledger(tuple(args))
            except (ValueError, KeyError, TypeError):
                continue
            if formula is not None and formula.free_symbols:
                out.append((f"{q.name}({', '.join(args)})", formula))
    return out


def _by_ledger(value: sp.Expr) -> str | None:
    """``q(args) == value`` for the first quantity whose ledger formula equals the statement's formula."""
    for label, formula in _ledgers():
        if formula.free_symbols == value.free_symbols and sp.cancel(formula - value) == 0:
            return f"{label} == {_expr(value)}"
    return None


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
    if stage is None:
        return None
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


def texts(card: CardText) -> dict[str, str]:
    """The card's prose per language: each ``## zh`` / ``## en`` block of the body, and the follow-ups."""
    out: dict[str, list[str]] = {"zh": [], "en": []}
    lang = None
    for line in card.body.splitlines():
        head = re.fullmatch(r"##\s+(zh|en)\s*", line)
        if head:
            lang = head.group(1)
        elif line.startswith("# "):
            lang = None
        elif lang:
            out[lang].append(line)
    for fu in card.meta.get("follow_ups") or []:
        for lg in ("zh", "en"):
            out[lg].append(str((fu.get("answer") or {}).get(lg) or ""))
    return {lg: "\n".join(lines) for lg, lines in out.items()}


def suggest(path: str | Path) -> tuple[list[Proposal], list[str]]:
    """(proposals, unchecked statements) for one card file."""
    proposals: list[Proposal] = []
    unchecked: list[str] = []
    for lang, prose in texts(read_card(path)).items():
        for paragraph in prose.split("\n"):
            context: str | None = None
            for sentence in _SENTENCE.split(paragraph):
                if not sentence.strip():
                    continue
                found = propose_sentence(lang, sentence, context)
                proposals += found
                covered = {p.statement for p in found}
                unchecked += [f"{lang}: {st.text}" for st in statements(sentence)
                              if st.kind in COUNTED and not is_notation(st) and st.text not in covered]
                named = _stage(sentence, len(sentence))
                context = named if named and named != "ddp" else context
    return _unique(proposals), unchecked


def _unique(props: list[Proposal]) -> list[Proposal]:
    seen: set[tuple[str, str]] = set()
    out = []
    for p in props:
        if (p.lang, p.asserts) not in seen:
            seen.add((p.lang, p.asserts))
            out.append(p)
    return out


def as_claims(props: list[Proposal], existing: set[str]) -> list[dict[str, Any]]:
    claims, i = [], 1
    for p in props:
        while f"proposed-{i}" in existing:
            i += 1
        claims.append({"id": f"proposed-{i}", "section": "derivation", "text": {p.lang: p.sentence},
                       "asserts": p.asserts})
        existing.add(f"proposed-{i}")
    return claims


def write(path: str | Path, props: list[Proposal]) -> int:
    """Append the proposals to the card's ``claims:`` (front matter rewritten with PyYAML); returns how many."""
    path = Path(path)
    card = read_card(path)
    data = dict(card.meta)
    claims = list(data.get("claims") or [])
    new = as_claims(props, {str(c.get("id")) for c in claims if isinstance(c, dict)})
    data["claims"] = claims + new
    head = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=120)
    path.write_text("---\n" + head + "---\n" + card.body, encoding="utf-8")
    return len(new)
