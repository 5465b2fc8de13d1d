"""Pure formulas for the deck's cards (no torch): one module per card topic, each defined once.

    python -c "from verify.known.formulas.pipeline import bubble_fraction; print(bubble_fraction(p=4, m=8))"

Three readers call the same functions: the vocabulary (``verify.known.vocabulary``: each quantity's ledger formula
is one of these over sympy symbols, judged against what runs here: Gloo ranks, the profiler, the simulators in
``verify.measure.sim``), the ledger (``verify.known.ledger``) and the computed drills (``verify.known.drills``,
with numbers). ``symbolic`` holds the few helpers (⌈log₂⌉, min, exact ratios) that take either. Sizes are in
bytes and volumes in elements unless a name says otherwise.
"""
