"""app/render/marks.py: a claim's quoted words marked in the rendered text, never live markup."""

from __future__ import annotations

import pytest

from app.render.markdown import render_markdown
from app.render.marks import Mark, escape_note, finish_html, finish_markdown, locate, place
from tests.utils.html import assert_safe
from tests.utils.xss import PAYLOADS


def marked(text: str, marks: list[Mark]) -> str:
    return finish_html(render_markdown(place(text, marks)), marks)


def test_locate_ignores_whitespace_and_takes_ellipses() -> None:
    text = "Memory drops to $\\frac{16\\Psi}{N}$\nbytes. Prior to each layer"
    assert locate(text, "Memory drops to $\\frac{16\\Psi}{N}$ bytes.") == (0, text.index("bytes.") + 6)
    start, end = locate(text, "Memory ... each layer") or (0, 0)
    assert text[start:end] == text
    assert locate(text, "not in the card") is None


def test_refuted_quote_is_wrapped_and_followed_by_its_correction() -> None:
    mark = Mark("c1", "refuted", "通信逐级增加", "应为 2Ψ，不是 > 2Ψ", "#claim-c1")
    html = marked("显存逐级下降、通信逐级增加。", [mark])
    assert '<mark class="claim-mark claim-mark-refuted" data-claim="c1">通信逐级增加</mark>' in html
    assert '<a class="claim-note claim-note-refuted" data-claim="c1" href="#claim-c1"' in html
    assert "应为 2Ψ，不是 &gt; 2Ψ" in html  # the note is escaped text
    assert html.index("</mark>") < html.index("claim-note") < html.index("。")


def test_math_is_never_cut_and_a_quote_across_blocks_gets_only_the_note() -> None:
    text = "Memory drops to $\\frac{16\\Psi}{N}$ bytes."
    html = marked(text, [Mark("m", "confirmed", "Memory drops to $\\frac{16\\Psi", "")])
    assert "<math" in html and "claim-note-confirmed" in html
    assert html.count("\\ue000") == 0 and "\ue000" not in html and "\ue001" not in html
    across = marked("- first item\n- second item", [Mark("x", "conditional", "first item ... second", "only as N → ∞")])
    assert "<mark" not in across and "only as N → ∞" in across  # unbalanced: no wrap, the note stays


def test_confirmed_is_quiet_and_unmarked_kinds_are_skipped() -> None:
    html = marked("ZeRO-3 costs 1.5x.", [Mark("a", "confirmed", "1.5x", "ignored"), Mark("b", "stale", "ZeRO-3")])
    assert "ignored" not in html and ">✓<" in html and "ZeRO-3" in html and "claim-note-stale" not in html


def test_sentinels_in_card_text_are_dropped() -> None:
    html = marked("a \ue000\ue100b\ue001\ue100 c", [Mark("a", "refuted", "c", "no")])
    assert "\ue000" not in html and "\ue100" not in html and "claim-note-refuted" in html


@pytest.mark.parametrize("payload", PAYLOADS)
def test_xss_corpus_through_the_marked_output(payload: str) -> None:
    """The payload in the card text, in the quote, and in the note: the marked HTML stays inert."""
    text = f"before {payload} after 14Ψ end"
    marks = [Mark("q", "refuted", payload, payload, f"#claim-{payload}"), Mark("n", "conditional", "14Ψ", payload),
             Mark(payload, "confirmed", "after", "")]
    html = marked(text, marks)
    assert_safe(html)
    assert "claim-note-conditional" in html or "```" in payload  # a fence swallows the text after it


def test_obsidian_marks_are_plain_markdown_with_the_plugin_syntax_escaped() -> None:
    marks = [Mark("a", "refuted", "14Ψ", "is 16Ψ :: ==x== %%c%% #tag [[link]]"), Mark("b", "confirmed", "12Ψ", "")]
    out = finish_markdown(place("total 14Ψ and 12Ψ", marks), marks)
    assert out.startswith("total 14Ψ **✗** *is 16Ψ ") and out.endswith("and 12Ψ **✓**")
    for syntax in ("::", "==", "%%", "[["):
        assert syntax not in out
    assert "\\#tag" in out  # not a tag


def test_one_mark_per_phrase_the_decisive_verdict_with_the_other_as_a_link() -> None:
    """Two claims whose quotes end at the same words (the seed's "通信量显著增加（约 1.5 倍）", quoted alone by a
    confirmed claim and as the end of a refuted sentence): one note, the refutation, and a link to the other."""
    text = "ZeRO-3 反向后丢弃，通信量显著增加（约 1.5 倍）。ZeRO-1 省显存，通信不变。"
    marks = [Mark("ok", "confirmed", "通信量显著增加（约 1.5 倍）", "", "#claim-ok"),
             Mark("bad", "refuted", "ZeRO-3 反向后丢弃，通信量显著增加（约 1.5 倍）", "L = 10: 应为 10，不是 0",
                  "#claim-bad"),
             Mark("own", "conditional", "ZeRO-1 省显存", "仅当 N → ∞", "#claim-own")]
    html = finish_html(render_markdown(place(text, marks)), marks)
    assert html.count('class="claim-note ') == 2 and "claim-note-confirmed" not in html
    assert 'class="claim-also claim-also-confirmed" data-claim="ok" href="#claim-ok"' in html
    assert html.index("claim-note-refuted") < html.index("claim-also") < html.index("。")
    assert "claim-note-conditional" in html  # a quote ending elsewhere keeps its own note
    md = finish_markdown(place(text, marks), marks)
    assert md.count("**✓**") == 0 and md.count("**✗**") == 1 and "*L = 10: 应为 10，不是 0*" in md


def test_obsidian_words_are_escaped_only_where_they_would_be_syntax() -> None:
    assert escape_note("N = 2: 10, not 0") == "N = 2: 10, not 0"  # no `N \= 2\:` any more
    assert escape_note("a::b ==c== [[d]] #e") == "a:\\:b =\\=c=\\= \\[\\[d\\]\\] \\#e"
