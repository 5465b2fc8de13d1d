"""The Core ``Table`` of each model, for the statements the hot paths build without the ORM.

Defined once here and imported (the review queue, grading, the Obsidian import, search, the change clock).
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Table
from sqlmodel import SQLModel

from app.models.card import Card, CardFollowUp, CardSection
from app.models.hold import ItemHold
from app.models.review import ChangeClock, DrillShowing, ItemState, ReviewItem, ReviewLog
from app.models.undo import UndoRecord
from app.models.user import UserSettings


def table(model: type[SQLModel]) -> Table:
    """The ``Table`` behind a table model (SQLModel declares ``__table__`` on the class, untyped)."""
    return cast(Table, model.__table__)  # type: ignore[attr-defined]


STATES = table(ItemState)
ITEMS = table(ReviewItem)
CARDS = table(Card)
LOGS = table(ReviewLog)
SHOWINGS = table(DrillShowing)
SETTINGS = table(UserSettings)
SECTIONS = table(CardSection)
FOLLOW_UPS = table(CardFollowUp)
HOLDS = table(ItemHold)
UNDOS = table(UndoRecord)
CLOCK = table(ChangeClock)
