"""The handbook's study mode end to end: ``proofdeck export html --user`` → headless Chromium at phone width
from file:// with the network off and every request off the file refused → a session of reviews (a typed
drill, an undo) → a reload keeps them → "Export reviews" downloads them → ``proofdeck import
handbook-reviews`` and ``POST /api/review/import/handbook`` (uvicorn, real HTTP) bring them home: each review
once in the log, the states those of the server's own FSRS replay (and the page's), a second import adds 0."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from app.auth.users import create_user
from app.cli.main import cli
from app.core.db import make_engine
from app.items import drills
from app.models.card import Card
from app.models.review import ItemState, ReviewItem, ReviewLog
from app.srs.state import StateRow
from tests.utils.handbook import item_of, open_offline, replay
from tests.utils.srs_cards import make_card, write_deck

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.backend_agnostic("the import's statements run on both backends in "
                                           "tests/review/test_handbook_import.py; here the trip through the page")]
PHONE = {"width": 390, "height": 844}
RATINGS = [3, 2, 4, 3, 3, 3, 3]  # no Again early on: a 1-minute step could come due mid-session


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    # "a-ring" sorts first: its card, follow-up and pitfall come first among new items, then the ZeRO card's
    return write_deck(tmp_path / "cards", [make_card("a-ring", follow_ups=1, pitfalls=(1, 1)),
                                           make_card("zero-mini", follow_ups=1, pitfalls=(0, 0), drills=True)])


def _ms(dt: datetime | None) -> int | None:
    return None if dt is None else round(dt.timestamp() * 1000)


class Learner:
    """Drives the study panel with the keyboard, as a learner would."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.verdict = ""  # the last typed answer's verdict

    def kind(self) -> str:
        self.page.locator("#s-item, #s-done").first.wait_for(state="attached")
        return "" if self.page.locator("#s-item").is_hidden() else self.page.locator("#s-kind").inner_text()

    def answer(self, rating: int, typed: str | None = None) -> str:
        page, kind = self.page, self.kind()
        if page.locator("#s-typed").is_visible():
            page.locator("#s-answer").fill(typed or "1")
            page.keyboard.press("Enter")
            page.locator("#s-verdict").wait_for(state="visible")
            self.verdict = page.locator("#s-verdict").inner_text()
            page.locator("#s-back").wait_for(state="visible")
            page.keyboard.press("Space")  # continue
        else:
            page.keyboard.press("Space")
            page.locator("#s-grades").wait_for(state="visible")
            assert page.locator("#s-grades .ivl[data-ivl='3']").inner_text() != ""  # interval labels
            page.keyboard.press(str(rating))
        return kind


def _expected_typed(page: Any) -> str:
    """The right answer of the drill on screen, from its showing's seed (the numbers the server makes)."""
    shown = page.evaluate("proofdeckStudy.current()")
    data = json.loads(page.locator("#study-data").text_content())
    item = item_of(data, shown["item"])
    seed = data["drills"][item[2]][shown["showing"]][0]
    return f"{drills.answer(drills.new_params(item[2], seed)):.6g}"


def test_study_offline_then_bring_the_reviews_home(browser: Any, live_server: str, database_url: str,
                                                  tmp_path: Path) -> None:
    db = make_engine(database_url)
    with Session(db) as s, s.begin():
        _user, token = create_user(s, "ada")
    auth = {"Authorization": f"Bearer {token}"}
    # one answer on the server before the export: the handbook must carry its state (Easy: due in days)
    nxt = httpx.get(f"{live_server}/api/review/next", headers=auth).json()["item"]
    assert nxt["card"]["slug"] == "a-ring" and nxt["kind"] == "card"
    answered = httpx.post(f"{live_server}/api/review", json={"item_id": nxt["id"], "rating": 4}, headers=auth)
    assert answered.status_code == 200

    handbook = tmp_path / "proofdeck.html"
    runner = CliRunner()
    out = runner.invoke(cli, ["export", "html", str(handbook), "--user", "ada", "--database-url", database_url])
    assert out.exit_code == 0, out.output
    assert "ada's schedule" in out.output and "#study" in out.output
    with Session(db) as s:
        exported = {i.item_id: StateRow.of(i) for i in s.exec(select(ItemState)).all()}
    assert len(exported) == 1

    context, page, refused = open_offline(browser, handbook, viewport=PHONE)
    try:
        page.locator("a[data-action=study]").click()  # the Study button opens #study
        page.locator("#study").wait_for(state="visible", timeout=30_000)  # shown by the hashchange handler
        assert page.url.endswith("#study")
        assert page.locator(".s-who b").inner_text() == "ada"
        learner = Learner(page)
        kinds = [learner.answer(RATINGS[0]), learner.answer(RATINGS[1]), learner.answer(RATINGS[2])]
        assert kinds == ["追问 follow-up", "陷阱 pitfall", "卡片 card"]  # a-ring's card is not due: answered Easy
        # z undoes the last answer: the same item is asked again
        page.keyboard.press("z")
        assert page.locator("#s-status").inner_text().startswith("已撤销")
        assert learner.kind() == "卡片 card"
        learner.answer(RATINGS[3])
        assert learner.kind() == "追问 follow-up"
        learner.answer(RATINGS[4])
        assert learner.kind() == "计算 drill"
        page.locator("#s-answer").press_sequentially("3/11")  # keys typed into the answer stay there ("/" too)
        assert page.locator("#s-answer").input_value() == "3/11"
        learner.answer(0, typed=_expected_typed(page))  # typed right
        assert len(page.evaluate("proofdeckStudy.reviews()")) == 5
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling
        page.screenshot(path=str(tmp_path / "study-phone.png"), full_page=True)

        page.reload()
        page.wait_for_load_state("load")
        assert page.locator("#study").is_visible() and page.locator("#s-saved").inner_text() == "5"
        first = page.evaluate("proofdeckStudy.reviews()")
        assert len(first) == 5
        with page.expect_download() as download:
            page.locator("[data-action=export-reviews]").click()
        file_a = tmp_path / "reviews-a.json"
        download.value.save_as(file_a)
        assert page.locator("#s-unsent").inner_text() == "0"

        cli_import = runner.invoke(cli, ["import", "handbook-reviews", str(file_a), "--user", "ada",
                                         "--database-url", database_url])
        assert cli_import.exit_code == 0, cli_import.output
        assert "5 review(s) imported" in cli_import.output

        # study on, typing a wrong answer this time, then bring the rest home over the API
        # (a drill answered with a prefix slip: the verdict says what 123,456 TB is in the drill's GB)
        for rating in (RATINGS[5], RATINGS[6]):
            if page.locator("#s-typed").is_visible():
                learner.answer(0, typed="123456 TB")
                assert "123,456 TB" in learner.verdict and "123,456,000 GB" in learner.verdict, learner.verdict
            else:
                learner.answer(rating)
        with page.expect_download() as download:
            page.locator("[data-action=export-reviews]").click()
        file_b = tmp_path / "reviews-b.json"
        download.value.save_as(file_b)
        page_states = {r["item"]: page.evaluate("(n) => proofdeckStudy.state(n)", r["item"])
                       for r in page.evaluate("proofdeckStudy.reviews()")}
        assert refused == [] and page.errors == []
    finally:
        context.close()

    body = file_b.read_bytes()
    api = httpx.post(f"{live_server}/api/review/import/handbook", content=body, headers=auth, timeout=60)
    assert api.status_code == 200, api.text
    assert (api.json()["imported"], api.json()["already_imported"], api.json()["skipped"]) == (2, 5, 0)
    again = httpx.post(f"{live_server}/api/review/import/handbook", content=body, headers=auth, timeout=60).json()
    assert (again["imported"], again["already_imported"]) == (0, 7)
    cli_again = runner.invoke(cli, ["import", "handbook-reviews", str(file_b), "--user", "ada", "--database-url",
                                    database_url, "--json"])
    assert json.loads(cli_again.stdout)["imported"] == 0

    reviews = json.loads(body)["reviews"]
    assert len(reviews) == 7 and reviews[:5] == first
    with Session(db) as s:
        logs = s.exec(select(ReviewLog).order_by(col(ReviewLog.reviewed_at))).all()
        keys = [log.idempotency_key for log in logs]
        assert sorted(k for k in keys if k.startswith("handbook:")) == sorted("handbook:" + r["id"] for r in reviews)
        assert len(logs) == 1 + 7  # the server's own answer and each handbook review, once
        ids = {f"{slug}/{kind}/{key}": item_id for item_id, kind, key, slug in s.exec(
            select(ReviewItem.id, ReviewItem.kind, ReviewItem.key, Card.slug)
            .join(Card, col(Card.id) == ReviewItem.card_id))}
        stored = {i.item_id: StateRow.of(i) for i in s.exec(select(ItemState)).all()}
    for name in {r["item"] for r in reviews}:
        mine = [r for r in reviews if r["item"] == name]
        answers = []
        for r in mine:
            rating = r["rating"]
            if "typed" in r:  # graded by the server's own grader on the seed's numbers
                params = drills.new_params(name.split("/")[2], r["seed"])
                rating = 3 if drills.grade(params, r["typed"]).correct else 1
                assert r["correct"] == (rating == 3)
            answers.append((rating, datetime.fromisoformat(r["at"].replace("Z", "+00:00")).astimezone(UTC)))
        item_id = int(ids[name])  # type: ignore[arg-type]
        want = replay(exported.get(item_id), answers, item_id=item_id)
        assert stored[item_id] == want, name  # the server's own replay
        js = page_states[name]  # and the page's schedule
        assert want is not None
        assert (js["state"], js["step"], js["due"], js["last_review"]) == \
            (want.state, want.step, _ms(want.due), _ms(want.last_review)), name
        assert js["stability"] == pytest.approx(want.stability, rel=1e-6)
        assert js["difficulty"] == pytest.approx(want.difficulty, rel=1e-6)
    typed = [r for r in reviews if "typed" in r]
    assert {r["correct"] for r in typed} == {True, False}
    db.dispose()
