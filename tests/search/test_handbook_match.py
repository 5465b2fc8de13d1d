"""The offline handbook ranks as the server does: templates/match.js (run by node) against the Python
tokens and ranking, on every question of the evaluation set, from the index the handbook ships."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from app.deck.sync import load_deck
from app.export.handbook import render_handbook
from app.search.index import index_cards
from app.search.match import rank
from app.search.offline import card_text, offline_index
from app.search.text import tokens
from tests.utils.html import element, markup_report
from tests.utils.xss import hostile_card

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT / "tests" / "search" / "match_eval.yaml"
RUNNER = """
const fs = require("fs");
const m = require(process.argv[2]);
const index = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const questions = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
const matcher = m.make(index);
const out = questions.map((q) => ({ tokens: matcher.tokens(q), ranked: matcher.rank(q, 5) }));
process.stdout.write(JSON.stringify(out));
"""
EXTRA = ["ZeRO-3", "ＺｅＲＯ－３ 的通信", "zero-1/2/3", "all-reduce vs allreduce", "GPU memory 显存", "的 the ？",
         "reshard_after_forward=False", "为什么是 1F1B？", "\"NEAR\" OR * '", "gradient checkpointing 重计算"]


def _node(tmp_path: Path, index: dict[str, object], questions: list[str]) -> list[dict[str, object]]:
    (tmp_path / "index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "questions.json").write_text(json.dumps(questions, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "run.cjs").write_text(RUNNER, encoding="utf-8")
    done = subprocess.run(["node", str(tmp_path / "run.cjs"), str(ROOT / "templates" / "match.js"),
                           str(tmp_path / "index.json"), str(tmp_path / "questions.json")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_the_handbook_script_tokenises_and_ranks_like_the_server(tmp_path: Path) -> None:
    docs = [s.doc for s in load_deck(ROOT / "cards")]
    questions = [q["q"] for q in yaml.safe_load(EVAL.read_text(encoding="utf-8"))["questions"]] + EXTRA
    got = _node(tmp_path, offline_index(docs), questions)
    index = index_cards([card_text(d) for d in sorted(docs, key=lambda d: d.slug)], 0, "both")
    for q, js in zip(questions, got, strict=True):
        assert js["tokens"] == tokens(q), q
        want = rank(index, q, limit=5).hits
        ranked = js["ranked"]
        assert isinstance(ranked, list)
        assert [r["slug"] for r in ranked] == [h.card.slug for h in want], q
        for r, h in zip(ranked, want, strict=True):
            assert r["score"] == pytest.approx(h.score, abs=2e-3), q


def test_the_shipped_index_cannot_close_its_script_block() -> None:
    docs = [hostile_card("hostile"), *[s.doc for s in load_deck(ROOT / "cards")]]
    html = render_handbook(docs)
    block = re.search(r'<script type="application/json" id="search-index">(.*?)</script>', html, re.DOTALL)
    assert block is not None
    assert "<" not in block.group(1) and ">" not in block.group(1)
    index = json.loads(block.group(1))
    assert "hostile" in index["slugs"]
    graph = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', html, re.DOTALL)
    assert graph is not None and "<" not in graph.group(1) and ">" not in graph.group(1)
    assert "hostile" in {n["slug"] for n in json.loads(graph.group(1))["nodes"]}
    scripts, _ = markup_report(html, allowed=frozenset({element("style")}))
    assert [attrs for attrs, _ in scripts] == [{"type": "application/json", "id": "search-index"},
                                               {"type": "application/json", "id": "graph-data"}, {}]


def _unpacked(text: str) -> list[tuple[int, float]]:
    """A packed posting string read back as match.js reads it (base-32 digits; gaps; weights / scale)."""
    from app.search.offline import ALPHABET

    nums, n = [], 0
    for ch in text:
        d = ALPHABET.index(ch)
        n = n * 32 + (d & 31)
        if d < 32:
            nums.append(n)
            n = 0
    docs = [sum(nums[0 : k + 1 : 2]) for k in range(0, len(nums), 2)]
    return [(d, w / 10**4) for d, w in zip(docs, nums[1::2], strict=True)]


def test_packed_postings_hold_the_rounded_weights_in_under_half_the_room() -> None:
    docs = [s.doc for s in load_deck(ROOT / "cards")]
    index = index_cards([card_text(d) for d in sorted(docs, key=lambda d: d.slug)], 0, "both")
    shipped = offline_index(docs)
    for table, bm25 in (("cards", index.card_bm25), ("units", index.unit_bm25)):
        plain = {tok: [(d, round(w, 4)) for d, w in sorted(posts)] for tok, posts in bm25.postings().items()}
        assert {tok: _unpacked(s) for tok, s in shipped[table].items()} == plain
        as_lists = sum(len(json.dumps([x for p in posts for x in p], separators=(",", ":")))
                       for posts in plain.values())
        # 2: a string's quotes; the share is 0.32 at 1,000 generated cards
        assert sum(len(s) + 2 for s in shipped[table].values()) < 0.55 * as_lists
