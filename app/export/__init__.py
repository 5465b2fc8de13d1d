"""Exports: an Obsidian vault, an offline single-file HTML handbook, an Anki package.

Each exporter takes the deck as ``CardDoc``s (see :mod:`app.export.deck`) plus an optional mapping
``slug -> verdicts`` and returns bytes or writes files; none of them touches the database.
"""
