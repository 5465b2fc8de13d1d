"""Read the ``claims:`` list from card files (Markdown with YAML front matter).

    python -c "from verify.claims import read_cards; print(len(read_cards('cards')))"

Front matter: a ``---`` line at byte 0, YAML, the next ``---`` line. Each claim has a stable kebab-case
``id`` (unique within its card), ``text: {zh, en}`` (the card's own wording; "" where that language's
text does not make the claim), ``check`` (a registered check id) and ``section``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

SECTIONS = ("summary", "insights", "derivation", "tradeoffs", "pitfalls", "follow_ups")
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class CardFormatError(ValueError):
    """A card's front matter or claims list is malformed; the message names the file and the claim."""


@dataclass(frozen=True)
class Claim:
    card: str
    claim_id: str
    text_zh: str
    text_en: str
    check: str
    section: str


def front_matter(text: str, source: str = "<card>") -> dict:
    if not text.startswith("---\n"):
        raise CardFormatError(f"{source}: front matter must start with '---' at byte 0")
    end = text.find("\n---", 3)
    if end < 0:
        raise CardFormatError(f"{source}: front matter has no closing '---' line")
    data = yaml.safe_load(text[4:end + 1]) or {}
    if not isinstance(data, dict):
        raise CardFormatError(f"{source}: front matter is not a mapping")
    return data


def parse_claims(text: str, source: str = "<card>") -> list[Claim]:
    data = front_matter(text, source)
    slug = data.get("slug")
    if not isinstance(slug, str) or not slug:
        raise CardFormatError(f"{source}: missing slug")
    claims, seen = [], set()
    for i, c in enumerate(data.get("claims") or []):
        where = f"{source}: claim #{i}"
        if not isinstance(c, dict):
            raise CardFormatError(f"{where} is not a mapping")
        cid, text_ = c.get("id"), c.get("text") or {}
        if not isinstance(cid, str) or not _ID.match(cid):
            raise CardFormatError(f"{where}: id {cid!r} is not kebab-case")
        if cid in seen:
            raise CardFormatError(f"{where}: duplicate id {cid!r}")
        seen.add(cid)
        section = c.get("section")
        if section not in SECTIONS:
            raise CardFormatError(f"{where} ({cid}): section {section!r} not in {SECTIONS}")
        zh, en = str(text_.get("zh") or ""), str(text_.get("en") or "")
        if not zh and not en:
            raise CardFormatError(f"{where} ({cid}): text has neither zh nor en")
        claims.append(Claim(slug, cid, zh, en, str(c.get("check") or ""), section))
    return claims


def read_cards(folder: str | Path) -> list[Claim]:
    """Every claim of every ``*.md`` card in ``folder`` (sorted by file name)."""
    out: list[Claim] = []
    for path in sorted(Path(folder).glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        out.extend(parse_claims(path.read_text(encoding="utf-8"), str(path)))
    return out
