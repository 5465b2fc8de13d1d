"""The Anki package, opened by the real Anki backend (PyPI ``anki``): import into a fresh collection,
count notes, read fields back, re-import an edited export and see updates, not duplicates."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import genanki
import pytest
from anki.collection import Collection, ImportAnkiPackageRequest
from anki.import_export_pb2 import ImportAnkiPackageOptions

from app.cards.schema import CardDoc, LangText
from app.export.anki import FIELDS, field_html, inert, write_package
from app.export.anki_drills import TYPED_FIELDS
from app.items.drills import drill_keys, ledger_owner
from app.items.items import MISCONCEPTION_KINDS, pitfall_pairs
from tests.export.test_handbook import live_markup

T0 = 1_764_000_000.0


def import_package(col: Collection, path: Path) -> Any:
    return col.import_anki_package(ImportAnkiPackageRequest(package_path=str(path),
                                                            options=ImportAnkiPackageOptions()))


@pytest.fixture
def collection(tmp_path: Path) -> Iterator[Collection]:
    (tmp_path / "collection").mkdir()
    col = Collection(str(tmp_path / "collection" / "collection.anki2"))
    yield col
    col.close()


def note_by_key(col: Collection, key: str) -> Any:
    ids = col.find_notes(f'"Key:{key}"')
    assert len(ids) == 1, (key, ids)
    return col.get_note(ids[0])


def computed_drills(docs: list[CardDoc]) -> int:
    """The type-in notes: one per computed drill, the ZeRO ledger's on the one card that owns them."""
    owner = ledger_owner([(d.slug, [c.asserts for c in d.claims]) for d in docs])
    return sum(len(drill_keys(d.slug, [c.asserts for c in d.claims], d.slug == owner)) for d in docs)


def items(docs: list[CardDoc], verdicts: dict[str, list[dict[str, object]]] | None = None) -> int:
    """One note per review item: the card, its follow-ups, its pitfalls, its misconception drills, its
    computed drills."""
    drills = {slug: sum(v["verdict"] in MISCONCEPTION_KINDS for v in rows) for slug, rows in (verdicts or {}).items()}
    return sum(1 + len(d.follow_ups) + len(pitfall_pairs(d)) + drills.get(d.slug, 0) for d in docs) \
        + computed_drills(docs)


def test_package_imports_into_real_anki(deck: list[CardDoc], verdicts: dict[str, list[dict[str, object]]],
                                        collection: Collection, tmp_path: Path) -> None:
    path = tmp_path / "proofdeck.apkg"
    count = write_package(deck, path, verdicts, timestamp=T0)
    assert count == items(deck, verdicts)
    import_package(collection, path)
    assert collection.note_count() == items(deck, verdicts)

    doc = next(d for d in deck if d.slug == "card-0003")
    note = note_by_key(collection, "card-0003/why-optimizer")
    assert list(note.keys()) == list(FIELDS)
    assert note["Question en"] == field_html(doc.follow_ups[0].question.en)
    assert "\\[2\\Psi_{3} + 2\\Psi_{3}\n+ \\frac{12\\Psi_{3}}{N}\\]" in note["Answer zh"]
    assert "\\(12\\Psi_{3}\\)" in note["Answer zh"]
    assert f"proofdeck::module::{(doc.module.code or 'unsorted').lower()}" in note.tags
    assert f"proofdeck::difficulty::{doc.difficulty}" in note.tags and "proofdeck::follow-up" in note.tags
    assert all(" " not in t for t in note.tags)
    card_note = note_by_key(collection, "card-0003")
    assert "proofdeck::card" in card_note.tags
    assert note.guid == genanki.guid_for("proofdeck", "card-0003", "why-optimizer")
    review = note.cards()[0]  # Anki renders the note type's templates
    front, back = review.question(), review.answer()
    assert note["Question zh"] in front and note["Question en"] in front and note["Answer zh"] not in front
    assert note["Answer zh"] in back and note["Answer en"] in back


def test_math_is_mathjax_and_html_escaped() -> None:
    html = field_html("a $x < y & z$ and\n\n$$\n\\frac{a}{b} > c\n$$\n\n<script>alert(1)</script>")
    assert "\\(x &lt; y &amp; z\\)" in html
    assert "\\[\\frac{a}{b} &gt; c\\]" in html
    assert "<script" not in html and "&lt;script&gt;" in html


def test_reimport_of_an_edited_export_updates_without_duplicates(deck: list[CardDoc], collection: Collection,
                                                                 tmp_path: Path) -> None:
    docs = deck[:40]
    first = tmp_path / "v1.apkg"
    write_package(docs, first, timestamp=T0)
    import_package(collection, first)
    assert collection.note_count() == items(docs)

    target = docs[7]
    fu = target.follow_ups[1]
    edited_fu = fu.model_copy(update={"answer": LangText(zh=fu.answer.zh, en="Edited: about $1.5\\times$ DDP")})
    edited = target.model_copy(update={"follow_ups": [target.follow_ups[0], edited_fu, *target.follow_ups[2:]]})
    docs2 = [edited if d.slug == target.slug else d for d in docs]
    second = tmp_path / "v2.apkg"
    write_package(docs2, second, timestamp=T0 + 3600)
    import_package(collection, second)
    assert collection.note_count() == items(docs)
    note = note_by_key(collection, f"{target.slug}/{fu.id}")
    assert note["Answer en"] == "<p>Edited: about \\(1.5\\times\\) DDP</p>"


def test_no_live_markup_in_any_field(deck: list[CardDoc], verdicts: dict[str, list[dict[str, object]]],
                                     collection: Collection, tmp_path: Path) -> None:
    docs = deck[:30]
    path = tmp_path / "x.apkg"
    write_package(docs, path, verdicts, timestamp=T0)
    import_package(collection, path)
    checked = 0
    for nid in collection.find_notes(""):
        for value in collection.get_note(nid).values():
            found = live_markup(value)
            assert found.scripts == found.data_blocks == 0 and found.problems == [], value
            assert not re.search(r"<img|<iframe|<svg", value, re.I)
            checked += 1
    typed = computed_drills(docs)
    assert checked == (items(docs, verdicts) - typed) * len(FIELDS) + typed * len(TYPED_FIELDS)


def test_sound_and_tts_tags_in_card_text_stay_text() -> None:
    """Anki plays ``[sound:x]`` and speaks ``[anki:tts]`` wherever they appear in a field: card text
    keeps the characters, not the effect (the corpus test checks the backend finds no audio)."""
    assert inert("<p>[sound:a.mp3] [SOUND:b] [anki:tts lang=en_US]x[/anki:tts] [a](b)</p>") == (
        "<p>&#91;sound:a.mp3] &#91;SOUND:b] &#91;anki:tts lang=en_US]x[/anki:tts] [a](b)</p>")


def test_tex_that_mathjax_would_make_links_of_is_shown_as_source() -> None:
    html = field_html("$\\href{javascript:alert(1)}{x}$ and $$\\class{a}{b}$$ but $x^2$")
    assert '<code class="math-source">$\\href{javascript:alert(1)}{x}$</code>' in html
    assert '<code class="math-source">$$\\class{a}{b}$$</code>' in html and "\\(x^2\\)" in html
