"""Database tables (SQLModel). Importing this package registers every table."""

from app.models.card import Card, CardClaim, CardFollowUp, CardLink, CardSection
from app.models.verification import ClaimVerdict, VerificationRun

__all__ = ["Card", "CardClaim", "CardFollowUp", "CardLink", "CardSection", "ClaimVerdict", "VerificationRun"]
