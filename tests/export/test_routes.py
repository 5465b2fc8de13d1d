"""Exports over HTTP and from the CLI, on a database synced from generated card files."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli.main import cli
from app.deck.sync import sync_cards
from tests.utils import srplugin


def test_card_note_route(export_client: TestClient) -> None:
    r = export_client.get("/api/cards/card-0003.md")
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/markdown; charset=utf-8"
    assert r.headers["content-disposition"].startswith('inline; filename="card-0003.md"')
    assert r.headers["x-content-type-options"] == "nosniff"  # never sniffed into HTML
    props, _, _ = srplugin.split_properties(r.text)
    assert props["slug"] == "card-0003"
    with zipfile.ZipFile(io.BytesIO(export_client.get("/api/export/obsidian.zip").content)) as zf:
        notes = [zf.read(n).decode() for n in zf.namelist()]
    assert r.text in notes  # the single note is the vault's note, links and all


def test_unknown_and_retired_slugs_are_404(export_client: TestClient) -> None:
    r = export_client.get("/api/cards/no-such-card.md")
    assert r.status_code == 404
    assert r.json() == {"detail": "no card with slug 'no-such-card'; list the deck with GET /api/cards"}
    cards_dir: Path = export_client.cards_dir
    (cards_dir / "card-0004.md").unlink()
    sync_cards(export_client.app.state.engine, cards_dir)  # type: ignore[attr-defined]
    assert export_client.get("/api/cards/card-0004.md").status_code == 404
    with zipfile.ZipFile(io.BytesIO(export_client.get("/api/export/obsidian.zip").content)) as zf:
        slugs = {srplugin.split_properties(zf.read(n).decode())[0].get("slug") for n in zf.namelist()}
    assert "card-0004" not in slugs and "card-0005" in slugs


def test_md_route_is_registered_before_any_card_route(export_client: TestClient) -> None:
    """Routes match in registration order: /api/cards/{slug} would swallow /api/cards/x.md."""
    paths = list(export_client.app.openapi()["paths"])  # type: ignore[attr-defined]
    md = paths.index("/api/cards/{slug}.md")
    assert all(i > md for i, p in enumerate(paths) if p.startswith("/api/cards/{slug}") and i != md)


def test_zip_and_handbook_routes(export_client: TestClient) -> None:
    r = export_client.get("/api/export/obsidian.zip")
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    assert 'attachment; filename="proofdeck-obsidian.zip"' == r.headers["content-disposition"]
    assert export_client.get("/api/export/obsidian.zip").content == r.content
    with zipfile.ZipFile(io.BytesIO(r.content)) as zf:
        assert sum(n.endswith(".md") for n in zf.namelist()) == 30 + 4 + 1  # cards, module indexes, deck index
    h = export_client.get("/api/export/handbook.html")
    assert h.status_code == 200 and h.headers["content-type"] == "text/html; charset=utf-8"
    assert h.text.count('<article class="card"') == 30 and "Content-Security-Policy" in h.text


def test_cli_exports_all_three(export_client: TestClient, database_url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    vault, html, apkg = tmp_path / "vault", tmp_path / "out" / "handbook.html", tmp_path / "deck.apkg"
    for args in (["obsidian", str(vault)], ["html", str(html)], ["anki", str(apkg)]):
        result = runner.invoke(cli, ["export", *args, "--database-url", database_url])
        assert result.exit_code == 0, result.output
    assert len(list(vault.rglob("*.md"))) == 35
    assert html.read_text(encoding="utf-8").count('<article class="card"') == 30
    with zipfile.ZipFile(apkg) as zf:
        assert "collection.anki2" in zf.namelist()
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    runner.invoke(cli, ["export", "obsidian", str(vault), "--database-url", database_url])
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before


def test_cli_says_what_is_wrong(database_url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(cli, ["export", "anki", str(tmp_path / "deck.zip"), "--database-url", database_url])
    assert bad.exit_code == 1 and "must end in .apkg" in bad.output
    empty = runner.invoke(cli, ["export", "html", str(tmp_path / "x.html"), "--database-url", database_url])
    assert empty.exit_code == 1 and "run `proofdeck sync` first" in empty.output
