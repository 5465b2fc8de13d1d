"""The card page in headless Chromium: MathML laid out, the zh / en / both toggle, nothing remote."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from app.cards.cardfile import load_card_file
from app.deck.sync import card_files
from tests.utils.cards import write_cards
from tests.utils.webdeck import fixture_deck

ROOT = Path(__file__).resolve().parents[2]
MATHML_NS = "http://www.w3.org/1998/Math/MathML"
FIXTURE_SLUG = "zero-optimizer"

pytestmark = [pytest.mark.browser,
              pytest.mark.backend_agnostic("what Chromium lays out and toggles; "
                                           "the card queries behind the page run on both backends in tests/api")]


def bundled_slugs() -> list[str]:
    folder = ROOT / "cards"
    return [load_card_file(p).slug for p in card_files(folder)] if folder.is_dir() else []


@pytest.fixture
def cards_dir(tmp_path: Path) -> Path:
    """The bundled cards/ plus the fixture deck."""
    dest = tmp_path / "cards"
    if (ROOT / "cards").is_dir():
        shutil.copytree(ROOT / "cards", dest)
    return write_cards(dest, *[doc for doc in fixture_deck() if doc.slug not in bundled_slugs()])


@pytest.fixture
def watched(page: Any) -> Iterator[dict[str, list[str]]]:
    """Console errors, page errors and every requested URL of ``page``."""
    seen: dict[str, list[str]] = {"console": [], "requests": []}
    page.on("console", lambda m: seen["console"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen["console"].append(str(e)))
    page.on("request", lambda r: seen["requests"].append(r.url))
    yield seen


def assert_loopback_only(urls: list[str]) -> None:
    hosts = {urlsplit(u).hostname for u in urls if not u.startswith(("data:", "about:"))}
    assert hosts == {"127.0.0.1"}, urls


def test_card_page_math_is_laid_out_as_mathml(live_server: str, page: Any,
                                              watched: dict[str, list[str]]) -> None:
    page.goto(f"{live_server}/cards/{FIXTURE_SLUG}")
    maths = page.locator("math")
    assert maths.count() > 0
    assert page.locator(".math-fallback").count() == 0
    first = maths.first
    assert first.evaluate("e => e.namespaceURI") == MATHML_NS
    box = first.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0
    # a fraction is laid out as one: numerator above denominator (text rendering would put them side by side)
    frac = page.locator("#derivation math[display=block] mfrac").first
    num, den = frac.evaluate("f => [...f.children].map(c => c.getBoundingClientRect().toJSON())")
    assert num["bottom"] <= den["top"] + 1
    assert watched["console"] == []
    assert_loopback_only(watched["requests"])


def test_toggle_shows_one_language_and_remembers_it(live_server: str, page: Any,
                                                    watched: dict[str, list[str]]) -> None:
    page.goto(f"{live_server}/cards/{FIXTURE_SLUG}")
    zh = page.locator("#summary .lang-block.lang-zh")
    en = page.locator("#summary .lang-block.lang-en")
    assert zh.is_visible() and en.is_visible()
    page.keyboard.press("Tab")  # keyboard first: the skip link, the home link, then the toggle buttons
    assert page.evaluate("document.activeElement.className") == "skip"
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.setLang") == "zh"
    page.keyboard.press("Space")
    assert zh.is_visible() and en.is_hidden()
    assert page.get_by_role("button", name="中文").get_attribute("aria-pressed") == "true"
    page.reload()
    assert zh.is_visible() and en.is_hidden()
    page.get_by_role("button", name="English").click()
    assert zh.is_hidden() and en.is_visible()
    page.get_by_role("button", name="中 + En").click()
    assert zh.is_visible() and en.is_visible()
    assert watched["console"] == []


def test_without_javascript_both_languages_show(live_server: str, browser: Any) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        pg = context.new_page()
        pg.goto(f"{live_server}/cards/{FIXTURE_SLUG}")
        assert pg.locator("#summary .lang-block.lang-zh").is_visible()
        assert pg.locator("#summary .lang-block.lang-en").is_visible()
        assert pg.locator(".lang-toggle").is_hidden()
    finally:
        context.close()


def test_every_bundled_card_page_renders_cleanly(live_server: str, page: Any,
                                                 watched: dict[str, list[str]]) -> None:
    """The bundled cards (the seed card once merged) and the fixture card: MathML, no TeX fallback."""
    for slug in [*bundled_slugs(), FIXTURE_SLUG]:
        response = page.goto(f"{live_server}/cards/{slug}")
        assert response is not None and response.status == 200, slug
        assert page.locator(".math-fallback").count() == 0, slug
        source = page.locator("details.source pre").inner_text()
        if "$" in source:
            assert page.locator("math").count() > 0, slug
            assert page.locator("math").first.evaluate("e => e.namespaceURI") == MATHML_NS
    page.goto(f"{live_server}/?q=%E4%BC%98%E5%8C%96%E5%99%A8%E7%8A%B6%E6%80%81")  # 优化器状态
    assert page.locator(f'a.card-link[href="/cards/{FIXTURE_SLUG}"]').count() == 1
    assert watched["console"] == []
    assert_loopback_only(watched["requests"])
