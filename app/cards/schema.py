"""The card document: what one file in ``cards/`` holds, independent of storage.

Vocabulary (see DESIGN.md): a **card** has a slug, a bilingual title, metadata and **sections**;
**follow-ups** are deeper questions; **links** point to other cards; **claims** are quantitative
statements, each judged by a **check** in ``verify/``.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.core.vocab import DIFFICULTIES as DIFFICULTIES  # re-exported: card files name them from here
from app.core.vocab import Difficulty as Difficulty

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ITEM_ID_RE = SLUG_RE

# Section keys in card order, with their headings in the card file and on pages.
SECTION_KEYS: tuple[str, ...] = ("summary", "insights", "derivation", "tradeoffs", "pitfalls")
SECTION_TITLES: dict[str, tuple[str, str]] = {
    "summary": ("核心结论", "Summary"),
    "insights": ("核心考点", "Key insights"),
    "derivation": ("数学推导", "Derivation"),
    "tradeoffs": ("工程权衡", "Trade-offs"),
    "pitfalls": ("常见陷阱", "Pitfalls"),
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LangText(_Strict):
    """The same text in Chinese and English; either may be empty."""

    zh: str = ""
    en: str = ""

    def any(self) -> str:
        return self.en or self.zh

    def is_empty(self) -> bool:
        return not (self.zh.strip() or self.en.strip())


class Label(LangText):
    """A bilingual label with an optional short code (module ``M3``)."""

    code: str = ""


class FollowUp(_Strict):
    """A deeper question attached to a card; the answer is optional per language."""

    id: str
    question: LangText
    answer: LangText = LangText()

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not ITEM_ID_RE.match(v):
            raise ValueError(f"follow-up id {v!r} must be kebab-case (a-z, 0-9, '-')")
        return v

    @model_validator(mode="after")
    def _has_question(self) -> FollowUp:
        if self.question.is_empty():
            raise ValueError(f"follow-up {self.id!r} has no question text in zh or en")
        return self


class Link(_Strict):
    """card → card, by slug, or by title while the target is not in the deck yet."""

    slug: str = ""
    title: LangText = LangText()

    @model_validator(mode="after")
    def _target(self) -> Link:
        if not self.slug and self.title.is_empty():
            raise ValueError("a link needs a slug or a title")
        if self.slug and not SLUG_RE.match(self.slug):
            raise ValueError(f"link slug {self.slug!r} must be kebab-case")
        return self


class Claim(_Strict):
    """One statement, quoted in the card's own words, and what it asserts (``verify/README.md``).

    ``asserts``: a sympy expression over verify's vocabulary; ``reading``: the reading of ambiguous
    wording it takes; ``unverifiable``: why nothing can judge it.
    """

    id: str
    text: LangText
    section: str = ""
    asserts: str = ""
    reading: str = ""
    unverifiable: str = ""

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not ITEM_ID_RE.match(v):
            raise ValueError(f"claim id {v!r} must be kebab-case (a-z, 0-9, '-')")
        return v

    @model_validator(mode="after")
    def _has_text(self) -> Claim:
        if self.text.is_empty():
            raise ValueError(f"claim {self.id!r} has no text in zh or en")
        return self


class CardDoc(_Strict):
    """Everything one card file holds."""

    slug: str
    title: LangText
    module: Label = Label()
    topic: Label = Label()
    difficulty: Difficulty = "medium"
    tags: list[str] = Field(default_factory=list)
    sections: dict[str, LangText] = Field(default_factory=dict)
    follow_ups: list[FollowUp] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    source: str = ""  # where the card came from (raw export file name), informational

    @field_validator("slug")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not SLUG_RE.match(v):
            raise ValueError(f"slug {v!r} must be kebab-case: lowercase a-z, 0-9 and single '-'")
        return v

    @field_validator("sections")
    @classmethod
    def _sections(cls, v: dict[str, LangText]) -> dict[str, LangText]:
        unknown = sorted(set(v) - set(SECTION_KEYS))
        if unknown:
            raise ValueError(f"unknown section(s) {unknown}; known: {list(SECTION_KEYS)}")
        return {k: v[k] for k in SECTION_KEYS if k in v}

    @model_validator(mode="after")
    def _unique_ids(self) -> CardDoc:
        if self.title.is_empty():
            raise ValueError("the card has no title in zh or en")
        for kind, ids in (("follow-up", [f.id for f in self.follow_ups]), ("claim", [c.id for c in self.claims])):
            dupes = sorted({i for i in ids if ids.count(i) > 1})
            if dupes:
                raise ValueError(f"duplicate {kind} id(s): {dupes}")
        return self

    def section(self, key: str) -> LangText:
        return self.sections.get(key, LangText())
