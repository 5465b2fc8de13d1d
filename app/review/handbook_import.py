"""Reviews done in the handbook's study mode back into a user's review log (``proofdeck import
handbook-reviews``, ``POST /api/review/import/handbook``).

Exactly once, in time order, through the review engine's own grading (``app.review.grading``):

- *Refused whole* (:class:`ForeignFile`): a file of another deck (its deck id is not this database's,
  ``app.models.deck``) or of another user than the one importing (a file exported without ``--user`` is
  anyone's).
- *Skipped and listed*: a review of an item this server does not have, retired since, or whose text
  changed since the export (its fingerprint, ``app.items.item_ids``; a drill's showing also by its numbers,
  recomputed from the seed: numbers are never taken from the file).
- *Already imported*: each review is answered with the idempotency key ``handbook:<review id>``; a key
  already in the user's log (or in an undone answer of theirs) is counted and adds nothing, so importing
  the same file again, or a later file holding the same reviews, adds 0.
- *Merged in time order*: the new reviews of an item are answered at their own times. Where the server
  has answers of that item later than the first new review (studied on both sides), those answers are
  taken back first (their logs removed, the state put back as the first one recorded it before) and
  answered again, in one sequence with the new ones, each with its stored rating and key: the item's
  state is then what FSRS gives for all its answers in time order.

Offline answers are scheduled without interval fuzzing (in the page and here), so the state the page
showed and the state stored agree; a typed drill answer is graded again here, by the server's grader,
and any verdict that differs from the page's is listed. All of it is one transaction through
:meth:`ReviewEngine.write` (the user's change clock moves; other processes see the new state within a
second), retried when a concurrent writer took a key or a first state first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.items import drills
from app.items.handbook_reviews import HandbookReview, ReviewsFile
from app.items.item_ids import fingerprint, parse_item_name, showing_fingerprint
from app.items.items import card_doc
from app.models.deck import deck_id
from app.models.tables import CARDS, ITEMS, LOGS, SHOWINGS, UNDOS
from app.models.user import User
from app.review.engine import ReviewEngine
from app.review.grading import Answer, grade_in
from app.review.undo import take_back
from app.srs.scheduler import to_db
from app.verification.store import CardVerdicts, card_verdicts

KEY_PREFIX = "handbook:"


class ForeignFile(ValueError):
    """A reviews file of another deck or another user: nothing is imported."""


@dataclass(frozen=True)
class Skipped:
    review: str  # the review's id
    item: str
    at: str
    reason: str


@dataclass
class HandbookImportReport:
    imported: list[str] = field(default_factory=list)  # review ids, in time order
    already: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    replayed: int = 0  # the server's later answers answered again after earlier handbook ones
    regraded: list[dict[str, Any]] = field(default_factory=list)  # typed answers the server graded otherwise

    def as_json(self) -> dict[str, Any]:
        return {"imported": len(self.imported), "already_imported": self.already, "skipped": len(self.skipped),
                "replayed_server_answers": self.replayed, "imported_reviews": self.imported,
                "skipped_reviews": [s.__dict__ for s in self.skipped], "regraded": self.regraded}


def check_owner(file: ReviewsFile, deck: str, user: User) -> None:
    """Refuse a file of another deck or another user (:class:`ForeignFile`, saying which and what to do)."""
    if file.deck != deck:
        raise ForeignFile(f"this file holds reviews from the handbook of another deck (deck {file.deck}; this "
                          f"server's deck is {deck}): import it into the server that exported that handbook")
    if file.user_id is not None and file.user_id != user.id:
        raise ForeignFile(f"this file holds the reviews of {file.username!r} (user {file.user_id}), not of "
                          f"{user.username!r} (user {user.id}): import it as {file.username!r}, whose handbook "
                          "it came from")


def _items(session: Session, slugs: list[str]) -> dict[tuple[str, str, str], Any]:
    it, ca = ITEMS.c, CARDS.c
    rows = session.connection().execute(
        select(ca.slug, ca.source_text, ca.retired.label("card_retired"), it.id, it.kind, it.key, it.retired)
        .select_from(ITEMS.join(CARDS, ca.id == it.card_id)).where(ca.slug.in_(slugs)))
    return {(r.slug, r.kind, r.key): r for r in rows}


def _why_skipped(r: HandbookReview, row: Any, verdicts: dict[str, CardVerdicts]) -> str | None:
    if row is None:
        return "this server has no such item (is the deck synced? `proofdeck sync`)"
    if row.retired or row.card_retired:
        return "the item was retired from the deck since the export"
    slug, kind, key = parse_item_name(r.item)  # type: ignore[misc]
    if fingerprint(card_doc(row.source_text, slug), kind, key, verdicts.get(slug)) != r.fp:
        return "the item's text changed since the export (the review was of the old text)"
    if kind == "drill" and showing_fingerprint(drills.new_params(key, r.seed)) != r.showing:
        return "the drill's numbers or answer changed since the export"
    return None


def _known_keys(session: Session, user_id: int, keys: list[str]) -> set[str]:
    conn, found = session.connection(), set()
    for i in range(0, len(keys), 500):
        chunk = keys[i:i + 500]
        found |= set(conn.execute(select(LOGS.c.idempotency_key).where(
            LOGS.c.user_id == user_id, LOGS.c.idempotency_key.in_(chunk))).scalars())
        found |= set(conn.execute(select(UNDOS.c.answer_key).where(
            UNDOS.c.user_id == user_id, UNDOS.c.answer_key.in_(chunk))).scalars())
    return found


def _merged(session: Session, user_id: int, file: ReviewsFile) -> HandbookImportReport:
    report = HandbookImportReport()
    _merge(session, user_id, file, report)
    return report


def _merge(session: Session, user_id: int, file: ReviewsFile, report: HandbookImportReport) -> None:
    slugs = sorted({r.item.split("/")[0] for r in file.reviews})
    rows = _items(session, slugs)
    verdicts = card_verdicts(session)
    known = _known_keys(session, user_id, [KEY_PREFIX + r.id for r in file.reviews])
    fresh: list[tuple[HandbookReview, Any]] = []
    for r in file.reviews:
        if KEY_PREFIX + r.id in known:
            report.already += 1
            continue
        row = rows.get(parse_item_name(r.item))  # type: ignore[arg-type]
        why = _why_skipped(r, row, verdicts)
        if why is not None:
            report.skipped.append(Skipped(r.id, r.item, r.at.isoformat(), why))
        else:
            fresh.append((r, row))
    if not fresh:
        return
    fresh.sort(key=lambda pair: pair[0].at)  # stable: the file's order within one instant
    answers: list[tuple[Answer, HandbookReview | None]] = []
    first_at: dict[int, datetime] = {}
    for r, row in fresh:
        first_at.setdefault(row.id, r.at)
    for item_id, since in first_at.items():
        replayed = take_back(session, user_id, item_id, since)
        report.replayed += len(replayed)
        answers += [(a, None) for a in replayed]
    conn = session.connection()
    for r, row in fresh:
        showing_id = None
        if row.kind == "drill":
            showing_id = conn.execute(SHOWINGS.insert().values(
                user_id=user_id, item_id=row.id, params=drills.new_params(row.key, r.seed),
                created_at=to_db(r.at)).returning(SHOWINGS.c.id)).scalar_one()
        rating = None if row.kind == "drill" else r.rating  # a drill is graded here, from what was typed
        answers.append((Answer(user_id=user_id, item_id=row.id, now=r.at, rating=rating, typed=r.typed,
                               showing_id=showing_id, duration_ms=r.duration_ms, key=KEY_PREFIX + r.id,
                               fuzz=False, offline=True), r))
    answers.sort(key=lambda pair: pair[0].now)
    outcomes = grade_in(session, [a for a, _r in answers])
    for (a, given), outcome in zip(answers, outcomes, strict=True):
        if not isinstance(outcome, dict):
            if given is None:  # a server answer given again: it was valid before, so it is now
                raise AssertionError(f"replaying answer {a.key} of item {a.item_id} failed: {outcome}")
            why = f"the server refused it: {outcome}"
            report.skipped.append(Skipped(given.id, given.item, given.at.isoformat(), why))
            continue
        if given is None:
            continue
        report.imported.append(given.id)
        if given.typed is not None and given.correct is not None and outcome.get("correct") != given.correct:
            report.regraded.append({"review": given.id, "item": given.item, "typed": given.typed, "page": given.correct,
                                    "server": outcome.get("correct"), "expected": outcome.get("expected")})


def import_handbook_reviews(engine: ReviewEngine, user: User, file: ReviewsFile) -> HandbookImportReport:
    """Merge ``file``'s reviews into ``user``'s log and states (see the module docstring); raises
    :class:`ForeignFile` for another deck's or user's file."""
    assert user.id is not None
    check_owner(file, deck_id(engine.db), user)
    user_id = user.id
    for attempt in range(3):
        try:
            return engine.write(user_id, lambda s: _merged(s, user_id, file))
        except IntegrityError:  # a concurrent import or answer took a key or a first state first: again
            if attempt == 2:
                raise
    raise AssertionError("unreachable")

