"""verify: prove a card's formulas by running DDP and ZeRO-1/2/3 on torch.distributed.

    python -m verify --world-sizes 2,4 --json out/verify.json

Vocabulary (used in every name below this package):

- **unsharded parameter**: a layer's full parameters, as one flat bf16 buffer of Ψ_layer elements
  (padded to a multiple of N in the ZeRO stages), present on every rank that needs the whole layer.
- **sharded parameter**: rank r's contiguous 1/N slice of that padded flat buffer; ZeRO-3 keeps only this.
- **gradient shard**: rank r's 1/N slice of a layer's reduced gradient (ZeRO-2/3 keep only this).
- **optimizer-state shard**: rank r's 1/N slice of the fp32 master weights and Adam m, v (ZeRO-1/2/3).
- **payload**: the elements a collective works on (all_reduce: the tensor; reduce_scatter: its input;
  all_gather: its output). **ring volume**: what an ideal ring sends per rank. **wire bytes**: what the
  backend really sent, read from the kernel's per-socket counters.

Only ``verify.known.ledger`` is import-safe without torch; the rest imports torch lazily where it can.
"""

from verify.known.ledger import STAGES

__all__ = ["STAGES"]
