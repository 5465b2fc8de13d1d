"""How the Obsidian Spaced Repetition plugin (v1.15.4) reads a note, as documented in
shared/notes/fsrs-obsidian-anki.md (observed by running the plugin's parser outside Obsidian):

- a ``#flashcards`` / ``#flashcards/deck`` tag is required (inline or in the properties); the
  properties block itself is not searched for cards;
- a blank line ends a multi-line card (also inside ``$$ ... $$``); a fenced code block is skipped
  and may contain blank lines;
- ``::`` anywhere outside backticks starts a single-line card (and spoils a multi-line card);
- every ``==highlight==`` becomes a cloze card;
- a multi-line card is the block of consecutive non-blank lines around a line that is exactly
  ``?`` (``??`` for a reversed card), so a line glued above it joins its question;
- a multi-line HTML comment (``<!--`` ... later ``-->``) hides every card after it.

This is not the plugin; it is the checker our exports must satisfy, one rule per branch below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_TAG = re.compile(r"(?<!\S)#(flashcards(?:/[\w/-]+)?)(?!\S)")


@dataclass(frozen=True)
class SRCard:
    kind: str  # multiline | multiline-reversed | singleline | cloze
    question: str
    answer: str
    line: int


def split_properties(note: str) -> tuple[dict[str, object], str, int]:
    if not note.startswith("---\n"):
        return {}, note, 0
    end = note.index("\n---\n", 3)
    props = yaml.safe_load(note[4:end]) or {}
    return props, note[end + 5 :], note[: end + 5].count("\n")


def flashcard_tags(note: str) -> list[str]:
    props, body, _ = split_properties(note)
    listed = props.get("tags") or []
    tags = [str(t) for t in (listed if isinstance(listed, list) else []) if str(t).startswith("flashcards")]
    in_fence = False
    for line in body.split("\n"):
        if line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence:
            tags += _TAG.findall(_CODE_SPAN.sub("", line))
    return tags


def parse(note: str) -> list[SRCard]:
    """Every card the plugin would see in ``note`` (empty if the note has no flashcard tag)."""
    if not flashcard_tags(note):
        return []
    _, body, offset = split_properties(note)
    lines = body.split("\n")
    cards: list[SRCard] = []
    block: list[str] = []
    sep: int | None = None
    kind = ""
    start = 0

    def close() -> None:
        nonlocal block, sep, kind
        if sep is not None:
            cards.append(SRCard(kind, "\n".join(block[:sep]), "\n".join(block[sep + 1 :]), offset + start))
        block, sep, kind = [], None, ""

    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            close()
            i += 1
            continue
        if not block:
            start = i
        if line.startswith("<!--") and not line.startswith("<!--SR:") and "-->" not in line:
            cards.append(SRCard("hidden-by-comment", "", "", offset + i))
            break
        if line.startswith("```"):
            block.append(line)
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                block.append(lines[i])
                i += 1
            if i < len(lines):
                block.append(lines[i])
            i += 1
            continue
        bare = _CODE_SPAN.sub("", line)
        if "::" in bare:
            question, answer = bare.split("::", 1)
            cards.append(SRCard("singleline", question, answer, offset + i))
        elif re.search(r"==.*?==", bare):
            cards.append(SRCard("cloze", bare, "", offset + i))
        if line in ("?", "??") and sep is None:
            sep = len(block)
            kind = "multiline" if line == "?" else "multiline-reversed"
        block.append(line)
        i += 1
    close()
    return cards
