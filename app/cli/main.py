"""``proofdeck``: one Typer app; each concern registers its commands from its own module.

Importing this is cheap (``proofdeck --help`` starts in a few times a bare interpreter's start): the command
modules import typer and the standard library at the top and everything else inside the command that uses
it (tests/cli/test_help_start.py: no sqlmodel, sqlalchemy, pydantic, sympy or torch on ``--help``)."""

from __future__ import annotations

from app.cli import cards, claims, db, export, importer, match, server, srs, users, verify
from app.cli.group import group

cli = group("proofdeck: bilingual ML-systems interview cards, proved by running code.", add_completion=False)
for module in (server, cards, importer, export, verify, claims, match, users, srs, db):  # the order --help lists
    module.register(cli)

if __name__ == "__main__":
    cli()
