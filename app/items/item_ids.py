"""A review item's name outside the database, and the fingerprint of what it asks.

Files that leave the server (the handbook's study mode, the reviews it exports) name an item
``<card slug>/<kind>/<key>`` (``zero-sharding/followup/why-gather``): slugs, kinds and keys are kebab-case,
so the name splits without ambiguity, and it survives a new database row id. The fingerprint is 12 hex
digits of a SHA-256 over the item's source text (the card item: title and key insights; a follow-up: its
question and answer; a pitfall: its zh / en bullet; a misconception drill: the claim's words and its
verdict; a drill: its key and unit, and a showing's numbers and expected answer). An edit of another part of
the card keeps the fingerprint; an edit of what the item asks changes it, so a review done offline against
the old text can be told apart and skipped on import (``app.review.handbook_import``).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from app.cards.schema import CardDoc
from app.items import drills
from app.items.items import pitfall_pairs
from app.verification.store import CardVerdicts

KINDS = ("card", "followup", "pitfall", "misconception", "drill")
_NAME = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)*)/(card|followup|pitfall|misconception|drill)/([a-z0-9][a-z0-9-]*)$")


def item_name(slug: str, kind: str, key: str) -> str:
    return f"{slug}/{kind}/{key}"


def parse_item_name(name: str) -> tuple[str, str, str] | None:
    """``(slug, kind, key)`` of an item name, or None when it is not one."""
    m = _NAME.match(name)
    return (m.group(1), m.group(2), m.group(3)) if m else None


def _digest(parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:12]


def fingerprint(doc: CardDoc, kind: str, key: str, verdicts: CardVerdicts | None = None) -> str:
    """The fingerprint of item ``(kind, key)`` of ``doc`` ("" when the card has no such item any more)."""
    if kind == "card":
        insights = doc.section("insights")
        return _digest([kind, doc.title.zh, doc.title.en, insights.zh, insights.en])
    if kind == "followup":
        fu = next((f for f in doc.follow_ups if f.id == key), None)
        return "" if fu is None else _digest([kind, fu.question.zh, fu.question.en, fu.answer.zh, fu.answer.en])
    if kind == "pitfall":
        pairs = pitfall_pairs(doc)
        i = int(key.rsplit("-", 1)[1]) - 1 if re.fullmatch(r"pitfall-\d+", key) else -1
        return _digest([kind, *pairs[i]]) if 0 <= i < len(pairs) else ""
    if kind == "misconception":
        claim = next((c for c in doc.claims if c.id == key), None)
        row = next((v for v in (verdicts.rows if verdicts else ()) if v.claim_key == key), None)
        if claim is None or row is None:
            return ""
        return _digest([kind, claim.text.zh, claim.text.en, row.verdict])
    if kind == "drill":
        return _digest([kind, key, drills.unit({"key": key})])
    raise ValueError(f"unknown item kind {kind!r}; known: {', '.join(KINDS)}")


def showing_fingerprint(params: dict[str, Any]) -> str:
    """The fingerprint of one drill showing: its numbers, the expected answer and its unit."""
    return _digest(["showing", params, repr(drills.answer(params)), drills.unit(params)])
