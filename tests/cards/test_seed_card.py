"""The committed seed card: everything the bank export said, in both languages, plus answered follow-ups."""

from __future__ import annotations

import re
from pathlib import Path

from app.cards.cardfile import load_card_file
from app.cards.rawformat import parse_raw_bytes
from app.cards.schema import CardDoc
from app.render.markdown import math_spans
from app.render.math import tex_to_mathml

ROOT = Path(__file__).resolve().parents[2]
SEED = Path(__file__).parent / "data" / "000_df0768db638cc9c5.txt"


def card() -> CardDoc:
    return load_card_file(ROOT / "cards" / "zero-sharding.md")


def texts(doc: CardDoc) -> list[str]:
    out = [t for s in doc.sections.values() for t in (s.zh, s.en)]
    out += [t for f in doc.follow_ups for part in (f.question, f.answer) for t in (part.zh, part.en)]
    return out


def test_seed_card_metadata() -> None:
    doc = card()
    assert doc.slug == "zero-sharding"
    assert doc.title.zh and doc.title.en
    assert (doc.module.code, doc.topic.en, doc.difficulty) == ("M3", "Distributed Training Basics", "easy")
    assert doc.source == SEED.name
    assert [(link.slug, link.title.en) for link in doc.links] == [
        ("ddp-ring-allreduce", "Distributed Training: DDP, Ring All-Reduce & ZeRO Memory")]


def _plain(text: str) -> str:
    return re.sub(r"[⟹：;:]|——", "", "".join(text.split()))


def test_seed_card_keeps_the_imported_content() -> None:
    doc, imported = card(), parse_raw_bytes(SEED.read_bytes(), SEED.name).doc
    for key, text in imported.sections.items():
        for lang in ("zh", "en"):
            ours = _plain(getattr(doc.sections[key], lang))
            # only whitespace, and the pitfall marker ⟹ in place of "：" / ";" (app.cards.pitfalls), may differ
            assert ours == _plain(getattr(text, lang)), (key, lang)
    assert [f.question.zh or f.question.en for f in imported.follow_ups] == [
        f.question.zh if imp.question.zh else f.question.en for f, imp in zip(doc.follow_ups, imported.follow_ups,
                                                                               strict=True)]


def test_follow_ups_answered_in_both_languages() -> None:
    for fu in card().follow_ups:
        for part in (fu.question, fu.answer):
            assert part.zh.strip() and part.en.strip(), fu.id


def test_answers_do_the_arithmetic() -> None:
    answers = {f.id: f.answer for f in card().follow_ups}
    assert "12\\Psi" in answers["optimizer-states-dominate"].en and "16\\Psi" in answers["optimizer-states-dominate"].en
    assert "3\\Psi / 2\\Psi = 1.5\\times" in answers["zero3-communication"].en
    assert "reshard_after_forward=False" in answers["zero-vs-fsdp"].en
    assert "32 GB/s" in answers["zero-offload-infinity"].en and "NVMe" in answers["zero-offload-infinity"].zh


def test_every_formula_renders_as_mathml() -> None:
    found = 0
    for text in texts(card()):
        for tex, display in math_spans(text):
            assert "<math" in tex_to_mathml(tex, display), tex
            found += 1
    assert found > 50
