"""Card Markdown → Obsidian Markdown: same text shown, nothing else triggered."""

from __future__ import annotations

import pytest

from app.export.obsidian_text import clean_tex, one_block, segments, tables_as_lists, to_obsidian
from tests.utils import srplugin


@pytest.mark.parametrize(("source", "expected"), [
    ("a <b>c</b>", "a &lt;b>c&lt;/b>"),
    ("std::vector and a::b", "std:\\:vector and a:\\:b"),
    ("==highlight== %%comment%%", "=\\=highlight=\\= %\\%comment%\\%"),
    ("[[Other note]] ![[embed]]", "[\\[Other note]] ![\\[embed]]"),
    ("#tag and # heading-ish and &#35;", "\\#tag and # heading-ish and &#35;"),
    ("[x](javascript:alert(1)) [y](https://ok.example)", "[x]\\(javascript:alert(1)) [y](https://ok.example)"),
    ("[ref]: javascript:alert(1)", "[ref]\\: javascript:alert(1)"),
    # script URLs however they are encoded (entities, %-escapes, backslash escapes, whitespace)
    ("[x](&#106;avascript:a) [y](javascript&colon;a)", "[x]\\(&#106;avascript:a) [y]\\(javascript&colon;a)"),
    ("[x](java%09script:a) [y](javascript\\:a)", "[x]\\(java%09script:a) [y]\\(javascript\\:a)"),
    ("[x](&amp;#106;avascript:a) [y]( JaVaScRiPt:a)", "[x]\\(&amp;\\#106;avascript:a) [y]\\( JaVaScRiPt:a)"),
    ("[ref]: &#106;avascript:a\n[ok]: https://x.example", "[ref]\\: &#106;avascript:a\n[ok]: https://x.example"),
    ("[rel](img/a.png) [mail](mailto:a@b.c)", "[rel](img/a.png) [mail](mailto:a@b.c)"),
    ("?\n??", "\\?\n\\??"),
])
def test_plain_text_is_neutralised(source: str, expected: str) -> None:
    assert to_obsidian(source) == expected


def test_a_code_span_ends_with_its_paragraph() -> None:
    """Obsidian closes no code span across a blank line, so neither may we: the HTML between stays escaped."""
    assert to_obsidian("`a\n\n<script>x</script>\n\nb`") == "&#96;a\n\n&lt;script>x&lt;/script>\n\nb&#96;"
    # stray: escaped, so nothing pairs with them; a backtick as an entity, which the plugin does not count
    assert to_obsidian("a $ b ` c \\$ d") == "a \\$ b &#96; c \\$ d"
    assert to_obsidian("e \\` f `x::y`") == "e &#96; f `x::y`"  # the parser counts '\\`' as a delimiter
    assert [s.kind for s in segments("`a\nb` c")] == ["code", "text"]


def test_tex_that_mathjax_would_make_links_of_is_shown_as_code() -> None:
    assert to_obsidian("$\\href{javascript:a}{x}$ $x^2$") == "`$\\href{javascript:a}{x}$` $x^2$"
    assert to_obsidian("$$\n\\style{color:red}{`x`}\n$$") == "``$$\\style{color:red}{`x`}$$``"


def test_code_is_verbatim_and_math_is_one_line() -> None:
    src = "`a::b<c>` then $x < y$ and\n\n$$\na\n\n+ b\n$$\n\n```py\nx = a::b\n\ny == z\n```\n~~~\nq ``` r\n~~~"
    out = to_obsidian(src)
    assert "`a::b<c>`" in out and "$x \\lt{} y$" in out and "\n$$a + b$$\n" in out
    assert "```py\nx = a::b\n\ny == z\n```" in out
    assert "````\nq ``` r\n````" in out  # ~~~ fences become backtick fences (the plugin skips only those)
    assert [s.kind for s in segments("a $x$ b")] == ["text", "math", "text"]
    assert [s.kind for s in segments("costs \\$5 and $6")] == ["text"]
    assert [s.kind for s in segments("costs $5 and $6, or $ x $")] == ["text"]  # Pandoc's rule, as on pages
    assert [s.kind for s in segments("a $x$5 and $y$")] == ["text", "math", "text", "math"]


def test_tex_loses_what_obsidian_would_act_on() -> None:
    assert clean_tex(" a::b == [[c]] 50% #x ") == "a:{}:b ={}= [{}[c]{}] 50\\% \\#x"
    assert clean_tex("\\% stays") == "\\% stays"


def test_tables_become_lists_outside_code() -> None:
    src = "| a | b |\n|---|:-:|\n| $1$ | `x|y` |\n```\n| keep | me |\n```"
    assert tables_as_lists(src) == "- a · b\n- $1$ · `x · y`\n```\n| keep | me |\n```"


def test_one_block_is_one_flashcard_answer() -> None:
    zh = "段落一：\n\n| 项 | 值 |\n|---|---|\n| m | $4\\Psi$ |\n\n段落二\n\n$$\na\n\nb\n$$"
    en = "- one\n- two\n\nafter the list"
    block = one_block(zh, en)
    assert "\n\n" not in block and block.count("***") == 2  # after the table, after the en list
    note = f"#flashcards\n\nQuestion?\n?\n{block}\n"
    cards = srplugin.parse(note)
    assert [c.kind for c in cards] == ["multiline"] and cards[0].answer == block
