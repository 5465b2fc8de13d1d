"""The Anki package of the bundled deck, as the learner asks for it over the API (``?lang=``), read back by the
real Anki backend (PyPI ``anki``): one subdeck per module, computed drills as type-in notes whose answers are
the formula's values, and only the chosen language's text on every card Anki renders."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anki.collection import Collection, ImportAnkiPackageRequest
from anki.import_export_pb2 import ImportAnkiPackageOptions
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli.main import cli

CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")

pytestmark = pytest.mark.backend_agnostic("the package's contents; the deck behind it is read on both backends "
                                          "in tests/export/test_anki.py")


def _memory_bytes(stage: str, psi: float, n: int) -> float:
    """Model-state bytes per GPU, written out here from the ZeRO paper (2Ψ + 2Ψ + 12Ψ, sharded by stage),
    not from the code under test."""
    params, grads, optim = 2 * psi, 2 * psi, 12 * psi
    shard = {"ddp": (1, 1, 1), "zero1": (1, 1, n), "zero2": (1, n, n), "zero3": (n, n, n)}[stage]
    return params / shard[0] + grads / shard[1] + optim / shard[2]


@pytest.fixture
def packages(client: TestClient, tmp_path: Path) -> Iterator[dict[str, Collection]]:
    """The bundled deck exported over the API in zh and in en, each imported into a fresh Anki collection."""
    cols: dict[str, Collection] = {}
    for lang in ("zh", "en"):
        r = client.get(f"/api/export/anki.apkg?lang={lang}")
        assert r.status_code == 200 and r.content[:2] == b"PK"
        path = tmp_path / f"{lang}.apkg"
        path.write_bytes(r.content)
        (tmp_path / lang).mkdir()
        col = Collection(str(tmp_path / lang / "collection.anki2"))
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(path), options=ImportAnkiPackageOptions()))
        cols[lang] = col
    yield cols
    for col in cols.values():
        col.close()


def _notes(col: Collection, model: str) -> list[Any]:
    return [col.get_note(i) for i in col.find_notes(f'"note:{model}"')]


def test_subdecks_type_in_drills_and_one_language(client: TestClient, packages: dict[str, Collection]) -> None:
    cards = client.get("/api/cards?limit=100").json()
    codes = {c["module"]["code"] for c in cards["data"]}
    en, zh = packages["en"], packages["zh"]

    # one subdeck per module (cards share a module by its code), named in the chosen language, every card
    # filed in its module's subdeck
    for col in (en, zh):
        subdecks = sorted(d.name for d in col.decks.all_names_and_ids() if d.name.startswith("proofdeck::"))
        assert sorted(name.split("::")[1].split(" · ")[0] for name in subdecks) == sorted(codes), subdecks
        # 29 cards, about 9 items each
        assert sum(len(col.find_cards(f'"deck:{name}"')) for name in subdecks) == col.card_count() > 250
        for slug in ("zero-sharding", "kv-cache"):
            module = next(c["module"] for c in cards["data"] if c["slug"] == slug)
            deck = {col.get_card(cid).did for cid in col.find_cards(f'"Key:{slug}*"')}
            assert len(deck) == 1 and col.decks.name(deck.pop()).startswith(f"proofdeck::{module['code']} · ")
    assert any(re.search(r"[A-Za-z]{4}", n) for n in (d.name for d in en.decks.all_names_and_ids()) if "::" in n)
    assert all(CJK.search(d.name) for d in zh.decks.all_names_and_ids() if "::" in d.name)

    # computed drills as type-in notes: Anki renders an answer box, and the answer is the formula's value
    typed = _notes(en, "proofdeck type-in")
    assert len(typed) >= 20
    checked = 0
    for note in typed:
        card = note.cards()[0]
        # Anki's renderer leaves the type-in box as this placeholder; its reviewer puts the input there and, on
        # the back, compares what was typed with the Answer field
        assert "[[type:Answer]]" in card.question() and "[[type:Answer]]" in card.answer(), note["Key"]
        assert re.fullmatch(r"-?\d+(\.\d+)? ?\S*", note["Answer"]), note["Answer"]
        m = re.search(r"/drill-memory-(\w+)$", note["Key"])
        if m:
            question = note["Question"].replace("\\", "")
            psi = float(re.findall(r"= ([\d.]+)B parameters", question)[0]) * 1e9
            n = int(re.findall(r"\(N\) = (\d+) GPUs", question)[0])
            value = float(note["Answer"].split()[0])
            assert note["Answer"].endswith(" GB")
            assert abs(value - _memory_bytes(m.group(1), psi, n) / 1e9) <= 5e-4 * value, note["Answer"]
            checked += 1
    assert checked >= 4  # the ZeRO memory drills of at least one card

    # only the chosen language: en cards show no Chinese, zh notes carry no English fields
    for card_id in en.find_cards(""):
        card = en.get_card(card_id)
        shown = re.sub(r"<style>.*?</style>", "", card.question() + card.answer(), flags=re.DOTALL)
        assert not CJK.search(shown), (card.note()["Key"], CJK.findall(shown)[:5])
    for note in _notes(zh, "proofdeck bilingual"):
        assert note["Question en"] == note["Answer en"] == "" and (note["Question zh"] or note["Answer zh"])
    assert all('lang="en"' not in n["Question"] + n["Solution"] for n in _notes(zh, "proofdeck type-in"))
    assert any(CJK.search(n["Question"]) for n in _notes(zh, "proofdeck type-in"))


def test_the_language_choice_is_checked(client: TestClient, tmp_path: Path) -> None:
    assert client.get("/api/export/anki.apkg?lang=fr").status_code == 422
    result = CliRunner().invoke(cli, ["export", "anki", str(tmp_path / "x.apkg"), "--lang", "fr"])
    assert result.exit_code == 2 and "choose one of both, zh, en" in result.output + str(result.stderr_bytes or b"")
