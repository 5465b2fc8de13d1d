"""``proofdeck serve``: run the web server with uvicorn."""

from __future__ import annotations

import os

import typer


def register(cli: typer.Typer) -> None:
    @cli.command()
    def serve(host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
              port: int = typer.Option(8000, help="TCP port."),
              workers: int = typer.Option(1, help="uvicorn worker processes.")) -> None:
        """Serve the web app and API (syncs cards/ at start-up)."""
        import uvicorn

        # the first-start login link must name the address actually served, unless one is configured
        if "PROOFDECK_BASE_URL" not in os.environ:
            os.environ["PROOFDECK_BASE_URL"] = f"http://{host}:{port}"
            from app.core.config import settings

            settings.BASE_URL = os.environ["PROOFDECK_BASE_URL"]
        from app.core.config import settings as config

        # X-Forwarded-For / -Proto only from configured proxies (uvicorn's default believes any loopback peer)
        trusted = config.TRUSTED_PROXIES.strip()
        uvicorn.run("app.main:app", host=host, port=port, workers=workers, log_level="info",
                    proxy_headers=bool(trusted), forwarded_allow_ips=trusted or "")
