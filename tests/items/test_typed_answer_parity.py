"""One table of typed answers (tests/items/data/typed_answers.json), graded by the server
(``app.items.drills.grade``, the function POST /api/review and the handbook import call) and by the handbook's
page (``templates/study_answers.js`` in Chromium): the same verdict, the same number read, the same message
for what cannot be graded, the same feedback on a unit (``app/items/unit_table.py``: both convert with the
float factors of one table, which the page gets in its data). Any change to the server's reading of an
answer (units, formats) that the page does not share fails here, row by row; a few hundred generated
strings over the characters both parsers treat specially back the table up."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from app.deck.sync import sync_cards
from app.items import drills
from app.items.answers import split_number
from tests.utils.handbook import open_offline, write_handbook
from tests.utils.srs_cards import make_card, write_deck

pytestmark = [pytest.mark.browser,
              pytest.mark.backend_agnostic("the database only holds the deck the handbook is made from")]

TABLE = Path(__file__).with_name("data") / "typed_answers.json"
ALPHABET = list("0123456789,._eE+-  ") + ["\u00a0", "１", "５", "．", "，", "。", "、", "٣", "约", "≈", "~", "G", "B",
                                            "%", "\x1c", "'", '"', "\\", "−", "\u2009", "ｅ", "\n", "about "]


def server(params: dict[str, Any], typed: str) -> dict[str, Any]:
    try:
        graded = drills.grade(params, typed)
    except drills.DrillError as exc:
        return {"error": str(exc)}
    return {"correct": graded.correct, "given": graded.given, "note": graded.note}


PAGE = """(rows) => rows.map(([expected, typed, unit]) => {
  const r = proofdeckStudy.grade(expected, typed, unit);
  return r.error !== undefined ? {error: r.error} : {correct: r.correct, given: r.given, note: r.note};
})"""


@pytest.fixture(scope="module")
def page(browser: Any, module_database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from app.core.db import make_engine
    from app.models.migrate import init_db

    tmp = tmp_path_factory.mktemp("typed")
    db: Engine = make_engine(module_database_url)
    init_db(db)
    sync_cards(db, write_deck(tmp / "cards", [make_card("typed", drills=True)]))
    path = write_handbook(db, tmp / "handbook.html")
    db.dispose()
    context, page, _refused = open_offline(browser, path)
    yield page
    context.close()


def _compare(page: Any, cases: list[tuple[dict[str, Any], str]]) -> list[str]:
    got = page.evaluate(PAGE, [[drills.answer(params), typed, drills.unit(params)] for params, typed in cases])
    return [f"{params['key']} typed {typed!r}: server {want}, page {js}"
            for (params, typed), js in zip(cases, got, strict=True) for want in [server(params, typed)] if js != want]


def test_the_table_grades_the_same_on_the_server_and_in_the_page(page: Any) -> None:
    rows = json.loads(TABLE.read_text(encoding="utf-8"))["rows"]
    cases = [(drills.new_params(r["drill"], r["seed"]), r["typed"]) for r in rows]
    assert not _compare(page, cases), "\n".join(_compare(page, cases))
    outcomes = [server(p, t) for p, t in cases]
    # the table reaches every outcome: right, wrong, ambiguous (asked which), not a number
    assert any(o.get("correct") is True for o in outcomes) and any(o.get("correct") is False for o in outcomes)
    assert any("reads two ways" in o.get("error", "") for o in outcomes)
    assert any("is not a number" in o.get("error", "") for o in outcomes)
    assert any("not a finite number" in o.get("error", "") for o in outcomes)
    # and every outcome of a unit: the right amount in another unit (right), a prefix or GiB/GB slip (wrong,
    # the note says what the amount typed is), another kind of unit or no known unit (wrong, named)
    other_unit = [(p, t) for (p, t), o in zip(cases, outcomes, strict=True)
                  if o.get("correct") and split_number(t)[1] not in ("", drills.unit(p))]
    assert len(other_unit) >= 10
    notes = [o["note"]["en"] for o in outcomes if o.get("note")]
    assert any(" is " in n and "GiB" in n for n in notes) and any("(a time)" in n for n in notes)
    assert any("(not a unit of this answer)" in n for n in notes)


def test_generated_answers_grade_the_same(page: Any) -> None:
    rng = random.Random(38)
    params = drills.new_params("memory-zero3", 7)
    typed = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 9))) for _ in range(600)]
    typed += [f"{rng.choice(['', '约', '~'])}{rng.uniform(0, 40):.{rng.randint(0, 4)}f}{rng.choice(['', ' GB', '%'])}"
              .replace(".", rng.choice([".", ",", "。"])) for _ in range(200)]
    wrong = _compare(page, [(params, t) for t in typed])
    assert not wrong, f"{len(wrong)} of {len(typed)} differ:\n" + "\n".join(wrong[:20])
