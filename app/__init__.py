"""proofdeck: bilingual ML-systems interview cards whose formulas are proved by running code."""
