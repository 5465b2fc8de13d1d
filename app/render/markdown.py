"""Card Markdown → safe HTML: markdown-it-py with raw HTML off, math as server-side MathML.

Card text never becomes live markup: raw HTML is escaped, link targets go through markdown-it's
``validateLink`` (no ``javascript:``, ``vbscript:``, ``file:``, non-image ``data:``), and math passes
the allow-list in :mod:`app.render.math`. Images from other hosts become plain links, so a page never
fetches anything from outside the server (pages work offline and leak nothing).

Math delimiters follow Pandoc (:mod:`app.render.dollars`): ``$x$`` needs no space just inside the
dollars and no digit after the closing one, so "costs $5 and $6" stays text; ``$$...$$`` is display math.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.dollarmath import dollarmath_plugin

from app.render.dollars import inline_math
from app.render.math import render_math

# An image source on another host (a scheme other than data:, or protocol-relative //host).
_REMOTE = re.compile(r"^\s*(?!data:)(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
_MATH_TOKENS = {"math_inline": False, "math_inline_double": True, "math_block": True,
                "math_block_label": True}


def _render_math_token(self: RendererHTML, tokens: Sequence[Token], idx: int,
                       options: OptionsDict, env: EnvType) -> str:
    tok = tokens[idx]
    html = render_math(tok.content.strip(), display=_MATH_TOKENS[tok.type])
    return f'<div class="math-block">{html}</div>\n' if tok.block else html


def _image(self: RendererHTML, tokens: Sequence[Token], idx: int,
           options: OptionsDict, env: EnvType) -> str:
    tok = tokens[idx]
    src = str(tok.attrGet("src") or "")
    if _REMOTE.match(src):
        alt = self.renderInlineAsText(tok.children or [], options, env) or src
        return (f'<a href="{escapeHtml(src)}" class="remote-image" rel="noopener noreferrer nofollow">'
                f"{escapeHtml(alt)}</a>")
    tok.attrSet("loading", "lazy")
    return self.image(tokens, idx, options, env)


def link_open_rule(self: RendererHTML, tokens: Sequence[Token], idx: int,
                   options: OptionsDict, env: EnvType) -> str:
    """Render rule for ``link_open``: card links never get the page's referrer or an opener handle."""
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    return self.renderToken(tokens, idx, options, env)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = (MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
          .enable(["table", "strikethrough"])
          .use(dollarmath_plugin, allow_space=False, allow_digits=True, double_inline=True))
    md.inline.ruler.at("math_inline", inline_math)  # the plugin's rule plus Pandoc's digit check
    for name in _MATH_TOKENS:
        md.add_render_rule(name, _render_math_token)
    md.add_render_rule("link_open", link_open_rule)
    md.add_render_rule("image", _image)
    return md


@lru_cache(maxsize=8192)
def render_markdown(text: str) -> str:
    """Safe HTML for one Markdown text (a section in one language, a question, an answer)."""
    if not text:
        return ""
    return str(_parser().render(text))


@lru_cache(maxsize=8192)
def render_inline(text: str) -> str:
    """Safe HTML for one line of Markdown without a paragraph around it (a claim's quote in the claims list):
    its math as MathML, every other character escaped."""
    if not text:
        return ""
    return str(_parser().renderInline(text))


def math_spans(text: str) -> list[tuple[str, bool]]:
    """(tex, display) for every formula markdown-it finds in ``text`` (code spans excluded)."""
    found: list[tuple[str, bool]] = []
    if "$" not in text:
        return found

    def walk(tokens: Sequence[Any]) -> None:
        for tok in tokens:
            if tok.type in _MATH_TOKENS:
                found.append((tok.content.strip(), _MATH_TOKENS[tok.type]))
            if tok.children:
                walk(tok.children)

    walk(_parser().parse(text))
    return found
