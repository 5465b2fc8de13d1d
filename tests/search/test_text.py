"""Tokens of cards and questions: spellings of the same term meet, the glossary works both ways,
stop words and query syntax are plain text."""

from __future__ import annotations

import pytest

from app.search.glossary import groups
from app.search.text import normalise, stem, tokens


@pytest.mark.parametrize("spelling", ["ZeRO-3", "zero3", "zero 3", "Zero-3", "ZERO_3", "ＺｅＲＯ－３", "ｚｅｒｏ３"])
def test_zero3_spellings_share_the_token_and_the_concept(spelling: str) -> None:
    got = tokens(spelling)
    assert "zero3" in got and "~zero3" in got


def test_a_slash_list_names_each_stage() -> None:
    got = tokens("ZeRO-1/2/3")
    assert {"zero1", "zero2", "zero3"} <= set(got)


def test_hyphenated_words_meet_their_joined_and_spaced_forms() -> None:
    assert "allreduce" in tokens("all-reduce") and "allreduce" in tokens("AllReduce")
    assert {"all", "reduce"} <= set(tokens("all reduce"))
    assert "reshardafterforward" in tokens("reshard_after_forward")


def test_full_width_is_half_width() -> None:
    assert normalise("ＧＰＵ　ｍｅｍｏｒｙ，１６ｂｉｔ") == "gpu memory,16bit"
    assert tokens("ＧＰＵ　ｍｅｍｏｒｙ") == tokens("GPU memory")


def test_plurals_meet_singulars() -> None:
    assert stem("states") == "state" and stem("strategies") == "strategy" and stem("process") == "process"
    assert tokens("optimizer states")[:2] == tokens("optimizer state")[:2]


@pytest.mark.parametrize(("zh", "en", "concept"), [
    ("通信", "communication", "~communication"),
    ("显存", "GPU memory", "~gpu-memory"),
    ("流水线", "pipeline", "~pipeline"),
    ("重计算", "recomputation", "~recomputation"),
    ("重计算", "activation checkpointing", "~recomputation"),
    ("全分片数据并行", "FSDP", "~zero3"),
    ("ZeRO-3", "fully sharded data parallel", "~zero3"),
])
def test_glossary_concepts_are_shared_by_both_languages(zh: str, en: str, concept: str) -> None:
    assert concept in tokens(zh) and concept in tokens(en)


def test_every_glossary_term_fires_its_own_group() -> None:
    for name, terms in groups().items():
        for term in terms:
            assert f"~{name}" in tokens(term), (name, term)


def test_chinese_is_split_into_bigrams_without_stop_words() -> None:
    got = tokens("为什么显存不够")
    assert "显存" in got and "存不" in got and "不够" in got
    assert not any(t in got for t in ("为什", "什么", "么显"))  # 为什么 is a stop word


@pytest.mark.parametrize("query", ["", "   ", "the of is what why", "为什么？是什么！", "？！。，、", "!!! ??? ... ---",
                                   "的了吗呢", "“”‘’（）【】"])
def test_stop_words_and_punctuation_give_no_token(query: str) -> None:
    assert tokens(query) == []


@pytest.mark.parametrize("query", ['"zero"', "zero*", "NEAR(zero pipeline)", "zero OR pipeline", "zero' OR '1'='1",
                                   "zero; DROP TABLE card; --", "zero AND NOT pipeline", "{zero} ^pipeline"])
def test_query_syntax_is_text(query: str) -> None:
    got = tokens(query)
    assert "zero" in got
    assert all(ch not in "".join(got) for ch in "\"*'();{}^")
