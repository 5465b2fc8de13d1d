"""The HTML pages: ``/`` grouped by module and topic with search, ``/cards/{slug}``, error pages."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from tests.render.test_markdown_safety import XSS_CORPUS
from tests.utils.cards import make_card, write_cards
from tests.utils.html import assert_safe

HTML = {"accept": "text/html"}


def test_index_groups_cards_by_module_then_topic(read_client: TestClient) -> None:
    r = read_client.get("/")
    assert r.status_code == 200
    assert r.template.name == "index.html"
    groups = r.context["groups"]
    assert [(m.label.code, [(t.label.code, [c.slug for c in t.cards]) for t in m.topics]) for m in groups] == [
        ("M3", [("dist", ["ring-allreduce", "zero-optimizer"]), ("tp", ["tensor-parallel"])]),
        ("M4", [("attn", ["attention-flops"])]),
    ]
    html = r.text.split("</form>", 1)[1]  # the listing, after the filter selects
    assert html.index("深度学习基础") < html.index("分布式训练") < html.index("环形 All-Reduce") \
        < html.index("模型并行") < html.index("Transformers") < html.index("注意力的计算量")
    assert '<a class="card-link" href="/cards/zero-optimizer">' in html
    assert "共 4 张卡片" in r.text and "4 cards" in r.text


def test_index_search_is_a_get_form_with_filters(read_client: TestClient) -> None:
    html = read_client.get("/").text
    form = re.search(r'<form class="search" method="get" action="/" role="search">.*?</form>', html, re.S)
    assert form is not None
    for name in ("q", "module", "topic", "difficulty", "tag"):
        assert f'name="{name}"' in form.group(0)
    assert '<option value="M3">M3 · 深度学习基础 · Deep Learning Foundations</option>' in form.group(0)


def test_index_search_ranks_chinese_questions(read_client: TestClient) -> None:
    r = read_client.get("/", params={"q": "优化器状态"})
    hits = r.context["hits"]
    assert hits[0].card.slug == "zero-optimizer"  # ranked by app.search (tests/search has the details)
    assert 'value="优化器状态"' in r.text
    assert f"4 张中匹配 {len(hits)} 张" in r.text and f"{len(hits)} of 4 cards match" in r.text


def test_index_filters_and_no_match(read_client: TestClient) -> None:
    r = read_client.get("/", params={"difficulty": "hard"})
    assert '<a class="card-link" href="/cards/tensor-parallel">' in r.text
    assert "/cards/zero-optimizer" not in r.text
    assert '<option value="hard" selected>' in r.text
    r = read_client.get("/", params={"q": "no such words"})
    assert "No card matches." in r.text


def test_index_bad_filter_says_so(read_client: TestClient) -> None:
    r = read_client.get("/", params={"difficulty": "extreme"})
    assert r.status_code == 422
    assert "difficulty &#39;extreme&#39; is not one of easy, medium, hard" in r.text


def test_card_page_renders_every_part(read_client: TestClient) -> None:
    r = read_client.get("/cards/zero-optimizer")
    assert r.status_code == 200
    assert r.template.name == "card.html"
    assert r.context["card"].slug == "zero-optimizer"
    html = r.text
    assert '<span class="lang-zh title-zh" lang="zh">ZeRO 显存分片</span>' in html
    assert '<span class="lang-en title-en" lang="en">ZeRO memory sharding</span>' in html
    for heading in ("核心结论", "Summary", "数学推导", "Derivation", "Follow-up questions", "Related cards"):
        assert heading in html
    assert html.count('<div class="lang-block lang-zh" lang="zh">') == html.count(
        '<div class="lang-block lang-en" lang="en">')
    # derivation zh + en, the follow-up answer's m and v, the claim zh + en, and the claims list's one-line quote
    # zh + en (math rendered there too, not raw TeX)
    assert html.count("<math ") == 8
    assert '<span class="difficulty difficulty-easy">easy</span>' in html
    assert '<a href="/?tag=zero">zero</a>' in html


def test_card_page_hides_answers_in_details(read_client: TestClient) -> None:
    html = read_client.get("/cards/zero-optimizer").text
    item = re.search(r'<li id="fu-why-optimizer">.*?</li>', html, re.S)
    assert item is not None
    question, details = item.group(0).split("<details>", 1)
    assert "为什么优化器状态最大？" in question and "Adam keeps" not in question
    assert "Adam keeps" in details


def test_card_page_links_resolved_and_unresolved(read_client: TestClient) -> None:
    html = read_client.get("/cards/zero-optimizer").text
    assert ('<a href="/cards/ring-allreduce"><span class="lang-zh" lang="zh">环形 All-Reduce</span>'
            '<span class="lang-sep" aria-hidden="true"> · </span>'
            '<span class="lang-en" lang="en">Ring all-reduce</span></a>') in html
    assert '<a href="/cards/tensor-parallel"><span class="lang-zh" lang="zh">张量并行</span>' in html
    assert '<span class="unresolved"><span class="lang-zh" lang="zh">不存在的卡片</span>' in html
    assert 'href="/cards/missing-card"' not in html


def test_card_page_lists_claims_in_the_verification_block(read_client: TestClient) -> None:
    html = read_client.get("/cards/zero-optimizer").text
    claim = re.search(r'<li class="claim claim-none" id="claim-zero3-comm" data-claim="zero3-comm" '
                      r'data-check="comm_volume\(zero3\) / comm_volume\(ddp\) == 3/2">.*?</li>', html, re.S)
    assert claim is not None
    assert '<code class="claim-asserts">comm_volume(zero3) / comm_volume(ddp) == 3/2</code>' in claim.group(0)
    assert "<mo>×</mo>" in claim.group(0)
    # not verified yet: one line says so (on top), no row says "not run"
    assert html.count("Not verified yet") == 1 and "not run" not in html


def test_card_page_has_a_strict_content_security_policy(read_client: TestClient) -> None:
    r = read_client.get("/cards/zero-optimizer")
    csp = r.headers["content-security-policy"]
    nonce = re.search(r"script-src 'nonce-([^']+)'", csp)
    assert nonce is not None
    assert "default-src 'none'" in csp and "style-src 'self'" in csp and "img-src 'self' data:" in csp
    assert re.findall(r"<script[^>]*>", r.text) == [f'<script nonce="{nonce.group(1)}">']
    assert nonce.group(1) not in read_client.get("/cards/zero-optimizer").headers["content-security-policy"]


def test_unknown_card_page_is_an_html_404(read_client: TestClient) -> None:
    r = read_client.get("/cards/no-such-card")
    assert r.status_code == 404
    assert r.template.name == "error.html"
    assert "no card with slug &#39;no-such-card&#39;" in r.text


def test_unknown_page_is_html_for_browsers_and_json_for_others(read_client: TestClient) -> None:
    r = read_client.get("/no/such/page", headers=HTML)
    assert (r.status_code, r.headers["content-type"]) == (404, "text/html; charset=utf-8")
    assert "no page at this address" in r.text
    r = read_client.get("/no/such/page")
    assert (r.status_code, r.json()) == (404, {"detail": "Not Found"})


def test_stylesheet_is_served_locally(read_client: TestClient) -> None:
    r = read_client.get("/static/proofdeck.css")
    assert r.status_code == 200
    assert "prefers-color-scheme: dark" in r.text and '"Noto Sans CJK SC"' in r.text and "math" in r.text
    html = read_client.get("/").text
    assert re.findall(r'(?:href|src)="(https?:)?//', html) == []


def test_card_text_never_becomes_live_markup_on_the_page(database_url: str, cards_dir: Path) -> None:
    corpus = "\n\n".join(XSS_CORPUS)
    evil = '<script>alert(1)</script>"><img src=x onerror=alert(1)>'
    write_cards(cards_dir, make_card(
        "evil-card", title={"zh": evil, "en": "javascript:alert(1)"}, tags=[evil, 'x" onmouseover="alert(1)'],
        module={"code": evil, "zh": evil, "en": evil}, topic={"zh": evil, "en": evil},
        sections={key: {"zh": corpus, "en": corpus} for key in ("summary", "derivation", "pitfalls")},
        follow_ups=[{"id": "q", "question": {"zh": corpus, "en": evil}, "answer": {"zh": corpus, "en": corpus}}],
        links=[{"title": {"zh": evil, "en": evil}}],
        claims=[{"id": "c", "text": {"zh": corpus, "en": evil}, "asserts": "model_state_bytes(ddp) == 16*Psi",
                 "reading": evil}],
    ))
    app = create_app(database_url=database_url, cards_dir=cards_dir, sync_on_startup=True)
    with TestClient(app) as fresh:
        for path in ("/cards/evil-card", "/", "/?q=script"):
            r = fresh.get(path)
            assert r.status_code == 200
            assert_safe(r.text, allow_inline_script=True)
            assert len(re.findall(r"<script", r.text, re.I)) == 1  # ours, with the nonce
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in fresh.get("/cards/evil-card").text
    app.state.engine.dispose()
