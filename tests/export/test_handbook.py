"""The offline handbook in headless Chromium, opened from file:// with the network unreachable."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from app.cards.schema import CardDoc
from app.export.handbook import render_handbook
from harness.deck import token
from tests.utils.graph_page import click_node

MATHML = "http://www.w3.org/1998/Math/MathML"


class LiveMarkup(HTMLParser):
    """Collects what could run: script elements, on* handlers, javascript: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts = 0  # executable <script> elements
        self.data_blocks = 0  # <script type="application/json">: data the browser never runs
        self.problems: list[str] = []
        self.sources: list[str] = []  # src= values other than data: images

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            if (dict(attrs).get("type") or "").strip().lower() == "application/json":
                self.data_blocks += 1
            else:
                self.scripts += 1
        for name, value in attrs:
            if name == "src" and not (value or "").startswith("data:image/"):
                self.sources.append(f"<{tag} src={value!r}>")
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>")
            if name in ("href", "src", "action", "formaction", "xlink:href") and value and \
                    re.sub(r"[\s\x00-\x1f]", "", value).lower().startswith(("javascript:", "vbscript:", "data:text")):
                self.problems.append(f"<{tag} {name}={value!r}>")
        if tag in ("iframe", "object", "embed", "svg", "img", "link", "base", "form", "textarea", "meta") \
                and not (tag == "meta" and self.getpos()[0] < 10):  # the page's own <meta> lines
            self.problems.append(f"<{tag}>")


def live_markup(html: str) -> LiveMarkup:
    parser = LiveMarkup()
    parser.feed(html)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def handbook(deck: list[CardDoc], verdicts: dict[str, list[dict[str, object]]],
             tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("handbook") / "proofdeck.html"
    path.write_text(render_handbook(deck, verdicts), encoding="utf-8")
    return path


def test_handbook_is_one_inert_file(handbook: Path, deck: list[CardDoc]) -> None:
    html = handbook.read_text(encoding="utf-8")
    found = live_markup(html)
    assert (found.scripts, found.data_blocks) == (1, 2)  # the hashed script; its search index and graph (JSON)
    assert found.problems == []
    assert found.sources == []  # nothing to fetch: no src= at all, no <img>, <link>, <iframe> (problems)
    assert "@import" not in html and "url(" not in html and "@font-face" not in html
    assert html.count('<article class="card"') == len(deck)
    assert "katex" not in html.lower() and "mathjax" not in html.lower()


def test_handbook_is_deterministic(deck: list[CardDoc], verdicts: dict[str, list[dict[str, object]]],
                                   handbook: Path) -> None:
    assert render_handbook(deck, verdicts) == handbook.read_text(encoding="utf-8")


def test_empty_verdicts_show_no_verification(deck: list[CardDoc]) -> None:
    html = render_handbook(deck[:3], {})
    assert 'class="verdict' not in html and "Verification" not in html


def _open(browser: Any, handbook: Path, color_scheme: str = "light") -> tuple[Any, Any, list[str], list[str]]:
    context = browser.new_context(offline=True, color_scheme=color_scheme, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    url = handbook.as_uri()
    requests: list[str] = []
    dialogs: list[str] = []

    def route(r: Any) -> None:
        if r.request.url == url:
            r.continue_()
        else:
            requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    def on_request(req: Any) -> None:
        if req.url != url:
            requests.append(req.url)

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("request", on_request)
    page.on("dialog", on_dialog)
    page.goto(url)
    page.wait_for_load_state("load")
    return context, page, requests, dialogs


@pytest.mark.browser
def test_offline_handbook_in_chromium(browser: Any, handbook: Path, deck: list[CardDoc]) -> None:
    context, page, requests, dialogs = _open(browser, handbook)
    try:
        # math is MathML
        namespaces = page.evaluate("Array.from(document.querySelectorAll('math'), m => m.namespaceURI)")
        assert len(namespaces) > len(deck) and set(namespaces) == {MATHML}
        box = page.locator("article.card math").first.bounding_box()
        assert box and box["width"] > 5 and box["height"] > 5

        card = page.locator("article.card").first
        zh, en = card.locator("h3 .l-zh"), card.locator("h3 .l-en")
        assert zh.is_visible() and en.is_visible()
        page.get_by_role("button", name="English").click()
        assert en.is_visible() and not zh.is_visible()
        assert page.get_by_role("button", name="English").get_attribute("aria-pressed") == "true"
        page.get_by_role("button", name="中文").click()
        assert zh.is_visible() and not en.is_visible()
        page.get_by_role("button", name="中 + En").click()
        assert zh.is_visible() and en.is_visible()

        # search filters cards (and the table of contents)
        target = deck[37]
        page.locator("#q").fill(token(int(target.slug.split("-")[1])))
        expect(page.locator("#count")).to_have_text("1")
        assert page.locator("article.card:visible").count() == 1
        assert page.locator(f"#card-{target.slug}").is_visible()
        assert page.locator(".toc li:visible").count() == 1
        page.locator("#q").fill("no such words here")
        expect(page.locator("#count")).to_have_text("0")
        assert page.locator("#empty").is_visible()
        page.locator("#q").fill("")
        expect(page.locator("#count")).to_have_text(str(len(deck)))

        # follow-up answers stay hidden until their question is clicked
        follow_up = page.locator("details.fu").first
        answer = follow_up.locator(".answer")
        assert not answer.is_visible()
        follow_up.locator("summary").click()
        assert answer.is_visible()

        # verdicts are shown
        refuted = page.locator(".verdict.v-refuted").first
        assert refuted.is_visible() and "refuted" in refuted.inner_text()

        page.screenshot(path="/tmp/proofdeck-handbook-light.png")
        page.emulate_media(media="print")
        assert not page.locator("header.bar").is_visible() and not page.locator("nav.toc").is_visible()
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")  # printing shows every answer
        assert page.locator("details.fu:not([open])").count() == 0
        page.evaluate("window.dispatchEvent(new Event('afterprint'))")
        assert page.locator("details.fu[open]").count() == 1  # the one opened by hand above
        page.emulate_media(media="screen")
        assert requests == [] and dialogs == []
    finally:
        context.close()


@pytest.mark.browser
def test_offline_handbook_dark(browser: Any, handbook: Path) -> None:
    context, page, requests, dialogs = _open(browser, handbook, color_scheme="dark")
    try:
        bg = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        assert bg != "rgb(253, 253, 252)"
        page.locator("details.fu").nth(1).locator("summary").click()
        page.screenshot(path="/tmp/proofdeck-handbook-dark.png")
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path="/tmp/proofdeck-handbook-phone.png")
        assert requests == [] and dialogs == []
    finally:
        context.close()


@pytest.mark.browser
def test_offline_handbook_graph(browser: Any, handbook: Path, deck: list[CardDoc]) -> None:
    """The handbook's graph, from file:// with every other request aborted: cytoscape is inlined, it draws one
    node per card when the graph is opened, and a click on a node goes to that card's section."""
    context, page, requests, dialogs = _open(browser, handbook)
    try:
        assert page.evaluate("window.proofdeckGraph") is None  # drawn only when opened
        page.locator("#graph-view > summary").click()
        page.wait_for_function("window.proofdeckGraph !== undefined")
        assert page.evaluate("proofdeckGraph.nodes().length") == len(deck)
        slugs = {d.slug for d in deck}
        linked = {(d.slug, link.slug) for d in deck for link in d.links if link.slug in slugs - {d.slug}}
        assert page.evaluate("proofdeckGraph.edges().length") == len(linked) > 0
        assert sorted(page.evaluate("proofdeckGraph.nodes().map(n => n.id())")) == sorted(slugs)
        target = deck[len(deck) // 3]
        click_node(page, target.slug)
        page.wait_for_function("s => location.hash === '#card-' + s", arg=target.slug)
        expect(page.locator(f"#card-{target.slug}")).to_be_in_viewport()
        assert requests == [] and dialogs == []
    finally:
        context.close()
