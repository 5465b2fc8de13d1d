"""Property tests: the card-file loader never raises anything but a CardFileError naming the file."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cards.cardfile import dump_card, load_card_file, load_card_text
from harness.deckgen import generated_card
from verify.reading.cardfile import CardFileError

VALID = dump_card(generated_card(1, 5))
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _load_or_clear_error(text: str, name: str = "cards/x.md") -> None:
    try:
        load_card_text(text, name)
    except CardFileError as exc:
        assert str(exc).startswith(name)
        assert "\n" not in str(exc)


@FUZZ
@given(st.integers(min_value=0, max_value=len(VALID)))
def test_truncated_file(cut: int) -> None:
    _load_or_clear_error(VALID[:cut])


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "random.md"
    path.write_bytes(data)
    try:
        load_card_file(path)
    except CardFileError as exc:
        assert str(exc).startswith(str(path))


@FUZZ
@given(st.integers(min_value=0, max_value=len(VALID.encode()) - 1), st.binary(min_size=1, max_size=8))
def test_corrupted_bytes(tmp_path: Path, at: int, junk: bytes) -> None:
    raw = VALID.encode()
    path = tmp_path / "corrupt.md"
    path.write_bytes(raw[:at] + junk + raw[at + len(junk):])
    try:
        load_card_file(path)
    except CardFileError as exc:
        assert str(exc).startswith(str(path))


MARKDOWN_BITS = ["# x", "## en", "## zh", "# Summary", "```", "~~~", "$", "$$", "- ", "  - ", "> ", "\n", "\n\n",
                 "text", "<!--", "-->", "|a|b|", "    ", "中文", "---", "===", "\\frac{", "}", "\r\n", "<script>"]
markdownish = st.lists(st.sampled_from(MARKDOWN_BITS), max_size=80).map("".join)


@FUZZ
@given(st.one_of(st.text(max_size=3000), markdownish))
def test_any_section_text_round_trips_or_is_refused(text: str) -> None:
    """Arbitrary Markdown (nested lists, '$', '#', fences) inside a section: loads back equal, or a clear error."""
    doc = generated_card(2, 5)
    edited = doc.model_copy(update={"sections": {**doc.sections, "summary": doc.sections["summary"].model_copy(
        update={"en": text.strip("\n")})}})
    try:
        written = dump_card(edited)
    except ValueError as exc:  # the text holds a line such as "## en": refused with a clear message
        assert "card-file heading" in str(exc)
        return
    try:
        loaded = load_card_text(written, "cards/x.md")
    except CardFileError as exc:
        assert "heading" in str(exc)  # a level-1/2 heading outside code: the user is told to use ###
        return
    assert loaded.section("summary").en == edited.section("summary").en
    assert loaded.section("derivation") == edited.section("derivation")


def test_huge_and_deeply_nested_fields() -> None:
    doc = generated_card(3, 5)
    nested = "\n".join("  " * d + "- level" for d in range(500)) + "\n\n" + "> " * 300 + "quote"
    huge = "x" * 500_000
    edited = doc.model_copy(update={"sections": {**doc.sections, "summary": doc.sections["summary"].model_copy(
        update={"en": nested, "zh": huge})}})
    assert load_card_text(dump_card(edited), "cards/big.md").section("summary").zh == huge


def test_unbalanced_dollars_load_and_render() -> None:
    from app.render.markdown import render_markdown

    doc = generated_card(4, 5)
    text = "costs $12\\Psi and $$\\frac{1}{ and a lone $ sign"
    edited = doc.model_copy(update={"sections": {**doc.sections, "summary": doc.sections["summary"].model_copy(
        update={"en": text})}})
    loaded = load_card_text(dump_card(edited), "cards/x.md")
    html = render_markdown(loaded.section("summary").en)
    assert "<script" not in html and "costs" in html
