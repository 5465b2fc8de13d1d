"""``proofdeck user add NAME [--admin] [--password]``, ``user link NAME``, ``user logout NAME``: accounts.

Links name the address the server was started with (``app/core/served.py``) or ``PROOFDECK_BASE_URL``."""

from __future__ import annotations

import typer
from rich.console import Console

from app.core.db import new_session
from app.core.served import base_url as served_base
from app.core.served import login_link

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)
user_cli = typer.Typer(help="User accounts.", no_args_is_help=True)


@user_cli.command("add")
def add(name: str = typer.Argument(..., help="Username (letters, digits, '_', '.', '-')."),
        admin: bool = typer.Option(False, "--admin", help="May sync, import, verify and manage users."),
        password: bool = typer.Option(False, "--password", help="Also set a password (asked twice)."),
        database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """Create a user and print its API token once (only its hash is stored)."""

    from app.auth.users import UserError, create_user
    from app.core.config import settings
    from app.core.db import get_engine
    from app.models.migrate import init_db

    secret = typer.prompt("Password", hide_input=True, confirmation_prompt=True) if password else None
    engine = get_engine(database_url or settings.DATABASE_URL)
    init_db(engine)
    try:
        with new_session(engine) as session, session.begin():
            user, token = create_user(session, name, is_admin=admin, password=secret)
    except UserError as exc:
        err.print(f"[red]error[/red] {exc}")
        raise typer.Exit(1) from None
    out.print(f"created {'admin' if admin else 'user'} {name!r}. API token (shown once):")
    out.print(token)
    out.print(f"login link: {login_link(served_base(database_url or settings.DATABASE_URL), token)}")


@user_cli.command("link")
def link(name: str = typer.Argument(..., help="Username of an existing user."),
         database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """Print a fresh login link for NAME (a new token; the user's other tokens and sessions keep working)."""
    from sqlmodel import select

    from app.auth.users import issue_token
    from app.core.config import settings
    from app.core.db import get_engine
    from app.models.migrate import init_db
    from app.models.user import User

    url = database_url or settings.DATABASE_URL
    engine = get_engine(url)
    init_db(engine)
    with new_session(engine) as session, session.begin():
        user = session.exec(select(User).where(User.username == name)).first()
        if user is None:
            err.print(f"[red]error[/red] no user {name!r}; `proofdeck user add {name}` creates one")
            raise typer.Exit(1)
        token = issue_token(session, user, kind="api", label="login link (proofdeck user link)")
    out.print(f"login link for {name!r} (shown once; it also works as an API token):")
    out.print(login_link(served_base(url), token), soft_wrap=True)


@user_cli.command("logout")
def logout(name: str = typer.Argument(..., help="Username."),
           database_url: str = typer.Option(None, "--database-url", help="Default: PROOFDECK_DATABASE_URL.")) -> None:
    """Log NAME out everywhere: end every web session (API tokens stay valid)."""
    from sqlmodel import select

    from app.auth.sessions import revoke_all
    from app.core.config import settings
    from app.core.db import get_engine
    from app.models.migrate import init_db
    from app.models.user import User

    engine = get_engine(database_url or settings.DATABASE_URL)
    init_db(engine)
    with new_session(engine) as session, session.begin():
        user = session.exec(select(User).where(User.username == name)).first()
        if user is None or user.id is None:
            err.print(f"[red]error[/red] no user {name!r}; `proofdeck user add {name}` creates one")
            raise typer.Exit(1)
        ended = revoke_all(session, user.id)
    out.print(f"{name}: {ended} web session(s) ended; other servers' caches forget them within seconds")


def register(cli: typer.Typer) -> None:
    cli.add_typer(user_cli, name="user")
