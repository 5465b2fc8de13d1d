"""What study mode costs the handbook of 1,000 generated cards, and what importing its reviews costs.

    PYTHONPATH=$PWD python bench/handbook_study.py [--cards 1000] [--repeat 3] [--reviews 500]

Export: the handbook without study mode (the baseline, measured in the same run), with the study items,
and with a user's schedule of ``--reviews`` answered items; seconds (median of ``--repeat`` runs taken in
turn, render caches cleared before each) and megabytes, each with its ratio to the baseline. Import: a reviews file of
``--reviews`` answers, as the page writes it, imported into a fresh copy of the database
(``import_handbook_reviews``), against the same answers sent through the engine's group commit
(``grade_batch``, what POST /api/review does) as the baseline.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlmodel import Session, select  # noqa: E402

from app.auth.users import create_user  # noqa: E402
from app.cards.cardfile import dump_card  # noqa: E402
from app.core.db import make_engine  # noqa: E402
from app.deck.sync import sync_cards  # noqa: E402
from app.export.deck import load_docs, load_verdicts  # noqa: E402
from app.export.handbook import render_handbook  # noqa: E402
from app.items.handbook_reviews import read_reviews_file  # noqa: E402
from app.items.items import drill_faces, faces  # noqa: E402
from app.models.migrate import init_db  # noqa: E402
from app.models.review import ReviewItem  # noqa: E402
from app.models.user import User  # noqa: E402
from app.render.markdown import render_markdown  # noqa: E402
from app.render.math import tex_to_mathml  # noqa: E402
from app.review.engine import ReviewEngine  # noqa: E402
from app.review.grading import Answer, grade_batch  # noqa: E402
from app.review.handbook_import import import_handbook_reviews  # noqa: E402
from app.review.study_snapshot import handbook_study  # noqa: E402
from harness.deck import make_deck  # noqa: E402

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)


def median(fn: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None) -> float:
    times = []
    for _ in range(repeat):
        render_markdown.cache_clear()
        tex_to_mathml.cache_clear()
        faces.cache_clear()
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reviews", type=int, default=500)
    args = parser.parse_args()
    _ = drill_faces  # its renders go through render_markdown, cleared above

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cards = tmp / "cards"
        cards.mkdir()
        for doc in make_deck(args.cards, hostile=False):
            (cards / f"{doc.slug}.md").write_text(dump_card(doc), encoding="utf-8")
        db_path = tmp / "bench.db"
        engine = make_engine(f"sqlite:///{db_path}")
        init_db(engine)
        sync_cards(engine, cards)
        with Session(engine) as s, s.begin():
            create_user(s, "ada")
        review = ReviewEngine(engine)
        with Session(engine) as s:
            docs, verdicts = load_docs(s), load_verdicts(s)
            user = s.exec(select(User).where(User.username == "ada")).one()
            item_ids = list(s.exec(select(ReviewItem.id).order_by(ReviewItem.position)).all())[:args.reviews]
        uid = user.id
        assert uid is not None
        answers = [Answer(user_id=uid, item_id=i, now=T0, rating=3, fuzz=False) for i in item_ids]
        grade_batch(engine, answers)  # the user's schedule the handbook carries
        data = handbook_study(review, docs, user, T0 + timedelta(hours=1)).data
        kinds = {it[1] for it in data["items"]}
        out: dict[str, int] = {}

        def export(name: str, study: bool, with_user: bool) -> Callable[[], object]:
            def run() -> None:
                deck = handbook_study(review, docs, user if with_user else None, T0) if study else None
                out[name] = len(render_handbook(docs, verdicts, study=deck).encode())
            return run

        rows = [("handbook, no study mode (baseline)", False, False), ("with study items", True, False),
                (f"with study items and {len(item_ids)} states", True, True)]
        # interleaved (A B C A B C ...): a change in the machine's load meets every row alike
        runs: dict[str, list[float]] = {name: [] for name, _s, _m in rows}
        for _ in range(args.repeat):
            for name, study, mine in rows:
                runs[name].append(median(export(name, study, mine), 1))
        export_s = {name: statistics.median(times) for name, times in runs.items()}

        # import: the same answers a day later, as the page writes them
        listed = [[data["cards"][it[0]], *it[1:]] for it in data["items"]]
        entries = [{"id": str(uuid.uuid4()), "item": "/".join(it[:3]), "fp": it[4],
                    "at": (T0 + timedelta(days=2)).isoformat(), "duration_ms": 1000, "rating": 3}
                   for it in listed if it[1] != "drill"][:args.reviews]
        text = json.dumps({"format": "proofdeck-handbook-reviews", "version": 1, "deck": data["deck"],
                           "export": data["export"], "user": data["user"], "reviews": entries})
        base_db = tmp / "base.db"
        engine.dispose()
        shutil.copy(db_path, base_db)

        def fresh() -> None:
            engine.dispose()
            shutil.copy(base_db, db_path)

        later = [Answer(user_id=uid, item_id=i, now=T0 + timedelta(days=2), rating=3, fuzz=False, key=f"k{n}")
                 for n, i in enumerate(item_ids)]
        posted = median(lambda: grade_batch(engine, later), args.repeat, fresh)
        imported = median(lambda: import_handbook_reviews(ReviewEngine(engine), user, read_reviews_file(text)),
                          args.repeat, fresh)
        engine.dispose()

    base_s, base_b = export_s[rows[0][0]], out[rows[0][0]]
    print(f"{args.cards} cards, {len(data['items'])} review items ({', '.join(sorted(kinds))}); median of "
          f"{args.repeat} runs, render caches cleared per run")
    print(f"{'handbook export':44} {'seconds':>8} {'x base':>7} {'MB':>7} {'x base':>7}")
    for name, _study, _mine in rows:
        print(f"{name:44} {export_s[name]:8.3f} {export_s[name] / base_s:7.2f} {out[name] / 1e6:7.2f} "
              f"{out[name] / base_b:7.2f}")
    print(f"import of {len(entries)} reviews: {imported:.3f} s; the same answers through grade_batch (POST "
          f"/api/review's path, the baseline): {posted:.3f} s; ratio {imported / posted:.2f}")


if __name__ == "__main__":
    main()
