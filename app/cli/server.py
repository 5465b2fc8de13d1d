"""``proofdeck serve``: run the web server with uvicorn."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    import socket


def _banner(base: str, login_url: str | None) -> str:
    """What ``serve`` prints last, once the server answers: the login link on its own, easy to see."""
    if login_url:
        from app.core.config import settings

        lines = [f"proofdeck is serving at {base}/ . Log in as 'admin' with this link (it signs in once, within "
                 f"{settings.LOGIN_LINK_MINUTES:g} minutes):", "", f"    {login_url}", "",
                 "A new link, and an API token: proofdeck user link admin --api-token"]
    else:
        lines = [f"proofdeck is serving at {base}/",
                 "A new login link for a user: proofdeck user link NAME (e.g. proofdeck user link admin)"]
    rule = "=" * 78
    return "\n".join(["", rule, *lines, rule, ""])


def register(cli: typer.Typer) -> None:
    @cli.command()
    def serve(host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
              port: int = typer.Option(8000, help="TCP port."),
              workers: int = typer.Option(1, min=1, help="uvicorn worker processes (start-up work runs in turn)."),
              timeout_keep_alive: int = typer.Option(5, min=1, help="Seconds an idle keep-alive connection lives."),
              header_timeout: float = typer.Option(None, min=0.1, help="Seconds a client has to send a request's "
                                                   "headers (default: PROOFDECK_HEADER_TIMEOUT, 10)."),
              body_timeout: float = typer.Option(None, min=0.1, help="Seconds a client has to send a request's body "
                                                 "(default: PROOFDECK_BODY_TIMEOUT, 30).")) -> None:
        """Serve the web app and the API.

        Migrates and syncs cards/ at start-up (one worker at a time), then prints the login link."""
        import uvicorn

        from app.core import served
        from app.core.http_timeouts import PROTOCOL

        # the first-start login link must name the address actually served, unless one is configured
        if "PROOFDECK_BASE_URL" not in os.environ:
            os.environ["PROOFDECK_BASE_URL"] = f"http://{host}:{port}"
            from app.core.config import settings

            settings.BASE_URL = os.environ["PROOFDECK_BASE_URL"]
        # workers are new processes: they read these from the environment
        if header_timeout is not None:
            os.environ["PROOFDECK_HEADER_TIMEOUT"] = str(header_timeout)
        if body_timeout is not None:
            os.environ["PROOFDECK_BODY_TIMEOUT"] = str(body_timeout)
        from app.core.config import settings as config

        base = config.BASE_URL.rstrip("/")
        # `proofdeck user link` prints links to this address while this process listens there
        served.record(base, config.DATABASE_URL, host=host, port=port, pid=os.getpid())
        # X-Forwarded-For / -Proto only from configured proxies (uvicorn's default believes any loopback peer)
        trusted = config.TRUSTED_PROXIES.strip()
        options: dict[str, Any] = {"host": host, "port": port, "log_level": "info", "http": PROTOCOL,
                                       "timeout_keep_alive": timeout_keep_alive, "proxy_headers": bool(trusted),
                                       "forwarded_allow_ips": trusted or "",
                                       # uvicorn kills a new worker that has not answered its supervisor within
                                       # 5 s; on a busy machine importing the app takes longer and the workers
                                       # were killed and respawned for ever
                                       "timeout_worker_healthcheck": 60}
        if workers > 1:  # each worker prints a first-start link itself (app.main.first_start)
            uvicorn.run("app.main:app", workers=workers, **options)
            return
        from app import main

        links: list[str] = []
        main.app.state.announce_login = links.append  # printed after uvicorn's own start-up lines

        class Server(uvicorn.Server):
            async def startup(self, sockets: list[socket.socket] | None = None) -> None:
                await super().startup(sockets)
                if self.started:
                    print(_banner(base, links[0] if links else None), flush=True)

        Server(uvicorn.Config(main.app, **options)).run()
