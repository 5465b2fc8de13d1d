"""Export fixtures: a generated deck of 200 linked, hostile cards, synced into a real database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.cards.cardfile import dump_card
from app.cards.schema import CardDoc
from harness.deck import make_deck, make_verdicts

DECK_SIZE = 200


def write_cards(folder: Path, docs: list[CardDoc]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for doc in docs:
        (folder / f"{doc.slug}.md").write_text(dump_card(doc), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def deck() -> list[CardDoc]:
    """200 generated cards in export order (module, topic, slug)."""
    from app.export.deck import sorted_docs

    return sorted_docs(make_deck(DECK_SIZE))


@pytest.fixture(scope="session")
def verdicts(deck: list[CardDoc]) -> dict[str, list[dict[str, object]]]:
    return make_verdicts(deck)


@pytest.fixture
def generated_cards(tmp_path: Path, deck: list[CardDoc]) -> Path:
    return write_cards(tmp_path / "generated-cards", deck)


@pytest.fixture
def synced(engine: Engine, generated_cards: Path) -> Engine:
    """The generated deck synced into this test's database."""
    from app.deck.sync import sync_cards

    sync_cards(engine, generated_cards)
    return engine


@pytest.fixture
def db_deck(synced: Engine) -> list[CardDoc]:
    """The deck as the exporters read it back from the database."""
    from app.export.deck import load_docs

    with Session(synced) as session:
        return load_docs(session)


@pytest.fixture
def export_client(database_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The app on a fresh database with 30 generated cards synced at start-up."""
    from app.main import create_app

    cards = write_cards(tmp_path / "client-cards", make_deck(30))
    app = create_app(database_url=database_url, cards_dir=cards, sync_on_startup=True)
    with TestClient(app) as client:
        client.cards_dir = cards
        yield client
