"""The typos issue 31 names, planted in the bundled cards' prose, are flagged where they stand: refuted by the
judge that knows the number (a fact, the card's arithmetic, a known formula), or a zh/en contradiction when
only one language is edited; the cards as written have no flag there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verify.judge.statements.card import CardStatements, judge_text

CARDS = Path(__file__).resolve().parents[2] / "cards"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _body_start(text: str) -> int:
    return text.index("\n---", 3) + 4


def edit(text: str, old: str, new: str, lang: str) -> str:
    """``old`` → ``new`` on the first body line of ``lang`` that holds it."""
    start = _body_start(text)
    lines = text[start:].split("\n")
    for n, line in enumerate(lines):
        if old in line and bool(CJK.search(line)) == (lang == "zh"):
            lines[n] = line.replace(old, new, 1)
            return text[:start] + "\n".join(lines)
    raise AssertionError(f"no {lang} body line holds {old!r}")


def flags(judged: CardStatements, value: str, lang: str) -> set[str]:
    """The verdicts of ``lang``'s statements that state ``value``."""
    return {v.verdict for v in judged.verdicts if v.lang == lang and value in v.text}


TYPOS = [  # card, written, typo, the judge that refutes it in both languages (None: only parity sees it)
    ("fp8-formats", "最大 448", "最大 484", "max 448", "max 484", "fact"),
    ("speculative-decoding", "3.36", "3.63", "3.36", "3.63", "arithmetic"),
    ("transformer-parameter-count", "12h^2 + 13h", "12h^2 + 11h", "12h^2 + 13h", "12h^2 + 11h", "formula"),
    ("checkpoint-interval-young-daly", "77.5", "75.7", "77.5", "75.7", None),
]


@pytest.mark.parametrize("card,zh_old,zh_new,en_old,en_new,judge", TYPOS, ids=[t[0] for t in TYPOS])
def test_a_typo_in_one_language_is_flagged_there(card: str, zh_old: str, zh_new: str, en_old: str, en_new: str,
                                                  judge: str | None) -> None:
    text = (CARDS / f"{card}.md").read_text(encoding="utf-8")
    value = re.sub(r".*?([\d.]+h?)$", r"\1", zh_new)
    assert not flags(judge_text(text, card), value, "zh") & {"refuted", "contradiction"}
    for lang, old, new in (("zh", zh_old, zh_new), ("en", en_old, en_new)):
        got = flags(judge_text(edit(text, old, new, lang), card), value, lang)
        assert got & {"refuted", "contradiction"}, (lang, got)


@pytest.mark.parametrize("card,zh_old,zh_new,en_old,en_new,judge", [t for t in TYPOS if t[5]],
                         ids=[t[0] for t in TYPOS if t[5]])
def test_a_typo_in_both_languages_is_refuted_by_its_judge(card: str, zh_old: str, zh_new: str, en_old: str,
                                                          en_new: str, judge: str) -> None:
    text = (CARDS / f"{card}.md").read_text(encoding="utf-8")
    typo = edit(edit(text, zh_old, zh_new, "zh"), en_old, en_new, "en")
    value = re.sub(r".*?([\d.]+h?)$", r"\1", zh_new)
    judged = judge_text(typo, card)
    for lang in ("zh", "en"):
        hits = [v for v in judged.verdicts if v.lang == lang and value in v.text and v.verdict == "refuted"]
        assert hits and hits[0].judge == judge, (lang, [(v.text, v.verdict, v.judge) for v in judged.verdicts
                                                         if v.lang == lang and value in v.text])
