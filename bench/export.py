"""Export 1,000 generated cards to all three formats; print seconds (median of 3), sizes and ratios.

    PYTHONPATH=$PWD python bench/export.py [--cards 1000] [--repeat 3]

The deck is synced into a temporary SQLite database and read back as ``proofdeck export`` does; each
export (build the output from the loaded deck, write the file) is timed with the caches of rendered
Markdown/MathML cleared before every run. Baselines in the same run: ``json.dumps`` of the same deck
(the ratio column) and reading the deck from the database (added in the ``+DB read`` column).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlmodel import Session  # noqa: E402

from app.cards.cardfile import dump_card  # noqa: E402
from app.core.db import make_engine  # noqa: E402
from app.deck.sync import sync_cards  # noqa: E402
from app.export.anki import write_package  # noqa: E402
from app.export.deck import load_docs  # noqa: E402
from app.export.handbook import render_handbook  # noqa: E402
from app.export.obsidian import vault_files, vault_zip  # noqa: E402
from app.models.migrate import init_db  # noqa: E402
from app.render.markdown import render_markdown  # noqa: E402
from app.render.math import _between_zeros, shape_mathml, tex_to_mathml  # noqa: E402
from harness.deck import make_deck  # noqa: E402

CPU: dict[str, float] = {}  # name → median CPU seconds (steadier than wall time on a busy machine)


def median_seconds(fn: Callable[[], object], repeat: int, name: str = "") -> float:
    times, cpu = [], []
    for _ in range(repeat):
        render_markdown.cache_clear()
        tex_to_mathml.cache_clear()
        shape_mathml.cache_clear()
        _between_zeros.cache_clear()
        start, cpu_start = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
    CPU[name] = statistics.median(cpu)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cards = tmp / "cards"
        cards.mkdir()
        for doc in make_deck(args.cards, hostile=False):
            (cards / f"{doc.slug}.md").write_text(dump_card(doc), encoding="utf-8")
        engine = make_engine(f"sqlite:///{tmp / 'bench.db'}")
        init_db(engine)
        sync_cards(engine, cards)

        def load() -> list:  # type: ignore[type-arg]
            with Session(engine) as session:
                return load_docs(session)

        docs = load()
        items = sum(1 + len(d.follow_ups) for d in docs)
        out = {"HTML handbook": tmp / "handbook.html", "Obsidian zip": tmp / "vault.zip",
               "Anki .apkg": tmp / "deck.apkg"}
        baselines: dict[str, Callable[[], object]] = {
            "read deck from DB": load,
            "json.dumps deck": lambda: json.dumps([d.model_dump(mode="json") for d in docs], ensure_ascii=False),
        }
        exports: dict[str, Callable[[], object]] = {
            "HTML handbook": lambda: out["HTML handbook"].write_text(render_handbook(docs), encoding="utf-8"),
            "Obsidian zip": lambda: out["Obsidian zip"].write_bytes(vault_zip(vault_files(docs))),
            "Anki .apkg": lambda: write_package(docs, out["Anki .apkg"]),
        }
        aims = {"HTML handbook": 3.0, "Obsidian zip": 2.0, "Anki .apkg": 5.0}
        base = {name: median_seconds(fn, args.repeat, name) for name, fn in baselines.items()}
        results = {name: median_seconds(fn, args.repeat, name) for name, fn in exports.items()}
        sizes = {name: path.stat().st_size for name, path in out.items()}
        engine.dispose()

    json_s, db_s = base["json.dumps deck"], base["read deck from DB"]
    print(f"{args.cards} cards, {items} review items; median of {args.repeat} runs, render caches cleared per run")
    print(f"baseline: read deck from DB {db_s:.3f} s, json.dumps of the deck {json_s:.3f} s")
    print(f"{'export (from the loaded deck)':30} {'seconds':>8} {'x json':>7} {'+DB read':>9} {'aim':>6} {'MB':>6}")
    for name, seconds in results.items():
        size = sizes[name] / 1e6
        aim = f"< {aims[name]:.0f} s"
        print(f"{name:30} {seconds:8.3f} {seconds / json_s:7.1f} {seconds + db_s:9.3f} {aim:>6} {size:6.2f}")
    json_cpu = CPU["json.dumps deck"]
    print(f"CPU seconds (medians): json.dumps {json_cpu:.3f}, "
          + ", ".join(f"{name} {CPU[name]:.3f} ({CPU[name] / json_cpu:.1f}x)" for name in results))


if __name__ == "__main__":
    main()
