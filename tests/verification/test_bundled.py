"""The bundled deck ships its latest sweep (verify/results/latest.json): `proofdeck sync` stores it while
the database has no run of its own, so a fresh `make run` shows verdicts; the server reads coverage
without torch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from app.cli.main import cli
from app.core.config import settings
from app.core.db import make_engine
from app.models.verification import ClaimVerdict, VerificationRun
from app.verification.store import store_report

ROOT = Path(__file__).resolve().parents[2]


def sync(database_url: str) -> str:
    result = CliRunner().invoke(cli, ["sync", "--cards", str(ROOT / "cards"), "--database-url", database_url])
    assert result.exit_code == 0, result.output
    return result.output


def runs(database_url: str) -> list[VerificationRun]:
    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            return list(s.exec(select(VerificationRun).order_by(col(VerificationRun.id))))
    finally:
        engine.dispose()


def test_sync_stores_the_bundled_report_until_a_run_of_its_own(database_url: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    claims = len(json.loads(settings.BUNDLED_REPORT.read_text(encoding="utf-8"))["claims"])
    assert "stored the bundled report latest.json" in sync(database_url)
    assert "already stored" in sync(database_url)  # the same file twice: one run
    [run] = runs(database_url)
    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            assert len(s.exec(select(ClaimVerdict).where(ClaimVerdict.run_id == run.id)).all()) == claims
        # a newer bundled file (a new sweep committed) replaces an older bundled one
        newer = tmp_path / "latest.json"
        data = json.loads(settings.BUNDLED_REPORT.read_text(encoding="utf-8"))
        data["environment"]["world_sizes"] = [2, 4, 8]
        newer.write_text(json.dumps(data), encoding="utf-8")
        monkeypatch.setattr(settings, "BUNDLED_REPORT", newer)
        assert "stored the bundled report" in sync(database_url)
        assert runs(database_url)[-1].world_sizes == [2, 4, 8]
        # a run made here is newer than anything shipped: kept
        with Session(engine) as s:
            store_report(s, data, host="this-machine")
        assert "kept the run" in sync(database_url) and len(runs(database_url)) == 3
    finally:
        engine.dispose()


def test_server_reads_coverage_without_torch() -> None:
    code = ("import sys, app.main\n"
            "from app.verification.present import card_overview\n"
            "text = open('cards/zero-sharding.md', encoding='utf-8').read()\n"
            "o = card_overview(text, [])\n"
            "assert 0 < o['checked'] <= o['found'], o\n"
            "assert 'torch' not in sys.modules, 'the server imported torch'\n"
            "print(o['checked'], o['found'])")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    checked, found = map(int, out.stdout.split())
    assert found >= 40


def test_server_start_stores_the_bundled_report_for_the_bundled_deck_only(database_url: str, tmp_path: Path) -> None:
    """`make run` syncs at the server's start (no `proofdeck sync`): the shipped deck gets its shipped
    verdicts there; a deck of one's own (another cards folder) does not get verdicts it was never judged by."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    other = tmp_path / "cards"
    other.mkdir()
    (other / "zero-sharding.md").write_text((ROOT / "cards" / "zero-sharding.md").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    for cards in (other, ROOT / "cards"):
        app = create_app(database_url=database_url, cards_dir=cards, sync_on_startup=True)
        try:
            with TestClient(app):
                pass
        finally:
            app.state.engine.dispose()  # its pooled connections closed here, not by the garbage collector
        if cards == other:
            assert runs(database_url) == []
    [run] = runs(database_url)
    assert run.host.startswith("bundled report")
