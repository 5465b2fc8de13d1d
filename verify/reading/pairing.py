"""A card's texts cut into units (a bullet, a table row, a paragraph, a display formula) and its zh and en units
paired: the same section, the same position, as the bank writes them.

    python -c "from verify.reading.pairing import card_pairs; from verify.reading.cardfile import read_card; \
print(card_pairs(read_card('cards/fp8-formats.md'))[:3])"

Units pair by position when a section has as many in each language; otherwise by their shapes (kind of
block and how many numbers it holds, ``difflib``), leaving the units that have no counterpart unpaired. A
follow-up's zh and en answers are one pair, as are its questions. Inline code is blanked (numbers in code are
code), and so are the markers of ordered lists.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from verify.reading.cardfile import CardText

SECTIONS = {"summary": "summary", "key insights": "insights", "insights": "insights", "derivation": "derivation",
            "trade-offs": "tradeoffs", "tradeoffs": "tradeoffs", "pitfalls": "pitfalls"}
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_CODE = re.compile(r"`+[^`]*`+")
_DIGITS = re.compile(r"\d")


@dataclass(frozen=True)
class Unit:
    lang: str
    section: str  # summary | insights | derivation | tradeoffs | pitfalls | follow_up:<id> | question:<id>
    index: int  # position among the section's units in that language
    kind: str  # item | row | math | para | heading
    text: str
    header: str = ""  # a table row's header row (what each column holds)


@dataclass(frozen=True)
class Pair:
    section: str
    zh: Unit | None
    en: Unit | None


def _blank_code(text: str) -> str:
    return _CODE.sub(lambda m: " " * len(m.group(0)), text)


def units_of(text: str, lang: str, section: str) -> list[Unit]:
    """The units of one language's text of one section."""
    blocks: list[tuple[str, list[str]]] = []
    in_math = False
    for line in text.split("\n"):
        stripped = line.strip()
        if in_math:
            blocks[-1][1].append(line)
            in_math = not stripped.endswith("$$")
            continue
        if not stripped:
            blocks.append(("gap", []))
        elif stripped.startswith("$$"):
            blocks.append(("math", [line]))
            in_math = not (stripped.endswith("$$") and len(stripped) > 2)
        elif stripped.startswith("|"):
            if not re.fullmatch(r"\|?[\s:|-]+\|?", stripped):
                blocks.append(("row", [line]))
        elif stripped.startswith("#"):
            blocks.append(("heading", [line]))
        elif _ITEM.match(line):
            blocks.append(("item", [_ITEM.sub(lambda m: " " * len(m.group(0)), line, count=1)]))
        elif blocks and blocks[-1][0] in ("item", "para"):
            blocks[-1][1].append(line)
        else:
            blocks.append(("para", [line]))
    out: list[Unit] = []
    header = ""
    for kind, lines in blocks:
        body = _blank_code("\n".join(lines)).strip()
        if kind == "row" and (not out or out[-1].kind != "row"):
            header = body  # a table's first row names its columns
        if kind != "gap" and body:
            out.append(Unit(lang, section, len(out), kind, body, header if kind == "row" else ""))
    return out


def _shape(u: Unit) -> str:
    return f"{u.kind}:{min(len(_DIGITS.findall(u.text)), 9)}"


def pair_units(zh: list[Unit], en: list[Unit], section: str) -> list[Pair]:
    if len(zh) == len(en):
        return [Pair(section, a, b) for a, b in zip(zh, en, strict=True)]
    out: list[Pair] = []
    matcher = difflib.SequenceMatcher(a=[_shape(u) for u in zh], b=[_shape(u) for u in en], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            out += [Pair(section, zh[i], en[j]) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
        else:
            out += [Pair(section, zh[i], None) for i in range(i1, i2)]
            out += [Pair(section, None, en[j]) for j in range(j1, j2)]
    return out


def _sections(body: str) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, list[str]]] = {}
    section = lang = None
    for line in body.split("\n"):
        head = re.fullmatch(r"#\s+(.+?)\s*", line)
        if head and head.group(1).lower() in SECTIONS:
            section, lang = SECTIONS[head.group(1).lower()], None
            found.setdefault(section, {})
            continue
        sub = re.fullmatch(r"##\s+(zh|en)\s*", line)
        if sub and section:
            lang = sub.group(1)
            found[section].setdefault(lang, [])
            continue
        if section and lang:
            found[section][lang].append(line)
    return {s: {lg: "\n".join(lines) for lg, lines in v.items()} for s, v in found.items()}


def _text(value: Any, lang: str) -> str:
    return str(value.get(lang) or "") if isinstance(value, dict) else ""


@lru_cache(maxsize=512)
def _pairs(body: str, follow_ups: tuple[tuple[str, str, str, str, str], ...]) -> tuple[Pair, ...]:
    out: list[Pair] = []
    for section, texts in _sections(body).items():
        out += pair_units(units_of(texts.get("zh", ""), "zh", section), units_of(texts.get("en", ""), "en", section),
                          section)
    for (zid, q_zh, a_zh), (eid, q_en, a_en) in _follow_up_pairs(follow_ups):
        for part, zh, en in (("question", q_zh, q_en), ("follow_up", a_zh, a_en)):
            out += pair_units(units_of(zh, "zh", f"{part}:{zid}"), units_of(en, "en", f"{part}:{eid}"),
                              f"{part}:{zid}")
    return tuple(out)


def _follow_up_pairs(follow_ups: tuple[tuple[str, str, str, str, str], ...]) -> list[tuple[tuple[str, str, str],
                                                                                        tuple[str, str, str]]]:
    """Each follow-up's zh and en sides: its own, or, where the bank wrote one language per follow-up (a zh
    question with its 答： answer, then its English translation), a zh-only follow-up and the en-only one after it."""
    out = []
    k = 0
    while k < len(follow_ups):
        fid, q_zh, q_en, a_zh, a_en = follow_ups[k]
        nxt = follow_ups[k + 1] if k + 1 < len(follow_ups) else None
        only_zh = (q_zh or a_zh) and not (q_en or a_en)
        if only_zh and nxt is not None and not (nxt[1] or nxt[3]) and (nxt[2] or nxt[4]):
            out.append(((fid, q_zh, a_zh), (nxt[0], nxt[2], nxt[4])))
            k += 2
            continue
        out.append(((fid, q_zh, a_zh), (fid, q_en, a_en)))
        k += 1
    return out


def card_pairs(card: CardText) -> list[Pair]:
    """Every unit of the card, zh and en side by side where they correspond."""
    fus = []
    for n, fu in enumerate(card.meta.get("follow_ups") or []):
        if isinstance(fu, dict):
            fus.append((str(fu.get("id") or n), _text(fu.get("question"), "zh"), _text(fu.get("question"), "en"),
                        _text(fu.get("answer"), "zh"), _text(fu.get("answer"), "en")))
    return list(_pairs(card.body, tuple(fus)))
