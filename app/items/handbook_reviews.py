"""The reviews file the handbook's study mode downloads ("Export reviews"), read and checked.

One reader for the format (``templates/study.js`` writes it; the CLI and the API read it through here)::

    {"format": "proofdeck-handbook-reviews", "version": 1, "deck": "<deck id>", "export": "<export id>",
     "user": {"id": 3, "name": "ada"} | null, "exported_at": "<ISO>" | null, "written_at": "<ISO>",
     "reviews": [{"id": "<uuid>", "item": "<slug>/<kind>/<key>", "fp": "<fingerprint>",
                  "at": "2026-12-03T10:00:00.000Z", "duration_ms": 4200, "rating": 3}, ...]}

A typed drill's review also has ``typed`` (what was typed), ``seed`` and ``showing`` (the showing's seed and
fingerprint: the server recomputes its numbers from the seed) and ``correct`` (the page's verdict; the
server grades again). Anything else is refused whole with a message naming the review and the field:
the file is what our page writes, so a malformed one was edited or cut short, and importing half of it
would hide that.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeGuard

from app.items.item_ids import parse_item_name
from app.srs.scheduler import as_utc

FORMAT = "proofdeck-handbook-reviews"
VERSION = 1
MAX_REVIEWS = 100_000
MAX_TYPED = 100  # the page's input has maxlength=100
_ID = re.compile(r"^[A-Za-z0-9-]{8,64}$")
_HEX = re.compile(r"^[0-9a-f]{1,64}$")


class ReviewsFileError(ValueError):
    """The file is not a reviews file of the handbook; the message says where and how to fix it."""


@dataclass(frozen=True)
class HandbookReview:
    id: str
    item: str
    fp: str
    at: datetime
    duration_ms: int | None
    rating: int | None
    typed: str | None = None
    seed: int | None = None
    showing: str | None = None
    correct: bool | None = None

    @property
    def kind(self) -> str:
        return self.item.split("/")[1]


@dataclass(frozen=True)
class ReviewsFile:
    deck: str
    export: str
    user_id: int | None
    username: str | None
    reviews: tuple[HandbookReview, ...]


def _int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _time(value: Any, where: str) -> datetime:
    hint = f"{where} must be an ISO 8601 time with its zone, as the handbook writes it (2026-12-03T10:00:00.000Z)"
    if not isinstance(value, str):
        raise ReviewsFileError(f"{hint}; got {value!r}")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ReviewsFileError(f"{hint}; got {value!r}") from None
    if parsed.tzinfo is None:
        raise ReviewsFileError(f"{hint}; {value!r} has no zone")
    return as_utc(parsed)


def _review(i: int, r: Any) -> HandbookReview:
    where = f"review {i + 1}"
    if not isinstance(r, dict):
        raise ReviewsFileError(f"{where} is not an object")
    rid = r.get("id")
    if not isinstance(rid, str) or not _ID.match(rid):
        raise ReviewsFileError(f"{where}: id {rid!r} must be 8-64 letters, digits or '-' (the page writes a UUID)")
    where = f"review {i + 1} (id {rid})"
    item = r.get("item")
    parsed = parse_item_name(item) if isinstance(item, str) else None
    if parsed is None or not isinstance(item, str):
        raise ReviewsFileError(f"{where}: item {item!r} is not '<card slug>/<kind>/<key>'")
    fp = r.get("fp")
    if not isinstance(fp, str) or not _HEX.match(fp):
        raise ReviewsFileError(f"{where}: fp {fp!r} must be the item's fingerprint (hex digits)")
    at = _time(r.get("at"), f"{where}: at")
    duration = r.get("duration_ms")
    if duration is not None and not (_int(duration) and 0 <= duration <= 86_400_000):
        raise ReviewsFileError(f"{where}: duration_ms must be a whole number of milliseconds 0-86400000; "
                               f"got {duration!r}")
    rating = r.get("rating")
    if not (_int(rating) and 1 <= rating <= 4):
        raise ReviewsFileError(f"{where}: rating must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy); got {rating!r}")
    if parsed[1] != "drill":
        return HandbookReview(rid, item, fp, at, duration, rating)
    typed, seed, showing, correct = r.get("typed"), r.get("seed"), r.get("showing"), r.get("correct")
    if not isinstance(typed, str) or not 0 < len(typed) <= MAX_TYPED:
        raise ReviewsFileError(f"{where}: a drill's review needs typed, the answer typed (1-{MAX_TYPED} "
                               f"characters); got {typed!r}")
    if not (_int(seed) and 0 <= seed < 2**53):
        raise ReviewsFileError(f"{where}: seed must be the showing's seed (a whole number below 2**53); got {seed!r}")
    if not isinstance(showing, str) or not _HEX.match(showing):
        raise ReviewsFileError(f"{where}: showing {showing!r} must be the showing's fingerprint (hex digits)")
    if correct is not None and not isinstance(correct, bool):
        raise ReviewsFileError(f"{where}: correct must be true or false; got {correct!r}")
    return HandbookReview(rid, item, fp, at, duration, rating, typed, seed, showing, correct)


def read_reviews_file(text: str | bytes) -> ReviewsFile:
    """Parse and check a reviews file (raises :class:`ReviewsFileError`)."""
    try:
        doc = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReviewsFileError(f"not JSON ({exc}); give the file the handbook's Export reviews button "
                               "downloaded (proofdeck-reviews-….json)") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ReviewsFileError(f"not a handbook reviews file (no \"format\": \"{FORMAT}\"); give the file the "
                               "handbook's Export reviews button downloaded")
    if doc.get("version") != VERSION:
        raise ReviewsFileError(f"version {doc.get('version')!r} of the reviews file is not one this server reads "
                               f"({VERSION}); export the handbook again with this server and study in the new one")
    deck, export, user = doc.get("deck"), doc.get("export"), doc.get("user")
    if not isinstance(deck, str) or not _HEX.match(deck) or not isinstance(export, str):
        raise ReviewsFileError("the file names no deck (\"deck\", \"export\"): it was not written by a handbook")
    if user is not None and not (isinstance(user, dict) and _int(user.get("id")) and isinstance(user.get("name"), str)):
        raise ReviewsFileError(f"user must be null or {{\"id\": <number>, \"name\": <text>}}; got {user!r}")
    reviews = doc.get("reviews")
    if not isinstance(reviews, list):
        raise ReviewsFileError("reviews must be a list")
    if len(reviews) > MAX_REVIEWS:
        raise ReviewsFileError(f"{len(reviews)} reviews in one file; at most {MAX_REVIEWS}: export more often")
    out = tuple(_review(i, r) for i, r in enumerate(reviews))
    seen: dict[str, int] = {}
    for i, r in enumerate(out):
        if r.id in seen:
            raise ReviewsFileError(f"review {i + 1} repeats the id {r.id!r} of review {seen[r.id] + 1}; each "
                                   "review has its own id")
        seen[r.id] = i
    return ReviewsFile(deck, export, user["id"] if user else None, user["name"] if user else None, out)
