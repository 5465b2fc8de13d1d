"""Statements no claim annotates, judged and stored by a run, show on the card page where they stand, like a
hand-written verdict: a refuted number marked ✗ with the judge's correction, a zh/en contradiction marked
⇄ with the other side, a confirmed one quiet. The card is a bank export with planted mistakes, imported as
``proofdeck import`` does; the run is stored the way ``proofdeck verify`` stores its report."""

from __future__ import annotations

import html
import re
from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.cards.bank_import import import_paths
from app.main import create_app
from app.verification.store import store_report
from tests.utils.bankscore import BANK
from verify.judge.statements.card import judge_text

RAW = BANK / "dev" / "294_9503ac973cb7f2ca.txt"  # ZeRO++: en "a 2× reduction" against zh 降低 4 倍; 18.6 s


def test_a_bank_cards_statement_verdicts_are_marked_on_its_page(tmp_path: Path, database_url: str) -> None:
    cards = tmp_path / "cards"
    report = import_paths([RAW], cards)
    assert not report.failed and len(report.imported) == 1
    written = report.imported[0].written
    slug = report.imported[0].slug
    judged = judge_text(written.read_text(encoding="utf-8"), str(written))
    rows = [{**v.to_dict(), "method": v.judge} for v in judged.verdicts]
    problems = {(v.lang, v.text): v for v in judged.problems()}
    assert ("en", "2×") in problems and any("18.6" in text for _, text in problems)

    app = create_app(database_url=database_url, cards_dir=cards, sync_on_startup=True)
    with TestClient(app) as client:
        with Session(app.state.engine) as s:
            store_report(s, {"environment": {"torch": "2.13.0+cpu", "backend": "gloo", "device": "cpu",
                                             "world_sizes": [2, 4]}, "runs": [], "claims": [], "statements": rows})
        page = client.get(f"/cards/{slug}", headers={"accept": "text/html"})
        assert page.status_code == 200
        text = page.text
    app.state.engine.dispose()

    marks = re.findall(r'<mark class="claim-mark claim-mark-(\w+)" data-claim="([^"]+)">(.*?)</mark>', text, re.S)
    kinds = {kind for kind, _claim, _words in marks}
    assert {"refuted", "contradiction"} <= kinds, kinds
    contradiction = [html.unescape(words) for kind, claim, words in marks if kind == "contradiction"]
    assert any("2×" in words for words in contradiction), contradiction  # the en sentence with "a 2× reduction"
    refuted = [(claim, html.unescape(words)) for kind, claim, words in marks if kind == "refuted"]
    assert any("18.6" in words for _claim, words in refuted), refuted
    assert all(claim.startswith("auto-") for _kind, claim, _words in marks)
    notes = html.unescape(" ".join(re.findall(r'<span class="mark-note">(.*?)</span>', text, re.S)))
    assert "16.8" in notes  # the judge's correction of 420/25 = 18.6 s
