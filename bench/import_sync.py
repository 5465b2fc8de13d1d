"""Import + sync throughput: 1,000 generated raw bank cards → card files → a fresh SQLite database.

    PYTHONPATH=$PWD python bench/import_sync.py [--cards 1000] [--runs 3]

Prints cards/s (medians over the runs) for import, the judging ``proofdeck import`` does after it, and sync,
next to baselines measured in the same run on the same files: a plain copy (reading every raw file and writing
it back out), and that plus ``yaml.safe_load`` of every card file's front matter (the least any importer + sync
must do).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from app.cards.bank_import import import_paths, judge_imported
from app.core.db import make_engine
from app.deck.sync import sync_cards
from app.models.migrate import init_db

MODULES = [("M1", "数学统计", "Math & Statistics"), ("M3", "深度学习基础", "Deep Learning Foundations"),
           ("M5", "大语言模型", "Large Language Models"), ("M7", "推荐系统", "Recommender Systems")]
TOPICS = [("分布式训练", "Distributed Training Basics"), ("优化器", "Optimizers"), ("注意力机制", "Attention"),
          ("量化", "Quantization"), ("推理服务", "Inference Serving")]
ZH = ["显存账本决定了能训练多大的模型", "通信量随分片阶段增加", "优化器状态是显存大头", "激活可以重计算",
      "带宽是多机训练的瓶颈", "混合精度需要 master 权重", "流水线气泡随微批次减少", "张量并行切分层内矩阵"]
EN = ["memory accounting decides the largest trainable model", "communication grows with the sharding stage",
      "optimizer states dominate memory", "activations can be recomputed", "bandwidth bounds multi-node training",
      "mixed precision keeps fp32 master weights", "pipeline bubbles shrink with more micro-batches",
      "tensor parallelism splits matrices inside a layer"]
# formulas as the export writes them: backslashes lost
MATH = ["$4times$", "$Psi$", "$frac{12Psi}{N}$", "$2Psi + 2Psi + 12Psi = 16Psi$", "$P_{text{os+g}}$",
        "$O(N log N)$", "$alpha cdot beta$", "$sqrt{d_k}$", "$frac{(N-1)}{N} cdot 2Psi$", "$1.5times$"]


def raw_card(i: int, rng: random.Random) -> str:
    code, mzh, men = MODULES[i % len(MODULES)]
    tzh, ten = TOPICS[rng.randrange(len(TOPICS))]
    level = ("Easy", "Medium", "Hard")[i % 3]

    def zh(n: int) -> str:
        return "，".join(rng.choice(ZH) + (f" {rng.choice(MATH)}" if rng.random() < 0.4 else "")
                        for _ in range(n)) + "。"

    def en(n: int) -> str:
        return "; ".join(rng.choice(EN) + (f" {rng.choice(MATH)}" if rng.random() < 0.4 else "")
                         for _ in range(n)) + "."

    k = rng.randint(2, 6)
    lines = [
        "所属模块：", f"{code} · {mzh} ({men})| 专题分类：{tzh} ({ten})| 难度等级：{level}",
        "一、核心一句话结论 (One-Sentence Summary)", zh(2), f"Card {i}: " + en(2),
        "二、核心考点要义 (Key Insights)", *[f"- 📌 {zh(rng.randint(1, 3))}" for _ in range(k)],
        "English Insights:", *[f"– {en(rng.randint(1, 3))}" for _ in range(k)],
        "三、核心数学原理与机理推导 (Mathematical Principles & Derivation)",
        "$$text{ZeRO-1}: text{shard optimizer};quad text{ZeRO-3}: frac{16Psi}{N}$$",
        "数学机理：" + zh(rng.randint(5, 25)), "📖 查看英文严格数学推导 (English Mathematical Derivation)",
        *[f"– {en(rng.randint(2, 6))}" for _ in range(rng.randint(2, 5))], en(rng.randint(3, 12)),
        "四、工业级落地权衡与工程考量 (Industrial Trade-offs)", "深度剖析与工程权衡：" + zh(rng.randint(5, 30)),
        "⚙️ 查看英文落地权衡分析 (English Systems & Trade-offs)", en(rng.randint(3, 15)),
        "五、常见面试避坑陷阱 (Common Pitfalls & Traps)", *[f"- ⚠️ {zh(1)}" for _ in range(2)],
        "English Pitfalls:", *[f"– {en(1)}" for _ in range(2)],
        "六、高频深度面试追问与预测 (Follow-Up Questions)",
        *[f"- {zh(1)[:-1]}？" if j % 2 == 0 else f"- Why {en(1)[:-1]}?" for j in range(rng.randint(2, 5))],
        "七、知识图谱对齐 (Knowledge Graph Anchor)", "- 🔗 关联底层卡片：",
        f"卡片 {(i + 1) % 1000}：{rng.choice(ZH)}(Card {(i + 1) % 1000}: {rng.choice(EN)}) - 🗺️ 知识图谱模块：",
        "AI 基础设施工程导图", "🔬 算法科学家与机器学习深度考察全量题库 (Science Depth)", "本题收录于某题库。",
    ]
    return "\n".join(lines) + "\n"


CPU: dict[str, list[float]] = {"baseline": [], "import": [], "judge": [], "sync": []}


def forget_caches() -> None:
    """Clear every cache of app/ and verify/ (the judges cache by text): each run judges as a first one does."""
    for name, module in list(sys.modules.items()):
        if name.startswith(("app.", "verify.")):
            for obj in list(vars(module).values()):
                if callable(getattr(obj, "cache_clear", None)):
                    obj.cache_clear()


def timed(fn, kind: str = "") -> float:  # type: ignore[no-untyped-def]
    """Wall seconds of ``fn()``; its CPU seconds go to ``CPU[kind]`` (robust on a busy machine)."""
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    if kind:
        CPU[kind].append(time.process_time() - cpu)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    n = args.cards
    rng = random.Random(20261129)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        raw = root / "raw"
        raw.mkdir()
        for i in range(n):
            (raw / f"{i:04d}_{rng.getrandbits(32):08x}.txt").write_text(raw_card(i, rng), encoding="utf-8")
        raw_bytes = sum(p.stat().st_size for p in raw.iterdir())
        copy_t, base_t, imp_t, judge_t, sync_t = [], [], [], [], []
        for run in range(args.runs):
            copy_dir, out, db = root / f"copy{run}", root / f"cards{run}", root / f"db{run}.sqlite"
            copy_dir.mkdir()
            forget_caches()

            def baseline(copy_dir: Path = copy_dir, out: Path = out) -> None:
                for p in sorted(raw.iterdir()):
                    (copy_dir / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")

            copy_t.append(timed(baseline, "baseline"))
            base_t.append(copy_t[-1])
            report = None

            def do_import(out: Path = out) -> None:
                nonlocal report
                report = import_paths([raw], out)

            imp_t.append(timed(do_import, "import"))
            assert report is not None and report.ok and len(report.imported) == n, report and report.failed[:3]
            judge_t.append(timed(lambda report=report: judge_imported(report), "judge"))
            cpu_before = time.process_time()
            yaml_t = timed(lambda out=out: [yaml.safe_load(p.read_text(encoding="utf-8").split("\n---\n")[0][4:])
                                            for p in sorted(out.glob("*.md"))])
            base_t[-1] += yaml_t
            CPU["baseline"][-1] += time.process_time() - cpu_before
            engine = make_engine(f"sqlite:///{db}")
            init_db(engine)
            sync_report = None

            def do_sync(out: Path = out, engine=engine) -> None:  # type: ignore[no-untyped-def]
                nonlocal sync_report
                sync_report = sync_cards(engine, out)

            sync_t.append(timed(do_sync, "sync"))
            assert sync_report is not None and len(sync_report.added) == n
            assert not sync_report.math_fallbacks, sync_report.math_fallbacks[:3]
            engine.dispose()
            print(f"run {run + 1}: baseline {base_t[-1]:.2f} s, import {imp_t[-1]:.2f} s, judge {judge_t[-1]:.2f} s, "
                  f"sync {sync_t[-1]:.2f} s", flush=True)
    c, b, i_, j, s = (statistics.median(x) for x in (copy_t, base_t, imp_t, judge_t, sync_t))
    print(f"{n} raw cards, {raw_bytes / 1e6:.1f} MB, medians of {args.runs} runs:")
    rows = [("plain copy: read+write raw files", c),
            ("baseline: plain copy + yaml.safe_load of front matter", b),
            ("import --no-judge (raw -> card files)", i_), ("judging the written cards", j),
            ("import (raw -> card files, judged)", i_ + j), ("sync (card files -> fresh SQLite file)", s),
            ("import + sync", i_ + j + s)]
    for label, seconds in rows:
        print(f"  {label:<56} {n / seconds:7.0f} cards/s  {seconds:6.2f} s  ({seconds / c:6.2f}x plain copy, "
              f"{seconds / b:6.2f}x baseline)")
    cb, ci, cs = (statistics.median(CPU[k]) for k in ("baseline", "import", "sync"))
    print(f"  CPU seconds (medians): baseline {cb:.2f}, import {ci:.2f}, sync {cs:.2f}, "
          f"import + sync {ci + cs:.2f} ({(ci + cs) / cb:.2f}x baseline)")
    print(f"  aims: import <= 5x a plain copy -> {'met' if i_ <= 5 * c else 'NOT met'} ({i_ / c:.1f}x; judged "
          f"{(i_ + j) / c:.1f}x); a fresh sync <= 60 s -> {'met' if s * 1000 / n <= 60 else 'NOT met'} ({s:.1f} s)")

if __name__ == "__main__":
    main()
