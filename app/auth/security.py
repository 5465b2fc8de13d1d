"""Credential primitives: random tokens stored as SHA-256, passwords hashed with argon2.

Tokens are 256-bit random (``secrets.token_urlsafe(32)``), so a plain SHA-256 is enough to store them;
lookups are by hash and a constant-time compare guards the final check. Never log a token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()


def new_token() -> str:
    """A fresh URL-safe token (43 characters, 256 bits)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str, token_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), token_hash)


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """True when ``password`` matches; a missing hash (token-only account) never matches."""
    if not password_hash:
        _hasher.hash(password)  # same work either way: no user-enumeration by timing
        return False
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
