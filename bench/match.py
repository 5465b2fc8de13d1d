"""Matching pasted interview questions to cards: quality on the bundled deck, speed on a 1,000-card deck.

    PYTHONPATH=$PWD python bench/match.py [--rounds 3] [--cards 1000] [--no-alternatives] [--speed-only]

Quality: the evaluation set ``tests/search/match_eval.yaml`` (questions in zh, en and mixed, each with
the card it should find; a dev split used while tuning and a held-out split only scored) against the
nine bundled cards, through a real uvicorn server: top-1 and top-3 hit rates of ``GET /api/match`` and
of the old ``GET /api/cards?q=`` (every word must appear, slug order) in the same run. Then, in process,
the alternatives the README compares: jieba segmentation instead of bigrams, no glossary, and SQLite
FTS5 ``bm25()`` over the same tokens.

Speed: a generated 1,000-card deck (harness/deckgen.py) plus the bundled cards, served by uvicorn:
median latency of ``GET /api/match`` over the evaluation questions next to ``GET /healthz`` (the
baseline, same server, same run, requests interleaved so both see the same load; aim ≤ 5x), the first
query after start, and each alternative's index build and in-process time per query.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.search import text as search_text  # noqa: E402
from harness.deckgen import write_deck  # noqa: E402
from harness.server import uvicorn_server  # noqa: E402

EVAL = ROOT / "tests" / "search" / "match_eval.yaml"
Ranker = Callable[[str], list[str]]  # question → slugs, best first


def questions() -> list[dict[str, str]]:
    return list(yaml.safe_load(EVAL.read_text(encoding="utf-8"))["questions"])


def score(rank: Ranker, qs: list[dict[str, str]]) -> dict[str, tuple[float, float, int]]:
    """split → (top-1 rate, top-3 rate, questions), for dev, held-out and all."""
    out = {}
    for split in ("dev", "held-out", "all"):
        chosen = [q for q in qs if split in ("all", q["split"])]
        ranked = [rank(q["q"])[:3] for q in chosen]
        top1 = sum(bool(r) and r[0] == q["card"] for r, q in zip(ranked, chosen, strict=True))
        top3 = sum(q["card"] in r for r, q in zip(ranked, chosen, strict=True))
        out[split] = (top1 / len(chosen), top3 / len(chosen), len(chosen))
    return out


def print_quality(name: str, result: dict[str, tuple[float, float, int]]) -> None:
    cells = "  ".join(f"{split}: top-1 {t1:6.1%} top-3 {t3:6.1%} (n={n})" for split, (t1, t3, n) in result.items())
    print(f"{name:38} {cells}")


def http_rankers(client: httpx.Client) -> dict[str, Ranker]:
    def match(q: str) -> list[str]:
        r = client.get("/api/match", params={"q": q, "limit": 3})
        r.raise_for_status()
        return [h["card"]["slug"] for h in r.json()["data"]]

    def old(q: str) -> list[str]:
        r = client.get("/api/cards", params={"q": q, "limit": 3})
        r.raise_for_status()
        return [c["slug"] for c in r.json()["data"]]

    return {"GET /api/cards?q= (old, baseline)": old, "GET /api/match (bm25s + bigrams)": match}


def jieba_tokens(norm: str) -> list[str]:
    import jieba

    stop = set(search_text.stopwords()[1])
    return [w for run in search_text.CJK_RUN.findall(norm) for w in jieba.cut_for_search(run) if w not in stop]


def in_process_rankers(database_url: str) -> dict[str, tuple[Ranker, Callable[[], None]]]:
    """name → (ranker, build): alternatives ranked from the same database rows."""
    from sqlalchemy import create_engine

    from app.models import clock
    from app.search import glossary
    from app.search.index import build_index
    from app.search.match import rank

    engine = create_engine(database_url)
    built: dict[str, Any] = {}

    def build_with(name: str, chinese: Callable[[str], list[str]], concepts: bool) -> Callable[[], None]:
        def build() -> None:
            from app.search import index as search_index

            search_index._text_tokens.cache_clear()  # every alternative builds from cold caches
            search_text.word_tokens.cache_clear()
            original, original_concepts = search_text.chinese_tokens, glossary.concept_tokens
            search_text.chinese_tokens = chinese  # type: ignore[assignment]
            if not concepts:
                glossary.concept_tokens = lambda norm: []  # type: ignore[assignment]
            try:
                with engine.connect() as conn:
                    built[name] = (build_index(conn, clock.read(conn, clock.DECK)[clock.DECK], "both"), chinese,
                                   concepts)
            finally:
                search_text.chinese_tokens, glossary.concept_tokens = original, original_concepts
        return build

    def ranker(name: str) -> Ranker:
        def run(q: str) -> list[str]:
            index, chinese, concepts = built[name]
            original, original_concepts = search_text.chinese_tokens, glossary.concept_tokens
            search_text.chinese_tokens = chinese
            if not concepts:
                glossary.concept_tokens = lambda norm: []  # type: ignore[assignment]
            try:
                return [h.card.slug for h in rank(index, q, limit=3).hits]
            finally:
                search_text.chinese_tokens, glossary.concept_tokens = original, original_concepts
        return run

    out: dict[str, tuple[Ranker, Callable[[], None]]] = {}
    for name, chinese, concepts in (("bm25s + bigrams (in process)", search_text.chinese_tokens, True),
                                    ("bm25s + jieba", jieba_tokens, True),
                                    ("bm25s + bigrams, no glossary", search_text.chinese_tokens, False)):
        out[name] = (ranker(name), build_with(name, chinese, concepts))
    fts: dict[str, Any] = {}

    def fts_build() -> None:
        """SQLite FTS5 bm25() over the same tokens (each token one FTS term), card documents only."""
        with engine.connect() as conn:
            index = build_index(conn, clock.read(conn, clock.DECK)[clock.DECK], "both")
        db = sqlite3.connect(":memory:")
        db.execute("CREATE VIRTUAL TABLE doc USING fts5(slug UNINDEXED, body, tokenize='unicode61 "
                   "remove_diacritics 0 tokenchars ''~-''')")
        names = {i: t for t, i in index.card_bm25.vocab.items()}
        docs: dict[int, list[str]] = {}
        matrix = index.card_bm25.model.scores
        for tid in range(len(names)):  # the card documents' tokens back from the bm25s matrix (order is moot)
            for d in matrix["indices"][matrix["indptr"][tid]:matrix["indptr"][tid + 1]]:
                docs.setdefault(int(d), []).append(names[tid])
        db.executemany("INSERT INTO doc VALUES (?, ?)", [(c.slug, " ".join(f"t{hash_term(t)}" for t in docs.get(i, [])))
                                                         for i, c in enumerate(index.cards)])
        fts["db"] = db

    def fts_rank(q: str) -> list[str]:
        toks = sorted({f"t{hash_term(t)}" for t in search_text.tokens(q)})
        if not toks:
            return []
        rows = fts["db"].execute("SELECT slug FROM doc WHERE doc MATCH ? ORDER BY bm25(doc) LIMIT 3",
                                 (" OR ".join(toks),)).fetchall()
        return [r[0] for r in rows]

    out["SQLite FTS5 bm25() + same tokens"] = (fts_rank, fts_build)
    return out


def hash_term(term: str) -> str:
    """An FTS5-safe spelling of a token (FTS5 would split bigrams and ``~``)."""
    return term.encode("utf-8").hex()


def timed_ms(client: httpx.Client, url: str, params: dict[str, Any] | None) -> float:
    start = time.perf_counter()
    r = client.get(url, params=params)
    elapsed = (time.perf_counter() - start) * 1000
    assert r.status_code == 200, (url, r.status_code, r.text[:200])
    return elapsed


def quality(tmp: Path, qs: list[dict[str, str]], alternatives: bool) -> None:
    url = f"sqlite:///{tmp}/bundled.db"
    print("\n== quality on the bundled deck (cards/), real uvicorn")
    with uvicorn_server(url, ROOT / "cards") as base, httpx.Client(base_url=base) as client:
        for name, rank in http_rankers(client).items():
            print_quality(name, score(rank, qs))
    if alternatives:
        for name, (rank, build) in in_process_rankers(url).items():
            build()
            print_quality(name, score(rank, qs))


def speed(tmp: Path, qs: list[dict[str, str]], n_cards: int, rounds: int, alternatives: bool) -> None:
    print(f"\n== speed on {n_cards} generated cards + the bundled ones, real uvicorn")
    folder = tmp / "big"
    write_deck(folder, n_cards)
    for card in (ROOT / "cards").glob("*.md"):
        if card.name != "README.md":
            shutil.copy(card, folder / card.name)
    url = f"sqlite:///{tmp}/big.db"
    with uvicorn_server(url, folder, timeout=300) as base, httpx.Client(base_url=base, timeout=60) as client:
        start = time.perf_counter()
        client.get("/api/match", params={"q": "warm"}).raise_for_status()
        print(f"first /api/match after start (index built at start-up): {(time.perf_counter() - start) * 1000:.0f} ms")
        # interleaved, so that both see the same load on a shared machine
        healthz, matched, old = [], [], []
        for _ in range(rounds):
            for q in qs:
                healthz.append(timed_ms(client, "/healthz", None))
                matched.append(timed_ms(client, "/api/match", {"q": q["q"]}))
                old.append(timed_ms(client, "/api/cards", {"q": q["q"]}))
        base_ms, ms, old_ms = statistics.median(healthz), statistics.median(matched), statistics.median(old)
        p90 = statistics.quantiles(matched, n=10)[-1]
        print(f"{'GET /healthz (baseline)':44} {base_ms:8.2f} ms   1.0x   (n={len(healthz)})")
        print(f"{'GET /api/match (median, all questions)':44} {ms:8.2f} ms {ms / base_ms:6.1f}x   (aim ≤ 5x)")
        print(f"{'GET /api/match (p90)':44} {p90:8.2f} ms {p90 / base_ms:6.1f}x")
        print(f"{'GET /api/cards?q= (old)':44} {old_ms:8.2f} ms {old_ms / base_ms:6.1f}x")
    if alternatives:
        for name, (rank, build) in in_process_rankers(url).items():
            start = time.perf_counter()
            build()
            build_s = time.perf_counter() - start
            times = []
            for q in qs:
                t0 = time.perf_counter()
                rank(q["q"])
                times.append((time.perf_counter() - t0) * 1000)
            print(f"{name:38} index build {build_s:6.2f} s   per query median {statistics.median(times):6.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3, help="passes over the questions for the latencies")
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--no-alternatives", action="store_true", help="skip the in-process alternatives")
    parser.add_argument("--speed-only", action="store_true", help="skip the quality part")
    args = parser.parse_args()
    qs = questions()
    langs = {lang: sum(q["lang"] == lang for q in qs) for lang in ("zh", "en", "mixed")}
    print(f"evaluation set: {len(qs)} questions ({langs}), {sum(q['split'] == 'held-out' for q in qs)} held out")
    if not (args.no_alternatives or args.speed_only):
        start = time.perf_counter()
        import jieba  # only measured here, first: the server never imports it

        import_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        jieba.initialize()  # loads its dictionary (what the first segmentation would pay)
        print(f"jieba (not in the server): import {import_ms:.0f} ms, "
              f"dictionary load {(time.perf_counter() - start) * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.speed_only:
            quality(Path(tmp), qs, not args.no_alternatives)
        speed(Path(tmp), qs, args.cards, args.rounds, not (args.no_alternatives or args.speed_only))


if __name__ == "__main__":
    main()
