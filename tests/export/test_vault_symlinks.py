"""The vault reader never reads outside the vault (issue 36): a symlinked note, or a symlinked folder, that
points out of it is a listed, skipped line with the reason; a link that stays inside is read."""

from __future__ import annotations

from pathlib import Path

from app.export.obsidian_state import read_vault_folder


def test_links_out_of_the_vault_are_skipped_and_listed(tmp_path: Path) -> None:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "secret.md").write_text("SECRET", encoding="utf-8")
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "sub" / "note.md").write_text("mine", encoding="utf-8")
    (vault / "leak.md").symlink_to(secret / "secret.md")
    (vault / "away").symlink_to(secret, target_is_directory=True)
    (vault / "alias.md").symlink_to(vault / "sub" / "note.md")  # stays inside: fine
    notes, problems = read_vault_folder(vault)
    assert "SECRET" not in notes.values()
    assert notes == {"sub/note.md": "mine", "alias.md": "mine"}
    skipped = {p.path: p.message for p in problems if "outside the vault" in p.message}
    assert "leak.md" in skipped and all("skipped" in m for m in skipped.values())
