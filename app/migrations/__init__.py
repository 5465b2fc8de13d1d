"""Alembic migrations for the database schema (``proofdeck db upgrade``)."""
