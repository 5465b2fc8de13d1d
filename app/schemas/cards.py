"""Public (API) shapes of cards, side by side: a list row, a page of rows, the full card, the graph.

Text fields named ``text`` hold the card's raw Markdown; fields named ``html`` hold it rendered by
:func:`app.render.markdown.render_markdown` (safe to insert into a page). ``html`` maps a language
(``zh``/``en``) to HTML and holds only the languages asked for with ``lang=``.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.core.vocab import Difficulty


# Both languages of a short text (titles, link titles).
class LangTextPublic(BaseModel):
    zh: str = ""
    en: str = ""


# Module or topic: a short code plus its name in both languages.
class LabelPublic(LangTextPublic):
    code: str = ""


# One row of the card list.
class CardSummary(BaseModel):
    slug: str
    title: LangTextPublic
    module: LabelPublic
    topic: LabelPublic
    difficulty: Difficulty
    tags: list[str]
    retired: bool = False


# One page of the card list; ``count`` is the number of matches before paging.
class CardsPublic(BaseModel):
    data: list[CardSummary]
    count: int
    limit: int
    offset: int


# Markdown in both languages plus the asked languages rendered.
class RenderedText(BaseModel):
    text: LangTextPublic
    html: dict[str, str] = Field(description="language → rendered HTML, only the languages asked for")


# One section (summary, insights, derivation, tradeoffs, pitfalls).
class SectionPublic(RenderedText):
    key: str
    title: LangTextPublic


# A deeper question; the answer may be empty in either language.
class FollowUpPublic(BaseModel):
    id: str
    question: RenderedText
    answer: RenderedText


# card → card; ``resolved_slug`` (and that card's title) is set when the target is in the deck, found
# by slug or by its zh or en title.
class LinkPublic(BaseModel):
    slug: str = ""
    title: LangTextPublic
    resolved_slug: str | None = None
    resolved_title: LangTextPublic | None = None


# A quantitative statement in the card's words and what it asserts (judged by verify/).
class ClaimPublic(RenderedText):
    id: str
    section: str = ""
    asserts: str = ""  # the sympy expression verify judges (verify/README.md)
    reading: str = ""


# Everything about one card; ``source`` is the card file text as synced.
class CardDetail(CardSummary):
    sections: list[SectionPublic]
    follow_ups: list[FollowUpPublic]
    links: list[LinkPublic]
    claims: list[ClaimPublic]
    source: str


# A card in the graph.
class GraphNode(BaseModel):
    slug: str
    title: LangTextPublic
    module: LabelPublic
    topic: LabelPublic


# A link between two cards in the deck.
class GraphEdge(BaseModel):
    source: str
    target: str


# A link whose target is not in the deck (yet).
class DanglingLink(BaseModel):
    source: str
    slug: str = ""
    title: LangTextPublic


# The deck as a graph: cards, the links that resolve, and those that do not.
class GraphPublic(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    dangling: list[DanglingLink]
