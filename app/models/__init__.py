"""Database tables (SQLModel). Importing this package registers every table."""

from app.models.card import Card, CardClaim, CardFollowUp, CardLink, CardSection
from app.models.deck import DeckIdentity
from app.models.hold import ItemHold
from app.models.review import ChangeClock, DrillShowing, ItemSource, ItemState, ReviewItem, ReviewLog
from app.models.undo import UndoRecord
from app.models.user import ApiToken, LoginFailure, LoginLink, User, UserSettings
from app.models.verification import ClaimVerdict, VerificationRun

__all__ = ["ApiToken", "Card", "CardClaim", "CardFollowUp", "CardLink", "CardSection", "ChangeClock",
           "ClaimVerdict", "DeckIdentity", "DrillShowing", "ItemHold", "ItemSource", "ItemState", "LoginFailure",
           "LoginLink", "ReviewItem", "ReviewLog", "UndoRecord", "User", "UserSettings", "VerificationRun"]
