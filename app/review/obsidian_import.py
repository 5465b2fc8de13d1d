"""Reviews done in Obsidian back into a user's FSRS states (``proofdeck import obsidian-reviews``).

The Spaced Repetition plugin stores each card's schedule in a comment after it; the export put the
follow-up's id next to it (:mod:`app.export.obsidian_state`). Each comment becomes the state of the
review item ``(card slug, "followup", follow-up id)`` for one user.

The plugin writes one of two formats (v1.15.4):

- SM-2 (its default): ``!2026-12-04,3,250`` = due date, interval in days, ease (130-370 in practice).
  Mapped to an FSRS card in state Review: ``due`` = that date 00:00 UTC; ``last_review`` = due − interval
  (the plugin sets due = review day + interval); ``stability`` = interval, because FSRS's stability is
  the interval at which recall falls to 90 %, and an interval FSRS schedules at the default desired
  retention of 0.9 equals the stability; ``difficulty`` = 10 − 9·(ease − 130)/240, clamped to 1-10,
  the inverse of the plugin's own ``difficultyToEase`` (ease 250, its default, → 5.5; 130 → 10; 370 → 1).
- FSRS (its FSRS algorithm): ``!fsrs,DUE,interval,stability,difficulty,state,reps,lapses,steps,LAST`` with
  ISO timestamps; taken as they are (ts-fsrs's states 1-3 are ``fsrs``'s; 0, new, is not a review).

The date 2000-01-01 is the plugin's "not reviewed yet"; such a card, or an FSRS state 0, is skipped.

Conflicts: the state whose last review is later wins. A comment is applied only if its last review is
after the server's (or the user has no state for the item); on the same instant or earlier the server's
state stays (an SM-2 comment knows only the day, so a review on the server that day wins). Applying
one sets the state (reps + 1, lapses kept) and writes no review-log row (the comment has no rating).
Importing the same notes twice therefore changes nothing the second time.

Everything is checked first; then all states are written in one transaction through the app's writer
(:func:`app.core.writes.run_write`), which bumps the user's change clock (``app.models.clock.user_changed``)
so running servers serve the new states within a second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.core.progress import Progress
from app.core.writes import run_write
from app.export.obsidian_state import Problem, VaultState
from app.models.clock import user_changed
from app.models.tables import CARDS, ITEMS, STATES
from app.models.user import User
from app.srs.scheduler import as_utc
from app.srs.state import StateRow

NEW_CARD_DATE = "2000-01-01"  # the plugin's due date for a card never reviewed
MIN_EASE, MAX_EASE = 130, 370  # the plugin's difficultyToEase range
REVIEW = 2
# Bounds on what a comment may say (a hostile one must be a listed, skipped line, not an OverflowError or a
# BIGINT overflow at the write): dates between these years, at most a century's interval, counts that fit.
FIRST_YEAR, LAST_YEAR = 1970, 2999
MAX_INTERVAL_DAYS = 36500
MAX_COUNT = 1_000_000  # reps, lapses
MAX_STEP = 100  # (re)learning steps
_SM2 = re.compile(r"^(\d{4}-\d{2}-\d{2}|\d{2}-\d{2}-\d{4}),(\d{1,6}),(\d{1,4})$")


class UnknownUser(LookupError):
    def __init__(self, username: str) -> None:
        super().__init__(f"no user {username!r}: check the name, or add the account with "
                         f"`proofdeck user add {username}`")


class UserGone(LookupError):
    """The account was deleted while its import ran; nothing was written."""

    def __init__(self, user_id: int) -> None:
        super().__init__(f"user #{user_id} was deleted while the import ran; nothing was written")


class NotASchedule(ValueError):
    """A comment the plugin would not have written; the message says what is wrong."""


@dataclass(frozen=True)
class Schedule:
    """One card's schedule as an FSRS state."""

    state: int
    step: int | None
    stability: float
    difficulty: float
    due: datetime
    last_review: datetime
    reps: int | None = None  # FSRS comments carry them; SM-2 ones do not
    lapses: int | None = None


def ease_to_difficulty(ease: int) -> float:
    """The inverse of the plugin's ``difficultyToEase`` (ease = round(130 + (10 − D)/9 · 240))."""
    d = 10 - 9 * (ease - MIN_EASE) / (MAX_EASE - MIN_EASE)
    return round(min(10.0, max(1.0, d)), 4)


def _in_range(value: datetime, text: str) -> datetime:
    if not FIRST_YEAR <= value.year <= LAST_YEAR:
        raise NotASchedule(f"{text!r} is outside the years {FIRST_YEAR}-{LAST_YEAR}")
    return value


def _date(text: str) -> datetime:
    fmt = "%Y-%m-%d" if text[4] == "-" else "%d-%m-%Y"
    try:
        value = datetime.strptime(text, fmt).replace(tzinfo=UTC)
    except ValueError:
        raise NotASchedule(f"{text!r} is not a date") from None
    return _in_range(value, text)


def _timestamp(text: str) -> datetime | None:
    if text == "-":
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return _in_range(as_utc(value), text)
    except NotASchedule:
        raise
    except (ValueError, OverflowError):  # OverflowError: an offset that moves year 1 or 9999 out of range
        raise NotASchedule(f"{text!r} is not an ISO timestamp between the years {FIRST_YEAR}-{LAST_YEAR}") from None


def parse_schedule(body: str) -> Schedule | None:
    """One comment body (``!2026-12-04,3,250``) as a state; None: the card was never reviewed.
    Raises :class:`NotASchedule` for anything else, saying why."""
    segments = [s.strip() for s in body.split("!") if s.strip()]
    if len(segments) != 1:
        raise NotASchedule(f"{len(segments)} schedules in one comment; a proofdeck follow-up is one card "
                           "(question ? answer), so the plugin writes one")
    seg = segments[0]
    if seg.startswith("fsrs,"):
        return _fsrs(seg)
    m = _SM2.match(seg)
    if m is None:
        raise NotASchedule(f"{seg!r} is neither the plugin's SM-2 'YYYY-MM-DD,interval,ease' nor its "
                           "'fsrs,...' format")
    if m.group(1) in (NEW_CARD_DATE, "01-01-2000"):
        return None
    due, interval, ease = _date(m.group(1)), int(m.group(2)), int(m.group(3))
    if not 1 <= interval <= MAX_INTERVAL_DAYS:
        raise NotASchedule(f"interval {interval} days; the plugin writes 1 to {MAX_INTERVAL_DAYS}")
    if not MIN_EASE // 2 <= ease <= MAX_EASE * 3:
        raise NotASchedule(f"ease {ease} is outside what the plugin writes (about {MIN_EASE}-{MAX_EASE})")
    return Schedule(state=REVIEW, step=None, stability=float(interval), difficulty=ease_to_difficulty(ease),
                    due=due, last_review=_in_range(due - timedelta(days=interval), m.group(0)))


def _fsrs(seg: str) -> Schedule | None:
    fields = seg.split(",")
    if len(fields) != 10:
        raise NotASchedule(f"an 'fsrs,...' schedule has 10 fields; this one has {len(fields)}")
    _, due_s, _interval, stab_s, diff_s, state_s, reps_s, lapses_s, steps_s, last_s = fields
    try:
        stability, difficulty = float(stab_s), float(diff_s)
        state, reps, lapses, steps = int(state_s), int(reps_s), int(lapses_s), int(steps_s)
    except ValueError:
        raise NotASchedule(f"non-numeric field in {seg!r}") from None
    if state == 0:
        return None
    if not (0 <= reps <= MAX_COUNT and 0 <= lapses <= MAX_COUNT and 0 <= steps <= MAX_STEP):
        raise NotASchedule(f"reps {reps_s}, lapses {lapses_s} or step {steps_s} out of range (counts 0-{MAX_COUNT}, "
                           f"step 0-{MAX_STEP})")
    due, last = _timestamp(due_s), _timestamp(last_s)
    if state not in (1, 2, 3) or due is None or last is None:
        raise NotASchedule(f"state {state} with due {due_s!r} and last review {last_s!r}: not a reviewed card")
    if not (0 < stability <= 36500 * 10 and 1 <= difficulty <= 10):
        raise NotASchedule(f"stability {stability} / difficulty {difficulty} out of FSRS's range")
    return Schedule(state=state, step=steps if state != REVIEW else None, stability=stability,
                    difficulty=difficulty, due=due, last_review=last, reps=reps, lapses=lapses)


@dataclass
class ImportReport:
    """What an import did: counts, and one line per skipped comment or note."""

    applied: list[str] = field(default_factory=list)  # "slug/follow-up"
    kept_server: list[str] = field(default_factory=list)  # the server's state was as new or newer
    not_reviewed: int = 0
    problems: list[Problem] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"applied": len(self.applied), "kept_server": len(self.kept_server),
                "not_reviewed": self.not_reviewed, "applied_items": self.applied,
                "kept_server_items": self.kept_server,
                "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in self.problems]}


def find_user(session: Session, username: str) -> User:
    user = session.scalars(select(User).where(User.username == username)).first()  # type: ignore[arg-type]
    if user is None:
        raise UnknownUser(username)
    return user


def _items(session: Session, slugs: list[str]) -> dict[tuple[str, str], Any]:
    it, ca = ITEMS.c, CARDS.c
    rows = session.connection().execute(
        select(ca.slug, it.key, it.id, it.lang, it.retired, ca.retired.label("card_retired"))
        .select_from(ITEMS.join(CARDS, ca.id == it.card_id))
        .where(and_(ca.slug.in_(slugs), it.kind == "followup")))
    return {(r.slug, r.key): r for r in rows}


def import_reviews(engine: Engine, user_id: int, vault: VaultState, progress: Progress | None = None) -> ImportReport:
    """Apply ``vault``'s scheduling comments to ``user_id``'s states (see the module docstring); ``progress``
    ticks once per note read, then shows the one write."""
    report = ImportReport(problems=list(vault.problems))
    parsed: list[tuple[str, str, Schedule]] = []
    notes = sorted(vault.notes.items())
    for slug, note in progress.each("reading schedules", notes, unit="notes") if progress else notes:
        for fu_id, body in sorted(note.schedules.items()):
            try:
                schedule = parse_schedule(body)
            except NotASchedule as exc:
                report.problems.append(Problem(note.path, note.lines[fu_id], f"follow-up {fu_id!r}: {exc}; skipped"))
                continue
            if schedule is None:
                report.not_reviewed += 1
            else:
                parsed.append((slug, fu_id, schedule))

    def work(session: Session) -> None:
        conn = session.connection()
        # the user's row, locked against a concurrent delete (SQLite: run_write serialises writers), checked
        # inside the write's own transaction: a deleted account raises before any row is written
        user_query = select(User.__table__.c.id).where(User.__table__.c.id == user_id)  # type: ignore[attr-defined]
        if conn.dialect.name != "sqlite":
            user_query = user_query.with_for_update()
        if conn.execute(user_query).first() is None:
            raise UserGone(user_id)
        items = _items(session, sorted({slug for slug, _, _ in parsed}))
        ids = [r.id for r in items.values()]
        query = select(STATES).where(STATES.c.user_id == user_id, STATES.c.item_id.in_(ids))
        if conn.dialect.name != "sqlite":  # SQLite: run_write already serialises writers
            query = query.with_for_update()
        current = {r.item_id: r for r in conn.execute(query)}
        inserts, updates = [], []
        for slug, fu_id, s in parsed:
            name, row = f"{slug}/{fu_id}", items.get((slug, fu_id))
            path = vault.notes[slug].path
            line = vault.notes[slug].lines[fu_id]
            if row is None:
                report.problems.append(Problem(path, line, f"card {slug!r} has no follow-up {fu_id!r} on this "
                                                            "server (run `proofdeck sync`?); skipped"))
                continue
            if row.retired or row.card_retired:
                report.problems.append(Problem(path, line, f"follow-up {name} was removed from the deck; skipped"))
                continue
            old = current.get(row.id)
            if old is not None and old.last_review is not None and as_utc(old.last_review) >= s.last_review:
                report.kept_server.append(name)
                continue
            values = StateRow(state=s.state, step=s.step, stability=s.stability, difficulty=s.difficulty,
                              due=s.due, last_review=s.last_review,
                              reps=s.reps if s.reps is not None else (old.reps if old is not None else 0) + 1,
                              lapses=s.lapses if s.lapses is not None else (old.lapses if old is not None else 0),
                              ).columns()
            if old is None:
                inserts.append({"user_id": user_id, "item_id": row.id, "live": True, "lang": row.lang, **values})
            else:
                updates.append({"sid": old.id, **values})
            report.applied.append(name)
        if inserts:
            conn.execute(STATES.insert(), inserts)
        if updates:
            conn.execute(update(STATES).where(STATES.c.id == bindparam("sid")), updates)
        if inserts or updates:
            user_changed(session, user_id)

    if progress:
        progress.step("storing")
    run_write(engine, work)
    return report
