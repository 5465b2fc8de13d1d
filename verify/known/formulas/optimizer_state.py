"""Optimizer state bytes per parameter: SGD momentum 4, Adam/AdamW 8, Lion 4, 8-bit Adam 2, Adafactor ~0.

    python -c "from verify.known.formulas.optimizer_state import *; \
        print(state_bytes(opt='adafactor', rows=4096, cols=4096))"

fp32 states of an r × c weight matrix, excluding the parameters, gradients and master weights (mixed
precision adds 4 bytes of fp32 master per parameter to each). Adam and AdamW keep m and v (8 bytes);
SGD with momentum and Lion one momentum buffer (4); 8-bit Adam (Dettmers et al. 2022) m and v in 1 byte
each plus an fp32 absmax per block of B = 2048 values and state (2 + 8/B); Adafactor without momentum
(Shazeer & Stern 2018, PyTorch's torch.optim.Adafactor) keeps factored second moments: a row and a column
vector, 4(r + c) bytes per matrix.
"""

from __future__ import annotations

from typing import Any

from verify.known.formulas import mixed_precision


def state_bytes(*, opt: str, rows: Any, cols: Any, block: Any = 2048) -> Any:
    """Bytes of optimizer state for one rows × cols fp32 matrix."""
    n = rows * cols
    per = {"sgd_momentum": 4 * n, "lion": 4 * n, "adam": 8 * n, "adamw": 8 * n,
           "adam_8bit": 2 * n + 2 * 4 * n / block, "adafactor": 4 * (rows + cols)}
    if opt not in per:
        raise ValueError(f"unknown optimizer {opt!r}: one of {', '.join(per)}")
    return per[opt]


def state_bytes_per_param(*, opt: str, rows: Any, cols: Any, block: Any = 2048) -> Any:
    return state_bytes(opt=opt, rows=rows, cols=cols, block=block) / (rows * cols)


def mixed_total_per_param(*, opt: str, rows: Any, cols: Any, block: Any = 2048) -> Any:
    """bf16 parameter 2 + bf16 gradient 2 + fp32 master 4 (``mixed_precision``) + the optimizer's state."""
    parts = mixed_precision.state_bytes_per_param()
    return parts["param"] + parts["grad"] + parts["master"] + state_bytes_per_param(opt=opt, rows=rows, cols=cols,
                                                                                    block=block)
