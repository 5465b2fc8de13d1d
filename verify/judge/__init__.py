"""Judging a card's claims: one door, :func:`judge`, through the steps of ``verify.judge.pipeline``.

    python -m verify   # every claim of every card, on the sweep's evidence

- ``pipeline``: stale → parse → drift → symbolic → measured, the verdict as data (``verdict``);
- ``drift``: the quoted words against the assertion; ``symbolic``: the ledger's verdict (sympy);
  ``measured``: each configuration of the evidence (``evidence``: the sweep's runs);
- ``prepared``: what can be worked out before the runs are in, passed explicitly; ``ahead``: the forked
  children that work it out while the ranks run;
- ``contradictions``: zh-only and en-only claims about one quantity whose verdicts differ.
"""

from verify.judge.evidence import Evidence, MissingEvidence
from verify.judge.pipeline import judge
from verify.judge.prepared import Prepared
from verify.judge.verdict import VERDICTS, Verdict

__all__ = ["VERDICTS", "Evidence", "MissingEvidence", "Prepared", "Verdict", "judge"]
