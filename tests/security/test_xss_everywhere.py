"""The XSS corpus (``tests/utils/xss.py``) in every card field and every verdict text, through every
output: API HTML, pages, quiz items, Obsidian notes and zip, the offline handbook, the Anki package
(read back and rendered by the real Anki backend). Nothing may become live markup."""

from __future__ import annotations

import html
import io
import re
import secrets
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from sqlmodel import Session, col, select

from app.cards.schema import CardDoc
from app.export.tex import unsafe_tex
from harness.db import fresh_database_url
from tests.utils.cards import make_card, write_cards
from tests.utils.fetch_site import TYPED_URL
from tests.utils.html import element, markup_report, script_url
from tests.utils.xss import PAYLOADS, hostile_card, hostile_report

pytestmark = pytest.mark.backend_agnostic("escaping in every output; "
                                          "the stored text round-trips both backends unchanged in tests/api")

ALL = "xss-all"  # every payload in every field; xss-00 ... one payload each; "plain": no payload
PAGE_ELEMENTS = frozenset({  # what base.html, _quiz_base.html and the page templates carry themselves
    element("meta", charset="utf-8"), element("meta", name="viewport", content="width=device-width, initial-scale=1"),
    element("meta", name="color-scheme", content="light dark"), element("link", rel="icon", href="data:,"),
    element("link", rel="stylesheet", href="/static/proofdeck.css"),
    element("link", rel="stylesheet", href="/static/quiz.css"),
    element("link", rel="stylesheet", href="/static/marks.css"),
    element("form", class_="search", method="get", action="/", role="search"),
    element("form", method="post", action="/logout", class_="logout"),
    element("form", method="post", action="/logout/everywhere", class_="logout"),
    element("form", id="typed-form", class_="typed", hidden=""),
    element("form", method="post", action="/quiz/settings", class_="settings"),
    element("form", class_="paste", method="get", action="/quiz/study", role="search"),
})


def deck() -> list[CardDoc]:
    return [hostile_card(ALL, link_to="xss-00"), *(hostile_card(f"xss-{i:02d}", (p,)) for i, p in enumerate(PAYLOADS)),
            make_card("plain")]


@dataclass
class Site:
    client: TestClient  # logged in (session cookie) as "tess"
    docs: list[CardDoc]
    user_id: int


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    from app.auth.links import issue_link
    from app.auth.users import create_user
    from app.main import create_app
    from app.verification.store import store_report

    tmp = tmp_path_factory.mktemp("xss")
    docs = deck()
    cards = write_cards(tmp / "cards", *docs)
    with fresh_database_url(tmp) as url:
        app = create_app(database_url=url, cards_dir=cards, sync_on_startup=True)
        with TestClient(app) as client:
            with Session(app.state.engine) as s:
                store_report(s, hostile_report(docs[:-1]))
            with Session(app.state.engine) as s, s.begin():
                user, _api_token = create_user(s, "tess")
                user_id = user.id
                token = issue_link(s, user)
            assert user_id is not None
            assert client.get(f"/login?token={token}", headers=TYPED_URL).url.path == "/quiz"
            yield Site(client, docs, user_id)
        app.state.engine.dispose()


def assert_inert(html_text: str, where: str, *, scripts: list[tuple[dict[str, str], str]] | None = None,
                 allowed: frozenset[Any] = frozenset()) -> None:
    """No problem in ``html_text``, and its scripts exactly ``scripts`` (the page's own; none by default)."""
    found, problems = markup_report(html_text, allowed=allowed)
    assert problems == [], (where, problems)
    assert found == (scripts or []), (where, found)


def nonce_scripts(response: Any) -> list[tuple[dict[str, str], str]]:
    """The scripts a page may run: those carrying this response's CSP nonce (by the policy)."""
    nonce = re.search(r"'nonce-([^']+)'", response.headers["content-security-policy"])
    found, _ = markup_report(response.text)
    assert nonce and found, "a page with the language toggle has its nonce script"
    assert all(attrs == {"nonce": nonce.group(1)} for attrs, _ in found), found
    return found


def test_the_corpus_reaches_every_field(site: Site) -> None:
    body = site.client.get(f"/api/cards/{ALL}").json()
    text = str(body)
    for p in ("<script>", "onerror", "javascript:", "[sound:", "{{c1::"):
        assert p in text
    verification = site.client.get(f"/api/cards/{ALL}/verification")
    assert verification.status_code == 200 and "onerror" in verification.text


def html_fields(data: Any) -> Iterator[tuple[str, str]]:
    """Every ``html`` value (language → HTML) anywhere in a JSON document, with its path."""
    def walk(value: Any, path: str) -> Iterator[tuple[str, str]]:
        if isinstance(value, dict):
            for k, v in value.items():
                if k == "html" and isinstance(v, dict):
                    yield from ((f"{path}.html.{lang}", h) for lang, h in v.items())
                else:
                    yield from walk(v, f"{path}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield from walk(v, f"{path}[{i}]")
    yield from walk(data, "")


def test_api_html_fields(site: Site) -> None:
    checked = 0
    for doc in site.docs:
        data = site.client.get(f"/api/cards/{doc.slug}").json()
        for path, value in html_fields(data):
            assert_inert(value, f"{doc.slug}{path}")
            checked += 1
    assert checked >= 18 * len(site.docs)  # 5 sections, 2 follow-ups, link, claim: zh and en


def test_card_pages_and_index(site: Site) -> None:
    plain = site.client.get("/cards/plain")
    own = nonce_scripts(plain)
    for doc in site.docs:
        r = site.client.get(f"/cards/{doc.slug}")
        assert r.status_code == 200
        assert_inert(r.text, doc.slug, scripts=nonce_scripts(r), allowed=PAGE_ELEMENTS)
        assert [s for _, s in nonce_scripts(r)] == [s for _, s in own]
    assert 'class="claim-verdict verdict-conditional"' in site.client.get(f"/cards/{ALL}").text
    for query in ("", "?tag=" + PAYLOADS[0], "?q=%3Cscript%3E", "?module=x%22onmouseover%3D1"):
        r = site.client.get("/" + query)
        assert r.status_code in (200, 422)
        assert_inert(r.text, f"index{query}", scripts=nonce_scripts(r), allowed=PAGE_ELEMENTS)
        assert [s for _, s in nonce_scripts(r)] == [s for _, s in own]


GRAPH_ELEMENTS = PAGE_ELEMENTS | {
    element("link", id="__________cytoscape_stylesheet", rel="stylesheet", href="/static/graph.css"),
    element("form", class_="search graph-tools", id="graph-tools", role="search", hidden="")}


def test_graph_page_carries_titles_as_data(site: Site) -> None:
    """/graph: the hostile titles are in the list as text and in the JSON block as data that parses back to
    /api/graph; the page runs only its nonce scripts (the toggle, cytoscape, graph.js)."""
    import json

    r = site.client.get("/graph")
    assert r.status_code == 200
    nonce = re.search(r"'nonce-([^']+)'", r.headers["content-security-policy"])
    assert nonce
    found, problems = markup_report(r.text, allowed=GRAPH_ELEMENTS)
    assert problems == [], problems
    data = [text for attrs, text in found if attrs == {"type": "application/json", "id": "graph-data"}]
    api = site.client.get("/api/graph").json()
    assert len(data) == 1 and json.loads(data[0]) == api
    assert any("<" in n["title"]["zh"] + n["title"]["en"] for n in api["nodes"])  # hostile titles are in it
    assert "</" not in data[0] and "<" not in data[0]  # tojson escapes: no title can close the block
    run = [attrs for attrs, _ in found if attrs.get("type") != "application/json"]
    assert run == [{"nonce": nonce.group(1)},
                   {"nonce": nonce.group(1), "src": "/static/vendor/cytoscape/cytoscape.min.js"},
                   {"nonce": nonce.group(1), "src": "/static/graph.js"}], run

SAME_SITE = {"Origin": "http://testserver"}  # what the browser adds to quiz.js's requests


def test_quiz_pages_and_every_item(site: Site) -> None:
    from app.models import Card, ReviewItem
    from app.review.service import chain, item_view
    from app.srs.scheduler import now_utc

    c = site.client
    for path in ("/quiz", "/quiz/stats"):
        r = c.get(path)
        assert r.status_code == 200 and r.url.path == path
        assert_inert(r.text, path, scripts=[({"src": "/static/quiz.js", "defer": ""}, "")]
                     if path == "/quiz" else [], allowed=PAGE_ELEMENTS)
    study = c.get("/quiz/study", params={"q": "script onerror javascript"})  # hostile titles in the study list
    assert study.status_code == 200 and 'id="study-cards"' in study.text
    assert_inert(study.text, "/quiz/study", scripts=[({"src": "/static/quiz.js", "defer": ""}, "")],
                 allowed=PAGE_ELEMENTS)
    c.put("/api/review/settings", json={"new_per_day": 500}, headers=SAME_SITE)  # as quiz.js, from our page
    # what the quiz script puts into the page: every item's faces, and each card's chain
    engine = c.app.state.engine  # type: ignore[attr-defined]
    kinds: set[str] = set()
    with Session(engine) as s:
        rows = s.exec(select(ReviewItem, Card).join(Card, col(Card.id) == ReviewItem.card_id)
                      .where(col(Card.slug).startswith("xss-"))).all()
        for item, card in rows:
            view = item_view(s, site.user_id, item, card, None)
            kinds.add(item.kind)
            for side in ("front", "back"):
                for lang, value in (view[side] or {}).items():
                    assert_inert(value, f"{card.slug} {item.kind} {item.key} {side} {lang}")
            if item.kind == "card":
                for fu in chain(s, site.user_id, item.id or 0, now_utc())["followups"]:
                    assert_inert(fu["front"]["en"] + fu["back"]["en"], f"{card.slug} chain")
    assert {"card", "followup", "drill"} <= kinds
    # and the same through the API, answering as the quiz does (drills typed, then their solution)
    seen = 0
    for _ in range(30):
        data = c.get("/api/review/next").json()
        item = data["item"]
        if item is None:
            break
        shown = [v for side in ("front", "back") for v in (item[side] or {}).values()]
        body: dict[str, Any] = {"item_id": item["id"], "idempotency_key": secrets.token_hex(8)}
        body |= {"typed_answer": "1", "showing_id": item["showing_id"]} if item["typed"] else {"rating": 3}
        answer = c.post("/api/review", json=body, headers=SAME_SITE)
        assert answer.status_code == 200, answer.text
        shown += list((answer.json().get("solution") or {}).values())
        if item["kind"] == "card":
            links = c.get(f"/api/review/chain/{item['id']}").json()["links"]
            assert all(lk["url"] is None or lk["url"].startswith("/cards/") for lk in links)
        for value in shown:
            assert_inert(value, f"api item {item['kind']} {item['key']}")
            seen += 1
    assert seen > 30


NOTE_PARSER = (MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
               .use(dollarmath_plugin, allow_space=False, allow_digits=True, double_inline=True))
NOTE_PARSER.validateLink = lambda url: True  # type: ignore[method-assign]  # a lenient renderer: every link target is kept ...
NOTE_PARSER.normalizeLink = lambda url: url  # type: ignore[method-assign]  # ... as written (entities and escapes decoded)


def tokens(text: str) -> Iterator[Token]:
    stack = list(reversed(NOTE_PARSER.parse(text)))
    while stack:
        tok = stack.pop()
        yield tok
        stack.extend(reversed(tok.children or []))


def assert_inert_note(text: str, where: str) -> int:
    """Obsidian Markdown (rendered with raw HTML on, as Obsidian does): no raw HTML at all, no link or
    image whose target is a script URL, no MathJax command that makes links or attributes
    (``[[``/``%%`` escapes: tests/export/test_obsidian_text.py). The properties block
    (YAML, shown by Obsidian as plain values) must parse; the Markdown starts after it."""
    if text.startswith("---\n"):
        front, text = text[4:].split("\n---\n", 1)
        assert isinstance(yaml.safe_load(front), dict), where
    math = 0
    for tok in tokens(text):
        assert tok.type not in ("html_inline", "html_block"), (where, tok.content)
        if tok.type.startswith("math"):  # Obsidian hands these to MathJax
            assert not unsafe_tex(tok.content), (where, tok.content)
            math += 1
        target = tok.attrGet("href") or tok.attrGet("src")
        if tok.type in ("link_open", "image") and target:
            assert not script_url(html.unescape(str(target))), (where, target)
            assert not re.match(r"[a-z][a-z0-9+.-]*:", str(target).lower()) or \
                str(target).lower().startswith(("http:", "https:", "mailto:")), (where, target)
    return math


def test_obsidian_notes_and_zip(site: Site) -> None:
    data = site.client.get("/api/export/obsidian.zip").content
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        notes = {name: zf.read(name).decode("utf-8") for name in zf.namelist()}
    assert len(notes) > len(site.docs)  # a note per card, an index per module, the deck index
    math = 0
    for name, text in notes.items():
        parts = name.split("/")
        assert parts[0] == "proofdeck" and ".." not in parts and all(parts) and not name.startswith("/")
        assert not re.search(r'[<>:"\\|?*\x00-\x1f]', name), name
        math += assert_inert_note(text, name)
    assert math > 0
    for slug in ("plain", "xss-00", ALL):  # one note over HTTP is the same note as in the vault
        r = site.client.get(f"/api/cards/{slug}.md")
        assert r.status_code == 200 and r.text in notes.values()
    assert "&lt;script>window.__xss=1&lt;/script>" in r.text  # the text is there, shown as text


def handbook_script(text: str) -> list[tuple[dict[str, str], str]]:
    """The handbook's one script, the one whose hash its CSP names (its search, the graph: cytoscape and
    graph.js, then study mode: ts-fsrs and ours), after its data: the search index, the graph and the study
    items, JSON blocks (never run) with no ``<`` that could close them."""
    import base64
    import hashlib
    import json

    from app.core.config import PROJECT_ROOT
    from app.export.handbook import graph_script, study_script

    script = "".join((PROJECT_ROOT / "templates" / name).read_text(encoding="utf-8")
                     for name in ("match.js", "handbook.js")) + graph_script() + study_script()
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in text
    data = re.search(r'<script type="application/json" id="search-index">([^<]*)</script>', text)
    study = re.search(r'<script type="application/json" id="study-data">([^<]*)</script>', text)
    assert data and json.loads(data.group(1))["slugs"]
    assert study and json.loads(study.group(1))["items"]
    graph = re.search(r'<script type="application/json" id="graph-data">([^<]*)</script>', text)
    assert graph and json.loads(graph.group(1))["nodes"]
    return [({"type": "application/json", "id": "study-data"}, study.group(1)),
            ({"type": "application/json", "id": "search-index"}, data.group(1)),
            ({"type": "application/json", "id": "graph-data"}, graph.group(1)), ({}, script)]


HANDBOOK_ELEMENTS = frozenset({element("meta", charset="utf-8"),
                               element("meta", name="viewport", content="width=device-width, initial-scale=1"),
                               element("meta", name="referrer", content="no-referrer")})


def handbook_elements(text: str) -> frozenset[Any]:
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', text)
    assert csp and text.index(csp.group(0)) < text.index("<title>")  # in <head>, before any card text
    style = re.search(r"<style>", text)
    assert style and text.count("<style>") == 1
    return HANDBOOK_ELEMENTS | {element("meta", http_equiv="Content-Security-Policy",
                                        content=html.unescape(csp.group(1))), element("style")}


def test_offline_handbook(site: Site) -> None:
    r = site.client.get("/api/export/handbook.html")
    assert r.status_code == 200
    assert_inert(r.text, "handbook", scripts=handbook_script(r.text), allowed=handbook_elements(r.text))
    assert r.text.count('<article class="card"') == len(site.docs)


MATHJAX = re.compile(r"\\[(\[](.*?)\\[)\]]", re.S)  # \(..\) and \[..\]


def test_anki_package_in_the_real_backend(site: Site, tmp_path: Path) -> None:
    from anki.collection import Collection, ImportAnkiPackageRequest
    from anki.import_export_pb2 import ImportAnkiPackageOptions

    from app.export.anki import MODEL, card_notes, owner_of, write_package
    from app.export.deck import load_docs, load_verdicts

    engine = site.client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as s:
        docs, verdicts = load_docs(s), load_verdicts(s)
    path = tmp_path / "x.apkg"
    write_package(docs, path, verdicts, timestamp=1.0)
    (tmp_path / "c").mkdir()
    collection = Collection(str(tmp_path / "c" / "collection.anki2"))
    try:
        collection.import_anki_package(ImportAnkiPackageRequest(package_path=str(path),
                                                                options=ImportAnkiPackageOptions()))
        note_ids, math = collection.find_notes(""), 0
        owner = owner_of(docs)
        assert len(note_ids) == sum(len(card_notes(d, verdicts, owns_ledger=d.slug == owner))
                                    for d in docs)  # one note per review item
        for nid in note_ids:
            note = collection.get_note(nid)
            for value in note.values():
                assert_inert(value, f"note {note['Key']}")
                for tex in MATHJAX.findall(value):  # what Anki's MathJax typesets
                    assert not unsafe_tex(tex), (note["Key"], tex)
                    math += 1
            assert all("<" not in t and ">" not in t for t in note.tags)
            for card in note.cards():
                for side, rendered in (("question", card.question()), ("answer", card.answer())):
                    css, shown = rendered.split("</style>", 1)  # Anki puts the note type's CSS first
                    assert css == f"<style>{MODEL.css}", (note["Key"], css)
                    assert_inert(shown, f"{note['Key']} {side}")
                assert card.question_av_tags() == [] and card.answer_av_tags() == [], note["Key"]
        assert math > 0
    finally:
        collection.close()


@pytest.mark.parametrize("target", ["javascript:window.__xss=1", "JaVaScRiPt:alert(1)", "//127.0.0.1:9/x",
                                    "/\t/127.0.0.1:9/x", "/\\127.0.0.1:9", " /x", "/x\n/y", "data:text/html,x"])
def test_login_next_never_leaves_the_site(site: Site, target: str) -> None:
    """The login page puts ``next`` into a link and a redirect: only same-site paths get there."""
    page = site.client.get("/login", params={"next": target})
    assert_inert(page.text, "login", allowed=PAGE_ELEMENTS | {
        element("form", method="post", action="/login", class_="stack")})
    assert 'href="/quiz"' in page.text and 'name="next" value="/quiz"' in page.text
    from app.auth.links import issue_link
    from app.models.user import User

    with Session(site.client.app.state.engine) as s, s.begin():  # type: ignore[attr-defined]
        link = issue_link(s, s.get_one(User, site.user_id))  # a link signs in once
    r = site.client.get("/login", params={"token": link, "next": target}, follow_redirects=False,
                        headers=TYPED_URL)
    assert r.headers["location"] == "/quiz"


@pytest.mark.parametrize("path", ["/cards/%3Cscript%3Ewindow.__xss=1%3C%2Fscript%3E", "/cards/x%22onmouseover=1",
                                  "/api/cards/%3Cimg%20src=x%20onerror=1%3E", "/%3Csvg%20onload=1%3E"])
def test_error_pages_echo_no_markup(site: Site, path: str) -> None:
    r = site.client.get(path)
    assert r.status_code == 404
    if r.headers["content-type"].startswith("text/html"):
        assert_inert(r.text, path, scripts=nonce_scripts(r) if "<script" in r.text else [], allowed=PAGE_ELEMENTS)
    else:
        assert r.headers["content-type"].startswith("application/json")
