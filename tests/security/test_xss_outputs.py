"""The XSS corpus (``tests/utils/xss.py``) through each output of the latest round of work, listed in
``OUTPUTS``: a card page's automatic statement verdict marks, the ``/graph`` page, and the offline
handbook's study mode (``file://``). Each output is checked twice: its HTML as served or written (nothing
but the page's own scripts and elements, ``tests/utils/html.markup_report``), and its live DOM in headless
Chromium after the page's scripts have run and we have clicked, typed and hovered: no dialog,
``window.__xss`` unset, no ``on*`` attribute, no script URL, no script without the page's nonce.

The statement marks come from the real judge: each payload stands in a paragraph next to a wrong product
(``4 × 8 GB = 40 GB``) in both languages, ``verify.judge.statements.card.judge_text`` refutes it, and the run
is stored as ``proofdeck verify`` stores it, so the marked sentence the page wraps carries the payload.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session

from harness.db import fresh_database_url
from harness.server import uvicorn_server
from tests.security.test_xss_browser import POKE, POKE_STUDY, assert_nothing_ran, click_around
from tests.security.test_xss_everywhere import (
    GRAPH_ELEMENTS,
    PAGE_ELEMENTS,
    assert_inert,
    handbook_elements,
    handbook_script,
)
from tests.utils.cards import make_card, write_cards
from tests.utils.html import markup_report
from tests.utils.xss import PAYLOADS, hostile_card, hostile_report, one_line

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.backend_agnostic("what Chromium executes of stored text; "
                                           "the text round-trips both backends unchanged in tests/api")]

ALL, MARKS = "xss-all", "xss-marks"
WRONG = {"zh": "显存为 4 × 8 GB = 40 GB", "en": "Memory is 4 × 8 GB = 40 GB"}  # the judge: 32 GB, not 40 GB


def marks_card() -> Any:
    """Every payload before and after a wrong product, one paragraph each, in both languages."""
    text = {lang: "\n\n".join(f"{one_line(p)} {claim} {one_line(p)}." for p in PAYLOADS)
            for lang, claim in WRONG.items()}
    return make_card(MARKS, title={"zh": f"标记 {one_line(PAYLOADS[0])}", "en": f"Marks {one_line(PAYLOADS[2])}"},
                     sections={"summary": text}, links=[{"slug": ALL}])


@dataclass
class Site:
    base: str
    handbook: Path
    refuted: int  # statement verdicts the judge stored for MARKS


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    from app.auth.users import create_user
    from app.core.db import make_engine
    from app.deck.sync import sync_cards
    from app.items.items import refresh_after_verdicts
    from app.models.migrate import init_db
    from app.models.user import UserSettings
    from app.verification.store import store_report
    from tests.utils.handbook import write_handbook
    from verify.judge.statements.card import judge_text

    tmp = tmp_path_factory.mktemp("xss-outputs")
    cards = write_cards(tmp / "cards", hostile_card(ALL, link_to=MARKS), marks_card(), make_card("plain"))
    judged = judge_text((cards / f"{MARKS}.md").read_text(encoding="utf-8"), MARKS)
    rows = [{**v.to_dict(), "method": v.judge} for v in judged.verdicts]
    refuted = sum(v.verdict == "refuted" for v in judged.verdicts)
    assert refuted >= len(PAYLOADS), judged.counts()  # most payloads next to a judged statement, both languages
    with fresh_database_url(tmp) as url:
        engine = make_engine(url)
        try:
            init_db(engine)
            sync_cards(engine, cards)
            with Session(engine) as s:
                store_report(s, {**hostile_report([hostile_card(ALL)]), "statements": rows})
            with Session(engine) as s:
                refresh_after_verdicts(s)
            with Session(engine) as s, s.begin():
                user, _token = create_user(s, "tess")
                user_id = user.id
                assert user_id is not None
            with Session(engine) as s, s.begin():
                settings = s.get(UserSettings, user_id) or UserSettings(user_id=user_id)
                settings.new_per_day = 1000  # every new item in today's study session
                s.add(settings)
            handbook = write_handbook(engine, tmp / "handbook.html", "tess")
        finally:
            engine.dispose()
        with uvicorn_server(url, cards, env={"PROOFDECK_SYNC_ON_STARTUP": "false"}) as base:
            yield Site(base, handbook, refuted)


# the live DOM after the page's scripts ran: what would run or navigate to script, by name
LIVE_PROBLEMS = """() => {
  const urls = ["href", "src", "action", "formaction", "xlink:href", "data", "poster", "background"];
  const bad = [];
  for (const el of document.querySelectorAll("*")) {
    const tag = el.tagName.toLowerCase();
    if (["iframe", "frame", "object", "embed", "base", "applet", "portal"].includes(tag)) bad.push("<" + tag + ">");
    for (const a of el.attributes) {
      const name = a.name.toLowerCase(), value = a.value.replace(/[\\x00-\\x20\\x7f]+/g, "").toLowerCase();
      if (name.startsWith("on")) bad.push("<" + tag + " " + name + ">");
      if (name === "srcdoc") bad.push("<" + tag + " srcdoc>");
      if (urls.includes(name) && /^(javascript|vbscript|data:text)/.test(value)) {
        bad.push("<" + tag + " " + name + "=" + value + ">");
      }
    }
  }
  const scripts = [...document.querySelectorAll("script")].filter(s => !s.type || /javascript|module/.test(s.type))
    .map(s => ({src: s.getAttribute("src") || "", nonce: s.hasAttribute("nonce")}));
  return {bad, scripts};
}"""


def _card_with_marks(page: Any, dialogs: list[str], site: Site) -> None:
    page.goto(f"{site.base}/cards/{MARKS}")
    marks = page.locator("mark.claim-mark-refuted")
    assert marks.count() >= site.refuted // 2, marks.count()  # a mark per refuted statement the page could place
    shown = " ".join(marks.all_inner_texts())
    assert "<script>window.__xss=1</script>" in shown and "40 GB" in shown  # the payloads, as text
    notes = page.locator(".mark-note")
    assert notes.count() >= marks.count() and "32 GB" in notes.first.inner_text()  # the judge's correction
    click_around(page, dialogs, "statement marks")


def _graph(page: Any, dialogs: list[str], site: Site) -> None:
    page.goto(f"{site.base}/graph")
    page.locator("#graph").wait_for(state="visible")  # graph.js ran: cytoscape drew the deck
    listed = page.locator("#graph-cards").inner_text()
    assert "<script>window.__xss=1</script>" in listed and "<img src=x onerror=" in listed
    for query in ("script", one_line(PAYLOADS[2]), "Marks", "onerror"):
        page.locator("#graph-search").fill(query)
        page.evaluate(POKE)
    assert page.locator("#graph-focus").inner_text()  # the search focused a node and named it, as text
    page.locator("#graph").focus()
    for key in ("Tab", "ArrowRight", "ArrowDown"):
        page.keyboard.press(key)


def _study_mode(page: Any, dialogs: list[str], site: Site) -> None:
    page.goto(site.handbook.as_uri() + "#study")
    page.locator("#s-kind").wait_for(state="visible")
    kinds: set[str] = set()
    for step in range(24):  # the hostile cards' items, faces revealed and graded in every language
        if page.locator("#s-done").is_visible():
            break
        kinds.add(page.locator("#s-kind").inner_text())
        page.locator(f"[data-set-lang={('zh', 'en', 'both')[step % 3]}]").first.click()
        typed = page.locator("#s-typed").is_visible()
        if typed:  # a drill: answer it, see the worked solution
            page.locator("#s-answer").fill("1")
            page.keyboard.press("Enter")
        else:
            page.keyboard.press("Space")
        page.locator("#s-back").wait_for(state="visible")
        page.evaluate(POKE_STUDY)
        page.keyboard.press("Space" if typed else "3")
    assert len(kinds) >= 2, kinds


def _page_served(path: str, allowed: frozenset[Any]) -> Callable[[Site], None]:
    """The page as served: no element but the page's own, and no script but those carrying the response's
    CSP nonce (the language toggle, the page's own files) and JSON data blocks that never run."""
    def check(site: Site) -> None:
        response = httpx.get(f"{site.base}{path}", timeout=30)
        assert response.status_code == 200
        nonce = re.search(r"'nonce-([^']+)'", response.headers["content-security-policy"])
        assert nonce
        found, problems = markup_report(response.text, allowed=allowed)
        assert problems == [], (path, problems)
        assert found and all(attrs.get("nonce") == nonce.group(1) or attrs.get("type") == "application/json"
                             for attrs, _text in found), (path, found)
        assert all("<" not in text for attrs, text in found if attrs.get("type") == "application/json")
    return check


def _handbook_written(site: Site) -> None:
    text = site.handbook.read_text(encoding="utf-8")
    assert_inert(text, "handbook", scripts=handbook_script(text), allowed=handbook_elements(text))


@dataclass(frozen=True)
class Output:
    name: str
    visit: Callable[[Any, list[str], Site], None]  # drive it in Chromium, asserting the payloads are shown
    markup: Callable[[Site], None]  # its HTML as served or written: only the page's own scripts and elements
    own_scripts: str  # what runs in it: "nonce" (each script the response's), or "one" (the handbook's)


OUTPUTS = (Output("statement verdict marks on a card page", _card_with_marks,
                  _page_served(f"/cards/{MARKS}", PAGE_ELEMENTS), "nonce"),
           Output("the /graph page", _graph, _page_served("/graph", GRAPH_ELEMENTS), "nonce"),
           Output("the handbook's study mode (file://)", _study_mode, _handbook_written, "one"))


@pytest.mark.parametrize("output", OUTPUTS, ids=[o.name for o in OUTPUTS])
def test_output_runs_nothing_from_card_text(site: Site, hostile_page: tuple[Any, list[str]], output: Output) -> None:
    page, dialogs = hostile_page
    output.markup(site)
    output.visit(page, dialogs, site)
    page.evaluate(POKE)
    assert_nothing_ran(page, dialogs, output.name)
    live = page.evaluate(LIVE_PROBLEMS)
    assert live["bad"] == [], (output.name, live["bad"][:10])
    if output.own_scripts == "one":  # the handbook's one script (its CSP names the hash), no other
        assert live["scripts"] == [{"src": "", "nonce": False}], live["scripts"]
    else:  # the page's own, each carrying the response's nonce
        assert live["scripts"] and all(s["nonce"] for s in live["scripts"]), live["scripts"]
