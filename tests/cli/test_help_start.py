"""``proofdeck --help`` and every subcommand's ``--help`` answer at once because the command line imports only
typer until a command runs; what a command needs is imported inside it. How fast that is is measured by
``bench/cli_start.py`` (medians beside a bare interpreter's start), not by a timed test."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.utils.startup import ROOT, help_commands

HEAVY = ("sqlmodel", "sqlalchemy", "pydantic", "pydantic_settings", "sympy", "torch", "fastapi", "uvicorn",
         "numpy", "yaml", "jinja2", "genanki", "rich", "verify")

PROBE = """
import json, sys
from app.cli.main import cli
loaded = {"import": sorted({m.split(".")[0] for m in sys.modules})}
for args in json.loads(sys.argv[1]):
    try:
        cli(args, prog_name="proofdeck")
    except SystemExit as exc:
        assert exc.code in (0, None), (args, exc.code)
loaded["help"] = sorted({m.split(".")[0] for m in sys.modules})
print(json.dumps(loaded))
"""


def test_the_command_line_and_its_help_import_none_of_the_heavy_libraries() -> None:
    commands = help_commands()
    assert ["--help"] in commands and ["export", "html", "--help"] in commands and len(commands) >= 20
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(commands)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded = json.loads(proc.stdout.splitlines()[-1])
    assert not set(HEAVY) & set(loaded["import"]), "importing app.cli.main loads " + str(set(HEAVY) & set(
        loaded["import"]))
    assert not set(HEAVY) & set(loaded["help"]), "--help loads " + str(set(HEAVY) & set(loaded["help"]))
