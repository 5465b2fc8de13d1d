"""The ``proofdeck`` command line."""
