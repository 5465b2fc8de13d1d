from __future__ import annotations

from pathlib import Path

import pytest

from tests.utils.cards import write_cards
from tests.utils.webdeck import fixture_deck


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    """The fixture deck (not the bundled cards/), so counts and orders are known."""
    return write_cards(tmp_path / "cards", *fixture_deck())


@pytest.fixture(scope="module")
def module_cards_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``read_client``'s deck here: the fixture deck too."""
    return write_cards(tmp_path_factory.mktemp("module-cards") / "cards", *fixture_deck())
