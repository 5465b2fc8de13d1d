"""Safe export file names and the path guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.export.filenames import MAX_NAME_BYTES, NameAllocator, UnsafePathError, safe_join, safe_name

FORBIDDEN = set('*"\\/<>:|?#^[]$`')


@pytest.mark.parametrize("title", [
    "../../etc/passwd", "/abs/path", "C:\\Windows\\system32", "a<b>c:\"d\"|e?f#g^h[i]j", "x%%y%%z",
    "   ...   ", "..", ".", ".hidden", "trailing. . .", "tab\tnew\nline\x00nul\x7f", "==hl==", "零冗余/优化器",
    "é" * 200,
])
def test_safe_name_has_no_forbidden_text(title: str) -> None:
    name = safe_name(title, fallback="card-0001")
    assert name and not (FORBIDDEN & set(name))
    assert "%%" not in name and ".." not in name and "==" not in name
    assert not name.startswith((".", " ")) and not name.endswith((".", " "))
    assert all(ord(c) >= 32 and not 0x7F <= ord(c) <= 0x9F for c in name)
    assert len(name.encode()) <= MAX_NAME_BYTES


RESERVED = {"CON", "NUL", "COM1", "LPT9", "AUX", "PRN", "COM¹", "LPT³", "CONIN$", "CONOUT$"}


@pytest.mark.parametrize("title", ["CON", "con", "Nul.txt", "COM1", "lpt9", "AUX.md", "PRN ", "CON .md",
                                   "nul.tar.gz", "com¹", "LPT³.md", "conin$", "CONOUT$.txt", " aux ", "..CON",
                                   "con\u200b", "CON::", "../NUL"])
def test_reserved_device_names_are_changed(title: str) -> None:
    name = safe_name(title)
    assert name.split(".")[0].strip().upper() not in RESERVED, name


def test_invisible_format_characters_are_dropped() -> None:
    assert safe_name("\u202egpj.exe") == "gpj.exe"  # no right-to-left override to fake "exe.jpg"
    assert safe_name("a\u200bb\ufeffc") == "abc"


def test_empty_titles_fall_back_and_titles_keep_their_words() -> None:
    assert safe_name("...", fallback="card-0007") == "card-0007"
    assert safe_name("ZeRO: sharding / gather?") == "ZeRO sharding gather"
    assert safe_name("零冗余优化器") == "零冗余优化器"


def test_truncation_keeps_whole_characters() -> None:
    name = safe_name("显" * 100)  # 3 bytes each
    assert len(name.encode()) <= MAX_NAME_BYTES and set(name) == {"显"}


def test_allocator_makes_names_unique_ignoring_case() -> None:
    names = NameAllocator()
    assert [names.take(n) for n in ("Card", "card", "CARD", "Other")] == ["Card", "card 2", "CARD 3", "Other"]


@pytest.mark.parametrize("rel", ["../x.md", "a/../../x.md", "/etc/passwd", "\\\\server\\share", "C:\\x.md",
                                 "c:/x.md", "", ".", "a/./../../x.md", "..\\x.md", "a\\..\\..\\x.md",
                                 "a/\x00/x.md", "M1/..", "~/../../x.md"])
def test_safe_join_refuses_paths_outside(tmp_path: Path, rel: str) -> None:
    with pytest.raises(UnsafePathError) as exc:
        safe_join(tmp_path, rel)
    assert repr(rel) in str(exc.value)


def test_safe_join_refuses_a_symlink_out(tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    (tmp_path / "vault" / "link").symlink_to(tmp_path)
    with pytest.raises(UnsafePathError):
        safe_join(tmp_path / "vault", "link/escape.md")
    assert safe_join(tmp_path / "vault", "M1/a.md") == (tmp_path / "vault" / "M1" / "a.md").resolve()


def test_every_generated_name_stays_inside_the_vault(tmp_path: Path) -> None:
    """Titles that try every escape still give a path inside the folder (safe_name, then safe_join)."""
    titles = ["../../etc/passwd", "/abs", "C:\\Windows", "..", "~", "\\\\host\\share", "a/../../b", "\x00",
              "CON", "nul.md", "\u202e..\u202c/x"]
    for folder in titles:
        for title in titles:
            rel = f"{safe_name(folder, fallback='module')}/{safe_name(title, fallback='card')}.md"
            assert safe_join(tmp_path, rel).parent.parent == tmp_path.resolve(), rel
