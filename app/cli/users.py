"""``proofdeck user add NAME [--admin] [--password]``, ``user link NAME``, ``user logout NAME``: accounts.

Links name ``PROOFDECK_BASE_URL``, else the address of the server on this database (``app/core/served.py``);
when that server is not running, the command says how to start it."""

from __future__ import annotations

import typer

from app.cli.console import err, error, out
from app.cli.group import group

user_cli = group("User accounts.")


def _print_link(database_url: str, token: str) -> None:
    """The login link, on a line of its own, and a word on stderr when no server answers at its address."""
    from urllib.parse import urlsplit

    from app.core.served import login_link, where

    served = where(database_url)
    out.print(login_link(served.base_url, token))
    port = urlsplit(served.base_url).port
    if served.source == "recorded" and not served.running:
        err.print(f"(the server last started on this database, at {served.base_url}, is not running: start it "
                  f"with `make run PORT={port}` or `proofdeck serve --port {port}`)")
    elif served.source == "default":
        err.print(f"(no server has been started on this database yet: `make run` serves it at {served.base_url}; "
                  "set PROOFDECK_BASE_URL if it is served elsewhere)")


@user_cli.command("add")
def add(name: str = typer.Argument(..., help="Username (letters, digits, '_', '.', '-')."),
        admin: bool = typer.Option(False, "--admin", help="May sync, import, verify and manage users."),
        password: bool = typer.Option(False, "--password", help="Also set a password (asked twice)."),
        database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """Create a user; print its API token and login link.

    The token is shown once (only its hash is stored)."""

    from app.auth.users import UserError, create_user
    from app.core.config import settings
    from app.core.db import get_engine, new_session
    from app.models.migrate import init_db

    secret = typer.prompt("Password", hide_input=True, confirmation_prompt=True) if password else None
    engine = get_engine(database_url or settings.DATABASE_URL)
    init_db(engine)
    try:
        with new_session(engine) as session, session.begin():
            user, token = create_user(session, name, is_admin=admin, password=secret)
    except UserError as exc:
        error(exc)
        raise typer.Exit(1) from None
    out.print(f"created {'admin' if admin else 'user'} {name!r}. API token (shown once):")
    out.print(token)
    out.print("login link:")
    _print_link(database_url or settings.DATABASE_URL, token)


@user_cli.command("link")
def link(name: str = typer.Argument(..., help="Username of an existing user."),
         database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """Print a fresh login link for NAME.

    A new token; the user's other tokens and sessions keep working."""
    from sqlmodel import select

    from app.auth.users import issue_token
    from app.core.config import settings
    from app.core.db import get_engine, new_session
    from app.models.migrate import init_db
    from app.models.user import User

    url = database_url or settings.DATABASE_URL
    engine = get_engine(url)
    init_db(engine)
    with new_session(engine) as session, session.begin():
        user = session.exec(select(User).where(User.username == name)).first()
        if user is None:
            error(f"no user {name!r}; `proofdeck user add {name}` creates one")
            raise typer.Exit(1)
        token = issue_token(session, user, kind="api", label="login link (proofdeck user link)")
    out.print(f"login link for {name!r} (shown once; it also works as an API token):")
    _print_link(url, token)


@user_cli.command("logout")
def logout(name: str = typer.Argument(..., help="Username."),
           database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """End every web session of NAME.

    API tokens stay valid."""
    from sqlmodel import select

    from app.auth.sessions import revoke_all
    from app.core.config import settings
    from app.core.db import get_engine, new_session
    from app.models.migrate import init_db
    from app.models.user import User

    engine = get_engine(database_url or settings.DATABASE_URL)
    init_db(engine)
    with new_session(engine) as session, session.begin():
        user = session.exec(select(User).where(User.username == name)).first()
        if user is None or user.id is None:
            error(f"no user {name!r}; `proofdeck user add {name}` creates one")
            raise typer.Exit(1)
        ended = revoke_all(session, user.id)
    out.print(f"{name}: {ended} web session(s) ended; other servers' caches forget them within seconds")


def register(cli: typer.Typer) -> None:
    cli.add_typer(user_cli, name="user")
