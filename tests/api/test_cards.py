"""GET /api/cards (filters, search, pages) and GET /api/cards/{slug}."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.cards.cardfile import load_card_text
from app.core.db import make_engine
from app.deck.sync import sync_cards

ALL = ["zero-optimizer", "ring-allreduce", "tensor-parallel", "attention-flops"]
# (module, topic, slug) order: M3/dist (ring-allreduce, zero-optimizer), M3/tp, M4/attn
ORDERED = ["ring-allreduce", "zero-optimizer", "tensor-parallel", "attention-flops"]


def slugs(client: TestClient, **params: object) -> list[str]:
    r = client.get("/api/cards", params=params)
    assert r.status_code == 200, r.text
    return [c["slug"] for c in r.json()["data"]]


def test_list_is_ordered_by_module_topic_slug(read_client: TestClient) -> None:
    body = read_client.get("/api/cards").json()
    assert [c["slug"] for c in body["data"]] == ORDERED
    assert (body["count"], body["limit"], body["offset"]) == (4, 50, 0)
    first = body["data"][0]
    assert first == {
        "slug": "ring-allreduce", "title": {"zh": "环形 All-Reduce", "en": "Ring all-reduce"},
        "module": {"code": "M3", "zh": "深度学习基础", "en": "Deep Learning Foundations"},
        "topic": {"code": "dist", "zh": "分布式训练", "en": "Distributed Training"},
        "difficulty": "medium", "tags": ["communication"], "retired": False,
    }


@pytest.mark.parametrize("value", ["M3", "m3", "深度学习基础", "deep learning foundations"])
def test_module_filter_matches_code_zh_or_en(read_client: TestClient, value: str) -> None:
    assert slugs(read_client, module=value) == ORDERED[:3]


@pytest.mark.parametrize("value", ["TP", "模型并行", "model parallelism"])
def test_topic_filter_matches_code_zh_or_en(read_client: TestClient, value: str) -> None:
    assert slugs(read_client, topic=value) == ["tensor-parallel"]


def test_filters_combine(read_client: TestClient) -> None:
    assert slugs(read_client, module="M3", topic="dist", difficulty="easy") == ["zero-optimizer"]
    assert slugs(read_client, module="M4", difficulty="easy") == []


def test_difficulty_filter(read_client: TestClient) -> None:
    assert slugs(read_client, difficulty="medium") == ["ring-allreduce", "attention-flops"]
    assert slugs(read_client, difficulty="hard") == ["tensor-parallel"]


def test_tag_filter_is_exact(read_client: TestClient) -> None:
    assert slugs(read_client, tag="zero") == ["zero-optimizer"]
    assert slugs(read_client, tag="100%_sure") == ["tensor-parallel"]
    assert slugs(read_client, tag="zer") == []
    assert slugs(read_client, tag="Zero") == []


def test_search_finds_a_chinese_substring(read_client: TestClient) -> None:
    assert slugs(read_client, q="优化器状态") == ["zero-optimizer"]
    assert slugs(read_client, q="梯度") == ["ring-allreduce", "zero-optimizer"]


def test_search_finds_an_english_word_case_insensitively(read_client: TestClient) -> None:
    assert slugs(read_client, q="Gradients") == ["ring-allreduce"]
    assert slugs(read_client, q="OPTIMIZER") == ["zero-optimizer"]


def test_search_words_must_all_match(read_client: TestClient) -> None:
    assert slugs(read_client, q="rank 显存") == ["zero-optimizer"]
    assert slugs(read_client, q="rank sends") == ["ring-allreduce"]
    assert slugs(read_client, q="rank nothing-like-this") == []


def test_search_treats_percent_and_underscore_literally(read_client: TestClient) -> None:
    assert slugs(read_client, q="%") == ["tensor-parallel", "attention-flops"]
    assert slugs(read_client, q="100%_") == ["tensor-parallel"]
    assert slugs(read_client, q="_") == ["zero-optimizer", "tensor-parallel"]  # N_d and 100%_sure
    assert slugs(read_client, q="_s") == ["tensor-parallel"]


def test_search_and_filters_combine(read_client: TestClient) -> None:
    assert slugs(read_client, q="attention", module="M3") == []
    assert slugs(read_client, q="o(n^2)", module="transformers") == ["attention-flops"]


def test_pagination(read_client: TestClient) -> None:
    pages = [read_client.get("/api/cards", params={"limit": 3, "offset": o}).json() for o in (0, 3, 6)]
    assert [[c["slug"] for c in p["data"]] for p in pages] == [ORDERED[:3], ORDERED[3:], []]
    assert [(p["count"], p["limit"], p["offset"]) for p in pages] == [(4, 3, 0), (4, 3, 3), (4, 3, 6)]


def test_pagination_after_the_tag_filter(read_client: TestClient) -> None:
    body = read_client.get("/api/cards", params={"difficulty": "medium", "limit": 1, "offset": 1}).json()
    assert ([c["slug"] for c in body["data"]], body["count"]) == (["attention-flops"], 2)


@pytest.mark.parametrize("params, detail", [
    ({"difficulty": "extreme"}, "difficulty 'extreme' is not one of easy, medium, hard"),
    ({"limit": 0}, "limit 0 is out of range (use 1 to 200)"),
    ({"limit": 201}, "limit 201 is out of range (use 1 to 200)"),
    ({"offset": -1}, "offset -1 is negative (use 0 or more)"),
])
def test_bad_filters_are_422_with_a_clear_detail(read_client: TestClient, params: dict[str, object],
                                                 detail: str) -> None:
    r = read_client.get("/api/cards", params=params)
    assert r.status_code == 422
    assert r.json() == {"detail": detail}


def test_card_detail_has_every_part(read_client: TestClient) -> None:
    r = read_client.get("/api/cards/zero-optimizer")
    assert r.status_code == 200
    card = r.json()
    assert card["slug"] == "zero-optimizer"
    assert card["title"] == {"zh": "ZeRO 显存分片", "en": "ZeRO memory sharding"}
    assert (card["difficulty"], card["tags"], card["retired"]) == ("easy", ["zero", "memory"], False)
    assert [s["key"] for s in card["sections"]] == ["summary", "derivation"]
    derivation = card["sections"][1]
    assert derivation["title"] == {"zh": "数学推导", "en": "Derivation"}
    assert derivation["text"]["zh"] == r"每卡显存 $2\Psi + 2\Psi + \frac{12\Psi}{N_d}$ 字节。"
    assert set(derivation["html"]) == {"zh", "en"}
    assert '<math display="inline" xmlns="http://www.w3.org/1998/Math/MathML">' in derivation["html"]["zh"]
    assert '<div class="math-block"><math display="block"' in derivation["html"]["en"]
    assert "<mfrac>" in derivation["html"]["en"]
    fu = card["follow_ups"][0]
    assert fu["id"] == "why-optimizer"
    assert fu["question"]["html"] == {"zh": "<p>为什么优化器状态最大？</p>\n",
                                      "en": "<p>Why are optimizer states the largest?</p>\n"}
    assert fu["answer"]["text"] == {"zh": "", "en": "Adam keeps $m$ and $v$ in fp32."}
    assert fu["answer"]["html"]["zh"] == ""
    assert card["claims"][0]["id"] == "zero3-comm"
    claim = card["claims"][0]
    assert (claim["asserts"], claim["section"]) == ("comm_volume(zero3) / comm_volume(ddp) == 3/2", "derivation")
    assert "<mo>×</mo>" in card["claims"][0]["html"]["en"]
    assert load_card_text(card["source"], "zero-optimizer.md").slug == "zero-optimizer"


def test_links_resolve_by_slug_or_title(read_client: TestClient) -> None:
    links = read_client.get("/api/cards/zero-optimizer").json()["links"]
    assert [(lk["slug"], lk["title"], lk["resolved_slug"]) for lk in links] == [
        ("ring-allreduce", {"zh": "", "en": ""}, "ring-allreduce"),
        ("", {"zh": "", "en": "Tensor Parallelism"}, "tensor-parallel"),
        ("", {"zh": "不存在的卡片", "en": "A card not written yet"}, None),
        ("missing-card", {"zh": "", "en": ""}, None),
    ]
    assert [lk["resolved_title"] for lk in links] == [
        {"zh": "环形 All-Reduce", "en": "Ring all-reduce"}, {"zh": "张量并行", "en": "Tensor Parallelism"}, None, None]


@pytest.mark.parametrize("lang, langs", [("zh", ["zh"]), ("en", ["en"]), ("both", ["en", "zh"])])
def test_lang_selects_the_rendered_languages(read_client: TestClient, lang: str, langs: list[str]) -> None:
    card = read_client.get("/api/cards/zero-optimizer", params={"lang": lang}).json()
    assert sorted(card["sections"][0]["html"]) == langs
    assert sorted(card["follow_ups"][0]["answer"]["html"]) == langs
    assert sorted(card["claims"][0]["html"]) == langs
    assert card["sections"][0]["text"] == {"zh": "ZeRO 分片优化器状态、梯度与参数。",
                                           "en": "ZeRO shards optimizer states."}


def test_lang_defaults_to_both(read_client: TestClient) -> None:
    assert sorted(read_client.get("/api/cards/ring-allreduce").json()["sections"][0]["html"]) == ["en", "zh"]


def test_bad_lang_is_422(read_client: TestClient) -> None:
    r = read_client.get("/api/cards/zero-optimizer", params={"lang": "fr"})
    assert r.status_code == 422
    assert r.json() == {"detail": "lang 'fr' is not one of zh, en, both"}


def test_unknown_slug_is_404_with_a_clear_detail(read_client: TestClient) -> None:
    r = read_client.get("/api/cards/no-such-card")
    assert r.status_code == 404
    assert r.json() == {"detail": "no card with slug 'no-such-card'"}


def test_unknown_api_path_is_json_404(read_client: TestClient) -> None:
    r = read_client.get("/api/nothing-here", headers={"accept": "text/html"})
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/json"
    assert r.json() == {"detail": "Not Found"}


def test_retired_cards_are_hidden_from_the_list_but_readable(client: TestClient, cards_dir: Path,
                                                             database_url: str) -> None:
    (cards_dir / "tensor-parallel.md").unlink()
    engine = make_engine(database_url)
    try:
        assert sync_cards(engine, cards_dir).retired == ["tensor-parallel"]
    finally:
        engine.dispose()
    assert "tensor-parallel" not in slugs(client)
    assert slugs(client, retired=True) == ORDERED
    card = client.get("/api/cards/tensor-parallel").json()
    assert (card["slug"], card["retired"]) == ("tensor-parallel", True)
    # a retired card no longer resolves links to it
    links = client.get("/api/cards/zero-optimizer").json()["links"]
    assert links[1]["resolved_slug"] is None


def test_openapi_documents_the_read_api(read_client: TestClient) -> None:
    spec = read_client.get("/openapi.json").json()
    assert {"/api/cards", "/api/cards/{slug}", "/api/graph", "/healthz"} <= set(spec["paths"])
    params = {p["name"]: p for p in spec["paths"]["/api/cards"]["get"]["parameters"]}
    assert params["difficulty"]["schema"]["enum"] == ["easy", "medium", "hard"]
    assert read_client.get("/docs").status_code == 200
