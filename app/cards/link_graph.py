"""The deck as a graph (``/api/graph``, the ``/graph`` page): live cards as nodes, links that resolve as edges,
the rest ``dangling`` (a link to a card not in the deck yet, kept visible as pending).

Built from plain column rows into plain dicts (the shape of :class:`app.schemas.cards.GraphPublic`): at a
thousand cards, ORM objects and a pydantic model per node and link made ``/api/graph`` 21× ``/healthz``.
A link resolves by the target's slug, else by its zh or en title (:func:`app.cards.catalog.resolve_target`):
a bank card names the cards it builds on by title, in either language.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select as core_select
from sqlmodel import Session, col

from app.cards.catalog import ORDER, resolve_target, title_index
from app.models.card import Card, CardLink

NODE_COLUMNS = ("id", "slug", "title_zh", "title_en", "module_code", "module_zh", "module_en", "topic_code",
                "topic_zh", "topic_en")


def graph_data(session: Session) -> dict[str, list[dict[str, Any]]]:
    """``{"nodes": [...], "edges": [...], "dangling": [...]}`` of the live cards, in module, topic, slug order."""
    live = col(Card.retired).is_(False)
    slugs, titles = title_index(session)
    db = session.connection()
    cards = db.execute(core_select(*(col(getattr(Card, name)) for name in NODE_COLUMNS))
                       .where(live).order_by(*ORDER)).all()
    slug_by_id = {c[0]: c[1] for c in cards}
    nodes = [{"slug": slug, "title": {"zh": t_zh, "en": t_en}, "module": {"zh": m_zh, "en": m_en, "code": m_code},
              "topic": {"zh": p_zh, "en": p_en, "code": p_code}}
             for _, slug, t_zh, t_en, m_code, m_zh, m_en, p_code, p_zh, p_en in cards]
    links = db.execute(core_select(col(CardLink.card_id), col(CardLink.position), col(CardLink.target_slug),
                                   col(CardLink.target_title_zh), col(CardLink.target_title_en))
                       .join(Card, col(Card.id) == col(CardLink.card_id)).where(live)).all()
    edges: list[dict[str, Any]] = []
    dangling: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for card_id, _, target_slug, zh, en in sorted(links, key=lambda lk: (slug_by_id[lk[0]], lk[1])):
        source = slug_by_id[card_id]
        target = resolve_target(target_slug, zh, en, slugs, titles)
        if target is None:
            dangling.append({"source": source, "slug": target_slug, "title": {"zh": zh, "en": en}})
        elif (source, target) not in seen:
            seen.add((source, target))
            edges.append({"source": source, "target": target})
    return {"nodes": nodes, "edges": edges, "dangling": dangling}
