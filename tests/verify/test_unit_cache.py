"""pint's parsed-definitions cache belongs to one pint installation (verify/reading/units.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify.reading import units


def test_each_pint_installation_has_its_own_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pint's shared ":auto:" cache kept a deleted environment's import paths and broke every later registry
    (FileNotFoundError on .../deleted-venv/.../pint/constants_en.txt in a fresh clone's run)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    one = units._cache_folder("/envs/a/lib/python3.11/site-packages/pint/__init__.py")
    two = units._cache_folder("/envs/b/lib/python3.11/site-packages/pint/__init__.py")
    assert one != two and one.parent == two.parent == tmp_path / "proofdeck" / "pint"
    assert one == units._cache_folder("/envs/a/lib/python3.11/site-packages/pint/__init__.py")
