"""Store a verify report with its time, environment and versions; read the latest verdicts per card."""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

from sqlmodel import Session, col, select

from app.models.card import utcnow
from app.models.verification import ClaimVerdict, VerificationRun
from app.verification.report import VerifyReport


def proofdeck_version() -> str:
    try:
        return version("proofdeck")
    except Exception:  # not installed (running from a checkout)
        return "0+unknown"


def start_run(session: Session) -> VerificationRun:
    """A run row in state ``running`` (for background jobs that report progress)."""
    run = VerificationRun(status="running", host=platform.node(), proofdeck_version=proofdeck_version())
    session.add(run)
    session.commit()
    session.refresh(run)
    return run


def fail_run(session: Session, run: VerificationRun, error: str) -> None:
    run.status, run.error, run.finished_at = "failed", error, utcnow()
    session.add(run)
    session.commit()


def store_report(session: Session, data: dict[str, Any], run: VerificationRun | None = None,
                 host: str | None = None, *, commit: bool = True) -> VerificationRun:
    """Validate ``data`` (raises pydantic.ValidationError) and store it with one verdict row per claim.

    Review items read the verdicts (misconception drills): store through ``app.deck.verdicts.store_verdicts``,
    which refreshes them in the same transaction, unless the caller does that itself. ``commit=False``
    leaves the transaction open for that: until it commits, nobody sees the run as done."""
    report = VerifyReport.model_validate(data)
    if run is None:
        run = VerificationRun(proofdeck_version=proofdeck_version())
    env = report.environment
    run.status, run.finished_at = "done", utcnow()
    run.host = host or str(env.model_extra.get("host", "") if env.model_extra else "") or run.host or platform.node()
    run.backend, run.device, run.torch_version = env.backend, env.device, env.torch
    run.world_sizes = list(env.world_sizes)
    run.environment = env.model_dump(mode="json")
    run.report = report.model_dump(mode="json")
    session.add(run)
    session.flush()
    assert run.id is not None
    for claim in report.claims:
        session.add(ClaimVerdict(
            run_id=run.id, card_slug=claim.card, claim_key=claim.claim_id, verdict=claim.verdict, method=claim.method,
            text_zh=claim.text_zh, text_en=claim.text_en,
            predicted=claim.predicted, measured=claim.measured, condition=claim.condition or "",
            evaluated=claim.evaluated, counterexamples=claim.counterexamples,
            reason_zh=claim.reason_zh, reason_en=claim.reason_en,
        ))
    for st in report.statements:
        if st.verdict in STORED and st.judge != "claim":
            session.add(statement_verdict(run.id, st))
    if commit:
        session.commit()
        session.refresh(run)
    return run


# the statements stored as verdict rows: what an annotation-free judge found wrong (a mark, a misconception
# drill, a count on the page, like a refuted claim). A statement a claim judges is that claim's row already,
# and the confirmed and consistent ones stay in the report (thousands of rows would drown the claims' marks)
STORED = ("refuted", "contradiction")


def statement_verdict(run_id: int, st: Any) -> ClaimVerdict:
    """A judged statement as a verdict row: quoted by its sentence in its language, its judge named."""
    counter = [{"at": "", "value": "", "claimed": "", "text": st.detail}] if st.verdict == "refuted" else []
    return ClaimVerdict(run_id=run_id, card_slug=st.card, claim_key=f"auto-{st.key}".replace(":", "-"),
                        verdict=st.verdict, method=st.method or st.judge, judge=st.judge, predicted=st.text,
                        measured=st.found or None, condition=st.detail if st.verdict == "conditional" else "",
                        counterexamples=counter, reason_en=st.detail, reason_zh=st.detail,
                        text_zh=st.sentence if st.lang == "zh" else "", text_en=st.sentence if st.lang == "en" else "")


def latest_verdicts(session: Session, slug: str) -> tuple[VerificationRun | None, list[ClaimVerdict]]:
    """The newest finished run that judged ``slug``'s claims, and those verdicts in claim order."""
    run_id = session.exec(
        select(ClaimVerdict.run_id).join(VerificationRun, col(VerificationRun.id) == ClaimVerdict.run_id)
        .where(ClaimVerdict.card_slug == slug, VerificationRun.status == "done")
        .order_by(col(VerificationRun.finished_at).desc(), col(VerificationRun.id).desc()).limit(1)
    ).first()
    if run_id is None:
        return None, []
    run = session.get(VerificationRun, run_id)
    verdicts = list(session.exec(select(ClaimVerdict).where(ClaimVerdict.run_id == run_id,
                                                            ClaimVerdict.card_slug == slug)
                                 .order_by(col(ClaimVerdict.id))))
    return run, verdicts


def latest_verdicts_by_card(session: Session) -> dict[str, list[ClaimVerdict]]:
    """slug → its latest verdicts (as :func:`latest_verdicts`), for exports that show every card: one query."""
    rows = session.exec(
        select(ClaimVerdict).join(VerificationRun, col(VerificationRun.id) == ClaimVerdict.run_id)
        .where(VerificationRun.status == "done")
        .order_by(col(VerificationRun.finished_at).desc(), col(VerificationRun.id).desc(), col(ClaimVerdict.id))
    ).all()
    latest_run: dict[str, int] = {}
    out: dict[str, list[ClaimVerdict]] = {}
    for v in rows:  # newest run first: a card's first run seen is its latest
        if latest_run.setdefault(v.card_slug, v.run_id) == v.run_id:
            out.setdefault(v.card_slug, []).append(v)
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class VerdictRow:
    """A stored verdict as the learner-facing surfaces read it (hashable: render caches key on it)."""

    claim_key: str
    verdict: str
    text_zh: str
    text_en: str
    predicted: str
    measured: str
    condition: str
    reason_zh: str
    reason_en: str
    evaluated_json: str = "[]"  # JSON, so that the row stays hashable
    counterexamples_json: str = "[]"

    @property
    def evaluated(self) -> list[dict[str, Any]]:
        return list(json.loads(self.evaluated_json))

    @property
    def counterexamples(self) -> list[dict[str, Any]]:
        return list(json.loads(self.counterexamples_json))

    @classmethod
    def of(cls, v: Any) -> VerdictRow:
        def text(x: Any) -> str:
            return x if isinstance(x, str) else "" if x is None else json.dumps(x, sort_keys=True)
        return cls(v.claim_key, v.verdict, v.text_zh, v.text_en, text(v.predicted), text(v.measured),
                   v.condition or "", v.reason_zh, v.reason_en, json.dumps(v.evaluated or [], sort_keys=True),
                   json.dumps(v.counterexamples or [], sort_keys=True))


@dataclass(frozen=True)
class CardVerdicts:
    """A card's latest verdicts and the Ψ of the sweep that produced them (for human units)."""

    psi: float | None = None
    rows: tuple[VerdictRow, ...] = ()


def card_verdicts(session: Session) -> dict[str, CardVerdicts]:
    """slug → :class:`CardVerdicts` of its latest finished run (two queries), for the quiz's deck index."""
    from app.verification.present import run_psi

    by_card = latest_verdicts_by_card(session)
    runs = {r.id: r for r in session.exec(select(VerificationRun).where(
        col(VerificationRun.id).in_({rows[0].run_id for rows in by_card.values() if rows})))}
    return {slug: CardVerdicts(run_psi(runs.get(rows[0].run_id)), tuple(VerdictRow.of(v) for v in rows))
            for slug, rows in by_card.items() if rows}


def one_card_verdicts(session: Session, slug: str) -> CardVerdicts:
    from app.verification.present import run_psi

    run, rows = latest_verdicts(session, slug)
    return CardVerdicts(run_psi(run), tuple(VerdictRow.of(v) for v in rows))
