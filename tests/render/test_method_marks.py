"""Every ✓ says how it was obtained (issue 32): the method word and the configurations it ran at, on the marks the
card page, the quiz, the handbook and the Anki / Obsidian notes render, and in ``proofdeck verify``'s summary; a
definition is shown as ≝ and worked arithmetic as =, never as a ✓ proof."""

from __future__ import annotations

from typing import Any

from app.render.markdown import render_markdown
from app.render.marks import Mark, finish_html, finish_markdown, place
from app.verification.present import marks_for
from verify.report.table import summary

EVALUATED: list[dict[str, Any]] = [{"config": "ring N=2", "relations": [{"value": "10"}]},
                                   {"config": "ring N=4", "relations": [{}]},
                                   {"config": "ring N=8", "skipped": "not measured"}]


def _verdict(claim: str, method: str, evaluated: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"claim_key": claim, "claim_id": claim, "card": "c", "verdict": "confirmed", "method": method,
            "text_en": claim, "text_zh": "", "evaluated": evaluated or [], "asserts": "x == 1"}


def test_a_confirmed_mark_names_its_method_and_configurations() -> None:
    (mark,) = marks_for([_verdict("time", "simulated", EVALUATED)], "en")
    assert (mark.sign, mark.method) == ("✓", "simulated at ring N=2, ring N=4")
    html = finish_html(render_markdown(place("the time here", [mark])), [mark])
    assert '<span class="mark-method">simulated at ring N=2, ring N=4</span>' in html
    assert "mark-note" not in html  # the confirmed note stays quiet; the method is its own span


def test_definitions_and_arithmetic_are_not_shown_as_proofs() -> None:
    marks = marks_for([_verdict("gpus", "definition"), _verdict("worked", "arithmetic")], "en")
    assert [(m.sign, m.method) for m in marks] == [("≝", "definition"), ("=", "arithmetic")]
    html = finish_html(render_markdown(place("gpus and worked", marks)), marks)
    assert ">≝<" in html and '<span class="mark-kind">definition</span>' in html and ">✓<" not in html
    out = finish_markdown(place("gpus", marks[:1]), marks[:1])
    assert out == "gpus **≝** *definition*"  # the method word as the mark's words, as for every ✓


def test_obsidian_method_text_is_escaped() -> None:
    """The method word as the mark's words, where it ran after it; a bracket (a link in Obsidian) is escaped,
    a lone "=" (no syntax) is not."""
    mark = Mark("t", "confirmed", "time", "", "", "simulated", "simulated at ring [N]=2")
    assert finish_markdown(place("time", [mark]), [mark]) == "time **✓** *simulated* (at ring \\[N\\]=2)"


def test_the_cli_summary_counts_by_method_and_lists_where_a_check_ran() -> None:
    claims = [_verdict("a", "simulated", EVALUATED), _verdict("b", "definition"), _verdict("c", "simulated")]
    lines = summary({"claims": claims}, verdicts=["confirmed"])
    assert "confirmed by: 2 simulated · 1 definition" in lines
    assert "    simulated at ring N=2, ring N=4" in lines and "    definition" in lines
