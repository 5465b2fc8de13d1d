"""``proofdeck verify``: run the verify sweep out of process and store its verdicts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

out = Console()
err = Console(stderr=True, soft_wrap=True, highlight=False)


TORCH_MISSING = ("torch is not installed: the verification extra is optional (serving never needs it). Install it "
                 "with `make verify` (installs, then runs this) or `.venv/bin/pip install -e '.[verify]'` (torch "
                 "2.13.0, the CPU wheel); `--from-json REPORT` stores an existing report without torch.")


def _require_torch() -> None:
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        from rich.markup import escape

        err.print(f"[red]error[/red] {escape(TORCH_MISSING)}")
        raise typer.Exit(2)


def register(cli: typer.Typer) -> None:
    @cli.command()
    def verify(
        backend: str = typer.Option(None, help="gloo (CPU, default) or nccl (GPU)."),
        world_sizes: str = typer.Option(None, "--world-sizes", help="Comma-separated ranks, default 2,4."),
        params: int = typer.Option(None, help="Model parameters (default: the verify package's)."),
        json_file: Path = typer.Option(None, "--json", help="Also write the JSON report here."),
        from_json: Path = typer.Option(None, "--from-json", exists=True, dir_okay=False,
                                       help="Store this existing report (e.g. an NCCL run) instead of running."),
        database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL."),
    ) -> None:
        """Judge every card claim by running ZeRO-1/2/3 on torch.distributed; store the verdicts."""
        from pydantic import ValidationError

        from app.core.config import settings
        from app.core.db import get_engine, new_session
        from app.deck.verdicts import store_verdicts
        from app.models.migrate import init_db
        from app.verification.runner import VerifyRunError, run_verify

        if from_json:
            try:
                data = json.loads(from_json.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                err.print(f"[red]error[/red] {from_json}: not a JSON report ({exc})")
                raise typer.Exit(1) from None
        else:
            _require_torch()
            try:
                data = run_verify(backend=backend, world_sizes=world_sizes, params=params,
                                  cards_dir=settings.CARDS_DIR, show_output=True)
            except VerifyRunError as exc:
                err.print(f"[red]error[/red] {exc}")
                raise typer.Exit(1) from None
        if json_file:
            json_file.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        engine = get_engine(database_url or settings.DATABASE_URL)
        init_db(engine)
        with new_session(engine) as session:
            try:
                run = store_verdicts(session, data)
            except ValidationError as exc:
                err.print(f"[red]error[/red] the report does not have the verify JSON shape: {exc}")
                raise typer.Exit(1) from None
            table = Table("card", "claim", "verdict", "method")
            for c in run.report.get("claims", []):
                table.add_row(c["card"], c["claim_id"], c["verdict"], c.get("method") or "")
            out.print(table)
            counts = Counter(c["verdict"] for c in run.report.get("claims", []))
            out.print(f"stored run {run.id} ({run.backend or '?'} on {run.device or '?'}, torch {run.torch_version}): "
                      + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
            unjudged = counts["error"]
            if unjudged:
                err.print(f"{unjudged} claim(s) could not be judged (error): see the table")
                raise typer.Exit(1)
