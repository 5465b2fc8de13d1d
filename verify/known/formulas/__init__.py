"""Pure formulas for the starter deck's cards (no torch): one module per card topic.

    python -c "from verify.known.formulas.pipeline import bubble_fraction; print(bubble_fraction(p=4, m=8))"

The checks in ``verify.judge.deck`` compare these numbers with what runs here (Gloo ranks, the profiler,
the simulators in ``verify.measure.sim``); the computed drills in ``verify.known.formulas.drills`` ask the same
functions. Sizes are in bytes and volumes in elements unless a name says otherwise.
"""
