"""Text → tokens, the same way for cards and queries, in Chinese, English or both mixed.

1. NFKC then lower case: full-width ``ＺｅＲＯ－３`` is ``zero-3``, ``ＧＰＵ`` is ``gpu``.
2. English words (``[a-z0-9]`` runs, joined by ``-`` or ``_``): each part, and the whole word with the
   joiners removed (``all-reduce`` → ``all``, ``reduce``, ``allreduce``); stop words dropped; a plural
   ``s`` removed (Harman's S-stemmer). Letters then digits give both halves too (``zero3`` → ``zero``,
   ``3``), a word followed by a number across a space the joined form (``zero 3`` → ``zero3``): every
   spelling of ZeRO-3 gives the same tokens. A slash list gives each (``zero-1/2/3`` → ``zero2``, ``zero3``).
3. Chinese runs: stop words (``stopwords.yaml``) cut out, then overlapping character bigrams (a lone
   character stays a unigram unless it is a function character such as 是). No dictionary: bigrams need
   none, and they are the same in the browser. bench/match.py compares them with jieba's segmentation
   (README, "Matching").
4. Glossary concepts (:mod:`app.search.glossary`): one ``~concept`` token per term found.

``templates/match.js`` implements exactly these steps for the offline handbook; tests compare the two.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
WORD = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")
SPACED_NUMBER = re.compile(r"(?<![a-z0-9])([a-z]+) ([0-9]+)(?![a-z0-9])")
SLASH_LIST = re.compile(r"(?<![a-z0-9])([a-z]+)[-_ ]?([0-9]+)((?:/[0-9]+)+)(?![a-z0-9])")
CJK_RUN = re.compile(f"[{CJK}]+")
JOINER = re.compile(r"[-_]")
LETTERS_DIGITS = re.compile(r"^([a-z]+)([0-9]+)$")


def normalise(text: str) -> str:
    """NFKC (full-width to half-width, compatibility forms) and lower case."""
    return unicodedata.normalize("NFKC", text).lower()


@lru_cache(maxsize=1)
def stopwords() -> tuple[frozenset[str], tuple[str, ...], frozenset[str]]:
    """(English stop words, Chinese stop words longest first, Chinese characters dropped when alone)."""
    data = yaml.safe_load((HERE / "stopwords.yaml").read_text(encoding="utf-8"))
    zh = sorted({normalise(w) for w in data["zh"]}, key=lambda w: (-len(w), w))
    return (frozenset(normalise(w) for w in data["en"]), tuple(zh),
            frozenset(normalise(w) for w in data["zh_alone"]))


@lru_cache(maxsize=1)
def _zh_stop_pattern() -> re.Pattern[str]:
    return re.compile("|".join(re.escape(w) for w in stopwords()[1]))


def stem(word: str) -> str:
    """Harman's S-stemmer: plural to singular, nothing else (``states`` → ``state``)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


@lru_cache(maxsize=65536)
def word_tokens(word: str) -> tuple[str, ...]:
    """The tokens of one English word as :data:`WORD` finds it (cached: words repeat across a deck)."""
    stop = stopwords()[0]
    parts = JOINER.split(word)
    out = [stem(p) for p in parts if p not in stop]
    for p in parts:  # zero3 also gives zero and 3, as zero-3 and zero 3 do
        split = LETTERS_DIGITS.match(p)
        if split:
            out += [split.group(1), split.group(2)]
    if len(parts) > 1:
        out.append(stem("".join(parts)))
    return tuple(out)


def english_tokens(norm: str) -> list[str]:
    stop = stopwords()[0]
    out: list[str] = []
    for word in WORD.findall(norm):
        out += word_tokens(word)
    for m in SPACED_NUMBER.finditer(norm):
        if m.group(1) not in stop:
            out.append(m.group(1) + m.group(2))
    for m in SLASH_LIST.finditer(norm):
        out += [m.group(1) + n for n in m.group(3).split("/")[1:]]
    return out


def chinese_tokens(norm: str) -> list[str]:
    alone = stopwords()[2]
    out: list[str] = []
    for run in CJK_RUN.findall(norm):
        for seg in _zh_stop_pattern().split(run):
            if len(seg) == 1:
                if seg not in alone:
                    out.append(seg)
            else:
                out += [seg[i:i + 2] for i in range(len(seg) - 1)]
    return out


def tokens(text: str, *, concepts: bool = True) -> list[str]:
    """Every token of ``text``: English, Chinese, then glossary concepts (see the module docstring)."""
    from app.search.glossary import concept_tokens

    norm = normalise(text)
    out = english_tokens(norm) + chinese_tokens(norm)
    if concepts:
        out += concept_tokens(norm)
    return out
