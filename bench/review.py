"""Review API under load, next to a bare endpoint of the same app, measured in the same run.

    PYTHONPATH=$PWD python bench/review.py [--seconds 5] [--rounds 3] [--clients 32]

Builds a SQLite database with 1,500 cards (15,000 review items, shaped like the bundled cards) and
100,000 review logs for one user, starts the real server (uvicorn, one worker, access log off) with one
extra route, ``GET /bench/bare`` (an async handler returning a constant: the app stack without our
code), and drives ``--clients``
keep-alive connections from a small asyncio HTTP/1.1 client (low overhead, so the server is what is
measured). Also prints the server's CPU time per request (from /proc), which other jobs on a shared
machine disturb far less than req/s. Each round measures the bare endpoint, then
GET /api/review/next + POST /api/review pairs (each client answers items from its own pool of due
items, with an Idempotency-Key; the pools are made overdue again before each round). Prints req/s and
p50/p99 per round (and GET and POST apart) and the medians, and the ratios to the bare endpoint
(aim: ≥ 0.5× req/s, p99 ≤ 2×).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.review.queue import CHECK_SECONDS  # noqa: E402
from harness.load import Conn  # noqa: E402  (the load client shared with bench/load.py and tests)

N_CARDS = 1500
N_LOGS = 100_000
# items per card as in the bundled cards (4 follow-ups, 5 pitfalls; a pitfall's zh and en bullets are one item):
# 10 per card, 15,000 in all
FOLLOW_UPS, PITFALLS = 4, 5
N_DUE = 14_000  # overdue at the start of each round: more than the fastest round answers


def bench_app():  # type: ignore[no-untyped-def]
    """uvicorn factory: the real app plus one bare async route (the baseline)."""
    from app.main import create_app

    app = create_app(sync_on_startup=False)

    @app.get("/bench/bare")
    async def bare() -> dict[str, bool]:
        return {"ok": True}

    return app


def build(folder: Path) -> tuple[str, str, list[int]]:
    """Deck, sync, one user with 100k logs; returns (database URL, token, due item ids)."""
    from sqlalchemy import insert
    from sqlmodel import Session, select

    from app.auth.users import create_user, ensure_first_admin
    from app.cards.cardfile import dump_card
    from app.cards.schema import CardDoc
    from app.core.db import make_engine
    from app.core.vocab import REVIEWS_PER_DAY_MAX
    from app.deck.sync import sync_cards
    from app.models import ItemState, ReviewItem, ReviewLog, UserSettings
    from app.models.migrate import init_db

    cards = folder / "cards"
    cards.mkdir()
    for i in range(N_CARDS):
        doc = CardDoc.model_validate({
            "slug": f"card-{i:04d}", "title": {"zh": f"卡片 {i}", "en": f"Card {i}"},
            "sections": {"summary": {"zh": f"结论 {i}：$2\\Psi$",
                                     "en": f"Summary {i}: $2\\Psi + \\frac{{12\\Psi}}{{N}}$"},
                         "insights": {"zh": "- 要点", "en": "- insight one\n- insight two"},
                         "pitfalls": {"zh": "\n".join(f"- 陷阱 {j}" for j in range(PITFALLS)),
                                      "en": "\n".join(f"- pitfall {j}" for j in range(PITFALLS))}},
            "follow_ups": [{"id": f"f{j}", "question": {"zh": f"追问 {j}", "en": f"Follow-up {j}?"},
                            "answer": {"en": f"Answer {j}"}} for j in range(FOLLOW_UPS)],
            "links": [{"slug": f"card-{(i + 1) % N_CARDS:04d}"}],
        })
        (cards / f"{doc.slug}.md").write_text(dump_card(doc), encoding="utf-8")
    url = f"sqlite:///{folder / 'bench.db'}"
    engine = make_engine(url)
    init_db(engine)
    sync_cards(engine, cards)
    with Session(engine) as s, s.begin():
        ensure_first_admin(s)
        user, token = create_user(s, "bench")
        s.flush()
        uid = user.id
        # the rounds answer tens of thousands of reviews a day: a daily review limit (200 by default) would
        # leave `next` with nothing to show after the first few hundred, which is cheaper and no measurement
        assert uid is not None
        settings = s.get(UserSettings, uid) or UserSettings(user_id=uid)
        settings.reviews_per_day = REVIEWS_PER_DAY_MAX
        s.add(settings)
    now = datetime.now(UTC)
    rng = random.Random(0)
    with Session(engine) as s:
        rows = s.exec(select(ReviewItem).where(ReviewItem.retired == False)).all()  # noqa: E712
        items = [i.id for i in rows]
        lang = {i.id: i.lang for i in rows}
    due_now = set(rng.sample(items, N_DUE))
    states, logs = [], []
    for item in items:
        if item in due_now:
            due = now - timedelta(hours=rng.randint(1, 500))
        else:
            due = now + timedelta(days=rng.randint(1, 60))
        states.append({"user_id": uid, "item_id": item, "lang": lang[item], "live": True, "state": 2,
                       "step": None, "stability": 10.0,
                       "difficulty": 5.0, "due": due, "last_review": due - timedelta(days=10), "reps": 16,
                       "lapses": 1})
    for n in range(N_LOGS):
        t = now - timedelta(days=400) + timedelta(seconds=n * 340)
        logs.append({"user_id": uid, "item_id": items[n % len(items)], "rating": rng.choice((1, 3, 3, 3, 4)),
                     "reviewed_at": t, "was_new": n < len(items), "prev_state": None if n < len(items) else 2,
                     "state_before": None, "state_after": {"state": 2}, "idempotency_key": f"seed-{n}",
                     "response": {}, "duration_ms": 4000})
    with engine.begin() as conn:
        conn.execute(insert(ItemState), states)
        for i in range(0, len(logs), 10_000):
            conn.execute(insert(ReviewLog), logs[i:i + 10_000])
    engine.dispose()
    return url, token, sorted(due_now)


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system) the server process has used so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def reset_due(url: str, due: list[int]) -> None:
    """Make the bench's overdue items overdue again (between rounds, while the server is idle).

    A direct write: it bumps the user's revision (``app.models.clock``) so the server rebuilds its queue.
    """
    from sqlalchemy import select, update

    from app.core.db import make_engine
    from app.models import ItemState, clock

    engine = make_engine(url)
    past = datetime.now(UTC) - timedelta(hours=1)
    with engine.begin() as conn:
        conn.execute(update(ItemState).where(ItemState.item_id.in_(due)).values(  # type: ignore[attr-defined]
            due=past, state=2, step=None, stability=10.0, difficulty=5.0, last_review=past - timedelta(days=10)))
        for uid in conn.execute(select(ItemState.user_id).distinct()).scalars():  # type: ignore[call-overload]
            clock.bump(conn, clock.user_scope(uid))
    engine.dispose()


async def drive(port: int, token: str, seconds: float, clients: int, mode: str,
                pools: list[list[int]], round_no: int = 0) -> tuple[int, list[float], int, list[float], list[float]]:
    """Returns req/s, every latency, the error count, and the GET next and POST latencies apart."""
    stop = time.perf_counter() + seconds
    latencies: list[float] = []
    gets: list[float] = []
    posts: list[float] = []
    errors = 0

    async def client(k: int) -> int:
        nonlocal errors
        c = Conn("127.0.0.1", port, token)
        await c.open()
        done = 0
        while time.perf_counter() < stop:
            if mode in ("bare", "next"):
                t = time.perf_counter()
                code, _ = await c.request("GET", "/bench/bare" if mode == "bare" else "/api/review/next")
                latencies.append(time.perf_counter() - t)
                errors += code != 200
                done += 1
                continue
            t = time.perf_counter()
            code, _ = await c.request("GET", "/api/review/next")
            latencies.append(time.perf_counter() - t)
            gets.append(latencies[-1])
            errors += code != 200
            if not pools[k]:
                print(f"client {k} ran out of due items: use fewer --seconds", file=sys.stderr)
                break
            item = pools[k].pop()
            body = json.dumps({"item_id": item, "rating": 3, "duration_ms": 3000}).encode()
            t = time.perf_counter()
            code, data = await c.request("POST", "/api/review", body, f"Idempotency-Key: b-{round_no}-{item}-{k}\r\n")
            latencies.append(time.perf_counter() - t)
            posts.append(latencies[-1])
            if code != 200:
                errors += 1
                print("POST", code, data[:200], file=sys.stderr)
            done += 2
        c.writer.close()
        return done

    t0 = time.perf_counter()
    counts = await asyncio.gather(*(client(k) for k in range(clients)))
    elapsed = time.perf_counter() - t0
    return int(sum(counts) / elapsed), latencies, errors, gets, posts


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clients", type=int, default=32)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        url, token, due = build(Path(tmp))
        print(f"built {N_CARDS} cards, {N_LOGS} logs, {len(due)} due items in {time.perf_counter() - t:.1f} s")
        from harness.server import free_port

        port = free_port()
        env = {**os.environ, "PROOFDECK_DATABASE_URL": url, "PROOFDECK_SYNC_ON_STARTUP": "false",
               "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
        proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--factory", "bench.review:bench_app",
                                 "--host", "127.0.0.1", "--port", str(port), "--no-access-log",
                                 "--log-level", "warning"], cwd=ROOT, env=env, start_new_session=True)
        try:
            import httpx

            for _ in range(100):
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            rng = random.Random(1)
            rows = {"bare": [], "review": []}  # type: dict[str, list[tuple[int, float, float]]]
            cpu = {"bare": [], "review": []}  # type: dict[str, list[float]]
            asyncio.run(drive(port, token, 1.0, args.clients, "bare", []))  # warm-up
            for r in range(args.rounds):
                # every round answers the same overdue items: put them back (a fast server would run out), then
                # let the server notice (its queue checks the revisions once a second) and load its queue
                reset_due(url, due)
                time.sleep(CHECK_SECONDS + 0.1)
                asyncio.run(drive(port, token, 0.5, 1, "next", []))
                rng.shuffle(due)
                pools = [due[k::args.clients] for k in range(args.clients)]
                for mode in ("bare", "review"):
                    cpu0 = server_cpu(proc.pid)
                    rps, lat, errors, gets, posts = asyncio.run(
                        drive(port, token, args.seconds, args.clients, mode, pools, r))
                    cpu_ms = (server_cpu(proc.pid) - cpu0) * 1000 / max(1, len(lat))
                    rows[mode].append((rps, pct(lat, 0.5), pct(lat, 0.99)))
                    cpu[mode].append(cpu_ms)
                    split = (f"  (GET p50/p99 {pct(gets, .5):.1f}/{pct(gets, .99):.1f}, "
                             f"POST {pct(posts, .5):.1f}/{pct(posts, .99):.1f} ms)" if posts else "")
                    print(f"round {r + 1} {mode:>6}: {rps:6d} req/s  p50 {pct(lat, .5):6.1f} ms  "
                          f"p99 {pct(lat, .99):6.1f} ms  server CPU {cpu_ms:.3f} ms/req  errors {errors}{split}")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    med = {m: [statistics.median(x[i] for x in rows[m]) for i in range(3)] for m in rows}
    b, v = med["bare"], med["review"]
    # each round's review next to the bare run just before it: steadier on a shared machine
    per_round = [(rv[0] / rb[0], rv[2] / rb[2]) for rb, rv in zip(rows["bare"], rows["review"], strict=True)]
    print(f"median bare  : {b[0]:.0f} req/s, p50 {b[1]:.1f} ms, p99 {b[2]:.1f} ms")
    print(f"median review: {v[0]:.0f} req/s, p50 {v[1]:.1f} ms, p99 {v[2]:.1f} ms "
          f"(GET next + POST review, {args.clients} clients)")
    print(f"ratio: {v[0] / b[0]:.2f}x bare req/s (aim >= 0.5), p99 {v[2] / b[2]:.2f}x bare p99 (aim <= 2)")
    cb, cv = statistics.median(cpu["bare"]), statistics.median(cpu["review"])
    print(f"server CPU per request (steady under other load): bare {cb:.3f} ms, review {cv:.3f} ms "
          f"({cv / cb:.1f}x; 0.5x the req/s needs about 2x)")
    print(f"median of per-round ratios: {statistics.median(x[0] for x in per_round):.2f}x req/s, "
          f"p99 {statistics.median(x[1] for x in per_round):.2f}x")


if __name__ == "__main__":
    main()
