"""How many profiled forward/backward passes each variant gets (``verify.measure.sweep.peak_passes``): the worst of
``peak_samples`` where a verdict reads a peak that varies with scheduling, one pass where it is only shown."""

from __future__ import annotations

from dataclasses import replace

import pytest

from verify.cli import PEAK_JUDGED, peak_samples_for
from verify.known.vocabulary import QUANTITIES
from verify.measure.sweep import GATHERING, SweepOptions, peak_passes
from verify.reading.claims import Claim


def _claim(asserts: str) -> Claim:
    return Claim(card="c", claim_id="x", text_zh="", text_en="", section="s", asserts=asserts)


def test_the_judged_peak_quantities_are_the_vocabularys() -> None:
    assert PEAK_JUDGED and PEAK_JUDGED <= set(QUANTITIES)


def test_a_deck_that_judges_pytorchs_peak_gets_every_pass() -> None:
    reads = _claim("impl_peak_bytes(fsdp2_no_reshard) > impl_peak_bytes(fsdp2_reshard)")
    other = _claim("model_state_bytes(zero3) == 16*Psi/N")
    assert SweepOptions.peak_samples > 1
    assert peak_samples_for([other, reads]) == SweepOptions.peak_samples
    assert peak_samples_for([other]) == 1
    assert peak_samples_for([]) == 1
    # a name inside a longer one is not the quantity; a malformed assertion is the judge's to report
    assert peak_samples_for([_claim("impl_peak_bytes_x(ddp) == 1"), _claim("impl_peak_bytes(ddp] == 1")]) == 1


@pytest.mark.parametrize("ring", [True, False])
def test_passes_per_variant(ring: bool) -> None:
    opts = replace(SweepOptions(dims=[4, 4]), ring=ring, peak_samples=5)
    for variant in GATHERING:
        assert peak_passes(variant, opts) == 5
    # the reference ZeRO-3 is judged on the ring pass (unverifiable without it): its native pass is only shown
    for variant in ("torch-ddp", "torch-ddp-default", "torch-zero-redundancy", "ddp", "zero1", "zero2", "zero3"):
        assert peak_passes(variant, opts) == 1
