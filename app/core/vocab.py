"""The vocabulary every layer shares, each word defined once: languages, settings ranges, state names.

Imported by the models (column defaults and JSON Schema), the scheduler, the review engine, the routes
and the pages; nothing here imports the rest of the app.
"""

from __future__ import annotations

from typing import Final, Literal

# A card's two languages, in the order the card file and the pages show them.
CARD_LANGS: Final = ("zh", "en")
# A card's difficulty (card files, the API, filters).
DIFFICULTIES: Final = ("easy", "medium", "hard")
Difficulty = Literal["easy", "medium", "hard"]

# What a user studies in: one of the card languages, or both.
LANGUAGES: Final = ("zh", "en", "both")

# The ranges of a user's review settings (PUT /api/review/settings, the settings form, the schema).
RETENTION_MIN: Final = 0.70
RETENTION_MAX: Final = 0.99
NEW_PER_DAY_MIN: Final = 0
NEW_PER_DAY_MAX: Final = 500
REVIEWS_PER_DAY_MIN: Final = 0
REVIEWS_PER_DAY_MAX: Final = 100_000
# How new items are gathered (Anki's "gather order"; app/review/gather.py): card by card in deck order, the
# i-th item of every card before the (i+1)-th, or shuffled (seeded per user and day).
GATHER_ORDERS: Final = ("deck", "interleaved", "random")

# FSRS's state numbers (fsrs.State) as the API shows them; a state absent from a user's rows is "new".
STATE_NAMES: Final = {1: "learning", 2: "review", 3: "relearning"}


def lang_matches(item_lang: str, lang: str) -> bool:
    """Items in "" (bilingual) or the user's language; "both" takes every item."""
    return lang not in CARD_LANGS or item_lang in ("", lang)


def settings_errors(*, desired_retention: float | None = None, new_per_day: int | None = None,
                    language: str | None = None, reviews_per_day: int | None = None,
                    gather_order: str | None = None, bury_siblings: object = None) -> list[str]:
    """Why the given settings are out of range (empty when they are fine), one message per field."""
    out = []
    if desired_retention is not None and not RETENTION_MIN <= desired_retention <= RETENTION_MAX:
        out.append(f"desired_retention must be between {RETENTION_MIN:.2f} and {RETENTION_MAX:.2f}; "
                   f"got {desired_retention}")
    if new_per_day is not None and not NEW_PER_DAY_MIN <= new_per_day <= NEW_PER_DAY_MAX:
        out.append(f"new_per_day must be between {NEW_PER_DAY_MIN} and {NEW_PER_DAY_MAX}; got {new_per_day}")
    if reviews_per_day is not None and not REVIEWS_PER_DAY_MIN <= reviews_per_day <= REVIEWS_PER_DAY_MAX:
        out.append(f"reviews_per_day must be between {REVIEWS_PER_DAY_MIN} and {REVIEWS_PER_DAY_MAX}; "
                   f"got {reviews_per_day}")
    if language is not None and language not in LANGUAGES:
        out.append(f"language must be one of {', '.join(LANGUAGES)}; got {language!r}")
    if gather_order is not None and gather_order not in GATHER_ORDERS:
        out.append(f"gather_order must be one of {', '.join(GATHER_ORDERS)}; got {gather_order!r}")
    if bury_siblings is not None and not isinstance(bury_siblings, bool):
        out.append(f"bury_siblings must be true or false; got {bury_siblings!r}")
    return out

# The same ranges as JSON Schema keywords (the API's body and the settings form document them).
RETENTION_SCHEMA: Final = {"minimum": RETENTION_MIN, "maximum": RETENTION_MAX}
NEW_PER_DAY_SCHEMA: Final = {"minimum": NEW_PER_DAY_MIN, "maximum": NEW_PER_DAY_MAX}
REVIEWS_PER_DAY_SCHEMA: Final = {"minimum": REVIEWS_PER_DAY_MIN, "maximum": REVIEWS_PER_DAY_MAX}
