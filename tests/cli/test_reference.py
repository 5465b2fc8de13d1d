"""README.md's command table is the CLI's own (``python -m app.cli.reference --write`` regenerates it)."""

from __future__ import annotations

import pytest

from app.cli.reference import BEGIN, END, README, command_table, with_table
from harness.startup import help_commands


def test_readme_table_is_the_generated_one() -> None:
    readme = README.read_text(encoding="utf-8")
    assert readme.count(BEGIN) == 1 and readme.count(END) == 1
    shown = readme[readme.index(BEGIN) + len(BEGIN):readme.index(END)].strip("\n")
    assert shown == command_table(), "README.md's command table is stale: run `python -m app.cli.reference --write`"


def test_every_command_has_a_row_with_its_arguments_and_options() -> None:
    rows = command_table().splitlines()[2:]
    paths = [args[:-1] for args in help_commands()]  # every command and group
    leaves = [p for p in paths if not any(len(q) > len(p) and q[: len(p)] == p for q in paths)]
    assert len(rows) == len(leaves)
    for path in leaves:
        assert any(row.startswith(f"| `proofdeck {' '.join(path)}") for row in rows), path
    html = next(row for row in rows if row.startswith("| `proofdeck export html FILE` | Write the offline single-file"))
    assert html.endswith("| `--user`, `--database-url` |"), html  # the first docstring paragraph, then the options
    assert any(row.startswith("| `proofdeck verify` |") and "`--from-json`" in row and "`--verdict`" in row
               for row in rows)


def test_only_the_text_between_the_markers_changes() -> None:
    text = f"before\n{BEGIN}\nold table\n{END}\nafter\n"
    assert with_table(text, "| new |") == f"before\n{BEGIN}\n| new |\n{END}\nafter\n"
    with pytest.raises(ValueError, match="no command table markers"):
        with_table("no markers here", "| new |")
