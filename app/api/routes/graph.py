"""``/api/graph``: the deck's cards and the links between them."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import SessionDep
from app.cards.catalog import link_graph
from app.schemas.cards import GraphPublic

router = APIRouter(prefix="/api/graph", tags=["graph"])


@router.get("", response_model=GraphPublic)
def read_graph(session: SessionDep) -> GraphPublic:
    """Nodes are live cards; edges are links resolved by slug or by title; the rest are ``dangling``."""
    return link_graph(session)
