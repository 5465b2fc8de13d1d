"""Card factory for the review tests: small bilingual cards, optionally with ZeRO drills."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.cards.cardfile import dump_card
from app.cards.schema import CardDoc


def make_card(slug: str, *, follow_ups: int = 1, pitfalls: tuple[int, int] = (1, 1), drills: bool = False,
              links: tuple[str, ...] = (), **overrides: Any) -> CardDoc:
    """A valid card: title, summary, insights, ``follow_ups`` follow-ups, (zh, en) pitfall bullets."""
    n = slug.replace("-", " ")
    data: dict[str, Any] = {
        "slug": slug,
        "title": {"zh": f"{n} 中文标题", "en": f"{n} title"},
        "sections": {
            "summary": {"zh": f"{n} 的结论：$2\\Psi$ 字节。", "en": f"Summary of {n}: $2\\Psi$ bytes."},
            "insights": {"zh": f"- {n} 要点", "en": f"- insight about {n}"},
            "tradeoffs": {"zh": "带宽与显存的权衡。", "en": "Bandwidth against memory."},
        },
        "follow_ups": [{"id": f"q{i}", "question": {"zh": f"追问 {i}？", "en": f"Follow-up {i} of {n}?"},
                        "answer": {"zh": f"答案 {i}", "en": f"Answer {i}"}} for i in range(1, follow_ups + 1)],
        "links": [{"slug": s} for s in links],
        "claims": [{"id": "memory-ledger", "text": {"en": "ZeRO-3 keeps 16Ψ/N bytes"},
                    "asserts": "model_state_bytes(zero3) == 16*Psi/N"}]
        if drills else [],
    }
    zh_n, en_n = pitfalls
    if zh_n or en_n:
        data["sections"]["pitfalls"] = {"zh": "\n".join(f"- 以为 {n} 免费 {i}" for i in range(1, zh_n + 1)),
                                        "en": "\n".join(f"- Assuming {n} is free {i}" for i in range(1, en_n + 1))}
    data.update(overrides)
    return CardDoc.model_validate(data)


def write_deck(folder: Path, cards: list[CardDoc]) -> Path:
    """Write ``cards`` as card files into ``folder`` (created); returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for card in cards:
        (folder / f"{card.slug}.md").write_text(dump_card(card), encoding="utf-8")
    return folder


def small_deck(folder: Path) -> Path:
    """Three cards: one with drills, two plain ones linked from it."""
    return write_deck(folder, [
        make_card("zero-sharding", follow_ups=2, drills=True, links=("ring-allreduce", "not-yet-a-card")),
        make_card("ring-allreduce"),
        make_card("mixed-precision", pitfalls=(0, 2)),
    ])


def new_user_id(engine: Any, name: str) -> int:
    """Create a learner and return its id (the token is not needed by tests that call app.srs directly)."""
    from sqlmodel import Session

    from app.auth.users import create_user

    with Session(engine) as s, s.begin():
        user, _token = create_user(s, name)
        s.flush()
        assert user.id is not None
        return user.id
