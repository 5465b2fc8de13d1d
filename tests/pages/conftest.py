from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.utils.cards import write_cards
from tests.utils.webdeck import fixture_deck

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cards_dir(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The fixture deck (not the bundled cards/), so counts and orders are known; a test marked
    ``bundled_deck`` (a phone walk over every card, a first day on the real deck) gets a copy of cards/."""
    if request.node.get_closest_marker("bundled_deck"):
        dest = tmp_path / "cards"
        shutil.copytree(ROOT / "cards", dest)
        return dest
    return write_cards(tmp_path / "cards", *fixture_deck())


@pytest.fixture(scope="module")
def module_cards_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``read_client``'s deck here: the fixture deck too."""
    return write_cards(tmp_path_factory.mktemp("module-cards") / "cards", *fixture_deck())
