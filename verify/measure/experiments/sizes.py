"""Sizes of the starter probes, importable without torch (the checks read them to predict).

python -c "from verify.measure.experiments.sizes import WIRE_ELEMENTS; print(WIRE_ELEMENTS)"
"""

WIRE_ELEMENTS = 1 << 18  # fp32 elements per collective on the wire: 1 MiB
