"""``proofdeck serve``: run the web server with uvicorn."""

from __future__ import annotations

import typer


def register(cli: typer.Typer) -> None:
    @cli.command()
    def serve(host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
              port: int = typer.Option(8000, help="TCP port."),
              workers: int = typer.Option(1, help="uvicorn worker processes.")) -> None:
        """Serve the web app and API (syncs cards/ at start-up)."""
        import uvicorn

        uvicorn.run("app.main:app", host=host, port=port, workers=workers, log_level="info")
