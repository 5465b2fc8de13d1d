"""Benchmarks, each a script (``python bench/<name>.py``, ``make bench``) printing medians next to a
baseline measured in the same run. A package only so that ``.importlinter`` can check it: it imports the
shared client from ``harness/``, never ``tests/``."""
