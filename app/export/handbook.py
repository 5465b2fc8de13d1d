"""The offline handbook: one self-contained HTML file with every card.

Inline CSS and one inline script (allowed by its hash in a Content-Security-Policy that forbids
every request: no fonts, no CDN, no images from the network), math as MathML rendered on the
server by :func:`app.render.markdown.render_markdown` (which also escapes raw HTML in card text),
a table of contents by module and topic, a zh / en / both toggle, a search box ranking the cards as
``GET /api/match`` does (:mod:`app.search.offline`), follow-up answers
in ``<details>``, verification verdicts and print CSS. No timestamps: same deck, same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from app.cards.schema import SECTION_TITLES, CardDoc, LangText
from app.core.config import PROJECT_ROOT
from app.core.progress import Progress
from app.export.deck import Verdicts
from app.export.study import StudyDeck
from app.render.markdown import render_markdown
from app.render.marks import MARKS_CSS, Mark
from app.search.offline import offline_index_json, script_json
from app.verification.present import (
    VERDICT_LABELS,
    claim_line,
    claim_note,
    marked_html,
    marks_for,
    psi_of,
    verdict_kind,
)

TEMPLATES = PROJECT_ROOT / "templates"


_IMG = re.compile(r"<img\b[^>]*>")
_SRC = re.compile(r'\ssrc="([^"]*)"')
_ALT = re.compile(r'\salt="([^"]*)"')


def offline(html: str) -> str:
    """Images that would load anything (another host or a file next to the handbook) become their
    alt text; only ``data:image/`` images stay. Attribute values are already escaped by the renderer."""
    def replace(m: re.Match[str]) -> str:
        src, alt = _SRC.search(m.group(0)), _ALT.search(m.group(0))
        if src and src.group(1).startswith("data:image/"):
            return m.group(0)
        text = alt.group(1) if alt and alt.group(1) else "image"
        return f'<span class="img-off" title="image not included">[{text}]</span>'

    return _IMG.sub(replace, html)


def rendered(text: str) -> Markup:
    return Markup(offline(render_markdown(text)))


@dataclass(frozen=True)
class Html:
    """Rendered zh / en HTML of one text (already safe)."""

    zh: Markup
    en: Markup

    @classmethod
    def of(cls, text: LangText, marks: Mapping[str, Sequence[Mark]] | None = None,
           used: Mapping[str, set[str]] | None = None) -> Html:
        """``marks``: per language, the verdict marks of the claims quoting this text (each claim marked
        once per card: ``used``)."""
        if not marks:
            return cls(rendered(text.zh), rendered(text.en))
        return cls(*(Markup(offline(marked_html(getattr(text, lang), marks[lang], (used or {}).get(lang))))
                     for lang in ("zh", "en")))


@dataclass
class CardView:
    doc: CardDoc
    title: LangText
    sections: list[tuple[str, tuple[str, str], Html]]
    follow_ups: list[tuple[str, Html, Html]]
    links: list[tuple[str, LangText]]  # (anchor or "", title)
    verdicts: list[dict[str, Any]]


@dataclass
class TocTopic:
    label: LangText
    cards: list[CardView] = field(default_factory=list)


@dataclass
class TocModule:
    label: LangText
    code: str
    topics: dict[str, TocTopic] = field(default_factory=dict)


def anchor(slug: str) -> str:
    return f"card-{slug}"


def _verdict_view(v: Mapping[str, Any]) -> dict[str, Any]:
    kind = verdict_kind(v)
    return {"kind": kind, "label": VERDICT_LABELS[kind], "claim_id": str(v.get("claim_id", "")),
            "note": {lang: claim_note(v, lang, psi_of([v])) for lang in ("zh", "en")},
            "text": Html.of(LangText(zh=str(v.get("text_zh") or ""), en=str(v.get("text_en") or ""))),
            "reason": Html.of(LangText(zh=str(v.get("reason_zh") or ""), en=str(v.get("reason_en") or ""))),
            "line": {lang: claim_line(v, lang, psi_of([v])) for lang in ("zh", "en")},
            "condition": rendered(str(v.get("condition") or ""))}


def card_view(doc: CardDoc, titles: Mapping[str, LangText], verdicts: Verdicts) -> CardView:
    rows = list(verdicts.get(doc.slug, ()))
    psi = psi_of(rows)
    marks = {lang: [m._replace_href(f"#{anchor(doc.slug)}-claim-{m.claim_id}") for m in marks_for(rows, lang, psi)]
             for lang in ("zh", "en")}
    used: dict[str, set[str]] = {"zh": set(), "en": set()}
    sections = [(key, SECTION_TITLES[key], Html.of(text, marks, used)) for key, text in doc.sections.items()
                if not text.is_empty()]
    follow_ups = [(fu.id, Html.of(fu.question, marks, used), Html.of(fu.answer, marks, used))
                  for fu in doc.follow_ups]
    links = [(anchor(link.slug), titles[link.slug]) if link.slug in titles
             else ("", link.title if not link.title.is_empty() else LangText(en=link.slug))
             for link in doc.links]
    return CardView(doc, doc.title, sections, follow_ups, links,
                    [_verdict_view(v) for v in verdicts.get(doc.slug, ())])


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.globals["anchor"] = anchor
    return env


def _asset(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


def csp_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()


TS_FSRS = PROJECT_ROOT / "app" / "static" / "vendor" / "ts-fsrs"
STUDY_SCRIPTS = ("study_fsrs.js", "study_answers.js", "study.js")


@lru_cache(maxsize=1)
def _ts_fsrs() -> str:
    """The vendored ts-fsrs bundle with its licence (scripts/refresh-ts-fsrs.sh makes it)."""
    licence = (TS_FSRS / "LICENSE").read_text(encoding="utf-8").replace("*/", "* /")
    return f"/*! ts-fsrs: {licence} */\n" + (TS_FSRS / "ts-fsrs.min.js").read_text(encoding="utf-8") + "\n"


def study_script() -> str:
    """The study mode's part of the handbook's one script: ts-fsrs (with its licence), then ours."""
    return _ts_fsrs() + "".join(_asset(name) for name in STUDY_SCRIPTS)


def _study_view(study: StudyDeck) -> dict[str, Any]:
    templates = [SimpleNamespace(id=t.id, front=Html(rendered_html(t.front.zh), rendered_html(t.front.en)),
                                 back=Html(rendered_html(t.back.zh), rendered_html(t.back.en)))
                 for t in study.templates]
    return {"study": SimpleNamespace(data=study.data, templates=templates), "study_json": Markup(study.json())}


CYTOSCAPE = PROJECT_ROOT / "app" / "static" / "vendor" / "cytoscape"
GRAPH_SCRIPT = PROJECT_ROOT / "app" / "static" / "graph.js"


@lru_cache(maxsize=1)
def graph_script() -> str:
    """The graph's part of the handbook's one script: cytoscape (bundled from npm, with its licence), then
    the same app/static/graph.js that draws /graph (here opening a card's section instead of its page)."""
    licence = (CYTOSCAPE / "LICENSE").read_text(encoding="utf-8").replace("*/", "* /")
    return (f"/*! cytoscape: {licence} */\n" + (CYTOSCAPE / "cytoscape.min.js").read_text(encoding="utf-8") + "\n"
            + GRAPH_SCRIPT.read_text(encoding="utf-8") + "\n")


def graph_data(modules: Sequence[TocModule]) -> dict[str, list[dict[str, Any]]]:
    """``/api/graph``'s shape for the handbook's cards: nodes (slug, title, module code) and the links between
    cards of the handbook."""
    cards = [(mod.code or mod.label.en, c.doc) for mod in modules for t in mod.topics.values() for c in t.cards]
    slugs = {doc.slug for _, doc in cards}
    nodes = [{"slug": doc.slug, "title": {"zh": doc.title.zh, "en": doc.title.en}, "module": {"code": code}}
             for code, doc in cards]
    edges = sorted({(doc.slug, link.slug) for _, doc in cards for link in doc.links
                    if link.slug in slugs and link.slug != doc.slug})
    return {"nodes": nodes, "edges": [{"source": s, "target": t} for s, t in edges]}



def rendered_html(html: str) -> Markup:
    """HTML the server's renderer made (safe), with images that would load anything made text."""
    return Markup(offline(html))


def render_handbook(docs: Sequence[CardDoc], verdicts: Verdicts | None = None,
                    progress: Progress | None = None, study: StudyDeck | None = None) -> str:
    """The handbook HTML for ``docs`` (in the order given, grouped by module and topic); ``progress``
    shows the cards rendered, then the page assembled; ``study``: the review items (and a user's state) for
    its study mode (:mod:`app.export.study`), else none."""
    verdicts = verdicts or {}
    titles = {d.slug: d.title for d in docs}
    modules: dict[str, TocModule] = {}
    for doc in progress.each("rendering", docs, unit="cards") if progress else docs:
        mkey = doc.module.code or doc.module.en or doc.module.zh
        mod = modules.setdefault(mkey, TocModule(
            LangText(zh=doc.module.zh or doc.module.en or "未分类",
                     en=doc.module.en or doc.module.zh or "Unsorted"), doc.module.code))
        tkey = doc.topic.code or doc.topic.en or doc.topic.zh
        topic = mod.topics.setdefault(tkey, TocTopic(
            LangText(zh=doc.topic.zh or doc.topic.en or "其他", en=doc.topic.en or doc.topic.zh or "Other")))
        topic.cards.append(card_view(doc, titles, verdicts))
    if progress:
        progress.step("assembling the page")
    # one inline script: the ranking, the page, the graph (cytoscape and ours), then study mode (ts-fsrs and ours)
    script = (_asset("match.js") + _asset("handbook.js") + graph_script()
              + (study_script() if study is not None else ""))
    graph = graph_data(list(modules.values()))
    return _environment().get_template("handbook.html").render(
        modules=list(modules.values()), count=len(docs), css=Markup(_asset("handbook.css") + MARKS_CSS),
        script=Markup(script), script_hash=csp_hash(script), section_titles=SECTION_TITLES,
        search_index=Markup(offline_index_json(docs)), **(_study_view(study) if study is not None else {}),
        graph=graph, graph_json=Markup(script_json(graph)), graph_modules=list(modules.values()),
    )
