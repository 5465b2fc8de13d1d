"""The deck as a graph (``/api/graph``, the ``/graph`` page): live cards as nodes, links that resolve as edges,
the rest ``dangling`` (a link to a card not in the deck yet, kept visible as pending).

Built from plain column rows into plain dicts (the shape of :class:`app.schemas.cards.GraphPublic`): at a
thousand cards, ORM objects and a pydantic model per node and link made ``/api/graph`` 21× ``/healthz``.
A link resolves by the target's slug, else by its zh or en title (:func:`app.cards.catalog.resolve_target`):
a bank card names the cards it builds on by title, in either language.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from app.cards.catalog import ORDER, resolve_target, title_index
from app.models.card import Card, CardLink


def graph_data(session: Session) -> dict[str, list[dict[str, Any]]]:
    """``{"nodes": [...], "edges": [...], "dangling": [...]}`` of the live cards, in module, topic, slug order."""
    live = col(Card.retired).is_(False)
    slugs, titles = title_index(session)
    cards = session.exec(select(Card.id, Card.slug, Card.title_zh, Card.title_en, Card.module_code, Card.module_zh,
                                Card.module_en, Card.topic_code, Card.topic_zh, Card.topic_en)
                         .where(live).order_by(*ORDER)).all()
    slug_by_id = {c[0]: c[1] for c in cards}
    nodes = [{"slug": slug, "title": {"zh": t_zh, "en": t_en}, "module": {"zh": m_zh, "en": m_en, "code": m_code},
              "topic": {"zh": p_zh, "en": p_en, "code": p_code}}
             for _, slug, t_zh, t_en, m_code, m_zh, m_en, p_code, p_zh, p_en in cards]
    links = session.exec(select(CardLink.card_id, CardLink.position, CardLink.target_slug, CardLink.target_title_zh,
                                CardLink.target_title_en).join(Card, col(Card.id) == col(CardLink.card_id))
                         .where(live)).all()
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
