"""``proofdeck user add NAME [--admin] [--password]``, ``user link NAME [--api-token]``, ``user logout NAME``,
``user tokens NAME [--revoke ID]``: accounts.

A login link signs in once, within ``PROOFDECK_LOGIN_LINK_MINUTES`` (app/auth/links.py); an API token is
the permanent credential for scripts (``Authorization: Bearer``). ``user add`` prints both; ``user link``
prints a link, and a new API token only with ``--api-token`` (a login on a new device should not leave
another permanent credential behind). Links name ``PROOFDECK_BASE_URL``, else the address of the server on
this database (``app/core/served.py``); when that server is not running, the command says how to start it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from app.cli.console import err, error, out
from app.cli.group import group

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine
    from sqlmodel import Session

    from app.models.user import User

user_cli = group("User accounts.")
DATABASE_URL = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")


def _engine(database_url: str | None) -> tuple[str, Engine]:
    from app.core.config import settings
    from app.core.db import get_engine
    from app.models.migrate import init_db

    url = database_url or settings.DATABASE_URL
    engine = get_engine(url)
    init_db(engine)
    return url, engine


def _user(session: Session, name: str) -> User:
    """The user called ``name``; else the error and exit 1."""
    from sqlmodel import select

    from app.models.user import User

    user = session.exec(select(User).where(User.username == name)).first()
    if user is None or user.id is None:
        error(f"no user {name!r}; `proofdeck user add {name}` creates one")
        raise typer.Exit(1)
    return user


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


def _print_credentials(database_url: str, link: str, api_token: str | None) -> None:
    from app.core.config import settings

    out.print(f"login link (signs in once, within {settings.LOGIN_LINK_MINUTES:g} minutes):")
    _print_link(database_url, link)
    if api_token is not None:
        out.print(f"api token: {api_token}")
        out.print("(the API token is shown once: send it as `Authorization: Bearer …`; "
                  "`proofdeck user tokens NAME` lists and revokes tokens)")


@user_cli.command("add")
def add(name: str = typer.Argument(..., help="Username (letters, digits, '_', '.', '-')."),
        admin: bool = typer.Option(False, "--admin", help="May sync, import, verify and manage users."),
        password: bool = typer.Option(False, "--password", help="Also set a password (asked twice)."),
        database_url: str = DATABASE_URL) -> None:
    """Create a user; print a login link and its API token.

    Both are shown once (only their hashes are stored); the link signs in once, within minutes."""

    from app.auth.links import issue_link
    from app.auth.users import UserError, create_user
    from app.core.db import new_session

    secret = typer.prompt("Password", hide_input=True, confirmation_prompt=True) if password else None
    url, engine = _engine(database_url)
    try:
        with new_session(engine) as session, session.begin():
            user, token = create_user(session, name, is_admin=admin, password=secret)
            link = issue_link(session, user)
    except UserError as exc:
        error(exc)
        raise typer.Exit(1) from None
    out.print(f"created {'admin' if admin else 'user'} {name!r}.")
    _print_credentials(url, link, token)


@user_cli.command("link")
def link(name: str = typer.Argument(..., help="Username of an existing user."),
         api_token: bool = typer.Option(False, "--api-token", help="Also issue a new API token (printed once)."),
         database_url: str = DATABASE_URL) -> None:
    """Print a fresh one-time login link for NAME.

    It signs in once, within PROOFDECK_LOGIN_LINK_MINUTES (15); the user's tokens and sessions keep working."""
    from app.auth.links import issue_link
    from app.auth.users import issue_token
    from app.core.db import new_session

    url, engine = _engine(database_url)
    with new_session(engine) as session, session.begin():
        user = _user(session, name)
        token = issue_link(session, user)
        api = issue_token(session, user, kind="api", label="proofdeck user link --api-token") if api_token else None
    out.print(f"for {name!r}:")
    _print_credentials(url, token, api)


@user_cli.command("logout")
def logout(name: str = typer.Argument(..., help="Username."), database_url: str = DATABASE_URL) -> None:
    """End every web session and pending login link of NAME.

    API tokens stay valid (`proofdeck user tokens NAME --revoke ID` revokes one)."""
    from app.auth.sessions import log_out_everywhere
    from app.core.db import new_session

    _url, engine = _engine(database_url)
    with new_session(engine) as session, session.begin():
        user = _user(session, name)
        assert user.id is not None
        ended, links = log_out_everywhere(session, user.id)
    out.print(f"{name}: {ended} web session(s) and {links} pending login link(s) ended; other servers' caches "
              "forget the sessions within seconds; API tokens stay")


@user_cli.command("tokens")
def tokens(name: str = typer.Argument(..., help="Username."),
           revoke: int = typer.Option(None, "--revoke", metavar="ID", help="Revoke the API token with this id."),
           database_url: str = DATABASE_URL) -> None:
    """List NAME's API tokens (id, label, created, last used; never the token), or revoke one.

    A revoked token gets 401 at once on this machine's servers, within seconds on others."""
    from app.auth.tokens import api_tokens, revoke_api_token
    from app.core.db import new_session

    _url, engine = _engine(database_url)
    with new_session(engine) as session, session.begin():
        user = _user(session, name)
        assert user.id is not None
        if revoke is not None:
            if not revoke_api_token(session, user.id, revoke):
                error(f"{name!r} has no API token #{revoke}; `proofdeck user tokens {name}` lists them")
                raise typer.Exit(1)
            out.print(f"{name}: API token #{revoke} revoked")
            return
        rows = api_tokens(session, user.id)
    from rich.table import Table

    table = Table(title=f"API tokens of {name}")
    for column in ("id", "label", "created (UTC)", "last used (UTC)"):
        table.add_column(column)
    for row in rows:
        table.add_row(str(row.id), row.label, f"{row.created_at:%Y-%m-%d %H:%M}",
                      f"{row.last_used_at:%Y-%m-%d %H:%M}" if row.last_used_at else "never")
    out.print(table)
    if not rows:
        out.print(f"(none: `proofdeck user link {name} --api-token` issues one)")


def register(cli: typer.Typer) -> None:
    cli.add_typer(user_cli, name="user")
