"""The Obsidian vault: properties, tags, wikilinks, file names, callouts, math, Spaced Repetition
cards (read by the real plugin parser, tests/utils/srplugin.py) and byte-identical re-exports."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from app.cards.schema import CardDoc
from app.export.obsidian import NO_ANSWER, VAULT_ROOT, VaultLayout, card_note, vault_files, vault_zip, write_vault
from app.export.obsidian_state import block_id
from app.export.obsidian_text import one_block
from tests.utils import srplugin

TAG_RE = re.compile(r"^[\w/-]+$")
WIKILINK = re.compile(r"\[\[([^\]|#^]+)(?:[|#^][^\]]*)?\]\]")
FORBIDDEN = set('*"\\/<>:|?#^[]')
RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))}
FENCE = re.compile(r"^(`{3,}).*?^\1\s*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def body_without_code(note: str) -> str:
    _, body, _ = srplugin.split_properties(note)
    return CODE_SPAN.sub("", FENCE.sub("", body))


def notes_by_slug(files: dict[str, str]) -> dict[str, str]:
    out = {}
    for text in files.values():
        props, _, _ = srplugin.split_properties(text)
        if "slug" in props:
            out[str(props["slug"])] = text
    return out


@pytest.fixture(scope="module")
def files(deck: list[CardDoc], verdicts: dict[str, list[dict[str, object]]]) -> dict[str, str]:
    return vault_files(deck, verdicts)


def test_every_card_has_a_note_and_every_module_an_index(files: dict[str, str], deck: list[CardDoc]) -> None:
    assert set(notes_by_slug(files)) == {d.slug for d in deck}
    folders = {p.split("/")[0] for p in files if "/" in p}
    assert len(folders) == len({d.module.code or d.module.en for d in deck})
    for folder in folders:
        assert sum(p.startswith(f"{folder}/") and p.endswith(" index.md") for p in files) == 1


def test_properties_at_byte_0_with_aliases_and_valid_tags(files: dict[str, str], deck: list[CardDoc]) -> None:
    by_slug = notes_by_slug(files)
    for doc in deck:
        note = by_slug[doc.slug]
        assert note.startswith("---\n")
        props, _, _ = srplugin.split_properties(note)
        # the real titles, with '[[' / ']]' broken apart (Obsidian would make them links)
        assert props["aliases"] == [t.replace("[[", "[ [").replace("]]", "] ]").strip()
                                    for t in (doc.title.zh, doc.title.en) if t]
        assert props["slug"] == doc.slug and props["difficulty"] == doc.difficulty
        assert doc.module.code in str(props["module"]) and "topic" in props
        tags = props["tags"]
        assert isinstance(tags, list) and "proofdeck" in tags
        for tag in tags:
            assert TAG_RE.match(tag) and not tag.replace("/", "").isdigit(), tag
            assert not any(part.isdigit() for part in tag.split("/")), tag


def test_wikilinks_resolve_to_exported_files(files: dict[str, str], deck: list[CardDoc]) -> None:
    stems = {Path(p).stem for p in files}
    assert len(stems) == len(files)  # link targets are unambiguous across folders
    layout = VaultLayout.plan(deck)
    by_slug = notes_by_slug(files)
    checked = 0
    for path, text in files.items():
        for target in WIKILINK.findall(text):
            assert target in stems, f"{path}: [[{target}]] has no file"
            checked += 1
    for doc in deck:
        for link in doc.links:
            if link.slug:
                assert f"[[{layout.name[link.slug]}]]" in by_slug[doc.slug]
    assert checked >= 2 * len(deck)


def test_file_names_are_safe_and_stay_inside(files: dict[str, str], tmp_path: Path) -> None:
    seen = set()
    for path in files:
        for part in path.split("/"):
            stem = part.removesuffix(".md")
            assert not FORBIDDEN & set(stem), part
            assert "%%" not in part and ".." not in part and not part.startswith((".", " "))
            assert not stem.endswith((".", " ")) and len(part.encode()) <= 255
            assert stem.split(".")[0].strip().upper() not in RESERVED, part
            assert all(ord(c) >= 32 for c in part)
        assert path.casefold() not in seen
        seen.add(path.casefold())
    root = tmp_path / "vault"
    written = write_vault(root, files)
    assert len(written) == len(files)
    assert all(p.resolve().is_relative_to(root.resolve()) for p in written)
    assert sorted(p for p in root.rglob("*.md")) == sorted(written)


def test_card_text_never_becomes_markup(files: dict[str, str]) -> None:
    for path, text in files.items():
        body = body_without_code(text)
        assert not re.search(r"<[A-Za-z/!?]", body), path  # not even inside math
        assert "%%" not in body and "[[../" not in body, path
        prose = re.sub(r"\$\$.+?\$\$|\$[^$\n]+?\$", "", body.replace("\\$", ""))
        assert "](javascript:" not in prose.lower(), path
        assert not re.search(r"(?m)^\[[^\]]*\]:\s*javascript:", body), path
        assert not re.search(r"(?<![\\\w&])#flashcards", body.replace("\n#flashcards/", "\n")), path
        assert "<!--SR:" not in text


def test_math_is_dollar_delimited_and_display_math_on_one_line(files: dict[str, str], deck: list[CardDoc]) -> None:
    by_slug = notes_by_slug(files)
    doc = next(d for d in deck if d.slug == "card-0003")
    note = by_slug[doc.slug]
    assert "$\\frac{16\\Psi_{3}}{N}$" in note
    assert "\n$$M = 2\\Psi_{3} + \\frac{14\\Psi_{3}}{N}$$\n" in note
    assert "$x \\lt{} y$" in note  # '<' inside math is TeX, not a tag
    for text in files.values():
        body = body_without_code(text).replace("\\$", "")
        for m in re.finditer(r"\$\$(.+?)\$\$", body, re.S):
            assert "\n" not in m.group(1) and m.group(1) == m.group(1).strip()
        for m in re.finditer(r"(?<!\$)\$(?!\$)([^$\n]+?)\$(?!\$)", re.sub(r"\$\$.+?\$\$", "", body)):
            assert m.group(1) == m.group(1).strip(), m.group(0)


def test_pitfalls_and_verdicts_are_callouts(deck: list[CardDoc], verdicts: dict[str, list[dict[str, object]]],
                                            files: dict[str, str]) -> None:
    by_slug = notes_by_slug(files)
    signs = {"confirmed": "✓", "refuted": "✗", "conditional": "≈", "unverifiable": "?"}
    for doc in deck:
        note = by_slug[doc.slug]
        assert "\n> [!warning] 常见陷阱 · Pitfalls\n> - " in note
        sign = signs[str(verdicts[doc.slug][0]["verdict"])]
        assert re.search(r"\n> \[!info\]- 论断 · Claims \(.*\)\n", note)
        assert re.search(rf"\n> - {sign} ", note), doc.slug
    plain = notes_by_slug(vault_files(deck))
    assert not any("[!info]- 论断" in n for n in plain.values())


def test_follow_ups_are_spaced_repetition_cards(files: dict[str, str], deck: list[CardDoc]) -> None:
    """The real plugin parser, on the whole vault: exactly one card per follow-up, its front and back the
    exported question and answer (block id and nothing else cut off), in the module's deck."""
    parsed = srplugin.parse_vault(files)
    layout = VaultLayout.plan(deck)
    for doc in deck:
        note = parsed[layout.card_path(doc)]
        deck_tag = f"flashcards/proofdeck/{(doc.module.code or 'unsorted').lower()}"
        assert [c.kind for c in note.cards] == ["multiline"] * len(doc.follow_ups), doc.slug
        assert note.tags == [deck_tag] and {c.deck for c in note.cards} == {f"#{deck_tag}"}
        for card, fu in zip(note.cards, doc.follow_ups, strict=True):
            assert card.question == one_block(fu.question.zh, fu.question.en)
            assert card.answer == (one_block(fu.answer.zh, fu.answer.en) or NO_ANSWER)
            assert f"^{block_id(fu.id)}" in files[layout.card_path(doc)]
            if fu.answer.is_empty():
                assert "No reference answer yet" in card.answer
        answer = note.cards[0].answer  # blank lines and a lone '?' in the answer did not split the card
        assert "第二段" in answer and "More" in answer and "\\frac{12\\Psi" in answer
    for path in files:
        if path.endswith("index.md"):
            assert parsed[path].cards == []


def test_second_export_is_byte_identical(deck: list[CardDoc], db_deck: list[CardDoc], tmp_path: Path,
                                         verdicts: dict[str, list[dict[str, object]]]) -> None:
    first = vault_files(deck, verdicts)
    again = vault_files(db_deck, verdicts)  # the same deck read back from the database
    assert first == again
    assert vault_zip(first) == vault_zip(again)
    a, b = tmp_path / "a", tmp_path / "b"
    write_vault(a, first)
    write_vault(b, again)
    assert {p.relative_to(a): p.read_bytes() for p in a.rglob("*.md")} == \
           {p.relative_to(b): p.read_bytes() for p in b.rglob("*.md")}


def test_zip_holds_the_vault_under_one_folder(files: dict[str, str]) -> None:
    with zipfile.ZipFile(io.BytesIO(vault_zip(files))) as zf:
        names = zf.namelist()
        assert names == sorted(f"{VAULT_ROOT}/{p}" for p in files)
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in zf.infolist())
        first = next(iter(files))
        assert zf.read(f"{VAULT_ROOT}/{first}").decode() == files[first]


def test_single_note_matches_the_vault(deck: list[CardDoc], files: dict[str, str],
                                       verdicts: dict[str, list[dict[str, object]]]) -> None:
    layout = VaultLayout.plan(deck)
    doc = deck[5]
    assert card_note(doc, layout, verdicts) == files[layout.card_path(doc)]


def test_rewrite_removes_only_notes_the_last_export_wrote(deck: list[CardDoc], tmp_path: Path) -> None:
    root = tmp_path / "vault"
    old = vault_files(deck[:20])
    write_vault(root, old)
    (root / "my own note.md").write_text("mine", encoding="utf-8")
    renamed = deck[3].model_copy(update={"title": deck[3].title.model_copy(update={"en": "A brand new title"})})
    new = vault_files([renamed if d.slug == renamed.slug else d for d in deck[:20]])
    write_vault(root, new)
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*.md")}
    assert on_disk == set(new) | {"my own note.md"}
    assert any(p.endswith("/A brand new title.md") for p in on_disk)
    (root / ".proofdeck-export.json").write_text('["../outside.md", "/etc/passwd"]', encoding="utf-8")
    (tmp_path / "outside.md").write_text("keep", encoding="utf-8")
    write_vault(root, new)
    assert (tmp_path / "outside.md").read_text(encoding="utf-8") == "keep"
