"""One reader of card files (``verify.reading.cardfile``) for sync and for verify: a card saved with a UTF-8
byte-order mark, with CRLF line ends, or plain gives the same claims to both (a BOM card used to sync and then
stop ``proofdeck verify`` with "front matter must start with '---' at byte 0")."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.deck.sync import sync_cards
from app.models.card import Card, CardClaim
from verify.judge import Evidence, judge
from verify.judge.statements.coverage import deck_coverage
from verify.reading.cardfile import CardFileError, read_text, split
from verify.reading.claims import read_cards

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "cards" / "zero-sharding.md"
VARIANTS = {"plain": lambda b: b, "bom": lambda b: b"\xef\xbb\xbf" + b,
            "crlf": lambda b: b.replace(b"\n", b"\r\n"),
            "bom-crlf": lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n")}


def _deck(tmp_path: Path, variant: str) -> Path:
    folder = tmp_path / variant
    folder.mkdir()
    (folder / SEED.name).write_bytes(VARIANTS[variant](SEED.read_bytes()))
    return folder


def _synced_claims(engine: Engine, folder: Path) -> list[tuple[str, str, str, str]]:
    sync_cards(engine, folder, claim_notes=False)
    with Session(engine) as s:
        card = s.exec(select(Card).where(Card.slug == "zero-sharding")).one()
        rows = s.exec(select(CardClaim).where(CardClaim.card_id == card.id).order_by(col(CardClaim.position))).all()
        return [(r.key, r.text_zh, r.text_en, r.asserts) for r in rows]


@pytest.mark.parametrize("variant", sorted(set(VARIANTS) - {"plain"}))
def test_bom_and_crlf_cards_read_like_the_plain_one(tmp_path: Path, engine: Engine, variant: str) -> None:
    plain, other = _deck(tmp_path, "plain"), _deck(tmp_path, variant)
    assert (other / SEED.name).read_bytes() != (plain / SEED.name).read_bytes()
    want = read_cards(plain)
    got = read_cards(other)  # verify's reading of the file
    assert got == want and len(want) > 40
    synced = _synced_claims(engine, other)  # sync's reading of the same file
    assert synced == [(c.claim_id, c.text_zh, c.text_en, c.asserts) for c in want]
    assert [cov.found for cov in deck_coverage(other)] == [cov.found for cov in deck_coverage(plain)]
    # and a claim of that file is judged, not refused: stale-free, as on the plain file
    qualitative = next(c for c in got if not c.asserts)
    assert judge(qualitative, Evidence([]))["verdict"] == "unverifiable"
    assert all(judge(c, Evidence([]))["verdict"] != "stale" for c in got if not c.asserts)


def test_what_the_reader_refuses_it_names_with_where_and_how(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"---\nslug: x\n---\n\xff\xfe")
    with pytest.raises(CardFileError, match=r"bad\.md:4: not valid UTF-8 .* \(save the file as UTF-8\)"):
        read_text(bad)
    with pytest.raises(CardFileError, match=r"x\.md:1: front matter is not closed \(end the YAML block"):
        split("---\nslug: x\n", "x.md")
    with pytest.raises(CardFileError, match=r"x\.md:2: front matter must be a YAML mapping"):
        split("---\n- a\n---\n", "x.md")
