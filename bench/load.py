"""The concurrent-review load on SQLite (WAL) and on PostgreSQL, next to GET /healthz in the same run.

    PYTHONPATH=$PWD python bench/load.py [--seconds 30] [--rounds 3] [--clients 16] [--backend both]
                                         [--workers 1,2]

For each database: a generated deck (2,400 cards, 14,400 review items: enough that no client runs out
within 30 s), fresh users for each round (two clients per user answering disjoint halves of the deck),
one real uvicorn per worker count in ``--workers`` (``--workers N``, access log off), on the same deck.
What is compared: the review engine's write path, ``POST /api/review`` (route → ``ReviewEngine.answer``
→ group commit → grading → one transaction), against the baseline ``GET /healthz`` (a plain route: the
same uvicorn, the same clients and keep-alive connections, no database). Each round drives ``--clients``
connections (harness/load.py) at both, back to back, in alternating order (healthz first in odd rounds,
review first in even ones, so a drift of the machine's load does not favour either); the review load
sends a fresh Idempotency-Key per answer. A round's ratio is engine / baseline of that round (req/s and
p99), and the summary gives the median over rounds of those paired ratios, with the median req/s and
latencies of each side; also acknowledged answers against rows stored in the review log, 5xx and
"database is locked".
After the rounds it asks every worker process (new connections until each pid has answered) for each
user's stored reviews, due count and new items left (the last two from that worker's in-memory queue):
they must agree across workers, and the reviews must add up to the rows stored.
PostgreSQL is a private cluster (scripts/with-postgres.sh: loopback only, stopped and deleted after).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.review.queue import CHECK_SECONDS  # noqa: E402
from harness.load import build_deck, counts_through_workers, reviewers, run_load, stored_keys  # noqa: E402
from harness.server import free_port, spawn_uvicorn, stop, wait_healthy  # noqa: E402

CARDS = 2400
PER_USER = 2


def measure(backend: str, seconds: float, rounds: int, clients: int, workers: list[int]) -> list[dict[str, Any]]:
    from harness.db import fresh_database_url

    users_per_round = clients // PER_USER
    out: list[dict[str, Any]] = []
    rows_before = 0
    with tempfile.TemporaryDirectory() as tmp, fresh_database_url(Path(tmp)) as url:
        cards = Path(tmp) / "cards"
        tokens, items = build_deck(cards, url, cards=CARDS, users=users_per_round * rounds * len(workers))
        for w_index, n_workers in enumerate(workers):
            first_user = w_index * users_per_round * rounds
            port = free_port()
            log_path = Path(tmp) / f"server{n_workers}.log"
            rows: dict[str, list[tuple[float, float, float]]] = {"healthz": [], "review": []}
            acked: set[tuple[str, str]] = set()
            errors = {"5xx": 0, "other": 0, "locked": 0, "exhausted": 0}
            label = f"{backend} x{n_workers}"
            mine_all: dict[str, str] = {}
            with log_path.open("wb") as log:
                # keep-alive 60 s: the per-worker count check holds one idle connection per worker
                proc = spawn_uvicorn(url, cards, port, output=log, workers=n_workers,
                                     env={"PROOFDECK_SYNC_ON_STARTUP": "false"},
                                     extra_args=("--no-access-log", "--timeout-keep-alive", "60"))
                try:
                    wait_healthy(proc, f"http://127.0.0.1:{port}", timeout=300)  # a hang detector (slow when loaded)
                    run_load(port, reviewers(tokens, items, PER_USER)[:clients], 1.0, "healthz")  # warm-up
                    for r in range(rounds):
                        lo = first_user + r * users_per_round
                        mine = {u: t for u, t in tokens.items() if lo <= int(u[1:]) < lo + users_per_round}
                        mine_all.update(mine)
                        group = reviewers(mine, items, PER_USER, seed=r)
                        for mode in (("healthz", "review") if r % 2 == 0 else ("review", "healthz")):
                            res = run_load(port, group, seconds, mode)
                            rows[mode].append((res.rps, res.pct(0.5), res.pct(0.99)))
                            errors["5xx"] += res.server_errors
                            errors["other"] += sum(n for c, n in res.statuses.items()
                                                   if not 200 <= c < 300 and c < 500)  # 4xx, dropped connections
                            errors["locked"] += res.locked_bodies
                            errors["exhausted"] += res.exhausted
                            acked |= res.acked
                            what = "baseline GET /healthz" if mode == "healthz" else "engine POST /api/review"
                            print(f"{label:>14} round {r + 1} {what:>23}: {res.rps:6.0f} req/s  "
                                  f"p50 {res.pct(0.5):6.1f} ms  p99 {res.pct(0.99):6.1f} ms  "
                                  f"statuses {dict(res.statuses)}", flush=True)
                            for failure in res.failures[:3]:
                                print(f"{'':>14}   {failure}", flush=True)
                        (b_rps, _b50, b99), (e_rps, _e50, e99) = rows["healthz"][-1], rows["review"][-1]
                        print(f"{label:>14} round {r + 1} engine / baseline: req/s x{e_rps / b_rps:.2f}  "
                              f"p99 x{e99 / b99:.2f}", flush=True)
                    time.sleep(2 * CHECK_SECONDS)  # every worker's queue is due a check against the change clock
                    seen = counts_through_workers(port, mine_all, n_workers)
                finally:
                    stop(proc)
            stored, keys = stored_keys(url)
            stored, rows_before = stored - rows_before, stored  # rows this worker count's users added
            mine_keys = {k for k in keys if k[0] in mine_all}
            errors["locked"] += log_path.read_text(errors="replace").count("database is locked")
            views = list(seen.values())
            for user in sorted(mine_all):
                if len({v.get(user) for v in views}) > 1:
                    print(f"{label:>14} workers disagree on {user} (reviews, due, new left): "
                          f"{ {pid: v.get(user) for pid, v in seen.items()} }", flush=True)
            med = {m: [statistics.median(x[i] for x in rows[m]) for i in range(3)] for m in rows}
            paired = list(zip(rows["healthz"], rows["review"], strict=True))
            ratios = {"rps": [e[0] / b[0] for b, e in paired], "p99": [e[2] / b[2] for b, e in paired]}
            out.append({"backend": backend, "workers": n_workers, "healthz": med["healthz"], "review": med["review"],
                        "ratio_rps": statistics.median(ratios["rps"]), "ratio_p99": statistics.median(ratios["p99"]),
                        "ratio_rps_range": [min(ratios["rps"]), max(ratios["rps"])],
                        "acked": len(acked), "stored": stored, "same_keys": mine_keys == acked,
                        "workers_seen": len(seen),
                        "workers_agree": len(seen) == n_workers and all(v == views[0] for v in views),
                        "worker_reviews": sum(c[0] for c in views[0].values()) if views else -1, **errors})
    return out


def summary(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(f"\nengine = POST /api/review (ReviewEngine.answer, group commit) vs baseline = GET /healthz (no "
          f"database), same server and {args.clients} clients, measured back to back in each of {args.rounds} "
          f"rounds of {args.seconds:g} s (order alternating); medians over the rounds, x = median of the rounds' "
          "engine / baseline ratios [lowest-highest round]")
    print(f"{'backend':>14} | {'healthz req/s':>13} {'p50':>6} {'p99':>6} | {'review req/s':>12} {'p50':>6} "
          f"{'p99':>6} | {'x req/s':>17} {'x p99':>6} | {'acked':>6} {'stored':>6} {'5xx':>4} {'other':>5} "
          f"{'locked':>6} | {'workers agree':>13}")
    for r in results:
        b, v = r["healthz"], r["review"]
        ok = r["workers_agree"] and r["worker_reviews"] == r["stored"]
        agree = f"{r['workers_seen']}/{r['workers']} " + ("yes" if ok else "NO")
        name = f"{r['backend']} x{r['workers']}"
        lo, hi = r["ratio_rps_range"]
        x_rps = f"{r['ratio_rps']:.2f} [{lo:.2f}-{hi:.2f}]"
        print(f"{name:>14} | {b[0]:13.0f} {b[1]:6.1f} {b[2]:6.1f} | {v[0]:12.0f} {v[1]:6.1f} {v[2]:6.1f} | "
              f"{x_rps:>17} {r['ratio_p99']:6.2f} | {r['acked']:6d} {r['stored']:6d} {r['5xx']:4d} "
              f"{r['other']:5d} {r['locked']:6d} | {agree:>13}" + ("" if r["same_keys"] else "  KEYS DIFFER")
              + (f"  ({r['exhausted']} clients ran out of items)" if r["exhausted"] else ""))
    print("latencies in ms; x req/s > 1: the engine path serves more requests a second than the baseline; "
          "workers agree: every worker process served each user the same stored reviews, due count and new "
          "items left, and the reviews add up to the rows stored")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--backend", choices=("both", "sqlite", "postgresql"), default="both")
    ap.add_argument("--workers", default="1", help="uvicorn worker counts to measure, comma-separated (1,2)")
    ap.add_argument("--json", help=argparse.SUPPRESS)  # where a child run under with-postgres.sh writes
    args = ap.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    results: list[dict[str, Any]] = []
    if args.backend in ("both", "sqlite"):
        os.environ.pop("PROOFDECK_TEST_POSTGRES_URL", None)
        results += measure("sqlite", args.seconds, args.rounds, args.clients, workers)
    if args.backend == "postgresql" and os.environ.get("PROOFDECK_TEST_POSTGRES_URL"):
        out = measure("postgresql", args.seconds, args.rounds, args.clients, workers)
        if args.json:  # a child of the "both" run: the parent prints the summary
            Path(args.json).write_text(json.dumps(out))
            return
        results += out
    elif args.backend in ("both", "postgresql"):
        with tempfile.TemporaryDirectory() as tmp:
            child = Path(tmp) / "pg.json"
            subprocess.run([str(ROOT / "scripts" / "with-postgres.sh"), sys.executable, __file__, "--backend",
                            "postgresql", "--seconds", str(args.seconds), "--rounds", str(args.rounds),
                            "--clients", str(args.clients), "--workers", args.workers, "--json", str(child)],
                           check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            results += json.loads(child.read_text())
    summary(results, args)
    if any(r["acked"] != r["stored"] or r["5xx"] or r["other"] or r["locked"] or not r["same_keys"]
           or not r["workers_agree"] or r["worker_reviews"] != r["stored"] for r in results):
        sys.exit("acknowledged and stored reviews differ, workers disagree, or a 5xx / failed request / "
                 "'database is locked' was seen")


if __name__ == "__main__":
    main()
