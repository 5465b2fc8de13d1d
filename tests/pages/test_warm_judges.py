"""Start-up loads the statement judges the card page counts with (``PROOFDECK_WARM_JUDGES``, on by default):
the first card page after start-up took 3 s on a 1,000-card deck while sympy and pint loaded on its request."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app import main
from app.core.config import settings
from harness.deckgen import write_deck


@pytest.mark.parametrize("warm", [True, False])
def test_start_up_loads_the_card_pages_judges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warm: bool) -> None:
    calls: list[str] = []
    monkeypatch.setattr(settings, "WARM_JUDGES", warm)
    monkeypatch.setattr(main, "warm_card_judges", lambda: calls.append("warm"))
    write_deck(tmp_path / "cards", 2)
    app = main.create_app(database_url=f"sqlite:///{tmp_path / 'db.sqlite'}", cards_dir=tmp_path / "cards")
    with TestClient(app) as client:
        assert calls == (["warm"] if warm else [])  # before any request
        assert client.get("/cards/card-0001").status_code == 200
    app.state.engine.dispose()


def test_warming_loads_what_the_card_page_counts_with(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from app.verification.present import warm_card_judges

    monkeypatch.delitem(sys.modules, "verify.judge.statements.coverage", raising=False)
    warm_card_judges()
    assert "verify.judge.statements.coverage" in sys.modules
