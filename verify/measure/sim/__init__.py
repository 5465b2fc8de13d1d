"""Step-by-step simulators (pure Python, no torch): a ring all-reduce and pipeline schedules.

They execute an algorithm one step at a time and count what happens; the formulas in
``verify.known.formulas`` only predict. The checks compare the two.
"""
