"""Concurrent reviewers against a real server: the deck and users, a lean HTTP/1.1 client, the load loop.

Shared by ``tests/reliability/test_concurrent_reviews.py`` and ``bench/load.py`` (and ``bench/review.py``
uses :class:`Conn`). Each client answers items from its own pool with a fresh ``Idempotency-Key`` per
answer and records which keys were acknowledged (a 2xx) — the count the review log must match.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func
from sqlmodel import Session, col, select

LOCKED = b"database is locked"


class Conn:
    """One keep-alive HTTP/1.1 connection; just enough parsing for uvicorn's replies."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.host, self.port, self.auth = host, port, f"Authorization: Bearer {token}\r\n"

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(self, method: str, path: str, body: bytes = b"", extra: str = "") -> tuple[int, bytes]:
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n{self.auth}{extra}"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
        self.writer.write(head.encode() + body)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError(f"the server closed the connection during {method} {path}")
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        data = await self.reader.readexactly(length)
        return int(status_line.split()[1]), data

    def close(self) -> None:
        self.writer.close()


@dataclass
class Reviewer:
    """One client: a user's token, the items it answers (disjoint from every other client's for that user)."""

    name: str
    user: str
    token: str
    items: list[int]


@dataclass
class LoadResult:
    seconds: float = 0.0
    requests: int = 0
    acked: set[tuple[str, str]] = field(default_factory=set)  # (user, Idempotency-Key) answered 2xx
    statuses: Counter[int] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    locked_bodies: int = 0
    failures: list[str] = field(default_factory=list)  # connection errors and non-2xx bodies (first few)
    exhausted: int = 0  # clients that ran out of items before the end

    @property
    def server_errors(self) -> int:
        return sum(n for code, n in self.statuses.items() if code >= 500)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        """The ``q`` quantile of latency in ms."""
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000 if xs else float("nan")


def build_deck(folder: Path, database_url: str, *, cards: int, users: int) -> tuple[dict[str, str], list[int]]:
    """A generated deck (6 items a card), synced, and ``users`` users; returns ({user: token}, item ids)."""
    from app.auth.users import create_user, ensure_first_admin
    from app.core.db import make_engine
    from app.deck.sync import sync_cards
    from app.models import ReviewItem
    from app.models.migrate import init_db
    from harness.deckgen import write_deck

    write_deck(folder, cards)
    engine = make_engine(database_url)
    try:
        init_db(engine)
        sync_cards(engine, folder)
        tokens = {}
        with Session(engine) as s, s.begin():
            ensure_first_admin(s)
            for i in range(users):
                _user, tokens[f"u{i}"] = create_user(s, f"u{i}")
        with Session(engine) as s:
            items = list(s.exec(select(ReviewItem.id).where(col(ReviewItem.kind) != "drill",
                                                            col(ReviewItem.retired).is_(False))
                                .order_by(col(ReviewItem.id))).all())
    finally:
        engine.dispose()
    return tokens, [i for i in items if i is not None]


def reviewers(tokens: dict[str, str], items: list[int], per_user: int, seed: int = 0) -> list[Reviewer]:
    """``per_user`` clients per user; a user's clients split the (shuffled) items between them."""
    out = []
    for u, (user, token) in enumerate(sorted(tokens.items())):
        pool = items[:]
        random.Random(seed + u).shuffle(pool)
        out += [Reviewer(f"{user}c{k}", user, token, pool[k::per_user]) for k in range(per_user)]
    return out


async def _drive(port: int, clients: list[Reviewer], seconds: float, mode: str, result: LoadResult) -> None:
    stop = time.perf_counter() + seconds

    def record(code: int, data: bytes, what: str) -> None:
        result.statuses[code] += 1
        if LOCKED in data:
            result.locked_bodies += 1
        if code >= 300 and len(result.failures) < 20:
            result.failures.append(f"{what}: {code} {data[:300]!r}")

    async def one(r: Reviewer, k: int) -> None:
        c = Conn("127.0.0.1", port, r.token)
        await c.open()
        rng = random.Random(k)
        pool = r.items[:]
        try:
            while time.perf_counter() < stop:
                if mode == "healthz":
                    t = time.perf_counter()
                    code, data = await c.request("GET", "/healthz")
                    result.latencies.append(time.perf_counter() - t)
                    result.requests += 1
                    record(code, data, "GET /healthz")
                    continue
                if not pool:
                    result.exhausted += 1
                    return
                item = pool.pop()
                key = f"{r.name}-{item}"
                body = f'{{"item_id": {item}, "rating": {rng.randint(1, 4)}, "duration_ms": 2500}}'.encode()
                t = time.perf_counter()
                code, data = await c.request("POST", "/api/review", body, f"Idempotency-Key: {key}\r\n")
                result.latencies.append(time.perf_counter() - t)
                result.requests += 1
                record(code, data, f"POST item {item} key {key}")
                if 200 <= code < 300:
                    result.acked.add((r.user, key))
        except (ConnectionError, OSError, asyncio.IncompleteReadError) as exc:
            if len(result.failures) < 20:
                result.failures.append(f"{r.name}: {exc!r}")
            result.statuses[-1] += 1
        finally:
            c.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(one(r, k) for k, r in enumerate(clients)))
    result.seconds = time.perf_counter() - t0


def run_load(port: int, clients: list[Reviewer], seconds: float, mode: str = "review") -> LoadResult:
    """Every client in one event loop for ``seconds``: ``mode`` "review" (POST answers) or "healthz".

    The loop runs in its own thread: the caller's may already run one (Playwright's sync API does).
    """
    result = LoadResult()
    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(_drive(port, clients, seconds, mode, result))
        except BaseException as exc:  # re-raised in the caller
            errors.append(exc)

    thread = threading.Thread(target=target, name="review-load")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result


def stored_keys(database_url: str) -> tuple[int, set[tuple[str, str]]]:
    """(rows in the review log, their distinct (user, Idempotency-Key) pairs)."""
    from app.core.db import make_engine
    from app.models import ReviewLog, User

    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            n = int(s.exec(select(func.count()).select_from(ReviewLog)).one())
            keys = {(u, k) for u, k in s.exec(select(User.username, ReviewLog.idempotency_key)
                                               .join(User, col(User.id) == ReviewLog.user_id)).all()}
    finally:
        engine.dispose()
    return n, keys


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


async def _counts_through_workers(port: int, tokens: dict[str, str], workers: int,
                                  tries: int) -> dict[int, dict[str, tuple[int, int, int]]]:
    conns: dict[int, Conn] = {}  # one keep-alive connection per worker process
    try:
        for _ in range(tries):
            if len(conns) >= workers:
                break
            c = Conn("127.0.0.1", port, "")
            await c.open()  # a new connection: the kernel hands it to any worker
            _code, data = await c.request("GET", "/healthz")
            pid = int(json.loads(data)["worker"])
            if pid in conns:
                c.close()
            else:
                conns[pid] = c
        seen: dict[int, dict[str, tuple[int, int, int]]] = {pid: {} for pid in conns}
        for user, token in sorted(tokens.items()):
            for _attempt in range(3):  # due counts move with the clock: ask every worker back to back
                for pid, c in conns.items():
                    c.auth = f"Authorization: Bearer {token}\r\n"
                    _code, stats = await c.request("GET", "/api/review/stats")
                    _code, nxt = await c.request("GET", "/api/review/next")
                    st, n = json.loads(stats), json.loads(nxt)
                    seen[pid][user] = (int(st["total_reviews"]), int(n["due_now"]), int(n["new_left"]))
                if len({seen[pid][user] for pid in conns}) == 1:
                    break
        return seen
    finally:
        for c in conns.values():
            c.close()


def counts_through_workers(port: int, tokens: dict[str, str], workers: int,
                           tries: int = 400) -> dict[int, dict[str, tuple[int, int, int]]]:
    """Per worker process (its pid, from ``/healthz``): per user, (reviews stored, due now, new left) as
    that worker serves them (the last two from its in-memory queue). Holds one connection per worker
    (new connections until each of ``workers`` has answered, at most ``tries``) and asks them all back to
    back for each user, up to 3 times while they differ (an item may fall due between two answers)."""
    return asyncio.run(_counts_through_workers(port, tokens, workers, tries))
