"""The collectives the reference stages call: the backend's own (native) or an ideal ring built from send/recv.

    python -m verify --world-sizes 2,4              # native step (wire bytes) + one ring step (ring bytes)
    python -m verify --collectives native           # skip the ring step: "communication volume" unverifiable

``NativeCollectives`` calls ``dist.all_reduce`` / ``all_gather_single`` / ``reduce_scatter_single``: what Gloo
or NCCL put on the wire is theirs (measured by ``verify.measure.meters.wire``). ``RingCollectives`` runs the textbook
ring with ``dist.isend`` / ``dist.irecv`` to the neighbours (rank r sends to r+1, receives from r−1) and adds
the bytes of every tensor it hands to ``isend`` to ``sent_bytes``: the communication volume of an ideal
ring, observed while the real data moves, never a payload multiplied by an assumed factor.

- reduce-scatter: N−1 steps; in step i rank r sends its running sum of chunk (r−i−1) mod N and adds what it
  receives into chunk (r−i−2) mod N; rank r ends with the full sum of chunk r.
- all-gather: N−1 steps; in step i rank r forwards chunk (r−i) mod N.
- all-reduce: reduce-scatter then all-gather on the same chunks.

Chunks are ``tensor_split`` into N parts (uneven when N does not divide the size; the bytes sent then differ
by a few elements between ranks, and their mean is exact). Sums are taken in the tensor's dtype.
"""

from __future__ import annotations

import torch
import torch.distributed as dist


class NativeCollectives:
    """The backend's collectives (what a real run uses)."""

    mode = "native"

    def all_reduce(self, t: torch.Tensor) -> None:
        dist.all_reduce(t)

    def all_gather(self, out: torch.Tensor, shard: torch.Tensor) -> None:
        dist.all_gather_single(out, shard)

    def reduce_scatter(self, out: torch.Tensor, full: torch.Tensor) -> None:
        dist.reduce_scatter_single(out, full)


class RingCollectives:
    """Ring collectives from point-to-point send/recv; ``sent_bytes`` counts what this rank sent."""

    mode = "ring"

    def __init__(self) -> None:
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()
        self.sent_bytes = 0
        self.sends = 0

    def _exchange(self, send: torch.Tensor, recv: torch.Tensor) -> None:
        right, left = (self.rank + 1) % self.world, (self.rank - 1) % self.world
        payload = send.contiguous()
        reqs = [dist.isend(payload, right), dist.irecv(recv, left)]
        for r in reqs:
            if r is not None:  # None only for a rank outside the group: never here
                r.wait()
        self.sent_bytes += payload.numel() * payload.element_size()
        self.sends += 1

    def _reduce_scatter_chunks(self, chunks: list[torch.Tensor]) -> None:
        """In place: afterwards ``chunks[rank]`` holds the sum over ranks (other chunks hold partial sums)."""
        n, r = self.world, self.rank
        for i in range(n - 1):
            out_c, in_c = chunks[(r - i - 1) % n], chunks[(r - i - 2) % n]
            buf = torch.empty_like(in_c)
            self._exchange(out_c, buf)
            in_c.add_(buf)
            del buf

    def _all_gather_chunks(self, chunks: list[torch.Tensor]) -> None:
        """In place: ``chunks[rank]`` is complete; afterwards every chunk is."""
        n, r = self.world, self.rank
        for i in range(n - 1):
            out_c, in_c = chunks[(r - i) % n], chunks[(r - i - 1) % n]
            buf = torch.empty_like(in_c)
            self._exchange(out_c, buf)
            in_c.copy_(buf)
            del buf

    def all_reduce(self, t: torch.Tensor) -> None:
        flat = t.view(-1)
        chunks = list(flat.tensor_split(self.world))
        self._reduce_scatter_chunks(chunks)
        self._all_gather_chunks(chunks)

    def all_gather(self, out: torch.Tensor, shard: torch.Tensor) -> None:
        chunks = list(out.view(-1).tensor_split(self.world))
        if chunks[self.rank].numel() != shard.numel():
            raise ValueError(f"all_gather: output of {out.numel()} elements is not {self.world} × {shard.numel()}")
        chunks[self.rank].copy_(shard.reshape(-1))
        self._all_gather_chunks(chunks)

    def reduce_scatter(self, out: torch.Tensor, full: torch.Tensor) -> None:
        work = full.detach().reshape(-1).clone()  # the input stays intact, as with the native collective
        chunks = list(work.tensor_split(self.world))
        if chunks[self.rank].numel() != out.numel():
            raise ValueError(f"reduce_scatter: input of {full.numel()} elements is not {self.world} × {out.numel()}")
        self._reduce_scatter_chunks(chunks)
        out.view(-1).copy_(chunks[self.rank])


Collectives = NativeCollectives | RingCollectives


def collectives_for(mode: str) -> Collectives:
    if mode == "native":
        return NativeCollectives()
    if mode == "ring":
        return RingCollectives()
    raise ValueError(f"unknown collectives mode {mode!r}; expected 'native' or 'ring'")
