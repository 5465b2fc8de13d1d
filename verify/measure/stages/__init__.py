"""Reference implementations, one stage per file: ddp, zero1, zero2, zero3 (PyTorch's own: torch_impls).

    python -m verify --world-sizes 2,4

Each stage class has ``train_step(step)``, ``state_tensors()`` → {"params", "grads", "optim"} and
``full_master()`` (the fp32 master weights gathered, unpadded, for the single-process comparison).
"""

from verify.measure.stages.base import RefStage, StageConfig
from verify.measure.stages.ddp import DDPStage
from verify.measure.stages.zero1 import Zero1Stage
from verify.measure.stages.zero2 import Zero2Stage
from verify.measure.stages.zero3 import Zero3Stage

REFERENCE_STAGES: dict[str, type[RefStage]] = {
    "ddp": DDPStage, "zero1": Zero1Stage, "zero2": Zero2Stage, "zero3": Zero3Stage,
}

__all__ = ["REFERENCE_STAGES", "RefStage", "StageConfig"]
