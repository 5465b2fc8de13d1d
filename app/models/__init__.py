"""Database tables (SQLModel). Importing this package registers every table."""

from app.models.card import Card, CardClaim, CardFollowUp, CardLink, CardSection

__all__ = ["Card", "CardClaim", "CardFollowUp", "CardLink", "CardSection"]
