"""Public shapes of ``GET /api/match``: ranked cards, each with its score, follow-up and snippet."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.schemas.cards import CardSummary, LangTextPublic


class SnippetPublic(BaseModel):
    text: str = Field(description="Card text around the matches (whitespace collapsed, '…' where cut)")
    html: str = Field(description="`text` HTML-escaped, each match in <mark>: safe to insert into a page")
    offsets: list[tuple[int, int]] = Field(description="[start, end) of each match in `text`, in code points")
    lang: str = Field(description="zh or en: the language the snippet is in")
    source: str = Field(description="head (title + summary), section:<key> or follow_up:<id>")


class FollowUpMatch(BaseModel):
    id: str
    question: LangTextPublic
    score: float


class MatchHitPublic(BaseModel):
    card: CardSummary
    score: float = Field(description="BM25 relevance (higher is better; comparable within one query only)")
    follow_up: FollowUpMatch | None = Field(
        description="The card's follow-up that matches best, when it matches better than the card's head")
    snippet: SnippetPublic


class MatchPublic(BaseModel):
    query: str
    lang: str
    tokens: list[str] = Field(description="What the query was matched as (words, bigrams, ~glossary concepts)")
    data: list[MatchHitPublic]
    count: int
