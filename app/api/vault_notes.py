"""The body both Obsidian routes take: the user's current notes (``{"notes": {"proofdeck/M1 …/Note.md":
"<text>", …}}``, any paths; only notes with a ``slug`` property are read). ``POST /api/export/obsidian.zip``
merges them into the vault zip, ``POST /api/review/import/obsidian`` imports the reviews they hold."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from app.export.obsidian_state import MAX_NOTE_BYTES

MAX_NOTES = 20_000

NotePath = Annotated[str, StringConstraints(min_length=1, max_length=1000)]
NoteText = Annotated[str, StringConstraints(max_length=MAX_NOTE_BYTES)]


class VaultNotes(BaseModel):
    """The client's current notes: path in the vault → text (as read from disk, UTF-8)."""

    notes: dict[NotePath, NoteText] = Field(max_length=MAX_NOTES)
