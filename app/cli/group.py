"""How every ``proofdeck`` command group is made (the top level, ``export``, ``user`` ...): :func:`group`.

One thing differs from a plain ``typer.Typer``: typer coerces the ``--help`` flag of every group above the
command being run through a pydantic ``TypeAdapter`` when it was not given (its value is then ``None``), and
building that adapter imports pydantic: about 100 ms of every ``proofdeck SUBCOMMAND --help``, more than
the rest of the help together. An absent flag is simply false, so the group reads it as ``False``, which
typer passes through without coercion (tests/cli/test_help_start.py measures the start)."""

from __future__ import annotations

from typing import Any

import typer
from typer._click.core import Context
from typer.core import TyperGroup, TyperOption


class Group(TyperGroup):
    """A typer group whose absent ``--help`` costs nothing (see the module docstring)."""

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None and not getattr(option, "_absent_is_false", False):
            given = option.process_value

            def process_value(ctx: Context, value: Any) -> Any:
                return given(ctx, False if value is None else value)

            setattr(option, "process_value", process_value)  # noqa: B010 (an instance's own method)
            setattr(option, "_absent_is_false", True)  # noqa: B010
        return option


def group(help: str, *, cls: type[Group] = Group, **options: Any) -> typer.Typer:
    """A command group (its help printed when it is called without a command)."""
    return typer.Typer(help=help, cls=cls, no_args_is_help=True, rich_markup_mode=None, **options)
