"""``proofdeck``: one Typer app; each concern registers its commands from its own module."""

from __future__ import annotations

import typer

from app.cli import cards, claims, db, export, importer, match, server, srs, users, verify

cli = typer.Typer(help="proofdeck: bilingual ML-systems interview cards, proved by running code.",
                  no_args_is_help=True, add_completion=False)
cards.register(cli)
claims.register(cli)
db.register(cli)
export.register(cli)
importer.register(cli)
match.register(cli)
server.register(cli)
users.register(cli)
srs.register(cli)
verify.register(cli)

if __name__ == "__main__":
    cli()
