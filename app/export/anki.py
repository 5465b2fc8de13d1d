"""The Anki package (genanki): one note per review item (a card, each follow-up) in a bilingual
note type. Field text is HTML from card Markdown with raw HTML escaped and math left for Anki's
MathJax as ``\\(..\\)`` / ``\\[..\\]`` (TeX HTML-escaped; TeX that MathJax would turn into links or
attributes, :mod:`app.export.tex`, as code). ``[sound:..]`` in card text stays text. GUIDs come
from the card slug and item id, so importing a newer export updates notes instead of duplicating them.
"""

from __future__ import annotations

import hashlib
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

from app.cards.pitfalls import split_pitfall
from app.cards.schema import CardDoc, LangText
from app.core.progress import Progress
from app.export.anki_drills import drill_notes, typed_model
from app.export.deck import Verdicts
from app.export.obsidian import label_key, tag_text
from app.export.tex import unsafe_tex
from app.items import drills
from app.items.items import PITFALL_FALLBACK, PITFALL_PROMPT, atomic, pitfall_pairs
from app.items.misconceptions import BACK, FRONT
from app.render.markdown import link_open_rule
from app.render.marks import MARKS_CSS, Mark, finish_html, locate, place
from app.verification.learnable import drill_kind, drill_note
from app.verification.present import VERDICT_LABELS, claim_note, marks_for, psi_of, verdict_kind, verdicts_in

MODEL_ID = 1_744_213_001  # fixed forever: Anki matches the note type by id
DECK_ID = 1_744_213_002
DECK_NAME = "proofdeck"
# the learner's language choice (``proofdeck export anki --lang``, ``GET /api/export/anki.apkg?lang=``)
LANGS: dict[str, tuple[str, ...]] = {"both": ("zh", "en"), "zh": ("zh",), "en": ("en",)}
DECK_DESCRIPTION = "proofdeck: 中英双语 ML 系统面试卡片 · bilingual ML-systems interview cards"
FIELDS = ("Key", "Context", "Question zh", "Question en", "Answer zh", "Answer en", "Extra")
CARD_ITEM = "card"
ANSWER_SECTIONS = ("insights",)  # the back of a card's own note: the key insights only (atomic)

_CSS = """.card { font-family: system-ui, "PingFang SC", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif;
  font-size: 18px; line-height: 1.55; text-align: left; max-width: 42em; margin: 0 auto; }
.ctx { color: #888; font-size: .8em; } .en { color: #555; } .nightMode .en { color: #bbb; }
.q { font-weight: 600; } .extra { font-size: .85em; border-top: 1px dashed #aaa; margin-top: 1em; }
.v-confirmed { color: #17803d; } .v-refuted { color: #b3261e; } .v-conditional { color: #9a6700; }
pre, code { font-family: ui-monospace, Menlo, Consolas, monospace; }
table { border-collapse: collapse; margin: .4em 0; } th, td { border: 1px solid #999; padding: .2em .55em; }
th { background: rgba(127,127,127,.12); } .solution { margin-top: .8em; }
""" + MARKS_CSS
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
TYPED_MODEL = typed_model(_CSS)


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


def field_html(markdown: str, marks: Sequence[Mark] = ()) -> str:
    """Card Markdown as an Anki field: safe HTML, MathJax math, no newlines needed; ``marks``: the verdict
    marks of the claims quoting it (``app.render.marks``, as on the card page)."""
    if not markdown.strip():
        return ""
    marks = [m for m in marks if locate(markdown, m.quote)]
    if not marks:
        return str(_parser().render(markdown)).strip()
    return str(finish_html(_parser().render(place(markdown, marks)), marks)).strip()


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


def _label(kind: str, langs: Sequence[str]) -> str:
    zh, en, sign = VERDICT_LABELS[kind]
    return " · ".join([f"{sign} {zh}" if "zh" in langs else sign, *([en] if "en" in langs else [])])


def _verdicts_html(items: Sequence[Mapping[str, Any]], psi: float | None, langs: Sequence[str] = ("zh", "en")) -> str:
    """The verdicts on text of this note: one line per refuted / conditional / mismatch claim (sign, label,
    the quote, the correction or condition), then the confirmed quotes on one line; in ``langs`` only."""
    out, confirmed = [], []
    for v in items:
        kind = verdict_kind(v)
        quote = next((str(v.get(f"text_{lang}")) for lang in langs if v.get(f"text_{lang}")), "")
        if not quote:
            continue
        if kind == "confirmed":
            confirmed.append(escape(quote if len(quote) <= 40 else quote[:39] + "…"))
            continue
        note = " · ".join(dict.fromkeys(n for n in (claim_note(v, lang, psi) for lang in langs) if n))
        out.append(f'<div class="v-{kind}"><b>{_label(kind, langs)}</b> {escape(quote)}'
                   + (f" — {escape(note)}" if note else "") + "</div>")
    if confirmed:
        out.append(f'<div class="v-confirmed"><b>{_label("confirmed", langs)}</b> {"; ".join(confirmed)}</div>')
    return "\n".join(out)


def _in(label: LangText, langs: Sequence[str]) -> str:
    """A module or topic label in ``langs`` (its code first)."""
    parts = [getattr(label, "code", ""), *(getattr(label, lang) for lang in langs)]
    return " · ".join(p for p in dict.fromkeys(p.strip() for p in parts) if p)


def _context(doc: CardDoc, langs: Sequence[str] = ("zh", "en")) -> str:
    return escape(" · ".join(p for p in (_in(doc.module, langs), _in(doc.topic, langs), doc.difficulty) if p))


def subdeck_name(doc: CardDoc, langs: Sequence[str]) -> str:
    """``proofdeck::M3 · 深度学习基础`` (Anki's ``::`` makes it a subdeck; a ``::`` in a label is not one)."""
    return f"{DECK_NAME}::" + (_in(doc.module, langs) or "unsorted").replace("::", ":")


def subdeck_id(doc: CardDoc) -> int:
    """Stable per module (whatever the language), so a re-import files notes into the same deck."""
    return int(hashlib.sha1(f"proofdeck-module:{label_key(doc.module)}".encode()).hexdigest()[:12], 16)


def card_notes(doc: CardDoc, verdicts: Verdicts | None = None, lang: str = "both",
               owns_ledger: bool | None = None) -> list[genanki.Note]:
    """One note per review item: the card (key insights), each follow-up, each pitfall (mistake → what goes
    wrong), each misconception drill (a refuted / conditional claim) and each computed drill (a type-in
    note, :mod:`app.export.anki_drills`). The quoted words of every claim are marked in place; Extra lists
    only the verdicts on text of that note. ``lang`` (``LANGS``): the other language's fields stay empty.
    ``owns_ledger``: whether the deck's ZeRO ledger drills are this card's (``ledger_owner``; None: a card
    alone), so that each drill is one note, on the card the server attaches it to."""
    langs = LANGS[lang]
    rows = list((verdicts or {}).get(doc.slug, ()))
    psi = psi_of(rows)
    marks = {lg: marks_for(rows, lg, psi, link=False) for lg in ("zh", "en")}
    title = _title(doc.title, langs)
    context = _context(doc, langs)
    notes = []

    def fields(values: Sequence[str]) -> list[str]:
        """Key, Context, Question zh/en, Answer zh/en, Extra; a language not chosen left empty."""
        drop = {i for i, name in enumerate(FIELDS) if name.endswith((" zh", " en")) and name[-2:] not in langs}
        return [inert("" if i in drop else f) for i, f in enumerate(values)]

    def add(key: str, kind: str, q: dict[str, str], a: dict[str, str], md: dict[str, str]) -> None:
        if not any(q[lg] or a[lg] for lg in langs):
            return  # nothing in the chosen language
        extra = _verdicts_html(verdicts_in(rows, {lg: t for lg, t in md.items() if lg in langs}), psi, langs)
        notes.append(genanki.Note(model=MODEL, guid=genanki.guid_for("proofdeck", doc.slug, key),
                                  tags=anki_tags(doc, kind),
                                  fields=fields((f"{doc.slug}/{key}", f"{context} · {title}",
                                                 q["zh"], q["en"], a["zh"], a["en"], extra))))

    insights = {lg: "\n\n".join(getattr(doc.section(k), lg) for k in ANSWER_SECTIONS) for lg in ("zh", "en")}
    notes.append(genanki.Note(
        model=MODEL, guid=genanki.guid_for("proofdeck", doc.slug, CARD_ITEM), tags=anki_tags(doc, "card"),
        fields=fields((doc.slug, context, escape(doc.title.zh), escape(doc.title.en),
                       field_html(insights["zh"], marks["zh"]), field_html(insights["en"], marks["en"]),
                       _verdicts_html(verdicts_in(rows, {lg: insights[lg] for lg in langs}), psi, langs)))))
    for fu in doc.follow_ups:
        answers = {lg: atomic(getattr(fu.answer, lg), lg) for lg in ("zh", "en")}
        add(fu.id, "follow-up",
            {lg: field_html(getattr(fu.question, lg), marks[lg]) for lg in ("zh", "en")},
            {lg: field_html(answers[lg], marks[lg]) for lg in ("zh", "en")}, answers)
    for i, pair in enumerate(pitfall_pairs(doc), start=1):
        parts = {lang: split_pitfall(text) if text else ("", "") for lang, text in zip(("zh", "en"), pair, strict=True)}
        add(f"pitfall-{i}", "pitfall",
            {lang: field_html(f"{PITFALL_PROMPT[lang]}\n\n> {m}") if m else "" for lang, (m, _c) in parts.items()},
            {lang: field_html(c or PITFALL_FALLBACK[lang]) if m else "" for lang, (m, c) in parts.items()},
            {lang: pair[j] for j, lang in enumerate(("zh", "en"))})
    for v in rows:
        kind = drill_kind(v)
        if not kind:
            continue
        q = {lang: field_html(f"{FRONT[kind][lang]}\n\n> {v.get(f'text_{lang}')}") if v.get(f"text_{lang}") else ""
             for lang in ("zh", "en")}
        a = {lang: escape(BACK[kind][lang] + drill_note(v, lang, psi)) if q[lang] else "" for lang in ("zh", "en")}
        add(f"misconception-{v.get('claim_id')}", "misconception", q, a, {})
    notes += drill_notes(doc, TYPED_MODEL, langs, f"{context} · {title}", anki_tags(doc, "drill"), field_html, inert,
                         owns_ledger)
    return notes


def _title(t: LangText, langs: Sequence[str] = ("zh", "en")) -> str:
    return escape(" · ".join(p for p in dict.fromkeys(getattr(t, lg) for lg in langs) if p))


def owner_of(docs: Sequence[CardDoc]) -> str | None:
    """The card of ``docs`` that holds the ZeRO ledger drills (``app.items.drills.ledger_owner``)."""
    return drills.ledger_owner([(d.slug, [c.asserts for c in d.claims]) for d in docs])


def write_package(docs: Sequence[CardDoc], path: Path, verdicts: Verdicts | None = None, *,
                  timestamp: float | None = None, progress: Progress | None = None, lang: str = "both") -> int:
    """Write ``path`` (.apkg): a ``proofdeck`` deck with one subdeck per module (``proofdeck::<module>``);
    returns the number of notes. ``lang``: ``both``, ``zh`` or ``en`` (``LANGS``); ``timestamp`` sets the
    notes' mtime; ``progress`` shows the cards turned into notes, then the package written."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}: choose one of {', '.join(LANGS)}")
    root = genanki.Deck(DECK_ID, DECK_NAME, description=DECK_DESCRIPTION)
    decks: dict[int, genanki.Deck] = {}
    owner = owner_of(docs)
    for doc in progress.each("building notes", docs, unit="cards") if progress else docs:
        deck = decks.setdefault(subdeck_id(doc), genanki.Deck(subdeck_id(doc), subdeck_name(doc, LANGS[lang])))
        for note in card_notes(doc, verdicts, lang, owns_ledger=doc.slug == owner):
            deck.add_note(note)
    if progress:
        progress.step("writing the package")
    genanki.Package([root, *decks.values()]).write_to_file(str(path), timestamp=timestamp)
    return sum(len(d.notes) for d in decks.values())
