"""The same answers from PostgreSQL, SQLite and the card files (the handbook's index): ranking runs in
process from the same rows. Under ``scripts/with-postgres.sh`` the suite's database is PostgreSQL and is
compared with a SQLite file; on the SQLite pass, two SQLite files. Both passes compare with the files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from sqlalchemy.engine import Engine

from app.core.db import make_engine
from app.deck.sync import load_deck, sync_cards
from app.models.migrate import init_db
from app.search.index import index_cards
from app.search.match import MatchResult, match, rank
from app.search.offline import card_text

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = [q["q"] for q in yaml.safe_load((ROOT / "tests" / "search" / "match_eval.yaml").read_text(
    encoding="utf-8"))["questions"]] + ["ZeRO-3", "显存", "'", "流水线 bubble", "fsdp reshard"]


def answers(result: MatchResult) -> list[tuple[Any, ...]]:
    return [(h.card.slug, h.score, h.follow_up.id if h.follow_up else None, h.snippet.text, h.snippet.offsets,
             h.snippet_lang, h.snippet_from) for h in result.hits]


def test_same_answers_on_every_database_and_from_the_card_files(engine: Engine, tmp_path: Path) -> None:
    sync_cards(engine, ROOT / "cards")
    sqlite = make_engine(f"sqlite:///{tmp_path / 'other.db'}")
    try:
        init_db(sqlite)
        sync_cards(sqlite, ROOT / "cards")
        files = index_cards([card_text(s.doc) for s in sorted(load_deck(ROOT / "cards"), key=lambda s: s.doc.slug)],
                            0, "both")
        for lang in ("both", "zh", "en"):
            files_lang = index_cards([card_text(s.doc) for s in sorted(load_deck(ROOT / "cards"),
                                                                       key=lambda s: s.doc.slug)], 0, lang)
            for q in QUESTIONS:
                here = answers(match(engine, q, limit=5, lang=lang))
                assert here == answers(match(sqlite, q, limit=5, lang=lang)), (engine.dialect.name, lang, q)
                assert here == answers(rank(files_lang, q, limit=5)), (lang, q)
        assert answers(rank(files, "ZeRO-3", limit=5))  # the comparison had something to compare
    finally:
        sqlite.dispose()
