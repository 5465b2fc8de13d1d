"""Pitfalls in the card format: ``- mistake ⟹ consequence``, one bullet per pitfall and language.

The review item of a pitfall asks about the mistake ("what goes wrong, and why?") and answers with the
consequence, so the front never gives its answer away. The bank's exports write "mistake：consequence";
the importer (:func:`mark_consequences`) rewrites such bullets with ``⟹``; a bullet without ``⟹`` is split
at the same places when its item is shown (:func:`split_pitfall`).
"""

from __future__ import annotations

import re

from app.cards.schema import LangText

PITFALL_ARROW = "⟹"
# where a bullet without ⟹ turns from the mistake to its consequence (the importer writes ⟹ there)
_CONSEQUENCE = re.compile(r"：|——|(?<=\S): (?=\S)| — |; ")


def split_pitfall(statement: str) -> tuple[str, str]:
    """(mistake, consequence) of one pitfall bullet: ``mistake ⟹ consequence`` (the card format), else the
    first "：", "——", ": ", " — " or "; " outside math and code; ("statement", "") when there is none."""
    text = re.sub(r"^\s*(?:⚠️?|⚠)\s*", "", statement)
    if PITFALL_ARROW in text:
        mistake, consequence = text.split(PITFALL_ARROW, 1)
        return mistake.strip(), consequence.strip()
    masked = re.sub(r"\$[^$]*\$|`[^`]*`|\([^()]*\)|（[^（）]*）", lambda m: "x" * len(m.group(0)), text)
    m = _CONSEQUENCE.search(masked)
    if m is None:
        return text.strip(), ""
    return text[:m.start()].strip(), text[m.end():].strip()


_BULLET_LINE = re.compile(r"^(\s{0,3}(?:[-*+]|\d+[.)])\s+)(\s*(?:⚠️?|⚠)?\s*)(.*)$")


def mark_consequences(text: LangText) -> LangText:
    """Pitfall bullets rewritten as ``mistake ⟹ consequence`` where a consequence is found."""
    def one(lang_text: str) -> str:
        out = []
        for line in lang_text.split("\n"):
            m = _BULLET_LINE.match(line)
            if m and PITFALL_ARROW not in line:
                mistake, consequence = split_pitfall(m.group(3))
                if consequence:
                    line = f"{m.group(1)}{m.group(2)}{mistake} {PITFALL_ARROW} {consequence}"
            out.append(line)
        return "\n".join(out)
    return LangText(zh=one(text.zh), en=one(text.en))
