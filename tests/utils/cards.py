"""Card factories: ``make_card(slug, **overrides)`` builds a valid CardDoc; ``write_cards`` writes files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.cards.cardfile import dump_card
from app.cards.schema import CardDoc


def make_card(slug: str, **overrides: Any) -> CardDoc:
    """A small valid card (with a formula in both languages) whose fields ``overrides`` replace."""
    data: dict[str, Any] = {
        "slug": slug,
        "title": {"zh": f"{slug} 中文标题", "en": f"{slug} English title"},
        "module": {"code": "M3", "zh": "深度学习基础", "en": "Deep Learning Foundations"},
        "topic": {"code": "dist", "zh": "分布式训练", "en": "Distributed Training Basics"},
        "difficulty": "medium",
        "tags": ["zero"],
        "sections": {
            "summary": {"zh": "显存 $16\\Psi$ 字节。", "en": "Memory is $16\\Psi$ bytes."},
        },
    }
    data.update(overrides)
    return CardDoc(**data)


def write_cards(folder: Path, *docs: CardDoc) -> Path:
    """Write each card as ``<slug>.md`` into ``folder`` (created if missing); return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for doc in docs:
        (folder / f"{doc.slug}.md").write_text(dump_card(doc), encoding="utf-8")
    return folder
