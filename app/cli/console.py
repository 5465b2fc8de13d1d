"""The consoles every command prints to: results on stdout; errors, warnings and progress on stderr.

Made on first use, so that importing the command line (``proofdeck --help``) does not load rich's console;
``soft_wrap``: a long path or message is never cut at 80 columns in a pipe or a log."""

from __future__ import annotations

from typing import Any


class _Console:
    """A rich ``Console`` created when a command first prints."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return getattr(self._console, name)


out = _Console(highlight=False, soft_wrap=True, markup=False)  # results are printed as they are
err = _Console(stderr=True, highlight=False, soft_wrap=True)


def error(text: object) -> None:
    """``error <text>`` on stderr; the text is printed as it is (no rich markup in card text or paths)."""
    from rich.markup import escape

    err.print(f"[red]error[/red] {escape(str(text))}")


def warn(text: object) -> None:
    from rich.markup import escape

    err.print(f"[yellow]{escape(str(text))}[/yellow]")
