"""What a user's vault holds that the deck does not: the Spaced Repetition plugin's scheduling.

The export ends each follow-up's answer with an Obsidian block id ``^pd-<follow-up id>``. The plugin
treats a trailing `` ^id`` as the block id of the card: it is not part of the card's front or back,
and the plugin keeps it when it writes its schedule after a review, either on the next line::

    answer text ^pd-why-optimizer
    <!--SR:!2026-12-04,3,250-->

or, with the plugin's "scheduling comment on the same line" setting, before it
(``answer <!--SR:!2026-12-04,3,250--> ^pd-why-optimizer``), or in its ``> [!sr|card-metadata]``
callout. :func:`read_note` finds each comment with the block id next to it and the note's ``slug``
property, so a re-export puts it back under the same follow-up whatever else changed, and
``proofdeck import obsidian-reviews`` knows which review item it belongs to. The note-review
properties the plugin adds (``sr-due``, ``sr-interval``, ``sr-ease``) are kept too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import yaml

from app.cards.schema import SLUG_RE
from app.core.progress import Progress

BLOCK_PREFIX = "pd-"
NOTE_REVIEW_KEYS = ("sr-due", "sr-interval", "sr-ease")
MAX_NOTE_BYTES = 2_000_000
_SR_COMMENT = re.compile(r"<!--SR:(.*?)-->")
_BLOCK_ID = re.compile(rf"(?:^| )\^{BLOCK_PREFIX}([a-z0-9]+(?:-[a-z0-9]+)*)\s*$")
_METADATA_CALLOUT = "> [!sr|card-metadata]"
_COMMENT_BODY = re.compile(r"^[0-9A-Za-z!,.:+\- ]{1,2000}$")  # what the plugin writes (SM-2 or FSRS fields)


def block_id(followup_id: str) -> str:
    """The block id written after a follow-up's answer (``^`` not included)."""
    return f"{BLOCK_PREFIX}{followup_id}"


@dataclass(frozen=True)
class Problem:
    """One thing in a note that was skipped, with where it is and what to do."""

    path: str
    line: int  # 1-based; 0 for the whole note
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


@dataclass
class NoteState:
    """One exported note as the user's vault has it now."""

    path: str
    slug: str
    schedules: dict[str, str] = field(default_factory=dict)  # follow-up id -> comment body ("!2026-12-04,3,250")
    lines: dict[str, int] = field(default_factory=dict)  # follow-up id -> line of its comment (1-based)
    properties: dict[str, object] = field(default_factory=dict)  # the plugin's note-review properties


@dataclass
class VaultState:
    """Every exported note found, by card slug, and what could not be read."""

    notes: dict[str, NoteState] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def schedules(self, slug: str) -> Mapping[str, str]:
        note = self.notes.get(slug)
        return note.schedules if note else {}

    def properties(self, slug: str) -> Mapping[str, object]:
        note = self.notes.get(slug)
        return note.properties if note else {}


def _front_matter(text: str) -> tuple[dict[str, object], int]:
    """The note's properties and the index of its first body line (0 without properties)."""
    if not text.startswith("---\n"):
        return {}, 0
    end = text.find("\n---\n", 3)
    if end < 0:
        raise ValueError("the properties block that starts at line 1 has no closing '---' line")
    data = yaml.safe_load(text[4:end])
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError("the properties block is not a mapping of names to values")
    return data, text[: end + 5].count("\n")


def read_note(path: str, text: str) -> tuple[NoteState | None, list[Problem]]:
    """The scheduling comments of one note, by follow-up id; None for a note that is not an exported card
    (no ``slug`` property). A comment that names no follow-up, or a second one for the same follow-up,
    is reported and skipped."""
    try:
        props, first = _front_matter(text)
    except (ValueError, yaml.YAMLError) as exc:
        return None, [Problem(path, 1, f"unreadable properties ({str(exc).splitlines()[0]}); fix or remove "
                                        "the note and export again")]
    slug = props.get("slug")
    if not isinstance(slug, str) or not SLUG_RE.match(slug):
        return None, []  # not a note proofdeck wrote (its slugs are kebab-case)
    note = NoteState(path=path, slug=slug, properties=_note_review(props))
    problems: list[Problem] = []
    lines = text.split("\n")
    for n in range(first, len(lines)):
        line = lines[n]
        for m in _SR_COMMENT.finditer(line):
            owner = _owner(lines, n, first)
            if not _COMMENT_BODY.match(m.group(1).strip()):
                problems.append(Problem(path, n + 1, "scheduling comment with characters the plugin never "
                                                     "writes: not the plugin's; skipped"))
            elif owner is None:
                problems.append(Problem(path, n + 1, "scheduling comment with no ^pd-<follow-up> block id "
                                                     "before it: not a card proofdeck exported; skipped"))
            elif owner in note.schedules:
                problems.append(Problem(path, n + 1, f"a second scheduling comment for follow-up {owner!r} "
                                                     f"(the first is on line {note.lines[owner]}); skipped"))
            else:
                note.schedules[owner] = m.group(1).strip()
                note.lines[owner] = n + 1
    return note, problems


def _note_review(props: Mapping[str, object]) -> dict[str, object]:
    """The plugin's note-review properties, as plain values (YAML reads ``sr-due: 2026-12-10`` as a date)."""
    out: dict[str, object] = {}
    for key in NOTE_REVIEW_KEYS:
        value = props.get(key)
        if isinstance(value, date):
            value = value.isoformat()
        if isinstance(value, str | int | float) and not isinstance(value, bool) and len(str(value)) < 40:
            out[key] = value
    return out


def _owner(lines: list[str], n: int, first: int) -> str | None:
    """The follow-up id whose block id goes with the comment on line ``n``: on that line (comment on the
    same line), on the line above (comment on its own line), or above the plugin's metadata callout."""
    same = _BLOCK_ID.search(_SR_COMMENT.sub("", lines[n]).rstrip())
    if same:
        return same.group(1)
    above = n - 1
    if above >= first and lines[above].strip() == _METADATA_CALLOUT:
        above -= 1
    if above >= first:
        m = _BLOCK_ID.search(lines[above].rstrip())
        if m:
            return m.group(1)
    return None


def read_vault_notes(notes: Mapping[str, str], progress: Progress | None = None) -> VaultState:
    """Every exported card note among ``notes`` (path → text). Two notes with one slug: the first by
    path wins and the other is reported. ``progress`` ticks once per note."""
    state = VaultState()
    paths = sorted(notes)
    for path in progress.each("parsing notes", paths, unit="notes") if progress else paths:
        note, problems = read_note(path, notes[path])
        state.problems += problems
        if note is None:
            continue
        if note.slug in state.notes:
            state.problems.append(Problem(path, 0, f"a second note for card {note.slug!r} (the first is "
                                                   f"{state.notes[note.slug].path}); its comments are skipped"))
            continue
        state.notes[note.slug] = note
    return state


def read_vault_folder(folder: Path, progress: Progress | None = None) -> tuple[dict[str, str], list[Problem]]:
    """Every ``.md`` note under ``folder`` (path relative to it → text); hidden folders (``.obsidian``,
    ``.trash``) are skipped; a note whose resolved path leaves the vault (a symlink) is reported, never read;
    a note too large or not UTF-8 is reported and skipped. ``progress`` ticks
    once per file read."""
    out: dict[str, str] = {}
    problems: list[Problem] = []
    if not folder.is_dir():
        return out, problems
    root = folder.resolve()
    paths = sorted(folder.rglob("*.md"))
    for path in progress.each("reading the vault", paths, unit="files") if progress else paths:
        rel = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in path.relative_to(folder).parts) or not path.is_file():
            continue
        if not path.resolve().is_relative_to(root):  # a symlink (the note or a folder above it) out of the vault
            problems.append(Problem(rel, 0, "a link to a file outside the vault: not read; skipped"))
            continue
        try:
            if path.stat().st_size > MAX_NOTE_BYTES:
                problems.append(Problem(rel, 0, f"larger than {MAX_NOTE_BYTES // 1_000_000} MB: not an "
                                                "exported note; skipped"))
                continue
            out[rel] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(rel, 0, f"not UTF-8 (byte {exc.start}); skipped"))
        except OSError as exc:
            problems.append(Problem(rel, 0, f"cannot be read ({exc.strerror}); skipped"))
    return out, problems


def read_vault(folder: Path, progress: Progress | None = None) -> VaultState:
    """:func:`read_vault_notes` of :func:`read_vault_folder`, with the problems of both."""
    notes, problems = read_vault_folder(folder, progress)
    state = read_vault_notes(notes, progress)
    state.problems[:0] = problems
    return state
