"""Storing verify reports and reading back the latest verdicts per card."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy.engine import Engine
from sqlmodel import Session, select
from typer.testing import CliRunner

from app.cards.cardfile import dump_card
from app.cards.schema import CardDoc, Claim, LangText
from app.cli.main import cli
from app.models.verification import ClaimVerdict, VerificationRun
from app.verification.store import latest_verdicts, store_report


def report(verdict: str, *, device: str = "cpu", backend: str = "gloo") -> dict[str, Any]:
    return {
        "environment": {"torch": "2.13.0+cpu", "backend": backend, "device": device, "world_sizes": [2, 4]},
        "runs": [],
        "claims": [
            {"card": "demo", "claim_id": "three-x", "text_zh": "三倍", "text_en": "three times", "check": "c",
             "verdict": verdict, "predicted": {"ratio": 1.5}, "measured": {"ratio": 1.5}, "condition": None,
             "reason_zh": "测得 1.5", "reason_en": "measured 1.5"},
            {"card": "other", "claim_id": "x", "verdict": "confirmed"},
        ],
    }


def test_store_and_latest(engine: Engine) -> None:
    with Session(engine) as s:
        store_report(s, report("refuted"))
        second = store_report(s, report("confirmed", device="cuda", backend="nccl"))
        run, verdicts = latest_verdicts(s, "demo")
        assert run is not None and run.id == second.id
        assert run.backend == "nccl" and run.device == "cuda" and run.world_sizes == [2, 4]
        assert [(v.claim_key, v.verdict) for v in verdicts] == [("three-x", "confirmed")]
        assert verdicts[0].predicted == {"ratio": 1.5} and verdicts[0].reason_zh == "测得 1.5"
        assert latest_verdicts(s, "nobody") == (None, [])


def test_bad_report_stores_nothing(engine: Engine) -> None:
    bad = report("confirmed")
    bad["claims"][0]["verdict"] = "probably"
    with Session(engine) as s:
        with pytest.raises(ValidationError, match="verdict"):
            store_report(s, bad)
        assert s.exec(select(VerificationRun)).all() == []
        assert s.exec(select(ClaimVerdict)).all() == []


def test_a_run_is_done_only_with_its_drills_refreshed(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """``store_verdicts`` stores the report and refreshes the review items in one transaction: another
    connection sees no finished run while the items are being refreshed, and a failed refresh stores nothing.
    (The admin endpoint's job once committed "done" first; a poller then dropped the database under the
    job's refresh, CI 2026-12-02.)"""
    from app.deck import verdicts as deck_verdicts
    from app.deck.verdicts import store_verdicts
    from app.items.items import refresh_after_verdicts as real_refresh

    seen_meanwhile: list[list[VerificationRun]] = []

    def refresh_watched(session: Session) -> None:
        with Session(engine) as other:
            seen_meanwhile.append(list(other.exec(select(VerificationRun).where(VerificationRun.status == "done"))))
        real_refresh(session)

    monkeypatch.setattr(deck_verdicts, "refresh_after_verdicts", refresh_watched)
    with Session(engine) as s:
        run = store_verdicts(s, report("refuted"))
        assert run.status == "done" and seen_meanwhile == [[]]

    def refresh_fails(session: Session) -> None:
        raise RuntimeError("the refresh failed")

    monkeypatch.setattr(deck_verdicts, "refresh_after_verdicts", refresh_fails)
    with Session(engine) as s, pytest.raises(RuntimeError, match="the refresh failed"):
        store_verdicts(s, report("confirmed"))
    with Session(engine) as s:
        assert [r.id for r in s.exec(select(VerificationRun))] == [run.id]
        assert [(v.run_id, v.claim_key) for v in s.exec(select(ClaimVerdict))] == [(run.id, "three-x"), (run.id, "x")]


def test_cli_from_json_and_api(tmp_path: Path, database_url: str, cards_dir: Path) -> None:
    from fastapi.testclient import TestClient

    from app.main import create_app

    doc = CardDoc(slug="demo", title=LangText(zh="演示", en="Demo"),
                  claims=[Claim(id="three-x", text=LangText(en="three times"))])
    (cards_dir / "demo.md").write_text(dump_card(doc), encoding="utf-8")
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report("refuted")), encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", "--from-json", str(path), "--database-url", database_url])
    assert result.exit_code == 0, result.output
    assert "refuted" in result.output and "stored run 1" in result.output

    with TestClient(create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=True)) as client:
        body = client.get("/api/cards/demo/verification").json()
        assert body["run"]["backend"] == "gloo" and body["run"]["torch_version"] == "2.13.0+cpu"
        assert body["verdicts"][0]["verdict"] == "refuted"
        assert body["verdicts"][0]["measured"] == {"ratio": 1.5}
        page = client.get("/cards/demo").text
        assert 'class="claim-verdict verdict-refuted"' in page and "被推翻" in page
        assert "ratio 1.5" in page  # the measured value (the raw numbers, behind one disclosure)
        assert "gloo / cpu" in page and "1 ✗" in page  # the overview on top: counts, where it ran
        missing = client.get("/api/cards/nope/verification")
        assert missing.status_code == 404 and missing.json() == {"detail": "no card with slug 'nope'"}


def test_cli_rejects_malformed_report(tmp_path: Path, database_url: str) -> None:
    path = tmp_path / "r.json"
    path.write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", "--from-json", str(path), "--database-url", database_url])
    assert result.exit_code == 1
    assert "not a JSON report" in result.output


def test_cli_exit_code_when_a_claim_could_not_be_judged(tmp_path: Path, database_url: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report("error")), encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", "--from-json", str(path), "--database-url", database_url])
    assert result.exit_code == 1
    assert "1 claim(s) could not be judged" in result.output


def test_latest_verdicts_by_card_matches_per_card_lookup(engine: Engine) -> None:
    from app.verification.store import latest_verdicts_by_card

    with Session(engine) as s:
        store_report(s, report("refuted"))
        newer = report("confirmed")
        newer["claims"] = newer["claims"][:1]  # the newer run judged only "demo": "other" keeps its older run
        store_report(s, newer)
        by_card = latest_verdicts_by_card(s)
        assert sorted(by_card) == ["demo", "other"]
        for slug, rows in by_card.items():
            assert [v.id for v in rows] == [v.id for v in latest_verdicts(s, slug)[1]]
        assert [v.verdict for v in by_card["demo"]] == ["confirmed"]
        assert by_card["other"][0].run_id != by_card["demo"][0].run_id
