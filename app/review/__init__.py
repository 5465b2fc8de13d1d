"""The review engine: see app/review/engine.py."""
