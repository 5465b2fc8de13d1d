"""Generated decks of linked, bilingual cards (for sync, crash and load tests)."""

from __future__ import annotations

import random
from pathlib import Path

from app.cards.cardfile import dump_card
from app.cards.schema import CardDoc, Claim, FollowUp, Label, LangText, Link

MODULES = [("M1", "数学统计", "Math & Statistics"), ("M3", "深度学习基础", "Deep Learning Foundations"),
           ("M5", "大语言模型", "Large Language Models")]
TOPICS = [("分布式训练", "Distributed Training"), ("优化器", "Optimizers"), ("注意力", "Attention")]


def generated_card(i: int, n: int, *, version: int = 0, seed: int = 0) -> CardDoc:
    """Card ``i`` of a deck of ``n``; ``version`` changes the text (an edit), not the slug."""
    rng = random.Random(seed * 1_000_003 + i)
    code, mzh, men = MODULES[i % len(MODULES)]
    tzh, ten = TOPICS[(i // 3) % len(TOPICS)]
    body_zh = (f"第 {i} 张卡片（版本 {version}）：优化器状态占 $12\\Psi$ 字节，参数 $2\\Psi$。"
               + "说明。" * rng.randint(5, 40))
    body_en = (f"Card {i} (version {version}): optimizer states take $12\\Psi$ bytes of $16\\Psi$. "
               + "Detail sentence. " * rng.randint(5, 40))
    sections = {key: LangText(zh=f"{body_zh}\n\n- 要点 {key}", en=f"{body_en}\n\n- point {key}")
                for key in ("summary", "insights", "derivation", "tradeoffs", "pitfalls")}
    sections["derivation"] = LangText(zh=body_zh + "\n\n$$\\frac{12\\Psi}{N}$$",
                                      en=body_en + "\n\n$$2\\Psi + 2\\Psi + \\frac{12\\Psi}{N}$$")
    links = [Link(slug=f"card-{(i + d) % n:04d}") for d in (1, 7) if n > 1]
    return CardDoc(
        slug=f"card-{i:04d}",
        title=LangText(zh=f"卡片 {i}：显存账本", en=f"Card {i}: the memory ledger"),
        module=Label(code=code, zh=mzh, en=men), topic=Label(zh=tzh, en=ten),
        difficulty=("easy", "medium", "hard")[i % 3], tags=["generated", f"group-{i % 10}"],
        sections=sections,
        follow_ups=[FollowUp(id=f"fu-{k}", question=LangText(zh=f"问题 {k}？", en=f"Question {k}?"),
                             answer=LangText(zh=f"答案 {k}，版本 {version}", en=f"Answer {k}, version {version}"))
                    for k in range(3)],
        links=links,
        claims=[Claim(id="ledger", text=LangText(en="16 bytes per parameter"),
                      asserts="model_state_bytes(ddp) == 16*Psi")],
    )


def write_deck(folder: Path, n: int, *, version: int = 0) -> list[CardDoc]:
    folder.mkdir(parents=True, exist_ok=True)
    docs = [generated_card(i, n, version=version) for i in range(n)]
    for doc in docs:
        (folder / f"{doc.slug}.md").write_text(dump_card(doc), encoding="utf-8")
    return docs
