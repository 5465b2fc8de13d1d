"""What the browser tests of this folder share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def hostile_page(browser: Any) -> Iterator[tuple[Any, list[str]]]:
    """A page whose CSP is bypassed (the markup itself is tested, not the CSP behind it), and the messages of
    every dialog it opened (each dismissed): an ``alert`` from card text lands there."""
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    yield page, dialogs
    context.close()
