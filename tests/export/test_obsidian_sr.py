"""A hostile card through the Obsidian export, read by the real Spaced Repetition parser: every way card
text could make the plugin see a card that is not there, or lose one that is (issue 17's list)."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from app.cards.schema import CardDoc, FollowUp, Label, LangText
from app.export.obsidian import AFTER_FENCE, NO_ANSWER, VaultLayout, vault_files
from app.export.obsidian_state import block_id
from app.export.obsidian_text import one_block, tables_as_lists, to_obsidian
from tests.utils import srplugin

CPP_FENCE = "```cpp\nstd::vector<int> v;\n\n\n?\nx == y == z\n<!-- no -->\n```"
LIST_FENCE = ("1. step one\n\n    ```cpp\n    auto m = std::map<int, int>{};\n\n    ?\n    a == b == c\n    ```\n"
              "2. step two")
TABLE = "| key | note | value |\n|---|---|---|\n| a |  | 1 |\n|  | b | 2 |"
CASES = {
    # id: (question, answer)
    "cloze-in-code": ("Is `a == b == c` chained in Python?", "Yes: `x==y==z` is `x==y and y==z`."),
    "escaped-backtick": ("A literal \\` then `std::vector<int>`?", "Write \\` before `a::b` and `c::d`."),
    "double-backtick": ("What is ``a`b::c``?", "``x`y::z`` is code with a backtick."),
    "list-fence": ("Steps?", LIST_FENCE),
    "fence-blank-lines": ("Show the code", "Like this:\n\n" + CPP_FENCE),
    "block-id": ("Trailing block id? ^notanid", "It ends with a caret word ^word"),
    "table": ("Which cells are empty?", TABLE),
    "separators": ("A line with\n?\nin the question", "and\n??\nin the answer ::: too"),
    "triple-tick-span": ("What is ```a``b```?", "```x``y``` starts this line\n\nand a paragraph follows"),
    "plain-triggers": ("std::vector and ==hl== in text", "<!-- not a comment --> and #flashcards and %%c%%"),
}
PITFALL_FENCE = "- a fence in a callout:\n\n  ```cpp\n  std::string s;  // a::b\n  x == y == z\n  ```"


def hostile_card() -> CardDoc:
    return CardDoc(
        slug="hostile-sr", title=LangText(zh="敌意卡片", en="Hostile card"),
        module=Label(code="M9", zh="测试", en="Tests"), topic=Label(code="t", zh="t", en="t"),
        difficulty="hard",
        sections={"summary": LangText(en="Summary with `a == b == c` and ``x`y::z`` and std::move."),
                  "tradeoffs": LangText(en=CPP_FENCE + "\n\n" + LIST_FENCE + "\n\n" + TABLE),
                  "pitfalls": LangText(en=PITFALL_FENCE)},
        follow_ups=[FollowUp(id=fid, question=LangText(en=q), answer=LangText(en=a)) for fid, (q, a) in CASES.items()],
    )


@pytest.fixture(scope="module")
def exported() -> tuple[CardDoc, str, srplugin.SRNote]:
    doc = hostile_card()
    files = vault_files([doc])
    path = VaultLayout.plan([doc]).card_path(doc)
    return doc, files[path], srplugin.parse_vault(files)[path]


def code_text(markdown: str) -> str:
    """The text of every inline code element and code block, in order, as a renderer shows it (the
    zero-width space between split spans dropped)."""
    out = []
    for tok in MarkdownIt("commonmark").parse(markdown):
        if tok.type in ("fence", "code_block"):
            out.append(tok.content)
        for child in tok.children or []:
            if child.type == "code_inline":
                out.append(child.content)
    return "".join(out).replace("\u200b", "")


def test_exactly_one_card_per_follow_up(exported: tuple[CardDoc, str, srplugin.SRNote]) -> None:
    doc, _note, parsed = exported
    assert [c.kind for c in parsed.cards] == ["multiline"] * len(doc.follow_ups)


def test_fronts_and_backs_are_the_cards_text(exported: tuple[CardDoc, str, srplugin.SRNote]) -> None:
    doc, note, parsed = exported
    for card, fu in zip(parsed.cards, doc.follow_ups, strict=True):
        answer = one_block(fu.answer.en) or NO_ANSWER
        assert card.question == one_block(fu.question.en), fu.id
        expected = answer + ("\n" + AFTER_FENCE if answer.endswith("```") else "")
        assert card.answer == expected, fu.id
        assert f"^{block_id(fu.id)}" in note and block_id(fu.id) not in card.answer


@pytest.mark.parametrize("fid", list(CASES))
def test_code_shows_the_same_code(fid: str) -> None:
    """What a renderer shows as code in the exported question and answer is the card's code, verbatim
    (blank lines in fences included)."""
    question, answer = CASES[fid]
    for source in (question, answer):
        assert code_text(one_block(source)) == code_text(tables_as_lists(source)), (fid, source)


def test_a_stray_backtick_does_not_cut_the_code_next_to_it(exported: tuple[CardDoc, str, srplugin.SRNote]) -> None:
    """The plugin counts backslash-escaped backticks; written as an entity, the span stays whole."""
    card = exported[2].cards[list(CASES).index("escaped-backtick")]
    assert card.question == "A literal &#96; then `std::vector<int>`?"


def test_plain_triggers_render_as_the_same_characters() -> None:
    shown = MarkdownIt("commonmark").render(to_obsidian("std::vector ==hl== ^word ?"))
    assert "std::vector ==hl== ^word ?" in shown


def test_blank_lines_in_fences_survive_in_answers(exported: tuple[CardDoc, str, srplugin.SRNote]) -> None:
    doc, _note, parsed = exported
    back = parsed.cards[list(CASES).index("fence-blank-lines")].answer
    assert "std::vector<int> v;\n\n\n?\nx == y == z\n<!-- no -->\n```" in back and "***" not in back


def test_empty_table_cells_keep_their_column(exported: tuple[CardDoc, str, srplugin.SRNote]) -> None:
    _doc, note, parsed = exported
    back = parsed.cards[list(CASES).index("table")].answer
    assert back.split("\n") == ["- key · note · value", "- a ·  · 1", "-  · b · 2"]
    assert "\n| key | note | value |\n|---|---|---|\n| a |  | 1 |\n|  | b | 2 |\n" in note  # a table in the section


def test_block_id_words_in_text_are_escaped(exported: tuple[CardDoc, str, srplugin.SRNote]) -> None:
    doc, _note, parsed = exported
    card = parsed.cards[list(CASES).index("block-id")]
    assert card.question.endswith("\\^notanid") and card.answer.endswith("caret word \\^word")


def test_a_fence_in_a_callout_makes_no_card(exported: tuple[CardDoc, str, srplugin.SRNote]) -> None:
    """The plugin reads a fence inside a callout as text; such pitfalls become a plain section."""
    _doc, note, _parsed = exported
    assert "> [!warning]" not in note and "## 常见陷阱 · Pitfalls" in note
    assert "```cpp\nstd::string s;  // a::b\nx == y == z\n```" in note
    assert not re.search(r"(?m)^> .*::", note)


def test_inline_code_in_a_callout_stays_a_callout() -> None:
    """Inline code the plugin would misread is cut, so a callout with it makes no card and stays a callout."""
    doc = hostile_card().model_copy(update={"sections": {"pitfalls": LangText(
        en="- `a == b == c` chains\n- a \\` then ``x`y::z`` and `std::move`")}})
    files = vault_files([doc])
    path = VaultLayout.plan([doc]).card_path(doc)
    note = files[path]
    assert "> [!warning] 常见陷阱 · Pitfalls\n> - `a =`&#8203;`= b =`&#8203;`= c` chains\n" in note
    assert [c.kind for c in srplugin.parse_vault(files)[path].cards] == ["multiline"] * len(doc.follow_ups)
    assert code_text("\n".join(line[2:] for line in note.split("\n") if line.startswith("> - "))) == \
        "a == b == cx`y::zstd::move"
