"""The handbook schedules as the server does: a scripted history of answers run through the page's
scheduler (templates/study_fsrs.js on ts-fsrs, in Chromium) and through the server's (py-fsrs,
app/srs/scheduler.py) gives the same state, step, due time and last review to the millisecond, and the
same stability and difficulty within 1e-6 (relative; ts-fsrs rounds them to 8 decimals, py-fsrs does not).

The history covers what tells schedulers apart: answers seconds apart, the Hard learning step (5.5 min),
reviews under 24 hours apart that straddle UTC midnight (py-fsrs counts whole 24-hour periods, ts-fsrs's
own scheduler calendar days), lapses and relearning, intervals of months and years, the default
parameters and fitted ones at other retentions. ts-fsrs's own Scheduler fails it (the last test): that is
why the page runs py-fsrs's steps over ts-fsrs's model instead.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from app.deck.sync import sync_cards
from app.export.study import scheduler_config
from app.srs.scheduler import make_scheduler
from tests.utils.handbook import open_offline, replay, write_handbook
from tests.utils.srs_cards import make_card, write_deck

pytestmark = [pytest.mark.browser,
              pytest.mark.backend_agnostic("the database only holds the deck the handbook is made from")]

T0 = datetime(2026, 1, 1, 23, 50, tzinfo=UTC)  # ten minutes before midnight UTC
GAPS = [timedelta(seconds=20), timedelta(minutes=1), timedelta(minutes=5, seconds=30), timedelta(minutes=11),
        timedelta(minutes=20), timedelta(hours=3), timedelta(hours=23, minutes=59), timedelta(hours=24, minutes=1),
        timedelta(days=2, hours=5), timedelta(days=9), timedelta(days=40), timedelta(days=400)]
# fitted parameters (inside py-fsrs's bounds, away from the defaults) and the defaults
FITTED = [0.35, 1.6, 3.1, 12.0, 6.9, 0.6, 2.4, 0.02, 1.6, 0.2, 1.0, 1.7, 0.08, 0.3, 1.9, 0.5, 2.2, 0.6, 0.12,
          0.1, 0.2]
SCHEDULERS = [(None, 0.9), (FITTED, 0.85), (FITTED, 0.97), (None, 0.7)]
TOLERANCE = 1e-6


def history(seed: int, length: int) -> list[tuple[int, datetime]]:
    rng = random.Random(seed)
    at, out = T0 + timedelta(minutes=rng.randrange(0, 20)), []
    for _ in range(length):
        out.append((rng.choices([1, 2, 3, 4], weights=[2, 2, 5, 1])[0], at))
        at += rng.choice(GAPS)
    return out


def histories() -> list[tuple[list[float] | None, float, list[tuple[int, datetime]]]]:
    out = []
    for s, (params, retention) in enumerate(SCHEDULERS):
        out += [(params, retention, history(100 * s + i, 14)) for i in range(30)]
    return out


@pytest.fixture(scope="module")
def page(browser: Any, module_database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from app.core.db import make_engine
    from app.models.migrate import init_db

    tmp = tmp_path_factory.mktemp("parity")
    db: Engine = make_engine(module_database_url)
    init_db(db)
    sync_cards(db, write_deck(tmp / "cards", [make_card("parity")]))
    path = write_handbook(db, tmp / "handbook.html")
    db.dispose()
    context, page, _refused = open_offline(browser, path)
    yield page
    context.close()


def _ms(dt: datetime | None) -> int | None:
    return None if dt is None else round(dt.timestamp() * 1000)


PAGE_RUN = """(runs) => runs.map((run) => {
  const f = proofdeckFsrs.make(run.cfg);
  let s = null;
  return run.answers.map(([g, at]) => { s = f.review(s, g, at); return s; });
})"""


def test_page_and_server_schedule_the_same(page: Any) -> None:
    runs = histories()
    cfgs = [scheduler_config(make_scheduler(parameters=p, desired_retention=r, fuzz=False)) for p, r, _h in runs]
    got = page.evaluate(PAGE_RUN, [{"cfg": cfg, "answers": [[g, _ms(at)] for g, at in h]}
                                   for cfg, (_p, _r, h) in zip(cfgs, runs, strict=True)])
    compared = 0
    for (params, retention, h), page_states in zip(runs, got, strict=True):
        state = None
        for i, ((rating, at), js) in enumerate(zip(h, page_states, strict=True)):
            state = replay(state, [(rating, at)], parameters=params, desired_retention=retention)
            assert state is not None
            where = f"params={'fitted' if params else 'default'} retention={retention} answer {i} ({rating} at {at})"
            assert (js["state"], js["step"], js["due"], js["last_review"]) == \
                (state.state, state.step, _ms(state.due), _ms(state.last_review)), where
            assert js["stability"] == pytest.approx(state.stability, rel=TOLERANCE), where
            assert js["difficulty"] == pytest.approx(state.difficulty, rel=TOLERANCE), where
            compared += 1
    assert compared == len(runs) * 14
    # the history reached every state and some long intervals
    assert {js["state"] for run in got for js in run} == {1, 2, 3}
    assert max(js["due"] - js["last_review"] for run in got for js in run) > 300 * 86_400_000


def test_interval_labels_are_the_quizs(page: Any) -> None:
    from app.srs.preview import label

    seconds = [0, 59, 60, 89, 90, 150, 330, 3599, 3600, 5400, 86399, 86400, 129600, 30 * 86400, 45 * 86400,
               364 * 86400, 365 * 86400, 548 * 86400, 3650 * 86400]
    assert page.evaluate("(xs) => xs.map((s) => proofdeckFsrs.label(s))", seconds) == [label(s) for s in seconds]


TS_FSRS_OWN = """(runs) => runs.map((run) => {
  const f = FSRS.fsrs(FSRS.generatorParameters({
    w: run.cfg.parameters, request_retention: run.cfg.desired_retention, enable_fuzz: false,
    learning_steps: ["1m", "10m"], relearning_steps: ["10m"]}));
  let card = FSRS.createEmptyCard(new Date(run.answers[0][1]));
  return run.answers.map(([g, at]) => { card = f.next(card, new Date(at), g).card; return card.due.getTime(); });
})"""


def test_ts_fsrs_own_scheduler_is_not_the_servers(page: Any) -> None:
    runs = histories()[:30]
    cfg = scheduler_config(make_scheduler(fuzz=False))
    dues = page.evaluate(TS_FSRS_OWN, [{"cfg": cfg, "answers": [[g, _ms(at)] for g, at in h]} for _p, _r, h in runs])
    differ = 0
    for (_p, _r, h), due in zip(runs, dues, strict=True):
        state = None
        for (rating, at), js_due in zip(h, due, strict=True):
            state = replay(state, [(rating, at)])
            differ += js_due != _ms(state.due)  # type: ignore[union-attr]
    assert differ > 0, "ts-fsrs's own scheduler now matches py-fsrs: study_fsrs.js could use it directly"
