"""Accounts: users, their hashed tokens (API tokens and web-login sessions), one-time login links and
review settings.

Tokens are high-entropy random strings shown once; only their SHA-256 is stored. Passwords are hashed
with argon2 (``app.auth.security``).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict
from pydantic import Field as PydanticField
from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from app.core.jsontypes import JsonInt
from app.core.vocab import LANGUAGES, NEW_PER_DAY_SCHEMA, RETENTION_SCHEMA, REVIEWS_PER_DAY_SCHEMA
from app.models.card import utcnow


class User(SQLModel, table=True):
    """A person who reviews; admins may also sync, import, verify and manage users."""

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(index=True, unique=True, max_length=64)
    is_admin: bool = False
    password_hash: str | None = None  # argon2; None: token login only
    created_at: datetime = Field(default_factory=utcnow)


class ApiToken(SQLModel, table=True):
    """A hashed credential: ``kind`` "api" (Bearer header, printed once) or "session" (web cookie)."""

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True, ondelete="CASCADE")
    token_hash: str = Field(index=True, unique=True, max_length=64)  # sha256 hex
    kind: str = "api"
    label: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    # when last seen (written at most hourly, app/auth/sessions.py); None: a session not seen since it was
    # made, an API token never used
    last_used_at: datetime | None = None


class LoginLink(SQLModel, table=True):
    """A one-time login link (``/login?token=``): it signs in once, before ``expires_at``, and is never an
    API token or a session (``app.auth.links``). Kept a day after it is used, expired or ended, so that
    opening it again says which; ``ended_at``: "log out everywhere" ended it before it was used."""

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True, ondelete="CASCADE")
    token_hash: str = Field(index=True, unique=True, max_length=64)  # sha256 hex
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime = Field(index=True)
    used_at: datetime | None = None
    ended_at: datetime | None = None


class LoginFailure(SQLModel, table=True):
    """One failed login, kept for the rate limiter's window (``app.auth.ratelimit``), shared by every
    worker and host. ``kind`` "password" (``subject``: the username, lower case) or "link" (``subject``:
    the SHA-256 of the token tried); ``address``: the client address."""

    __table_args__ = (Index("ix_loginfailure_kind_subject_at", "kind", "subject", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=16)
    subject: str = Field(max_length=64)
    address: str = Field(default="", max_length=64)
    at: datetime = Field(index=True)


class UserSettings(SQLModel, table=True):
    """Per-user review settings and, once optimised, the user's own FSRS parameters."""

    user_id: int = Field(foreign_key="user.id", primary_key=True, ondelete="CASCADE")
    desired_retention: float = 0.9
    new_per_day: int = 20
    reviews_per_day: int = 200  # items already in review offered per day (learning steps are not capped)
    language: str = "both"  # zh | en | both
    parameters: list[float] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    optimized_at: datetime | None = None
    optimized_reviews: int = 0  # review count the parameters were fitted on


class UserPublic(SQLModel):
    """A user as the API shows it (never a hash)."""

    id: int
    username: str
    is_admin: bool
    created_at: datetime


class SettingsPublic(SQLModel):
    desired_retention: float
    new_per_day: int
    reviews_per_day: int
    language: str
    optimized: bool
    optimized_reviews: int


class SettingsUpdate(BaseModel):
    """All fields optional; validated in the route (retention 0.7-0.99, new 0-500, language zh|en|both).

    The ranges are also in the OpenAPI schema (``json_schema_extra``), so clients see them. Strict:
    ``false`` is no number of new items, ``"20"`` neither (a retention may be written ``1`` or ``0.9``).
    """

    model_config = ConfigDict(strict=True)

    desired_retention: float | None = PydanticField(default=None, json_schema_extra=dict(RETENTION_SCHEMA))
    new_per_day: JsonInt | None = PydanticField(default=None, json_schema_extra=dict(NEW_PER_DAY_SCHEMA))
    reviews_per_day: JsonInt | None = PydanticField(default=None, json_schema_extra=dict(REVIEWS_PER_DAY_SCHEMA))
    language: str | None = PydanticField(default=None, json_schema_extra={"enum": [*LANGUAGES, None]})
