"""Card text must never become live markup: an XSS corpus through render_markdown."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.render.markdown import render_markdown
from tests.utils.html import assert_safe, unsafe_markup
from tests.utils.xss import PAYLOADS

XSS_CORPUS = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    '<svg onload="alert(1)">',
    "<a href='javascript:alert(1)'>x</a>",
    "<iframe src=javascript:alert(1)></iframe>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](  javascript:alert(1))",
    "[x](<javascript:alert(1)>)",
    "[x](&#106;avascript:alert(1))",
    "[x](javas&#99;ript:alert(1))",
    "[x](java&#x09;script:alert(1))",
    "[x](javascript&colon;alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](javascript:alert(1))",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "[ref]\n\n[ref]: javascript:alert(1)",
    "<javascript:alert(1)>",
    '[a](https://example.com "t\\" onmouseover=alert(1)")',
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#60;script&#62;alert(1)&#60;/script&#62;",
    "```html\n<script>alert(1)</script>\n```",
    "| a | b |\n|---|---|\n| <script>alert(1)</script> | [x](javascript:alert(1)) |",
    r"$\text{<b>bold</b>}$",
    r"$\text{<script>alert(1)</script>}$",
    r"$\text{<img src=x onerror=alert(1)>}$",
    r'$\text{" onmouseover="alert(1)}$',
    r"$\href{javascript:alert(1)}{x}$",
    "$$\n\\href{javascript:alert(1)}{click}\n$$",
    r"$\style{color:red}{x}$",
    r"$\color{red\" onclick=\"alert(1)}{x}$",
    r"$\color{javascript:alert(1)}{x}$",
    r"$x \onerror{alert(1)}$",
    r"$\unicode{x3c}script\unicode{x3e}$",
    r"$\mathrm{a&b}$",
    *PAYLOADS,  # the shared corpus (tests/utils/xss.py), also run through every output by tests/security/
]


@pytest.mark.parametrize("text", XSS_CORPUS)
def test_card_text_never_becomes_live_markup(text: str) -> None:
    assert_safe(render_markdown(text))


def test_the_safety_check_itself_catches_live_markup() -> None:
    assert unsafe_markup('<a href=" JaVa&#x09;Script:alert(1)">x</a>') != []
    assert unsafe_markup("<img src=x onerror=alert(1)>") == ["<img onerror=...> event handler"]
    assert unsafe_markup("<script>x</script>") == ["<script> element"]
    assert unsafe_markup("<p>javascript:alert(1) onload=x</p>") == []


def test_raw_html_is_shown_as_text() -> None:
    assert render_markdown("<b>bold</b> & <i>x</i>") == "<p>&lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;x&lt;/i&gt;</p>\n"


def test_script_urls_are_not_links() -> None:
    for text in ("[x](javascript:alert(1))", "[x](JaVaScRiPt:alert(1))", "[x](vbscript:x)"):
        assert "<a " not in render_markdown(text)


def test_safe_links_keep_their_target_and_get_rel() -> None:
    html = render_markdown("[paper](https://arxiv.org/abs/1910.02054)")
    assert html == ('<p><a href="https://arxiv.org/abs/1910.02054" rel="noopener noreferrer nofollow">'
                    "paper</a></p>\n")


def test_images_from_other_hosts_become_links_so_pages_fetch_nothing_remote() -> None:
    html = render_markdown("![ring *diagram*](https://evil.example/x.png) ![](//evil.example/y.png)")
    assert "<img" not in html
    assert '<a href="https://evil.example/x.png" class="remote-image" rel="noopener noreferrer nofollow">' \
           "ring diagram</a>" in html
    assert '>//evil.example/y.png</a>' in html


def test_local_and_data_images_stay_images() -> None:
    assert render_markdown("![d](data:image/png;base64,AAAA)") == (
        '<p><img src="data:image/png;base64,AAAA" alt="d" loading="lazy" /></p>\n')
    assert '<img src="img/ring.png" alt="ring"' in render_markdown("![ring](img/ring.png)")


def test_tables_and_strikethrough_render() -> None:
    html = render_markdown("| a | b |\n|---|---|\n| 1 | ~~2~~ |")
    assert "<table>" in html and "<td><s>2</s></td>" in html


PIECES = ["<", ">", '"', "'", "&", "#", ";", "(", ")", "[", "]", "{", "}", "$", "$$", "\\", "`", "!", " ", "\n",
          "script", "img", "svg", "onerror=", "onload=", "javascript:", "JaVaScRiPt:", "&#106;", "&#x09;", "&colon;",
          "\\text{", "\\href{", "\\style{", "\\color{", "\\frac{", "](", "<a href=", "x", "1", "data:text/html,"]


@settings(max_examples=300, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_fuzzed_card_text_never_becomes_live_markup(text: str) -> None:
    assert_safe(render_markdown(text))
