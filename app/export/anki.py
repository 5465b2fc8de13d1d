"""The Anki package (genanki): one note per review item (a card, each follow-up) in a bilingual
note type. Field text is HTML from card Markdown with raw HTML escaped and math left for Anki's
MathJax as ``\\(..\\)`` / ``\\[..\\]`` (TeX HTML-escaped; TeX that MathJax would turn into links or
attributes, :mod:`app.export.tex`, as code). ``[sound:..]`` in card text stays text. GUIDs come
from the card slug and item id, so importing a newer export updates notes instead of duplicating them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any

import genanki
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.dollarmath import dollarmath_plugin

from app.cards.schema import CardDoc, LangText
from app.export.deck import Verdicts
from app.export.obsidian import label_key, label_text, tag_text
from app.export.tex import unsafe_tex
from app.render.markdown import link_open_rule
from app.verification.present import VERDICT_LABELS, format_value, verdict_kind

MODEL_ID = 1_744_213_001  # fixed forever: Anki matches the note type by id
DECK_ID = 1_744_213_002
DECK_NAME = "proofdeck"
DECK_DESCRIPTION = "proofdeck: 中英双语 ML 系统面试卡片 · bilingual ML-systems interview cards"
FIELDS = ("Key", "Context", "Question zh", "Question en", "Answer zh", "Answer en", "Extra")
CARD_ITEM = "card"
ANSWER_SECTIONS = ("summary", "insights", "pitfalls")  # the back of a card's own note

_CSS = """.card { font-family: system-ui, "PingFang SC", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif;
  font-size: 18px; line-height: 1.55; text-align: left; max-width: 42em; margin: 0 auto; }
.ctx { color: #888; font-size: .8em; } .en { color: #555; } .nightMode .en { color: #bbb; }
.q { font-weight: 600; } .extra { font-size: .85em; border-top: 1px dashed #aaa; margin-top: 1em; }
.v-confirmed { color: #17803d; } .v-refuted { color: #b3261e; } .v-conditional { color: #9a6700; }
pre, code { font-family: ui-monospace, Menlo, Consolas, monospace; }"""
_FRONT = """<div class="ctx">{{Context}}</div>
<div class="q zh" lang="zh">{{Question zh}}</div>
<div class="q en" lang="en">{{Question en}}</div>"""
_BACK = """{{FrontSide}}
<hr id="answer">
<div class="zh" lang="zh">{{Answer zh}}</div>
<div class="en" lang="en">{{Answer en}}</div>
{{#Extra}}<div class="extra">{{Extra}}</div>{{/Extra}}"""

MODEL = genanki.Model(MODEL_ID, "proofdeck bilingual", fields=[{"name": f} for f in FIELDS],
                      templates=[{"name": "Review", "qfmt": _FRONT, "afmt": _BACK}], css=_CSS,
                      sort_field_index=0)


Rule = Callable[[RendererHTML, Sequence[Token], int, OptionsDict, EnvType], str]


def _math(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    tok = tokens[idx]
    tex = escape(tok.content.strip(), quote=False)
    if unsafe_tex(tok.content):  # MathJax would make a link or attributes of it: show the source
        delim = "$" if tok.type == "math_inline" else "$$"
        return f'<code class="math-source">{delim}{tex}{delim}</code>'
    if tok.type == "math_inline":
        return f"\\({tex}\\)"
    return f"\\[{tex}\\]" if not tok.block else f"<div>\\[{tex}\\]</div>\n"


def _image(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    alt = "".join(t.content for t in tokens[idx].children or [])
    return f"[{escape(alt or 'image')}]"  # no remote loads from inside Anki


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = (MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
          .enable(["table", "strikethrough"])
          .use(dollarmath_plugin, allow_space=False, allow_digits=True, double_inline=True))  # as render_markdown
    for name in ("math_inline", "math_inline_double", "math_block", "math_block_label"):
        md.add_render_rule(name, _math)
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", link_open_rule)
    return md


def field_html(markdown: str) -> str:
    """Card Markdown as an Anki field: safe HTML, MathJax math, no newlines needed."""
    return _parser().render(markdown).strip() if markdown.strip() else ""


_AV_TAG = re.compile(r"\[(?=(?:sound|anki):)", re.IGNORECASE)


def inert(html: str) -> str:
    """Field HTML with Anki's own text markup disarmed: ``[sound:x]`` would play a media file and
    ``[anki:tts]`` speak, so their bracket becomes ``&#91;`` (the same character on screen)."""
    return _AV_TAG.sub("&#91;", html)


def _join(parts: Sequence[str]) -> str:
    return "\n".join(p for p in parts if p)


def anki_tags(doc: CardDoc, kind: str) -> list[str]:
    raw = ["proofdeck", f"proofdeck/{kind}", tag_text("proofdeck/difficulty", doc.difficulty),
           tag_text("proofdeck/module", label_key(doc.module) or "unsorted")]
    if label_key(doc.topic):
        raw.append(tag_text("proofdeck/topic", label_key(doc.topic)))
    raw += [tag_text(t) for t in doc.tags]
    return sorted({t.replace("/", "::") for t in raw})


def _verdicts_html(items: Sequence[Mapping[str, Any]]) -> str:
    out = []
    for v in items:
        kind = verdict_kind(v)
        keys = ("text_zh", "text_en", "condition", "reason_zh", "reason_en")
        text = _join([field_html(str(v.get(k) or "")) for k in keys])
        nums = ""
        predicted, measured = format_value(v.get("predicted")), format_value(v.get("measured"))
        if predicted or measured:
            nums = f"<p>预测 predicted {escape(predicted)} · 实测 measured {escape(measured)}</p>"
        claim = escape(str(v.get("claim_id", "")))
        zh, en, sign = VERDICT_LABELS[kind]
        out.append(f'<div class="v-{kind}"><b>{sign} {zh} · {en}</b> <code>{claim}</code>{text}{nums}</div>')
    return "\n".join(out)


def _context(doc: CardDoc) -> str:
    return escape(" · ".join(p for p in (label_text(doc.module), label_text(doc.topic), doc.difficulty) if p))


def card_notes(doc: CardDoc, verdicts: Verdicts | None = None) -> list[genanki.Note]:
    """The notes of one card: the card itself, then each follow-up."""
    answer = {code: _join([field_html(getattr(doc.section(k), code)) for k in ANSWER_SECTIONS])
              for code in ("zh", "en")}
    extra = _verdicts_html((verdicts or {}).get(doc.slug, ()))
    notes = [genanki.Note(model=MODEL, guid=genanki.guid_for("proofdeck", doc.slug, CARD_ITEM),
                          tags=anki_tags(doc, "card"),
                          fields=[inert(f) for f in (doc.slug, _context(doc), escape(doc.title.zh),
                                                     escape(doc.title.en), answer["zh"], answer["en"], extra)])]
    title = _title(doc.title)
    for fu in doc.follow_ups:
        notes.append(genanki.Note(
            model=MODEL, guid=genanki.guid_for("proofdeck", doc.slug, fu.id),
            tags=anki_tags(doc, "follow-up"),
            fields=[inert(f) for f in (f"{doc.slug}/{fu.id}", f"{_context(doc)} · {title}", field_html(fu.question.zh),
                                       field_html(fu.question.en), field_html(fu.answer.zh), field_html(fu.answer.en),
                                       "")]))
    return notes


def _title(t: LangText) -> str:
    return escape(" · ".join(p for p in dict.fromkeys((t.zh, t.en)) if p))


def write_package(docs: Sequence[CardDoc], path: Path, verdicts: Verdicts | None = None, *,
                  timestamp: float | None = None, on_card: Callable[[], None] | None = None) -> int:
    """Write ``path`` (.apkg); returns the number of notes. ``timestamp`` sets the notes' mtime."""
    deck = genanki.Deck(DECK_ID, DECK_NAME, description=DECK_DESCRIPTION)
    for doc in docs:
        for note in card_notes(doc, verdicts):
            deck.add_note(note)
        if on_card:
            on_card()
    genanki.Package(deck).write_to_file(str(path), timestamp=timestamp)
    return len(deck.notes)
