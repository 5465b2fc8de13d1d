"""``proofdeck verify``: run the verify sweep out of process, store its verdicts, print a summary that fits
the terminal (``verify.report.table.summary``); ``--from-json`` stores and re-prints a report without torch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from app.cli.console import err, error, out

TORCH_MISSING = ("torch is not installed: the verification extra is optional (serving never needs it). Install it "
                 "with `make verify` (installs, then runs this) or `.venv/bin/pip install -e '.[verify]'` (torch "
                 "2.13.0, the CPU wheel); `--from-json REPORT` stores an existing report without torch.")


def _require_torch() -> None:
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        error(TORCH_MISSING)
        raise typer.Exit(2)


def _check_filters(report: dict[str, Any], cards: list[str], verdicts: list[str]) -> None:
    """An unknown card or verdict is a typo: say so, with what the report holds, instead of printing nothing."""
    import difflib

    from verify.report.table import VERDICTS

    for v in verdicts:
        if v not in VERDICTS:
            error(f"--verdict {v}: not a verdict; one of {', '.join(VERDICTS)}")
            raise typer.Exit(2)
    known = sorted({c["card"] for c in report.get("claims", [])})
    for card in cards:
        if card not in known:
            near = difflib.get_close_matches(card, known, n=3)
            error(f"--card {card}: the report has no claim of that card"
                  + (f" (did you mean {', '.join(near)}?)" if near else f" ({len(known)} cards: {', '.join(known)})"))
            raise typer.Exit(2)


def register(cli: typer.Typer) -> None:
    @cli.command()
    def verify(
        backend: str = typer.Option(None, help="gloo (CPU, default) or nccl (GPU)."),
        world_sizes: str = typer.Option(None, "--world-sizes", help="Comma-separated ranks, default 2,4."),
        params: int = typer.Option(None, help="Model parameters (default: the verify package's)."),
        json_file: Path = typer.Option(None, "--json", help="Also write the JSON report here."),
        from_json: Path = typer.Option(None, "--from-json", exists=True, dir_okay=False,
                                       help="Use this existing report (e.g. an NCCL run) instead of running: "
                                            "store it and print its summary (no torch needed)."),
        store: bool = typer.Option(True, "--store/--no-store", help="Store the verdicts in the database "
                                   "(--no-store with --from-json only prints the report)."),
        show_all: bool = typer.Option(False, "--all", help="List every claim (default: the refuted ones)."),
        card: list[str] = typer.Option([], "--card", metavar="SLUG", help="Only this card's claims, all listed "
                                       "(repeatable)."),
        verdict: list[str] = typer.Option([], "--verdict", metavar="VERDICT", help="Only claims with this verdict, "
                                          "all listed (repeatable): confirmed, conditional, refuted, unverifiable, "
                                          "mismatch, stale, error."),
        database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL."),
    ) -> None:
        """Judge every card claim on torch.distributed.

        Runs ZeRO-1/2/3 on torch.distributed (Gloo on CPU), stores the verdicts and prints a summary: the
        counts, a line per card, each refuted claim with its correction."""
        import shutil
        import sys

        from app.core.progress import Progress
        from verify.report.table import summary

        timer = Progress(bar=False)  # on a terminal the sweep draws its own bars; in a log this prints lines

        if from_json:
            try:
                data = json.loads(from_json.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                error(f"{from_json}: not a JSON report ({exc})")
                raise typer.Exit(1) from None
            if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
                error(f"{from_json}: not a verify report (no \"claims\" list; verify/README.md, \"JSON report\")")
                raise typer.Exit(1)
            _check_filters(data, card, verdict)
        else:
            from app.core.config import settings
            from app.verification.runner import VerifyRunError, run_verify

            _check_filters({"claims": []}, [], verdict)
            _require_torch()
            try:
                data = run_verify(backend=backend, world_sizes=world_sizes, params=params,
                                  cards_dir=settings.CARDS_DIR, show_output=True,
                                  progress=None if sys.stderr.isatty() else timer)
            except VerifyRunError as exc:
                error(exc)
                raise typer.Exit(1) from None
            _check_filters(data, card, verdict)
        if json_file:
            json_file.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        stored = _store(data, database_url) if store else "not stored (--no-store)"
        width = shutil.get_terminal_size((80, 24)).columns
        try:
            lines = summary(data, width=width, every=show_all, cards=card, verdicts=verdict)
        except (KeyError, TypeError, AttributeError) as exc:  # --no-store: the shape was not validated
            error(f"the report does not have the verify JSON shape (a claim lacks {exc}; verify/README.md)")
            raise typer.Exit(1) from None
        for line in lines:
            out.print(line)
        out.print(timer.summary(stored) if not from_json else stored)
        unjudged = sum(c["verdict"] == "error" for c in data["claims"])
        if unjudged:
            err.print(f"{unjudged} claim(s) could not be judged (error): "
                      "`proofdeck verify --verdict error` lists them", markup=False)
            raise typer.Exit(1)


def _store(data: dict[str, Any], database_url: str | None) -> str:
    """Store the report (its verdicts and the review items they change); returns the line that says so."""
    from pydantic import ValidationError

    from app.core.config import settings
    from app.core.db import get_engine, new_session
    from app.deck.verdicts import store_verdicts
    from app.models.migrate import init_db

    engine = get_engine(database_url or settings.DATABASE_URL)
    init_db(engine)
    with new_session(engine) as session:
        try:
            run = store_verdicts(session, data)
        except ValidationError as exc:
            error(f"the report does not have the verify JSON shape: {exc}")
            raise typer.Exit(1) from None
        return f"stored run {run.id} ({run.backend or '?'} on {run.device or '?'}, torch {run.torch_version})"
