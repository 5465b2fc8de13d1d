"""``/api/graph``: the deck's cards and the links between them."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from app.api.deps import SessionDep
from app.api.fastjson import FastJSON
from app.cards.link_graph import graph_data
from app.schemas.cards import GraphPublic

router = APIRouter(prefix="/api/graph", tags=["graph"])


@router.get("", response_model=GraphPublic)
def read_graph(session: SessionDep) -> Response:
    """Nodes are live cards; edges are links resolved by slug or by title; the rest are ``dangling``
    (written straight as JSON: the dicts have :class:`GraphPublic`'s shape, which a test holds them to)."""
    return FastJSON(graph_data(session))
