"""The card file format: round trip and errors that say where (file:line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cards.cardfile import content_hash, dump_card, load_card_file, load_card_text
from app.cards.schema import CardDoc, Claim, FollowUp, Label, LangText, Link
from verify.reading.cardfile import CardFileError

ROOT = Path(__file__).resolve().parents[2]


def sample() -> CardDoc:
    return CardDoc(
        slug="sample-card", title=LangText(zh="示例：卡片", en="Sample: a card"),
        module=Label(code="M3", zh="深度学习基础", en="Deep Learning Foundations"),
        topic=Label(zh="分布式训练", en="Distributed Training"), difficulty="hard", tags=["zero", "memory"],
        sections={
            "summary": LangText(zh="一句话。", en="One sentence: with a colon."),
            "insights": LangText(zh="- 要点 $12\\Psi$\n- 第二点", en="- point\n\n### a sub-heading\n\ntext"),
            "derivation": LangText(zh="$$\\frac{12\\Psi}{N}$$", en="```\n# not a heading in a fence\n```"),
            "tradeoffs": LangText(zh="", en="English only"),
        },
        follow_ups=[FollowUp(id="why", question=LangText(zh="为什么？", en="Why?"),
                             answer=LangText(en="Because:\n\n- a\n- b"))],
        links=[Link(slug="ddp-ring-allreduce", title=LangText(zh="DDP", en="DDP")), Link(title=LangText(en="T"))],
        claims=[Claim(id="c-1", text=LangText(en="16 bytes"), asserts="model_state_bytes(ddp) == 16*Psi",
                      section="derivation")],
        source="000.txt",
    )


def test_round_trip() -> None:
    doc = sample()
    text = dump_card(doc)
    assert load_card_text(text, "x.md") == doc
    assert dump_card(load_card_text(text, "x.md")) == text
    assert content_hash(load_card_text(text, "x.md")) == content_hash(doc)


def test_bundled_cards_load() -> None:
    paths = [p for p in (ROOT / "cards").glob("*.md") if p.name != "README.md"]
    assert paths
    for path in paths:
        load_card_file(path)


def card_with(text_after_front: str, front: str = "slug: s\ntitle: {en: T}") -> str:
    return f"---\n{front}\n---\n{text_after_front}"


def error_of(text: str) -> CardFileError:
    with pytest.raises(CardFileError) as info:
        load_card_text(text, "cards/x.md")
    return info.value


def test_bad_yaml_names_the_line() -> None:
    err = error_of(card_with("# Summary\n## en\nok\n", front="slug: s\ntitle: {en: T}\ntags: [a, b\nsource: x"))
    assert str(err).startswith("cards/x.md:")
    assert err.line is not None and 4 <= err.line <= 5
    assert "invalid YAML" in str(err)


def test_unknown_heading_names_the_line() -> None:
    err = error_of(card_with("# Summary\n## en\nok\n\n# Conclusions\n## en\nx\n"))
    assert err.line == 9
    assert "unknown" in str(err) and "heading '# Conclusions'" in str(err)
    assert "use ### for headings inside a section" in str(err)


def test_unknown_language_heading() -> None:
    err = error_of(card_with("# Summary\n## fr\nbonjour\n"))
    assert err.line == 6 and "unknown" in str(err) and "'## fr'" in str(err)


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    path.write_bytes(dump_card(sample()).encode().replace(b"One sentence", b"One \xff sentence"))
    with pytest.raises(CardFileError) as info:
        load_card_file(path)
    line = dump_card(sample()).split("\n").index("One sentence: with a colon.") + 1
    assert info.value.line == line
    assert "not valid UTF-8" in str(info.value) and str(path) in str(info.value)


def test_crlf_and_bom_card_file(tmp_path: Path) -> None:
    path = tmp_path / "c.md"
    path.write_bytes(b"\xef\xbb\xbf" + dump_card(sample()).replace("\n", "\r\n").encode())
    assert load_card_file(path) == sample()


def test_schema_errors_are_card_file_errors() -> None:
    err = error_of(card_with("", front="slug: Not A Slug\ntitle: {en: T}"))
    assert "slug" in str(err) and "kebab-case" in str(err)
    err = error_of(card_with("", front="slug: s\ntitle: {en: T}\nfollow_ups:\n- {id: a, question: {}}"))
    assert "no question text" in str(err)


def test_readme_example_loads() -> None:
    readme = (ROOT / "cards" / "README.md").read_text(encoding="utf-8")
    example = readme.split("```markdown\n", 1)[1].split("\n```\n", 1)[0]
    doc = load_card_text(example + "\n", "cards/README.md")
    assert doc.slug == "zero-sharding"
    assert doc.claims[0].text.en == "Increases communication volume by $1.5\\times$."
    assert doc.follow_ups[0].answer.en.endswith("DDP sends $2\\Psi$.")
    assert list(doc.sections) == ["summary", "derivation"]
