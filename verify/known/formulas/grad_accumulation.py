"""Gradient accumulation: global batch, the 1/k scaling and the all-reduces it saves.

    python -c "from verify.known.formulas.grad_accumulation import global_batch; print(global_batch(b=4, k=8, d=64))"

k micro-batches of b samples each, summed before one optimizer step, on d data-parallel replicas. With a mean
loss each micro-batch's loss must be divided by k for the sum to equal the gradient of the mean over k·b samples.
DDP's ``no_sync()`` skips the gradient all-reduce on the first k − 1 micro-batches.
``verify.measure.experiments.grad_accumulation`` measures all of it on a real model.
"""

from __future__ import annotations


def global_batch(*, b: int, k: int, d: int) -> int:
    """Samples per optimizer step: b·k·d."""
    return b * k * d


def unscaled_gradient_ratio(*, k: int) -> int:
    """Summing k micro-batch gradients of a mean loss without dividing by k: k times the true gradient."""
    return k


def gradient_ratio(*, k: int, scaled: bool) -> int:
    """The accumulated gradient over the full batch's: 1 with each micro-batch's loss divided by k, k without."""
    return 1 if scaled else unscaled_gradient_ratio(k=k)


def allreduces_per_step(*, k: int, no_sync: bool) -> int:
    """DDP gradient all-reduces (one bucket) per optimizer step: 1 with no_sync, k without."""
    return 1 if no_sync else k
