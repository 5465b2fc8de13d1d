"""A user's review settings as a small immutable value (shared safely between requests and threads)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from app.models.user import UserSettings

_DEFAULTS = UserSettings(user_id=0)  # the model's defaults, defined once there
_FIELDS = ("language", "new_per_day", "desired_retention", "parameters", "reviews_per_day", "gather_order",
           "bury_siblings")


@dataclass(frozen=True, slots=True)
class Prefs:
    language: str = _DEFAULTS.language
    new_per_day: int = _DEFAULTS.new_per_day
    desired_retention: float = _DEFAULTS.desired_retention
    parameters: tuple[float, ...] | None = None
    reviews_per_day: int = _DEFAULTS.reviews_per_day
    gather_order: str = _DEFAULTS.gather_order  # the order new items come in (app/review/gather.py)
    bury_siblings: bool = _DEFAULTS.bury_siblings  # an answered item's siblings wait until the next day

    @classmethod
    def of(cls, st: UserSettings | dict[str, Any] | None) -> Prefs:
        """From a settings row, the columns of one (the sign-in cache keeps those), or None (defaults)."""
        if st is None:
            return cls()
        m: dict[str, Any] = st if isinstance(st, dict) else {n: getattr(st, n) for n in _FIELDS}
        params = m["parameters"]
        gather, bury = m.get("gather_order"), m.get("bury_siblings")
        return cls(language=str(m["language"]), new_per_day=int(m["new_per_day"]),
                   desired_retention=float(m["desired_retention"]), parameters=tuple(params) if params else None,
                   reviews_per_day=int(m.get("reviews_per_day", _DEFAULTS.reviews_per_day)),
                   gather_order=str(gather) if gather is not None else _DEFAULTS.gather_order,
                   bury_siblings=bool(bury) if bury is not None else _DEFAULTS.bury_siblings)


def settings_for(session: Session, user_id: int, known: UserSettings | None = None) -> UserSettings:
    """``known`` (loaded with the user at sign-in) saves a query; else read them, or the defaults."""
    if known is not None and known.user_id == user_id:
        return known
    return session.get(UserSettings, user_id) or UserSettings(user_id=user_id)
