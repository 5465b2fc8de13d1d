"""Verification results in the app: run ``python -m verify`` out of process, store, read back."""
