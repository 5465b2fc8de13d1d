"""Group commit: answers that arrive while a batch is being written are graded together in the next one.

``ReviewEngine.submit`` hands each :class:`~app.review.grading.Answer` to its :class:`GroupCommit` and
awaits the outcome. One flush runs at a time; it takes every answer queued so far (at most
:data:`MAX_BATCH`) and grades them in one transaction with ``app.review.grading.grade_batch``: on SQLite
right on the event loop when no lock is held (a batch is a few ms of CPU; waiting for a lock never
happens there), else in a worker thread so the loop keeps serving. Under light load a batch holds one
answer and costs what a lone write costs; under heavy load one commit and one executemany per table
serve many answers.
An answer is acknowledged only after its batch committed; a failed batch fails each of its answers.
"""

from __future__ import annotations

import asyncio

from sqlalchemy.engine import Engine
from starlette.concurrency import run_in_threadpool

from app.review.grading import Answer, Outcome, grade_batch

MAX_BATCH = 256
# Event-loop turns a flush waits before taking its batch: each turn reads whatever requests have arrived,
# so answers sent at about the same time share one commit (bench/review.py: batches of ~8 answers without
# it, ~31 with three turns; server CPU per request about 0.24 -> 0.20 ms). Idle, three turns cost microseconds.
GATHER_ROUNDS = 3


class GroupCommit:
    """The batcher of one engine, used from one event loop."""

    def __init__(self, engine: Engine, loop: asyncio.AbstractEventLoop) -> None:
        self.engine, self.loop = engine, loop
        self._queue: list[tuple[Answer, asyncio.Future[Outcome]]] = []
        self._flushing = False
        self._task: asyncio.Task[None] | None = None  # held: the loop keeps only a weak reference to tasks

    async def submit(self, answer: Answer) -> Outcome:
        """Grade ``answer`` with whatever else is queued; its response or its error, once committed."""
        future: asyncio.Future[Outcome] = self.loop.create_future()
        self._queue.append((answer, future))
        if not self._flushing:
            self._flushing = True
            self._task = self.loop.create_task(self._flush())
        return await future  # a request cancelled meanwhile cancels only this wait: its answer still commits

    async def _flush(self) -> None:
        try:
            for _ in range(GATHER_ROUNDS):  # let requests already on the wire join this batch
                await asyncio.sleep(0)
            while self._queue:
                batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
                answers = [a for a, _ in batch]
                try:
                    # SQLite with no writer in the way: right here, a few ms of CPU, no thread hop and no
                    # contention for the GIL; otherwise (a lock is held, PostgreSQL) in a worker thread.
                    # Only the commit (the WAL's sync) in a thread was measured worse: batches split and the
                    # server's CPU per request rose 0.318 -> 0.388 ms (bench/review.py --rounds 3, one session)
                    outcomes = grade_batch(self.engine, answers, wait=False)
                    if outcomes is None:
                        outcomes = await run_in_threadpool(grade_batch, self.engine, answers)
                except Exception as exc:  # the batch did not commit: every answer in it failed
                    for _a, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                assert outcomes is not None
                for (_a, future), outcome in zip(batch, outcomes, strict=True):
                    if not future.done():
                        future.set_result(outcome)
        finally:
            self._flushing = False
