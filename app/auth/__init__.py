"""Accounts and credentials: hashing, token and password login, first-start admin."""
