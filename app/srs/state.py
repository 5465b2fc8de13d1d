"""An item's scheduling state for one user: the one shape, and its one conversion to and from each
neighbour (the ``ItemState`` row, ``fsrs.Card``, the review log's JSON, the API's view).

:class:`StateRow` holds the fields of :data:`STATE_FIELDS`, the ``ItemState`` columns that FSRS and the
counters own. Its datetimes are always aware UTC: built from a SQLite row (naive datetimes) they are
restored on construction, because ``fsrs`` refuses anything but ``tzinfo=timezone.utc``.

- row → state: :meth:`StateRow.of` (a Core row, a mapping, or an ORM ``ItemState``);
  state → row: :meth:`StateRow.columns` (the values of an insert or an update);
- state → ``fsrs.Card``: :meth:`StateRow.card` (:func:`fsrs_card` also for a new item, no state);
  ``fsrs.Card`` after an answer → state: :meth:`StateRow.after` (which also counts reps and lapses);
- the review log stores ``fsrs.Card.to_dict()`` without ``card_id``: :meth:`StateRow.log_json`;
- what the API shows: :func:`state_public`;
- the in-memory queue keeps :meth:`StateRow.as_tuple` (plain tuples cost the garbage collector nothing)
  and gets a state back with ``StateRow(*values)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fsrs import Card, State

from app.core.vocab import STATE_NAMES
from app.srs.scheduler import as_utc

STATE_FIELDS = ("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses")
FSRS_FIELDS = STATE_FIELDS[:6]  # the ones fsrs.Card has (besides card_id); reps and lapses are ours
AGAIN = 1


@dataclass(frozen=True, slots=True)
class StateRow:
    """One user's FSRS state of one item (see the module docstring); ``due`` and ``last_review`` aware UTC."""

    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    reps: int
    lapses: int

    def __post_init__(self) -> None:
        # SQLite hands back naive datetimes (stored as UTC): restore UTC whatever built this value
        if self.due.tzinfo is not UTC:
            object.__setattr__(self, "due", as_utc(self.due))
        if self.last_review is not None and self.last_review.tzinfo is not UTC:
            object.__setattr__(self, "last_review", as_utc(self.last_review))

    @classmethod
    def of(cls, values: Any) -> StateRow:
        """From anything with the :data:`STATE_FIELDS`: a Core row, a mapping, an ORM ``ItemState``."""
        if isinstance(values, Mapping):
            m: Any = values
        elif hasattr(values, "_mapping"):
            m = values._mapping
        else:
            m = {f: getattr(values, f) for f in STATE_FIELDS}
        return cls(state=int(m["state"]), step=m["step"], stability=m["stability"], difficulty=m["difficulty"],
                   due=m["due"], last_review=m["last_review"], reps=int(m["reps"] or 0),
                   lapses=int(m["lapses"] or 0))

    @classmethod
    def after(cls, card: Card, *, before: StateRow | None, rating: int) -> StateRow:
        """The state once ``card`` (fsrs's answer to ``rating`` on ``before``; None: the item was new) is stored:
        one more rep, and one more lapse when Again is answered on a card in Review."""
        lapsed = before is not None and rating == AGAIN and before.state == State.Review.value
        return cls(state=int(card.state), step=card.step, stability=card.stability, difficulty=card.difficulty,
                   due=card.due, last_review=card.last_review, reps=(0 if before is None else before.reps) + 1,
                   lapses=(0 if before is None else before.lapses) + lapsed)

    def card(self, item_id: int) -> Card:
        """The ``fsrs.Card`` to schedule the next answer from."""
        return Card(card_id=item_id, state=State(self.state), step=self.step, stability=self.stability,
                    difficulty=self.difficulty, due=self.due, last_review=self.last_review)

    def columns(self) -> dict[str, Any]:
        """The ``ItemState`` columns it sets (for an insert or an update)."""
        return {f: getattr(self, f) for f in STATE_FIELDS}

    def as_tuple(self) -> tuple[Any, ...]:
        return (self.state, self.step, self.stability, self.difficulty, self.due, self.last_review, self.reps,
                self.lapses)

    def log_json(self) -> dict[str, Any]:
        """As the review log stores a state (``state_before`` / ``state_after``): ``fsrs.Card.to_dict()``
        without ``card_id``, ISO datetimes with +00:00."""
        return {"state": self.state, "step": self.step, "stability": self.stability, "difficulty": self.difficulty,
                "due": self.due.isoformat(), "last_review": self.last_review.isoformat() if self.last_review else None}


def fsrs_card(item_id: int, state: StateRow | None) -> Card:
    """The ``fsrs.Card`` of an item: a new one (due now) when the user has no state yet."""
    return Card(card_id=item_id) if state is None else state.card(item_id)


def state_public(state: StateRow | None) -> dict[str, Any] | None:
    """A state as the API shows it (None: the item is new to the user)."""
    if state is None:
        return None
    return {"state": STATE_NAMES.get(state.state, str(state.state)), "due": state.due.isoformat(),
            "stability": state.stability, "difficulty": state.difficulty, "reps": state.reps,
            "lapses": state.lapses, "last_review": state.last_review.isoformat() if state.last_review else None}
