"""``GET /api/match`` on the bundled cards: ranking, spellings, glossary, bounds, query syntax, snippets,
and an index that follows sync."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app.deck.sync import sync_cards
from tests.utils.starter import CARDS as BUNDLED


def ranked(client: TestClient, q: str, **params: Any) -> list[dict[str, Any]]:
    r = client.get("/api/match", params={"q": q, **params})
    assert r.status_code == 200, r.text
    return list(r.json()["data"])


def slugs(hits: list[dict[str, Any]]) -> list[str]:
    return [h["card"]["slug"] for h in hits]


@pytest.mark.parametrize(("question", "card"), [
    ("为什么ZeRO-3通信量更大", "zero-sharding"),
    ("What is the pipeline bubble fraction?", "pipeline-parallelism"),
    ("gradient checkpointing trades compute for memory", "activation-checkpointing"),
    ("Why doesn't bf16 need loss scaling?", "mixed-precision-memory"),
    ("Megatron 张量并行每层几次 all-reduce", "tensor-parallelism"),
    ("ZeRO-Infinity 把参数放到 NVMe", "zero-offload-infinity"),
    ("reshard_after_forward=False", "fsdp-zero"),
    ("tree vs ring all-reduce", "nccl-ring-vs-tree"),  # the canon card on exactly this question
    ("DDP 为什么要分桶", "ddp-ring-allreduce"),
])
def test_known_questions_rank_their_card_first(read_client: TestClient, question: str, card: str) -> None:
    hits = ranked(read_client, question)
    assert slugs(hits)[0] == card, slugs(hits)
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0


def test_the_old_search_finds_nothing_where_match_finds_the_card(read_client: TestClient) -> None:
    for q in ("为什么ZeRO-3通信量更大", "why is zero3 slower than zero2"):
        assert read_client.get("/api/cards", params={"q": q}).json()["count"] == 0
        assert "zero-sharding" in slugs(ranked(read_client, q, limit=3))


def test_the_best_follow_up_is_named(read_client: TestClient) -> None:
    hit = ranked(read_client, "Why does fp16 training need loss scaling while bf16 usually does not?")[0]
    assert hit["card"]["slug"] == "mixed-precision-memory"
    assert hit["follow_up"]["id"] == "bf16-needs-no-loss-scaling"
    assert "bf16" in hit["follow_up"]["question"]["en"]
    # a question about the card as a whole names no follow-up over its head
    # (with the canon deck, the TP-inference card's follow-up "why TP rather than 流水线并行 for inference?"
    # outranks the pipeline card for the bare term: a known ranking weakness, see the README's "Matching")
    whole = next(h for h in ranked(read_client, "流水线并行") if h["card"]["slug"] == "pipeline-parallelism")
    assert whole["follow_up"] is None


@pytest.mark.parametrize("spelling", ["zero3", "zero 3", "Zero-3", "ZERO_3", "ＺｅＲＯ－３"])
def test_zero3_spellings_rank_alike(read_client: TestClient, spelling: str) -> None:
    want = [(h["card"]["slug"], h["score"]) for h in ranked(read_client, "ZeRO-3 communication")]
    got = [(h["card"]["slug"], h["score"]) for h in ranked(read_client, f"{spelling} communication")]
    assert got == want


def test_glossary_works_both_ways_across_languages(read_client: TestClient) -> None:
    # a Chinese term finds English text (lang=en ranks the English text only) ...
    hits = ranked(read_client, "流水线 气泡", lang="en")
    assert slugs(hits)[0] == "pipeline-parallelism"
    snippet = hits[0]["snippet"]
    assert snippet["lang"] == "en"
    marked = {snippet["text"][s:e].lower() for s, e in snippet["offsets"]}
    assert marked & {"pipeline", "bubble", "bubbles"}, marked
    # ... and an English term finds Chinese text
    hits = ranked(read_client, "activation recomputation", lang="zh")
    assert slugs(hits)[0] == "activation-checkpointing"
    zh = hits[0]["snippet"]
    assert zh["lang"] == "zh"
    assert any(zh["text"][s:e] in ("重计算", "重算", "激活", "激活检查点") for s, e in zh["offsets"])
    # without the glossary those tokens would not exist in the other language at all
    assert "~pipeline-bubble" in read_client.get("/api/match", params={"q": "气泡"}).json()["tokens"]


@pytest.mark.parametrize("q", ["的", "the of is what why", "为什么？是什么！", "？！。，、…", "!!! ??? --- ***", "  "])
def test_only_stop_words_or_punctuation_is_an_empty_list(read_client: TestClient, q: str) -> None:
    r = read_client.get("/api/match", params={"q": q})
    assert r.status_code == 200
    assert r.json()["data"] == [] and r.json()["count"] == 0


def test_a_long_query_is_a_clear_422(read_client: TestClient) -> None:
    r = read_client.get("/api/match", params={"q": "zero " * 2000})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert "10000 characters" in detail and "2000" in detail and "paste the question alone" in detail
    page = read_client.get("/", params={"q": "pipeline " * 1111 + "z"})
    assert page.status_code == 422 and "10000 characters" in page.text


@pytest.mark.parametrize(("params", "says"), [({"limit": 0}, "limit 0"), ({"limit": 51}, "limit 51"),
                                              ({"lang": "fr"}, "lang 'fr'")])
def test_bad_parameters_are_422_saying_which(read_client: TestClient, params: dict[str, Any], says: str) -> None:
    r = read_client.get("/api/match", params={"q": "zero", **params})
    assert r.status_code == 422 and says in r.json()["detail"]


SYNTAX = re.compile(r"[\"*'();{}^=\-]")


@pytest.mark.parametrize("q", ['"pipeline" OR "bubble"', "pipeline* NEAR(bubble)", "pipeline' OR '1'='1 bubble",
                               "pipeline; DROP TABLE card; -- bubble", "pipeline AND bubble", "(pipeline) {bubble}"])
def test_query_syntax_is_plain_text(read_client: TestClient, q: str) -> None:
    # ranked exactly as the same words without the operators' punctuation: nothing is interpreted
    words = SYNTAX.sub(" ", q)
    assert [(h["card"]["slug"], h["score"]) for h in ranked(read_client, q)] == \
        [(h["card"]["slug"], h["score"]) for h in ranked(read_client, words)]
    assert slugs(ranked(read_client, q))[0] == "pipeline-parallelism"
    bundled = [p for p in BUNDLED.glob("*.md") if p.name.lower() != "readme.md"]
    assert read_client.get("/api/cards").json()["count"] == len(bundled)  # nothing was dropped


@pytest.mark.parametrize(("q", "tokens"), [('"', []), ("*", []), ("'", []), ("OR", []), ("NEAR", ["near"]),
                                           ("AND NOT", ["not"]), ('"*"', []), ("' OR ''='", [])])
def test_a_lone_operator_is_text_too(read_client: TestClient, q: str, tokens: list[str]) -> None:
    r = read_client.get("/api/match", params={"q": q})
    assert r.status_code == 200
    assert r.json()["tokens"] == tokens


def _rebuilt_html(text: str, offsets: list[list[int]]) -> str:
    out, last = [], 0
    for s, e in offsets:
        out += [str(escape(text[last:s])), "<mark>", str(escape(text[s:e])), "</mark>"]
        last = e
    return "".join(out) + str(escape(text[last:]))


def test_snippets_mark_the_matches_at_their_offsets(read_client: TestClient) -> None:
    seen = 0
    for q in ("为什么ZeRO-3通信量更大", "pipeline bubble", "显存 optimizer states", "all-reduce 环形"):
        for hit in ranked(read_client, q, limit=5):
            sn = hit["snippet"]
            offsets = sn["offsets"]
            assert offsets == sorted(offsets) and all(0 <= s < e <= len(sn["text"]) for s, e in offsets)
            assert all(a[1] <= b[0] for a, b in zip(offsets, offsets[1:], strict=False))  # merged, no overlap
            assert sn["html"] == _rebuilt_html(sn["text"], offsets)
            assert len(sn["text"]) <= 162
            seen += len(offsets)
    assert seen > 20


def test_the_index_follows_sync(client: TestClient, cards_dir: Path) -> None:
    engine = client.app.state.engine  # type: ignore[attr-defined]
    assert ranked(client, "Zyxwvutsrq") == []
    card = cards_dir / "collectives.md"
    card.write_text(card.read_text(encoding="utf-8").replace("# Summary\n\n## zh\n\n",
                                                          "# Summary\n\n## zh\n\nZyxwvutsrq 墨菲定律。", 1),
                    encoding="utf-8")
    sync_cards(engine, cards_dir, claim_notes=False)
    assert slugs(ranked(client, "zyxwvutsrq")) == ["collectives"]
    assert slugs(ranked(client, "墨菲定律")) == ["collectives"]
    card.unlink()
    sync_cards(engine, cards_dir, claim_notes=False)
    assert ranked(client, "zyxwvutsrq") == []
    assert "collectives" not in slugs(ranked(client, "all-reduce reduce-scatter all-gather", limit=50))


def test_the_index_is_built_once_per_deck_revision(read_client: TestClient) -> None:
    from app.search.index import indexes

    engine = read_client.app.state.engine  # type: ignore[attr-defined]
    ranked(read_client, "zero")
    first = indexes(engine).get("both")
    ranked(read_client, "pipeline")
    assert indexes(engine).get("both") is first


def test_the_search_page_ranks_with_snippets(read_client: TestClient) -> None:
    page = read_client.get("/", params={"q": "为什么ZeRO-3通信量更大"}).text
    links = re.findall(r'<li class="match">\s*<a class="card-link" href="/cards/([^"]+)"', page)
    assert links[:1] == ["zero-sharding"] and len(links) >= 3
    assert "<mark>" in page
    # the filters still narrow the ranked list
    card_links = r'<li class="match">\s*<a class="card-link" href="/cards/([^"]+)"'
    everything = re.findall(card_links, read_client.get("/", params={"q": "all-reduce"}).text)
    tagged = read_client.get("/", params={"q": "all-reduce", "tag": "pipeline-parallelism"}).text
    narrowed = re.findall(card_links, tagged)
    assert "pipeline-parallelism" in narrowed and len(narrowed) < len(everything)
    for slug in narrowed:  # every card left carries the tag (3d-parallelism does too), in the unfiltered order
        assert "pipeline-parallelism" in read_client.get(f"/api/cards/{slug}").json()["tags"], slug
    assert narrowed == [s for s in everything if s in narrowed]
